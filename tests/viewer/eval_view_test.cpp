// The evaluation report in the viewer, offscreen: the model over a known report (checked by
// QAbstractItemModelTester), the view's figures and its Diff buttons, and the report of a real
// evaluation session recorded against the demo's own replay: in front when the window opens on
// it, every column in sight.

#include "widgets/eval_view.hpp"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabBar>
#include <QTableView>
#include <QtTest>

#include "models/diff_model.hpp"
#include "models/eval_report_model.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/main_window.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using viewer::EvalReportModel;

namespace {

/// Two conversations: one that diverges at its third step, one that matches throughout.
replay::EvaluationReport knownReport() {
  replay::EvaluationReport report;
  report.session_id = 4;
  report.steps = 9;
  report.matched = 7;
  report.say_normalised = 1;
  report.contract_violations = 1;
  report.error_candidates = 2;
  replay::EvaluatedConversation diverging;
  diverging.recorded_conversation_id = 3;
  diverging.evaluated_conversation_id = 31;
  diverging.title = "Please press sw1";
  diverging.steps = 6;
  diverging.matched = 4;
  diverging.first_divergent_step = 3;
  diverging.first_difference = "candidate 0: tool call 0 robot \"arm1\" vs \"arm2\"";
  replay::EvaluatedConversation matching;
  matching.recorded_conversation_id = 5;
  matching.evaluated_conversation_id = 52;
  matching.steps = 3;
  matching.matched = 3;
  report.conversations = {diverging, matching};
  return report;
}

QString cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.data(model.index(row, column), role).toString();
}

}  // namespace

class EvalViewTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string db_ = temp_.file("evaluated.sqlite");
  services::EvalRun run_;

 private slots:

  void initTestCase() { run_ = avt::recordAndEvaluateDemo(db_); }

  void theModelListsEachConversationsFigures() {
    EvalReportModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setReport(knownReport());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), static_cast<int>(EvalReportModel::ColumnCount));
    QCOMPARE(cell(model, 0, EvalReportModel::Title), QString("Please press sw1"));
    QCOMPARE(cell(model, 0, EvalReportModel::Steps), QString("6"));
    QCOMPARE(cell(model, 0, EvalReportModel::Matched), QString("4"));
    QCOMPARE(cell(model, 0, EvalReportModel::MatchRate), QString("66.7%"));
    QCOMPARE(cell(model, 0, EvalReportModel::FirstDivergentStep), QString("3"));
    QCOMPARE(cell(model, 0, EvalReportModel::FirstDifference),
             QString("candidate 0: tool call 0 robot \"arm1\" vs \"arm2\""));
    QCOMPARE(model.data(model.index(0, EvalReportModel::Title), Qt::BackgroundRole).value<QColor>(),
             viewer::diffBackground(replay::RowKind::Changed));
    // A conversation without a title is named by its id; one that matched has no divergence.
    QCOMPARE(cell(model, 1, EvalReportModel::Title), QString("conversation 5"));
    QCOMPARE(cell(model, 1, EvalReportModel::MatchRate), QString("100.0%"));
    QCOMPARE(cell(model, 1, EvalReportModel::FirstDivergentStep), QString("-"));
    QCOMPARE(cell(model, 1, EvalReportModel::FirstDifference), QString());
    QVERIFY(!model.data(model.index(1, EvalReportModel::Title), Qt::BackgroundRole).isValid());
    QCOMPARE(cell(model, 1, EvalReportModel::Diff), QString("Diff"));
  }

  void theViewShowsTheFiguresAndItsDiffButtonsAskForTheirPair() {
    viewer::EvalView view;
    view.resize(1200, 400);
    view.setReport(knownReport());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.figures()->text(),
             QString("Match rate: 77.8%   Steps: 9   Matched: 7   Say normalised: 1   "
                     "Contract violations: 1   Error candidates: 2"));

    QSignalSpy requested(&view, &viewer::EvalView::diffRequested);
    QTableView& table = *view.table();
    for (int row : {1, 0}) {
      const QRect button = table.visualRect(view.model()->index(row, EvalReportModel::Diff));
      QVERIFY(button.isValid());
      QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, button.center());
    }
    QCOMPARE(requested.count(), 2);
    QCOMPARE(requested.at(0).at(0).value<qint64>(), qint64{5});
    QCOMPARE(requested.at(0).at(1).value<qint64>(), qint64{52});
    QCOMPARE(requested.at(1).at(0).value<qint64>(), qint64{3});
    QCOMPARE(requested.at(1).at(1).value<qint64>(), qint64{31});

    // A click elsewhere on a row asks for nothing.
    QTest::mouseClick(table.viewport(), Qt::LeftButton, {},
                      table.visualRect(view.model()->index(0, EvalReportModel::Title)).center());
    QCOMPARE(requested.count(), 2);
  }

  void aRealEvaluationShowsItsReport() {
    const services::EvalRun& run = run_;
    const store::ArchiveReader reader(db_);
    const auto report = replay::evaluationReport(reader, run.eval_session_id);
    QVERIFY(report);
    viewer::EvalView view;
    view.setReport(*report);
    const auto steps = static_cast<qint64>(run.steps.size());
    QVERIFY(steps > 10);
    QVERIFY(view.figures()->text().startsWith(
        QString("Match rate: 100.0%   Steps: %1   Matched: %1   ").arg(steps)));
    QCOMPARE(view.model()->rowCount(), static_cast<int>(reader.conversations(1).size()));
    const auto pairs =
        reader.evaluationPairs(view.model()->conversation(0).recorded_conversation_id);
    QCOMPARE(view.model()->conversation(0).evaluated_conversation_id,
             pairs.back().evaluated_conversation_id);

    QSignalSpy requested(&view, &viewer::EvalView::diffRequested);
    view.requestDiff(0);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).value<qint64>(), pairs.back().recorded_conversation_id);
    QCOMPARE(requested.at(0).at(1).value<qint64>(), pairs.back().evaluated_conversation_id);
  }

  void anEvaluationSessionOpensOnItsReportWhichFits() {
    // The window opens on the latest session, the evaluation, at its first size.
    viewer::MainWindow window(QString::fromStdString(db_));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.selectedSession(), std::optional<std::int64_t>(run_.eval_session_id));

    // The Evaluation tab is the one in front, not Replay or Search.
    const QTabBar* tabs = nullptr;
    for (const QTabBar* bar : window.findChildren<QTabBar*>()) {
      for (int i = 0; i < bar->count(); ++i) {
        if (bar->tabText(i) == "Evaluation") {
          tabs = bar;
        }
      }
    }
    QVERIFY(tabs != nullptr);
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Evaluation"));
    QVERIFY(!window.evalView()->visibleRegion().isEmpty());
    QVERIFY(window.replayPanel()->visibleRegion().isEmpty());
    // Chosen again after a recording (which hides it), the report comes to the front again.
    QVERIFY(window.selectSession(1));
    QVERIFY(window.evalView()->visibleRegion().isEmpty());
    QVERIFY(window.selectSession(run_.eval_session_id));
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Evaluation"));

    // Every column, the first divergent step and the Diff button included, in sight without
    // scrolling sideways; no header cut short.
    const QTableView& table = *window.evalView()->table();
    QVERIFY(table.model()->rowCount() > 0);
    QCOMPARE(table.horizontalScrollBar()->maximum(), 0);
    const QHeaderView& header = *table.horizontalHeader();
    for (int column = 0; column < EvalReportModel::ColumnCount; ++column) {
      const QString name = table.model()->headerData(column, Qt::Horizontal).toString();
      QVERIFY2(header.sectionSize(column) >= header.sectionSizeHint(column),
               qPrintable(QString("%1: %2 px of %3")
                              .arg(name)
                              .arg(header.sectionSize(column))
                              .arg(header.sectionSizeHint(column))));
      QVERIFY2(header.sectionViewportPosition(column) + header.sectionSize(column) <=
                   table.viewport()->width(),
               qPrintable(name));
    }
    const QRect diff = table.visualRect(table.model()->index(0, EvalReportModel::Diff));
    QVERIFY(table.viewport()->rect().contains(diff));
    // The figures above the table show whole.
    const QLabel& figures = *window.evalView()->figures();
    QVERIFY(figures.width() <= window.evalView()->width());
    QVERIFY(figures.height() >= figures.heightForWidth(figures.width()));
  }
};

AGENTVCR_VIEWER_TEST(EvalViewTest, "eval_view")

}  // namespace agentvcr

#include "eval_view_test.moc"
