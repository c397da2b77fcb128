// The evaluation report in the viewer, offscreen: the model over a known report (checked by
// QAbstractItemModelTester), the view's figures and its Diff buttons, and the report of a real
// evaluation session recorded against the demo's own replay: in front when the window opens on
// it, every column in sight. Then several agents compared: a known comparison, and three real
// evaluation sessions of the demo (its replay, and two scripted agents that word some answers
// their own way) selected together in the window. A recorded A2A context evaluated twice: its
// row in the report and in the comparison.

#include "widgets/eval_view.hpp"

#include <algorithm>
#include <set>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabBar>
#include <QTableView>
#include <QtTest>

#include "models/agent_comparison_model.hpp"
#include "models/diff_model.hpp"
#include "models/eval_report_model.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/diff_window.hpp"
#include "widgets/main_window.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using viewer::AgentComparisonModel;
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

/// Two agents: the first as knownReport(), the second re-asked only its first conversation and
/// matched it; neither left the recording where the other did not.
replay::EvaluationComparison knownComparison() {
  replay::EvaluationComparison comparison;
  comparison.agents = {knownReport(), knownReport()};
  comparison.agents[0].agent = "http://127.0.0.1:9001";
  replay::EvaluationReport& second = comparison.agents[1];
  second.session_id = 6;
  second.agent = "http://127.0.0.1:9002";
  second.conversations.resize(1);
  second.conversations[0].evaluated_conversation_id = 61;
  second.conversations[0].matched = 6;
  second.conversations[0].first_divergent_step.reset();
  second.conversations[0].first_difference.clear();
  second.steps = 6;
  second.matched = 6;
  second.contract_violations = 0;
  second.error_candidates = 0;
  replay::PairAgreement pair;
  pair.first = 0;
  pair.second = 1;
  comparison.agreement = {pair};
  return comparison;
}

/// The row of the comparison whose conversation's title starts with `title`; -1 if none.
int rowTitled(const AgentComparisonModel& model, const QString& title) {
  for (int row = 0; row < model.rowCount(); ++row) {
    if (cell(model, row, AgentComparisonModel::Title).startsWith(title)) {
      return row;
    }
  }
  return -1;
}

/// Selects exactly the sessions `ids` in the window's sessions list, as Ctrl-clicks do.
void selectSessions(viewer::MainWindow& window, const std::vector<std::int64_t>& ids) {
  QItemSelection selection;
  for (int row = 0; row < window.sessionsModel()->rowCount(); ++row) {
    const std::int64_t id = window.sessionsModel()->session(row).id;
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      const QModelIndex index = window.sessionsModel()->index(row, 0);
      selection.select(index, index);
    }
  }
  window.sessionsView()->selectionModel()->select(
      selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
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

  void a2aContextsAreRowsOfTheReportAndTheComparison() {
    // ctx-What recorded, then evaluated against its replay (both messages match) and against
    // the agent answering in other words (neither does).
    const std::string db = temp_.file("a2a-eval.sqlite");
    avt::recordA2aContextInto(db);
    const services::EvalRun same = avt::evaluateAgainstItsReplay(db);
    avt::FakeUpstream changed(avt::changedA2aAgent());
    const services::EvalRun other = avt::evaluateAgent(db, changed.url());
    store::ArchiveReader reader(db);

    viewer::EvalView view;
    view.setReport(*replay::evaluationReport(reader, other.eval_session_id));
    const EvalReportModel& model = *view.model();
    QAbstractItemModelTester tester(view.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(model.isA2a(0));
    QCOMPARE(cell(model, 0, EvalReportModel::Title), QString("A2A ctx-What"));
    QCOMPARE(cell(model, 0, EvalReportModel::Steps), QString("2"));
    QCOMPARE(cell(model, 0, EvalReportModel::Matched), QString("0"));
    QCOMPARE(cell(model, 0, EvalReportModel::MatchRate), QString("0.0%"));
    QCOMPARE(cell(model, 0, EvalReportModel::FirstDivergentStep), QString("message 1"));
    QVERIFY(cell(model, 0, EvalReportModel::FirstDifference).startsWith("text "));
    QCOMPARE(model.data(model.index(0, 0), Qt::BackgroundRole).value<QColor>(),
             viewer::diffBackground(replay::RowKind::Changed));
    // No diff to open for an A2A context: no button, and asking opens nothing.
    QCOMPARE(cell(model, 0, EvalReportModel::Diff), QString());
    QSignalSpy requested(&view, &viewer::EvalView::diffRequested);
    view.requestDiff(0);
    QCOMPARE(requested.count(), 0);
    QVERIFY(view.figures()->text().endsWith(
        "\nA2A: 0/2 calls match (0.0%, 0 only once text is normalised), 0 contract violations"));

    view.setComparison(
        replay::compareEvaluations(reader, {same.eval_session_id, other.eval_session_id}));
    const AgentComparisonModel& agents = *view.comparisonModel();
    QAbstractItemModelTester agents_tester(view.comparisonModel(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(agents.rowCount(), 1);
    QCOMPARE(cell(agents, 0, AgentComparisonModel::Title), QString("A2A ctx-What"));
    QCOMPARE(cell(agents, 0, AgentComparisonModel::Steps), QString("2"));
    QCOMPARE(cell(agents, 0, 2), QString("2/2"));
    QCOMPARE(cell(agents, 0, 3), QString("0/2, first divergence message 1"));
    QVERIFY(!agents.diffPair(0, 3));
    const QStringList lines = view.figures()->text().split('\n');
    QVERIFY(lines.contains(
        "agent 1 A2A: 2/2 calls match (100.0%, 0 only once text is normalised), 0 contract "
        "violations"));
    QCOMPARE(lines.last(),
             QString("A2A: agents 1 and 2: the same answers at 0 of 2 calls where either differs "
                     "(0.0%)"));
  }

  void aComparisonHasAColumnPerAgentAndALinePerAgentAndPair() {
    viewer::EvalView view;
    view.setComparison(knownComparison());
    QVERIFY(view.showingComparison());
    const AgentComparisonModel& model = *view.comparisonModel();
    QAbstractItemModelTester tester(view.comparisonModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(view.figures()->text(),
             QString("agent 1 (http://127.0.0.1:9001), session 4: match rate 77.8%, 7/9 steps "
                     "match, 1 contract violations, 2 error candidates\n"
                     "agent 2 (http://127.0.0.1:9002), session 6: match rate 100.0%, 6/6 steps "
                     "match, 0 contract violations, 0 error candidates\n"
                     "agents 1 and 2: both match the recording at every step"));
    QCOMPARE(model.columnCount(), 4);
    QCOMPARE(model.headerData(2, Qt::Horizontal).toString(),
             QString("agent 1 (http://127.0.0.1:9001)"));
    QCOMPARE(model.headerData(3, Qt::Horizontal).toString(),
             QString("agent 2 (http://127.0.0.1:9002)"));
    // One row per conversation either agent re-asked, by id: the second agent left out 5.
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(cell(model, 0, AgentComparisonModel::Title), QString("Please press sw1"));
    QCOMPARE(cell(model, 0, AgentComparisonModel::Steps), QString("6"));
    QCOMPARE(cell(model, 0, 2), QString("4/6, first divergence step 3"));
    QCOMPARE(model.data(model.index(0, 2), Qt::BackgroundRole).value<QColor>(),
             viewer::diffBackground(replay::RowKind::Changed));
    QCOMPARE(cell(model, 0, 2, Qt::ToolTipRole),
             QString("candidate 0: tool call 0 robot \"arm1\" vs \"arm2\""));
    QCOMPARE(cell(model, 0, 3), QString("6/6"));
    QVERIFY(!model.data(model.index(0, 3), Qt::BackgroundRole).isValid());
    QCOMPARE(cell(model, 1, AgentComparisonModel::Title), QString("conversation 5"));
    QCOMPARE(cell(model, 1, 2), QString("3/3"));
    QCOMPARE(cell(model, 1, 3), QString("-"));

    // A cell asks for the diff of its agent's conversation; a blank one or the title, nothing.
    QSignalSpy requested(&view, &viewer::EvalView::diffRequested);
    view.requestAgentDiff(0, 3);
    view.requestAgentDiff(1, 3);
    view.requestAgentDiff(0, AgentComparisonModel::Title);
    view.requestAgentDiff(1, 2);
    QCOMPARE(requested.count(), 2);
    QCOMPARE(requested.at(0).at(0).value<qint64>(), qint64{3});
    QCOMPARE(requested.at(0).at(1).value<qint64>(), qint64{61});
    QCOMPARE(requested.at(1).at(0).value<qint64>(), qint64{5});
    QCOMPARE(requested.at(1).at(1).value<qint64>(), qint64{52});

    // One report again: its own table and figures.
    view.setReport(knownReport());
    QVERIFY(!view.showingComparison());
    QVERIFY(view.figures()->text().startsWith("Match rate: 77.8%"));
  }

  void threeEvaluationSessionsSelectedTogetherAreComparedAsCountedByHand() {
    const std::string db = temp_.file("three-agents.sqlite");
    avt::copyOfRecordedDemo(db, "demo");
    // Agent 1 is the recording's own replay. Agent 2 words "Done, swN is pressed." its own way;
    // agent 3 the same way, and acknowledges a constraint its own way too.
    const std::string done = "All done: ${arg} is pressed.";
    avt::ChangedScriptedAgent reworded(temp_.file("reworded.json"), {{"button-pressed", done}});
    avt::ChangedScriptedAgent more(
        temp_.file("more.json"), {{"button-pressed", done}, {"acknowledge-constraint", "Noted."}});
    const services::EvalRun first = avt::evaluateAgainstItsReplay(db, "agent 1 of 3");
    const services::EvalRun second = avt::evaluateAgent(db, reworded.url(), "agent 2 of 3");
    const services::EvalRun third = avt::evaluateAgent(db, more.url(), "agent 3 of 3");
    const std::vector<std::int64_t> sessions{first.eval_session_id, second.eval_session_id,
                                             third.eval_session_id};
    const store::ArchiveReader reader(db);
    const std::vector<std::string> urls{reader.session(sessions[0])->upstream, reworded.url(),
                                        more.url()};

    // The hand count, from the recording: the steps that said "Done, ..." (agents 2 and 3
    // leave it there, alike) and those that acknowledged the constraint (agent 3 alone).
    std::int64_t steps = 0;
    std::set<std::int64_t> done_steps;
    std::set<std::int64_t> acknowledged_steps;
    for (const auto& conversation : reader.conversations(1)) {
      for (const replay::DiffStep& step : replay::diffStepsOf(reader, conversation.id)) {
        ++steps;
        for (const auto& candidate : step.candidates) {
          const protocol::Json output = candidate.value("output", protocol::Json());
          const protocol::Json said =
              output.is_object() ? output.value("say", protocol::Json()) : protocol::Json();
          const std::string say = said.is_string() ? said.get<std::string>() : "";
          if (say.rfind("Done, ", 0) == 0) {
            done_steps.insert(step.step_id);
          } else if (say.rfind("Understood.", 0) == 0) {
            acknowledged_steps.insert(step.step_id);
          }
        }
      }
    }
    const auto done_count = static_cast<std::int64_t>(done_steps.size());
    const auto either = done_count + static_cast<std::int64_t>(acknowledged_steps.size());
    QVERIFY(done_count >= 3);
    QCOMPARE(acknowledged_steps.size(), std::size_t{1});

    // The window opens on the latest session, agent 3's: its report alone.
    viewer::MainWindow window(QString::fromStdString(db));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    viewer::EvalView& view = *window.evalView();
    QVERIFY(!view.showingComparison());
    selectSessions(window, sessions);
    QVERIFY(view.showingComparison());
    QVERIFY(view.isVisible());

    const QStringList lines = view.figures()->text().split('\n');
    QCOMPARE(lines.size(), 6);
    const std::vector<std::int64_t> matched{steps, steps - done_count, steps - either};
    for (int i = 0; i < 3; ++i) {
      const QString expected =
          QString(
              "agent %1 (%2), session %3: match rate %4, %5/%6 steps match, 0 contract "
              "violations, ")
              .arg(i + 1)
              .arg(QString::fromStdString(urls[static_cast<std::size_t>(i)]))
              .arg(sessions[static_cast<std::size_t>(i)])
              .arg(viewer::matchRateText(static_cast<double>(matched[static_cast<std::size_t>(i)]) /
                                         static_cast<double>(steps)))
              .arg(matched[static_cast<std::size_t>(i)])
              .arg(steps);
      QVERIFY2(lines[i].startsWith(expected), qPrintable(lines[i] + " <> " + expected));
    }
    QCOMPARE(lines[3], QString("agents 1 and 2: the same decisions at 0 of %1 steps where either "
                               "differs (0.0%)")
                           .arg(done_count));
    QCOMPARE(lines[4], QString("agents 1 and 3: the same decisions at 0 of %1 steps where either "
                               "differs (0.0%)")
                           .arg(either));
    QCOMPARE(lines[5], QString("agents 2 and 3: the same decisions at %1 of %2 steps where either "
                               "differs (%3)")
                           .arg(done_count)
                           .arg(either)
                           .arg(QString::number(100.0 * static_cast<double>(done_count) /
                                                    static_cast<double>(either),
                                                'f', 1) +
                                "%"));

    const AgentComparisonModel& model = *view.comparisonModel();
    QCOMPARE(model.columnCount(), 5);
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(model.headerData(2 + i, Qt::Horizontal).toString(),
               QString("agent %1 (%2)")
                   .arg(i + 1)
                   .arg(QString::fromStdString(urls[static_cast<std::size_t>(i)])));
    }
    QCOMPARE(model.rowCount(), static_cast<int>(reader.conversations(1).size()));
    // "Please press sw1": pressed, then "Done, sw1 is pressed.", which agents 2 and 3 reword.
    const int sw1 = rowTitled(model, "Please press sw1");
    QVERIFY(sw1 >= 0);
    QCOMPARE(cell(model, sw1, AgentComparisonModel::Steps), QString("2"));
    QCOMPARE(cell(model, sw1, 2), QString("2/2"));
    QCOMPARE(cell(model, sw1, 3), QString("1/2, first divergence step 2"));
    QCOMPARE(cell(model, sw1, 4), QString("1/2, first divergence step 2"));
    QVERIFY(cell(model, sw1, 3, Qt::ToolTipRole).contains("All done: sw1 is pressed."));
    QVERIFY(!model.data(model.index(sw1, 2), Qt::BackgroundRole).isValid());
    QCOMPARE(model.data(model.index(sw1, 4), Qt::BackgroundRole).value<QColor>(),
             viewer::diffBackground(replay::RowKind::Changed));
    // The constraint is acknowledged at its first step: agent 3 leaves the recording there.
    const int constraint = rowTitled(model, "Each time you are asked to press a button");
    QVERIFY(constraint >= 0);
    QVERIFY(cell(model, constraint, 4).endsWith(", first divergence step 1"));
    QVERIFY(!cell(model, constraint, 3).endsWith(", first divergence step 1"));

    // A cell of an agent's column, activated, diffs the recorded conversation against that
    // agent's own re-asking of it; a diff window opens on it.
    const std::int64_t recorded_sw1 = avt::conversationTitled(db, "Please press sw1");
    QSignalSpy requested(&view, &viewer::EvalView::diffRequested);
    QTableView& table = *view.comparisonTable();
    for (int i = 0; i < 3; ++i) {
      table.setCurrentIndex(model.index(sw1, 2 + i));
      QTest::keyClick(&table, Qt::Key_Return);
      QCOMPARE(requested.count(), i + 1);
      QCOMPARE(requested.at(i).at(0).value<qint64>(), recorded_sw1);
      const std::int64_t evaluated = requested.at(i).at(1).value<qint64>();
      QCOMPARE(reader.conversation(evaluated)->session_id, sessions[static_cast<std::size_t>(i)]);
      bool paired = false;
      for (const store::EvaluationPair& pair : reader.evaluationPairs(recorded_sw1)) {
        paired = paired || pair.evaluated_conversation_id == evaluated;
      }
      QVERIFY(paired);
    }
    std::vector<viewer::DiffWindow*> opened;
    for (QWidget* widget : QApplication::topLevelWidgets()) {
      if (auto* diff = qobject_cast<viewer::DiffWindow*>(widget); diff && diff->isVisible()) {
        opened.push_back(diff);
      }
    }
    QCOMPARE(opened.size(), std::size_t{3});
    for (viewer::DiffWindow* diff : opened) {
      diff->close();
    }

    // With a recording among the selection there is nothing to compare: the current session's
    // report. One evaluation session alone shows its report as before.
    selectSessions(window, {1, sessions[0], sessions[1]});
    QVERIFY(!view.showingComparison());
    QVERIFY(window.selectSession(sessions[1]));
    selectSessions(window, {sessions[1]});
    QVERIFY(!view.showingComparison());
    QVERIFY(view.figures()->text().startsWith(
        QString("Match rate: %1")
            .arg(viewer::matchRateText(static_cast<double>(matched[1]) /
                                       static_cast<double>(steps)))));
    selectSessions(window, {sessions[1], sessions[2]});
    QVERIFY(view.showingComparison());
    QCOMPARE(view.comparisonModel()->columnCount(), 4);
  }
};

AGENTVCR_VIEWER_TEST(EvalViewTest, "eval_view")

}  // namespace agentvcr

#include "eval_view_test.moc"
