// The waterfall: its bars against the recorded timing points, internal steps nested under their
// step, GEN branches in lanes, failures and faults, A2A calls, and the view that paints them:
// geometry, hover and a click that selects the step in the main window's timeline.

#include <QAbstractItemModelTester>
#include <QHelpEvent>
#include <QTableView>
#include <QToolTip>
#include <QtTest>

#include "mixed_archive.hpp"
#include "models/a2a_text.hpp"
#include "models/steps_model.hpp"
#include "models/text_format.hpp"
#include "models/waterfall_model.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/main_window.hpp"
#include "widgets/waterfall_view.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using viewer::TimingPoint;
using viewer::WaterfallBar;

namespace {

using avt::mixed::kMs;

/// One step whose candidate lists three internal steps: two say how long they took, one does
/// not. The exchange's moments are all set, 1 ms apart but for the agent's 50 ms.
protocol::Exchange timedStep(std::int64_t started_ns) {
  const protocol::Json input = {
      {"id", 1},
      {"instruction", {{"type", "user"}, {"content", "Please press sw2"}}},
      {"tools", protocol::Json::array()},
      {"attributes", protocol::Json::object()},
      {"memory", protocol::Json::object()},
      {"num_outputs", 1},
      {"extra_keys", protocol::Json::object()}};
  const auto entry = [](const char* id, const char* component) {
    return protocol::Json{{"id", id},
                          {"component", component},
                          {"origin", "model"},
                          {"full_prompt", "prompt"},
                          {"output_raw", "raw"}};
  };
  protocol::Json summarizer = entry("step-0", "summarizer");
  summarizer["duration_ms"] = 12;
  protocol::Json untimed = entry("step-1", "checker");
  protocol::Json commander = entry("step-2", "commander");
  commander["duration_seconds"] = 0.03;
  const protocol::Json output = {
      {"request_id", "timed"},
      {"source_id", 1},
      {"candidate_index", 0},
      {"status", "completed"},
      {"memory", protocol::Json::object()},
      {"internal_steps", {summarizer, untimed, commander}},
      {"output", {{"say", "Pressed."}, {"tool_calls", protocol::Json::array()}}},
      {"error", nullptr}};
  protocol::Exchange ex =
      avt::mixed::post("/v1/responses", {{"request_id", "timed"}, {"inputs", {input}}}, 200,
                       protocol::Json::array({output}).dump(), started_ns, 54 * kMs);
  ex.request_ended_ns = started_ns + 1 * kMs;
  ex.upstream_sent_ns = started_ns + 2 * kMs;
  ex.upstream_first_byte_ns = started_ns + 52 * kMs;
  return ex;
}

std::int64_t offset(const std::optional<std::int64_t>& moment, std::int64_t origin) {
  return moment ? *moment - origin : -1;
}

}  // namespace

class WaterfallTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string db_ = temp_.file("demo.sqlite");
  std::shared_ptr<store::ArchiveReader> reader_;

  /// `model` in `view`, 1000 x 400 pixels, on screen.
  static void showWaterfall(viewer::WaterfallView& view, viewer::WaterfallModel& model) {
    view.setModel(&model);
    view.resize(1000, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
  }

  std::vector<WaterfallBar> barsOf(std::int64_t conversation) const {
    viewer::StepsModel steps(reader_);
    steps.setConversation(conversation);
    return viewer::stepBars(steps.steps(), reader_->timedInternalSteps(conversation));
  }

  /// `model` set to the bars of `steps`, which shows `conversation`: the texts the bars show
  /// are the timeline's.
  void showBarsOf(std::int64_t conversation, viewer::StepsModel& steps,
                  viewer::WaterfallModel& model) const {
    steps.setConversation(conversation);
    model.setBars(viewer::stepBars(steps.steps(), reader_->timedInternalSteps(conversation)),
                  &steps);
  }

 private slots:

  void initTestCase() {
    avt::recordDemoInto(db_, "demo");
    reader_ = std::make_shared<store::ArchiveReader>(db_);
  }

  void barsHoldTheRecordedTimingPoints() {
    const std::int64_t conversation = avt::conversationTitled(db_, "Please press sw7");
    const auto bars = barsOf(conversation);
    const auto steps = reader_->steps(conversation);
    QCOMPARE(bars.size(), steps.size());

    std::int64_t origin = INT64_MAX;
    for (const auto& step : steps) {
      origin = std::min(origin, reader_->exchange(step.exchange_id)->started_ns);
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto exchange = reader_->exchange(steps[i].exchange_id);
      const WaterfallBar& bar = bars[i];
      QCOMPARE(bar.id, steps[i].id);
      QCOMPARE(bar.exchange_id, exchange->id);
      QCOMPARE(bar.start(), exchange->started_ns - origin);
      QCOMPARE(bar.point(TimingPoint::RequestEnded).value_or(-1),
               offset(exchange->request_ended_ns, origin));
      QCOMPARE(bar.point(TimingPoint::UpstreamSent).value_or(-1),
               offset(exchange->upstream_sent_ns, origin));
      QCOMPARE(bar.point(TimingPoint::FirstByte).value_or(-1),
               offset(exchange->upstream_first_byte_ns, origin));
      QCOMPARE(bar.end(), *exchange->ended_ns - origin);
      QVERIFY(bar.point(TimingPoint::UpstreamSent).has_value());  // the proxy measured them all
      QCOMPARE(bar.health, WaterfallBar::Health::Ok);
    }
    QCOMPARE(bars.front().start(), 0);
  }

  void modelPassesTheTesterAndTabulatesTheBars() {
    viewer::WaterfallModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    viewer::StepsModel steps(reader_);
    showBarsOf(avt::conversationTitled(db_, "Please move every damaged"), steps, model);
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.data(model.index(0, viewer::WaterfallModel::Health)).toString(), "ok");
    QCOMPARE(model.data(model.index(2, 0), viewer::WaterfallModel::IdRole).toLongLong(),
             model.bars()[2].id);
    std::int64_t last = 0;
    for (const auto& bar : model.bars()) {
      last = std::max(last, bar.end());
    }
    QCOMPARE(model.span(), last);
    model.setBars({});
    QCOMPARE(model.rowCount(), 0);
  }

  void genBranchesGetLanesOfTheirOwn() {
    // The GEN tree: a root whose two candidates each continue for two steps.
    const auto bars = barsOf(avt::conversationTitled(db_, "Please move every damaged"));
    QCOMPARE(bars.size(), std::size_t{5});
    QCOMPARE(bars[0].branch, 0);
    QCOMPARE(bars[1].branch, 1);
    QCOMPARE(bars[2].branch, 1);
    QCOMPARE(bars[3].branch, 2);
    QCOMPARE(bars[4].branch, 2);
    QVERIFY(bars[1].depth > bars[0].depth);
  }

  void errorCandidatesAreFailures() {
    viewer::StepsModel steps(reader_);
    viewer::WaterfallModel model;
    showBarsOf(avt::conversationTitled(db_, "Please self-destruct"), steps, model);
    QVERIFY(model.rowCount() > 0);
    QCOMPARE(model.bars()[0].health, WaterfallBar::Health::Failed);
    QVERIFY(model.detail(0).find("Please self-destruct") != std::string::npos);
    QVERIFY(model.detail(0).find("error invalid_output") != std::string::npos);
  }

  void stepBarsShowTheTimelinesTextsReadWhenInSight() {
    // A step's bar keeps no text of its own: its label and hover text are made from the
    // timeline's texts of its row, for every row, whatever rows were read before.
    viewer::StepsModel steps(reader_);
    viewer::WaterfallModel model;
    showBarsOf(avt::conversationTitled(db_, "Please press sw7"), steps, model);
    QCOMPARE(model.rowCount(), steps.rowCount());
    for (int row = model.rowCount() - 1; row >= 0; --row) {
      const WaterfallBar& bar = model.bars()[static_cast<std::size_t>(row)];
      QVERIFY(bar.label.empty() && bar.detail.empty());
      const store::StepRow step = *reader_->step(bar.id);
      const std::string kind = step.instruction_type == "env" ? "env: " : "user: ";
      QCOMPARE(model.label(row), "#" + std::to_string(row + 1) + " " + kind +
                                     viewer::oneLine(viewer::instructionSummary(step), 80));
      QCOMPARE(model.data(model.index(row, viewer::WaterfallModel::Label)).toString().trimmed(),
               QString::fromStdString(model.label(row)));  // indented by depth
      std::string detail = kind + viewer::oneLine(step.instruction_content, 400);
      for (const store::CandidateRow& candidate : reader_->candidates(step.id)) {
        detail += "\n[" + std::to_string(candidate.candidate_index) + "] " +
                  viewer::oneLine(viewer::decisionSummary(candidate), 400);
      }
      QCOMPARE(model.detail(row), detail);
    }
  }

  void timedInternalStepsNestUnderTheirStepEndToEnd() {
    const std::string db = temp_.file("timed.sqlite");
    avt::recordExchanges(db, "timed", {timedStep(avt::mixed::kStartNs)});
    auto reader = std::make_shared<store::ArchiveReader>(db);
    const std::int64_t conversation = reader->conversations(1).at(0).id;
    const auto timed = reader->timedInternalSteps(conversation);
    QCOMPARE(timed.size(), std::size_t{2});  // the entry without a duration is left out
    QCOMPARE(timed[0].duration_ns, 12 * kMs);
    QCOMPARE(timed[1].duration_ns, 30 * kMs);

    viewer::StepsModel steps(reader);
    steps.setConversation(conversation);
    const auto bars = viewer::stepBars(steps.steps(), timed);
    QCOMPARE(bars.size(), std::size_t{3});
    QCOMPARE(bars[0].kind, WaterfallBar::Kind::Step);
    QCOMPARE(bars[1].kind, WaterfallBar::Kind::InternalStep);
    QCOMPARE(bars[2].kind, WaterfallBar::Kind::InternalStep);
    QCOMPARE(bars[1].label, std::string("[0] summarizer step-0"));
    QCOMPARE(bars[2].label, std::string("[0] commander step-2"));
    viewer::WaterfallModel model;
    model.setBars(bars, &steps);
    QCOMPARE(model.label(1), bars[1].label);
    QCOMPARE(model.detail(2), bars[2].label);  // an internal step's hover starts with its label
    QVERIFY(model.label(0).starts_with("#1 user: Please press sw2"));
    // From the moment the agent got the request (2 ms in), one after the other.
    QCOMPARE(bars[1].start(), 2 * kMs);
    QCOMPARE(bars[1].end(), 14 * kMs);
    QCOMPARE(bars[2].start(), 14 * kMs);
    QCOMPARE(bars[2].end(), 44 * kMs);
    QCOMPARE(bars[1].depth, bars[0].depth + 1);
    QCOMPARE(bars[1].id, bars[0].id);
  }

  void faultedExchangesHaveTheirOwnHealth() {
    const std::string db = temp_.file("chaos.sqlite");
    avt::recordExchanges(db, "chaos", {avt::mixed::faultedMagmaStep()});
    auto reader = std::make_shared<store::ArchiveReader>(db);
    viewer::StepsModel steps(reader);
    steps.setConversation(reader->conversations(1).at(0).id);
    const auto bars = viewer::stepBars(steps.steps(), {});
    QCOMPARE(bars.size(), std::size_t{1});
    QCOMPARE(bars[0].health, WaterfallBar::Health::Faulted);
    QCOMPARE(bars[0].fault, std::optional<std::string>("error"));
  }

  void a2aCallsAreBarsOfTheirExchanges() {
    const std::string db = temp_.file("mixed.sqlite");
    const avt::MixedArchive mixed = avt::recordMagmaAndA2a(db);
    store::ArchiveReader reader(db);
    const auto calls = reader.a2aCalls(mixed.a2a_conversation);
    const auto bars =
        viewer::callBars(calls, reader.exchangesOfConversation(mixed.a2a_conversation));
    QCOMPARE(bars.size(), calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      QCOMPARE(bars[i].kind, WaterfallBar::Kind::Call);
      QCOMPARE(bars[i].id, calls[i].id);
      QCOMPARE(bars[i].end() - bars[i].start(), *calls[i].ended_ns - calls[i].started_ns);
      QCOMPARE(bars[i].health == WaterfallBar::Health::Failed, viewer::callFailed(calls[i]));
    }
    QVERIFY(std::any_of(bars.begin(), bars.end(), [](const WaterfallBar& bar) {
      return bar.health == WaterfallBar::Health::Failed;  // the rate-limited call
    }));
  }

  void viewPlacesSegmentsAtTheirMoments() {
    viewer::WaterfallModel model;
    viewer::StepsModel steps(reader_);
    showBarsOf(avt::conversationTitled(db_, "Please press sw7"), steps, model);
    viewer::WaterfallView view;
    showWaterfall(view, model);

    // The axis runs from the plot's left edge (offset 0) to its right edge (the span).
    const double left = view.xOf(0);
    const double right = view.xOf(model.span());
    QVERIFY(left >= viewer::WaterfallView::kLabelWidth);
    QVERIFY(right <= view.viewport()->width());
    QVERIFY(right - left > 500);
    for (int row = 0; row < model.rowCount(); ++row) {
      const WaterfallBar& bar = model.bars()[static_cast<std::size_t>(row)];
      const QRectF agent = view.segmentRect(row, viewer::WaterfallView::Segment::Agent);
      QVERIFY(!agent.isNull());
      QCOMPARE(agent.left(), view.xOf(*bar.point(TimingPoint::UpstreamSent)));
      QCOMPARE(agent.right(), view.xOf(*bar.point(TimingPoint::FirstByte)));
      const QRectF whole = view.barRect(row);
      QCOMPARE(whole.left(), view.xOf(bar.start()));
      QVERIFY(whole.top() >=
              viewer::WaterfallView::kAxisHeight + row * viewer::WaterfallView::kRowHeight);
      QCOMPARE(view.rowAt(whole.center().toPoint()), row);
    }

    // Zoomed in twice, the same moment is twice as far from the start of the axis.
    const double before = view.xOf(model.span() / 2) - view.xOf(0);
    view.setZoom(2);
    QCOMPARE(view.xOf(model.span() / 2) - view.xOf(0), 2 * before);
  }

  void hoverShowsTheInstructionAndDecision() {
    viewer::WaterfallModel model;
    viewer::StepsModel steps(reader_);
    showBarsOf(avt::conversationTitled(db_, "Please press sw7"), steps, model);
    viewer::WaterfallView view;
    showWaterfall(view, model);
    const QPoint at = view.barRect(0).center().toPoint();
    QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
    QApplication::sendEvent(view.viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY(QToolTip::text().contains("Please press sw7"));
    QVERIFY(QToolTip::text().contains("agent thinking"));
  }

  void aClickSelectsTheStepInTheTimeline() {
    viewer::MainWindow window(QString::fromStdString(db_));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.selectConversation(avt::conversationTitled(db_, "Please press sw7")));
    window.showTimelineTab(1);
    viewer::WaterfallView* view = window.waterfall();
    QTRY_VERIFY(view->isVisible());
    QCOMPARE(window.waterfallModel()->rowCount(), window.stepsModel()->rowCount());
    QCOMPARE(view->currentRow(), std::optional<int>(0));  // the first step, chosen on opening

    const int row = window.stepsModel()->rowCount() - 1;
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->barRect(row).center().toPoint());
    QCOMPARE(window.stepsView()->currentIndex().row(), row);
    QCOMPARE(view->currentRow(), std::optional<int>(row));

    // And the other way: choosing a step in the table marks its bar.
    QVERIFY(window.selectStep(window.stepsModel()->at(0).step.id));
    QCOMPARE(view->currentRow(), std::optional<int>(0));
  }
};

AGENTVCR_VIEWER_TEST(WaterfallTest, "waterfall")

}  // namespace agentvcr

#include "waterfall_test.moc"
