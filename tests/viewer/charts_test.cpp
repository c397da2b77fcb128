// The charts dock's data and drawing: axis ticks and bins, the charts computed from an archive
// whose timings are known to the nanosecond (and from the recorded demo), the evaluation
// charts from a report, PNG and SVG export, the empty state, and the dock following an
// archive a recorder is still writing.

#include <numeric>

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QHelpEvent>
#include <QImage>
#include <QPainter>
#include <QToolTip>
#include <QtTest>

#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/store/stats.hpp"
#include "charts/chart_scale.hpp"
#include "charts/histogram_chart.hpp"
#include "charts/stacked_bar_chart.hpp"
#include "mixed_archive.hpp"
#include "models/session_charts.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/charts_dock.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using protocol::Json;
using viewer::BarChartData;
using viewer::HistogramData;

namespace {

using avt::mixed::kMs;
constexpr std::int64_t kSecond = 1000 * kMs;
constexpr std::int64_t kStartNs = avt::mixed::kStartNs;  // 2026-09-21 14:20:00 UTC

const char* kFailedPressFeedback =
    R"({"infos": "panda: press_button failed with message: No objects corresponding to id = sw9.", )"
    R"("previous_tool_call": {"panda": {"name": "press_button", "arguments": {"id": "sw9"}}}})";

Json input(const std::string& type, const std::string& content) {
  return {{"id", 1},
          {"instruction", {{"type", type}, {"content", content}}},
          {"tools", Json::array()},
          {"attributes", {{"known_robots", {"panda"}}}},
          {"memory", Json::object()},
          {"num_outputs", 1},
          {"extra_keys", Json::object()}};
}

Json completed(Json output) {
  return {{"request_id", "charts"},      {"source_id", 1},
          {"candidate_index", 0},        {"status", "completed"},
          {"memory", Json::object()},    {"internal_steps", Json::array()},
          {"output", std::move(output)}, {"error", nullptr}};
}

Json pressOutput() {
  const Json call = {
      {"name", "press_button"}, {"arguments", {{"id", "sw1"}}}, {"target_robot_name", "panda"}};
  return completed({{"say", ""}, {"tool_calls", {call}}});
}

Json errorOutput() {
  return {{"request_id", "charts"},
          {"source_id", 1},
          {"candidate_index", 0},
          {"status", "error"},
          {"memory", Json::object()},
          {"internal_steps", Json::array()},
          {"output", nullptr},
          {"error", {{"code", "invalid_output"}, {"message", "unparsable"}, {"component", "x"}}}};
}

/// A MAGMA exchange that starts at `started_ns` and whose agent thinks `agent_ms`: 1 ms to read
/// the request, 1 ms to pass it on, the agent's time, 1 ms to relay the answer.
protocol::Exchange timed(std::int64_t started_ns, std::int64_t agent_ms, const Json& in,
                         const Json& out, int status = 200) {
  protocol::Exchange ex =
      avt::mixed::post("/v1/responses", {{"request_id", "charts"}, {"inputs", {in}}}, status,
                       out.is_null() ? "Internal error" : Json::array({out}).dump(), started_ns, 0);
  ex.request_ended_ns = started_ns + kMs;
  ex.upstream_sent_ns = started_ns + 2 * kMs;
  ex.upstream_first_byte_ns = ex.upstream_sent_ns + agent_ms * kMs;
  ex.ended_ns = ex.upstream_first_byte_ns + kMs;
  return ex;
}

/// A rate-limit fault chaos answered itself: the agent never saw the request.
protocol::Exchange chaosFault(std::int64_t started_ns) {
  protocol::Exchange ex = avt::mixed::post(
      "/v1/responses", {{"request_id", "charts"}, {"inputs", {input("user", "Press sw1")}}}, 429,
      R"({"detail": "fault injected"})", started_ns, 0);
  ex.response_from_upstream = false;
  ex.request_ended_ns = started_ns + kMs;
  ex.upstream_sent_ns = 0;
  ex.upstream_first_byte_ns = 0;
  ex.ended_ns = started_ns + 2 * kMs;
  ex.outcome = protocol::ExchangeOutcome::Injected;
  ex.fault = "rate_limit";
  return ex;
}

/// The exchanges of the timed archive, one a second from kStartNs: 20 presses of sw1 by
/// panda (the agent thinking 10, 20, ... 200 ms), an error candidate (210 ms), an HTTP 500
/// (220 ms), an env step reporting panda's press_button failed (230 ms), a chaos fault.
std::vector<protocol::Exchange> timedExchanges() {
  std::vector<protocol::Exchange> exchanges;
  for (int i = 0; i < 20; ++i) {
    exchanges.push_back(
        timed(kStartNs + i * kSecond, 10 * (i + 1), input("user", "Press sw1"), pressOutput()));
  }
  exchanges.push_back(
      timed(kStartNs + 20 * kSecond, 210, input("user", "Press sw2"), errorOutput()));
  exchanges.push_back(timed(kStartNs + 21 * kSecond, 220, input("user", "Press sw3"), {}, 500));
  exchanges.push_back(
      timed(kStartNs + 22 * kSecond, 230, input("env", kFailedPressFeedback),
            completed({{"say", "sw9 does not exist."}, {"tool_calls", Json::array()}})));
  exchanges.push_back(chaosFault(kStartNs + 23 * kSecond));
  return exchanges;
}

/// Records `exchanges` into `recorder` and waits until they are indexed.
void record(store::Recorder& recorder, std::vector<protocol::Exchange> exchanges) {
  for (protocol::Exchange& ex : exchanges) {
    if (!recorder.trySubmit(ex)) {
      throw std::runtime_error("the recorder refused an exchange");
    }
  }
  recorder.flush();
}

store::SessionInfo session(const std::string& name) {
  store::SessionInfo info;
  info.name = name;
  info.mode = "record";
  return info;
}

double sum(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0);
}

double seriesTotal(const BarChartData& chart) {
  double total = 0;
  for (const viewer::ChartSeries& series : chart.series) {
    total += sum(series.values);
  }
  return total;
}

replay::EvaluationReport evaluation() {
  replay::EvaluationReport report;
  report.session_id = 2;
  report.steps = 13;
  report.matched = 6;
  report.conversations = {{11, 1, "all matched", 4, 4, std::nullopt, ""},
                          {12, 2, "half", 4, 2, 3, "/output/say"},
                          {13, 3, "none", 5, 0, 1, "/output/tool_calls/0"}};
  return report;
}

/// True when some pixel of `image` inside `area` is exactly `color`.
bool holdsColor(const QImage& image, const QRect& area, const QColor& color) {
  for (int y = area.top(); y <= area.bottom(); ++y) {
    for (int x = area.left(); x <= area.right(); ++x) {
      if (image.pixelColor(x, y) == color) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

class ChartsTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string timed_db_ = temp_.file("timed.sqlite");
  std::int64_t timed_session_ = 0;
  std::string demo_db_ = temp_.file("demo.sqlite");

  BarChartData twoRobots() const {
    BarChartData chart;
    chart.title = "Tool calls per robot";
    chart.categories = {"arm1", "panda"};
    chart.series = {{"press_button", QColor(66, 133, 204), {3, 5}},
                    {"deplace", QColor(230, 140, 50), {2, 0}}};
    return chart;
  }

 private slots:

  void initTestCase() {
    {
      store::Recorder recorder(timed_db_, session("timed"));
      timed_session_ = recorder.sessionId();
      record(recorder, timedExchanges());
      recorder.close();
    }
    avt::recordDemoInto(demo_db_, "demo");
  }

  void ticksAreOneTwoOrFiveTimesAPowerOfTen() {
    QCOMPARE(viewer::niceStep(1), 1.0);
    QCOMPARE(viewer::niceStep(0.13), 0.2);
    QCOMPARE(viewer::niceStep(3), 5.0);
    QCOMPARE(viewer::niceStep(7), 10.0);
    QCOMPARE(viewer::niceStep(45), 50.0);
    QCOMPARE(viewer::niceStep(0.001), 0.001);

    const viewer::AxisTicks ticks = viewer::niceTicks(0, 97, 6);
    QCOMPARE(ticks.step, 20.0);
    QCOMPARE(ticks.values, (std::vector<double>{0, 20, 40, 60, 80, 100}));
    // Covers the range from a round value below to one above.
    const viewer::AxisTicks fine = viewer::niceTicks(0.13, 0.95, 6);
    QCOMPARE(fine.step, 0.2);
    QCOMPARE(fine.first, 0.0);
    QCOMPARE(fine.last, 1.0);
    QCOMPARE(fine.values.size(), std::size_t{6});
    QCOMPARE(fine.values[3], 0.6);
    // One value still gets an axis to stand on.
    const viewer::AxisTicks lone = viewer::niceTicks(0, 0, 6);
    QCOMPARE(lone.first, 0.0);
    QCOMPARE(lone.last, 1.0);
    QCOMPARE(lone.values.size(), std::size_t{6});
  }

  void valuesFallIntoEqualRoundBins() {
    const viewer::Histogram bins = viewer::binValues({1, 2, 2, 3, 9}, 4);
    QCOMPARE(bins.bin_width, 2.0);
    QCOMPARE(bins.bin_start, 0.0);
    QCOMPARE(bins.counts, (std::vector<double>{1, 3, 0, 0, 1}));  // [2, 4) holds 2, 2, 3
    QVERIFY(viewer::binValues({}, 4).empty());
    // Equal values make one bar.
    QCOMPARE(viewer::binValues({5, 5}, 10).counts, (std::vector<double>{2}));
    // Whole values are centred in their bins: 1 lies in [0.5, 1.5).
    const viewer::Histogram steps = viewer::binValues({1, 1, 3}, 20, /*discrete=*/true);
    QCOMPARE(steps.bin_width, 1.0);
    QCOMPARE(steps.bin_start, 0.5);
    QCOMPARE(steps.counts, (std::vector<double>{2, 0, 1}));
  }

  void timeBucketsAreRoundAndAtMostSixty() {
    QCOMPARE(viewer::timeBucketFor(0).width_ns, kMs);
    QCOMPARE(viewer::timeBucketFor(23 * kSecond).width_ns, 500 * kMs);
    QCOMPARE(viewer::timeBucketFor(45 * kSecond).name, std::string("1 s"));
    QCOMPARE(viewer::timeBucketFor(61 * kSecond).name, std::string("2 s"));
    QCOMPARE(viewer::timeBucketFor(3600 * kSecond).name, std::string("1 min"));
    QCOMPARE(viewer::timeBucketFor(3 * 24 * 3600 * kSecond).name, std::string("2 h"));
    QCOMPARE(viewer::timeBucketFor(100 * 24 * 3600 * kSecond).name, std::string("2 d"));
    for (std::int64_t span = kSecond; span < 400LL * 24 * 3600 * kSecond; span = span * 7 / 3) {
      const std::int64_t buckets = span / viewer::timeBucketFor(span).width_ns + 1;
      QVERIFY2(buckets >= 20 && buckets <= 61, qPrintable(QString::number(buckets)));
    }
  }

  void latencyIsTheAgentsThinkTimeWithNearestRankPercentiles() {
    viewer::SessionChartsSource source(std::make_shared<store::ArchiveReader>(timed_db_), timed_db_,
                                       {timed_session_});
    QVERIFY(source.refresh());
    const HistogramData latency = source.charts().latency;
    // 23 exchanges reached the agent (10, 20, ... 230 ms); the chaos fault did not.
    QCOMPARE(sum(latency.bins.counts), 23.0);
    QVERIFY(latency.x_label.startsWith("agent think time"));
    QCOMPARE(latency.markers.size(), std::size_t{3});
    QCOMPARE(latency.markers[0].label, QString("p50 120.0 ms"));
    QCOMPARE(latency.markers[0].value, 120.0);
    QCOMPARE(latency.markers[1].label, QString("p95 220.0 ms"));
    QCOMPARE(latency.markers[1].value, 220.0);
    QCOMPARE(latency.markers[2].label, QString("p99 230.0 ms"));
    QCOMPARE(latency.markers[2].value, 230.0);
    QCOMPARE(latency.bins.bin_width, 10.0);
    QCOMPARE(latency.bins.bin_start, 10.0);
    QCOMPARE(latency.bins.counts, std::vector<double>(23, 1));
  }

  void latencyFallsBackToWholeExchangesWhenTheAgentWasNotTimed() {
    viewer::ExchangeSample old;
    old.duration_ns = 40 * kMs;  // a row older than schema 11: only start and end
    const HistogramData latency = viewer::agentLatencyChart({old, old});
    QVERIFY(latency.x_label.startsWith("whole exchange"));
    QCOMPARE(latency.markers[0].value, 40.0);
    QCOMPARE(sum(latency.bins.counts), 2.0);
  }

  void outcomesOverTimeStackEachExchangeOnce() {
    viewer::SessionChartsSource source(std::make_shared<store::ArchiveReader>(timed_db_), timed_db_,
                                       {timed_session_});
    source.refresh();
    const BarChartData outcomes = source.charts().outcomes;
    // 23 s from first to last: 500 ms buckets from 14:20:00, exchange i in bucket 2i.
    QCOMPARE(outcomes.categories.size(), 47);
    QCOMPARE(outcomes.categories.front(), QString("14:20:00.000"));
    QVERIFY(outcomes.x_label.contains("500 ms"));
    QCOMPARE(outcomes.series.size(), std::size_t{4});
    QCOMPARE(outcomes.series[0].name, QString("completed"));
    QCOMPARE(sum(outcomes.series[0].values), 21.0);  // 20 presses and the env step
    QCOMPARE(outcomes.series[1].name, QString("error candidates"));
    QCOMPARE(outcomes.series[1].values[40], 1.0);
    QCOMPARE(sum(outcomes.series[1].values), 1.0);
    QCOMPARE(outcomes.series[2].name, QString("HTTP failures"));
    QCOMPARE(outcomes.series[2].values[42], 1.0);
    QCOMPARE(sum(outcomes.series[2].values), 1.0);
    QCOMPARE(outcomes.series[3].name, QString("chaos faults"));  // not also an HTTP failure
    QCOMPARE(outcomes.series[3].values[46], 1.0);
    QCOMPARE(sum(outcomes.series[3].values), 1.0);
    for (int i = 0; i < 24; ++i) {
      QCOMPARE(outcomes.total(static_cast<std::size_t>(2 * i)), 1.0);
    }
  }

  void toolCallsPerRobotAndEnvFailuresPerTool() {
    viewer::SessionChartsSource source(std::make_shared<store::ArchiveReader>(timed_db_), timed_db_,
                                       {timed_session_});
    source.refresh();
    const viewer::SessionCharts charts = source.charts();
    QCOMPARE(charts.tool_calls.categories, QStringList{"panda"});
    QCOMPARE(charts.tool_calls.series.size(), std::size_t{1});
    QCOMPARE(charts.tool_calls.series[0].name, QString("press_button"));
    QCOMPARE(charts.tool_calls.series[0].values, std::vector<double>{20});
    QCOMPARE(charts.env_failures.categories, QStringList{"press_button"});
    QCOMPARE(charts.env_failures.series.size(), std::size_t{1});
    QCOMPARE(charts.env_failures.series[0].name, QString("panda"));
    QCOMPARE(charts.env_failures.series[0].values, std::vector<double>{1});
  }

  void envFailuresBlameTheCallsThatFailed() {
    const Json lines = protocol::toJson(protocol::decodeEnvFeedback(
        R"({"infos": "arm1: deplace failed with message: out of range\n)"
        R"(arm2: get_objects_state succeed with message: ok"})"));
    QCOMPARE(viewer::failedCalls(lines), (std::vector<viewer::FailedCall>{{"arm1", "deplace"}}));
    // Only `error` says it failed: every previous call is blamed.
    const Json error_only = protocol::toJson(protocol::decodeEnvFeedback(
        R"({"error": "timeout", "previous_tool_call": {"arm1": {"name": "deplace"}, )"
        R"("arm2": {"name": "get_objects_state"}}})"));
    QCOMPARE(viewer::failedCalls(error_only),
             (std::vector<viewer::FailedCall>{{"arm1", "deplace"}, {"arm2", "get_objects_state"}}));
    const Json unnamed =
        protocol::toJson(protocol::decodeEnvFeedback(R"({"failure_reason": "crashed"})"));
    QCOMPARE(viewer::failedCalls(unnamed), (std::vector<viewer::FailedCall>{{"", ""}}));
    const Json fine = protocol::toJson(protocol::decodeEnvFeedback(
        R"({"infos": "panda: press_button succeed with message: ok"})"));
    QVERIFY(viewer::failedCalls(fine).empty());
  }

  void theDemoChartsAgreeWithItsStats() {
    auto reader = std::make_shared<store::ArchiveReader>(demo_db_);
    viewer::SessionChartsSource source(reader, demo_db_, {1});
    source.refresh();
    const viewer::SessionCharts charts = source.charts();
    const store::SessionStats stats = store::collectStats(demo_db_, {1}).sessions.at(0);
    QCOMPARE(sum(charts.latency.bins.counts), static_cast<double>(stats.exchanges));
    QCOMPARE(seriesTotal(charts.outcomes), static_cast<double>(stats.exchanges));
    // The self-destruct episode's invalid_output candidate.
    QCOMPARE(sum(charts.outcomes.series[1].values), 1.0);
    QCOMPARE(charts.tool_calls.categories, (QStringList{"arm1", "arm2", "panda"}));
    // Each failed env step of the demo names the one call that failed.
    QVERIFY(stats.env_failures > 0);
    QCOMPARE(seriesTotal(charts.env_failures), static_cast<double>(stats.env_failures));
    QVERIFY(charts.env_failures.categories.contains("press_button"));
  }

  void anEvaluationGivesMatchRatesAndFirstDivergences() {
    const BarChartData rates = viewer::matchRatePerConversation(evaluation());
    QCOMPARE(rates.categories, (QStringList{"#11 all matched", "#12 half", "#13 none"}));
    QCOMPARE(rates.series.size(), std::size_t{1});
    QCOMPARE(rates.series[0].values, (std::vector<double>{100, 50, 0}));
    QVERIFY(rates.title.contains("46.2%"));

    const HistogramData divergence = viewer::firstDivergenceChart(evaluation());
    QVERIFY(divergence.discrete);
    QVERIFY(divergence.title.contains("2 of 3"));
    QCOMPARE(divergence.bins.bin_start, 0.5);  // step 1 first
    QCOMPARE(divergence.bins.counts, (std::vector<double>{1, 0, 1}));
  }

  void savesAPngOfItsSize() {
    viewer::StackedBarChart chart;
    chart.setData(twoRobots());
    chart.resize(420, 260);
    const QString path = QString::fromStdString(temp_.file("robots.png"));
    QString error;
    QVERIFY2(chart.save(path, &error), qPrintable(error));
    const QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(420, 260));
    // The bars were painted in their series' colours.
    QVERIFY(holdsColor(image, image.rect(), QColor(66, 133, 204)));
    QVERIFY(holdsColor(image, image.rect(), QColor(230, 140, 50)));
  }

  void savesAnSvg() {
    viewer::HistogramChart chart;
    HistogramData data;
    data.title = "Agent latency";
    data.bins = viewer::binValues({10, 20, 20, 30}, 5);
    data.color = QColor(66, 133, 204);
    data.markers = {{"p50 20.0 ms", 20, QColor(40, 140, 70)}};
    chart.setData(data);
    chart.resize(400, 250);
    const QString path = QString::fromStdString(temp_.file("latency.SVG"));
    QVERIFY(chart.save(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray svg = file.readAll();
    QVERIFY(svg.startsWith("<?xml"));
    QVERIFY(svg.contains("<svg"));
    QVERIFY(svg.contains("Agent latency"));
    QVERIFY(svg.contains("p50 20.0 ms"));
  }

  void saveFailsOnAnUnwritablePathOrAnUnknownFormat() {
    viewer::StackedBarChart chart;
    chart.setData(twoRobots());
    chart.resize(400, 250);
    QString error;
    const std::string missing_dir = temp_.file("no-such-dir");
    QVERIFY(!chart.save(QString::fromStdString(missing_dir + "/chart.png"), &error));
    QVERIFY(error.contains("chart.png"));
    QVERIFY(!QFile::exists(QString::fromStdString(missing_dir + "/chart.png")));
    QVERIFY(!chart.save(QString::fromStdString(missing_dir + "/chart.svg")));
    error.clear();
    QVERIFY(!chart.save(QString::fromStdString(temp_.file("chart.jpg")), &error));
    QVERIFY(error.contains(".png or .svg"));
    QVERIFY(!QFile::exists(QString::fromStdString(temp_.file("chart.jpg"))));
  }

  void eachChartOffersToSaveItself() {
    viewer::HistogramChart chart;
    QCOMPARE(chart.contextMenuPolicy(), Qt::ActionsContextMenu);
    QStringList texts;
    for (const QAction* action : chart.actions()) {
      texts << action->text();
    }
    QCOMPARE(texts, (QStringList{"Save as PNG…", "Save as SVG…"}));
  }

  void anEmptyChartSaysNoData() {
    viewer::HistogramChart chart;
    HistogramData data;
    data.title = "Agent latency (0 exchanges)";
    chart.setData(data);
    QVERIFY(chart.isEmpty());
    QImage image(300, 200, QImage::Format_ARGB32);
    QPainter painter(&image);
    chart.paint(painter, image.rect());
    painter.end();
    // The words "no data" in the middle, in the muted grey, on white.
    QVERIFY(holdsColor(image, QRect(100, 90, 100, 40), Qt::white));
    bool text = false;
    for (int y = 90; y < 130 && !text; ++y) {
      for (int x = 100; x < 200 && !text; ++x) {
        text = image.pixelColor(x, y) != Qt::white;
      }
    }
    QVERIFY(text);
    QVERIFY(chart.save(QString::fromStdString(temp_.file("empty.png"))));
  }

  void hoveringABarShowsItsValues() {
    viewer::StackedBarChart chart;
    chart.setData(twoRobots());
    chart.resize(400, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    // Bars grow up from the plot's bottom: a point low in the first category's column.
    QPoint at;
    const QImage image = chart.grab().toImage();
    for (int x = 0; x < image.width() / 2 && at.isNull(); ++x) {
      if (image.pixelColor(x, image.height() * 3 / 4) == QColor(66, 133, 204)) {
        at = QPoint(x + 2, image.height() * 3 / 4);
      }
    }
    QVERIFY(!at.isNull());
    QHelpEvent help(QEvent::ToolTip, at, chart.mapToGlobal(at));
    QApplication::sendEvent(&chart, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), QString("arm1\npress_button: 3\ndeplace: 2\ntotal: 5"));
    QToolTip::hideText();
  }

  void theDockShowsTheSessionsAndTheEvaluation() {
    viewer::ChartsDock dock;
    dock.setSessions(std::make_shared<store::ArchiveReader>(timed_db_),
                     QString::fromStdString(timed_db_), {timed_session_});
    QCOMPARE(dock.latencyChart()->data().markers.size(), std::size_t{3});
    QCOMPARE(dock.toolCallsChart()->data().series[0].values, std::vector<double>{20});
    QCOMPARE(seriesTotal(dock.outcomesChart()->data()), 24.0);
    QVERIFY(!dock.matchRateChart()->isVisibleTo(&dock));
    QVERIFY(!dock.firstDivergenceChart()->isVisibleTo(&dock));

    dock.setEvaluationReport(evaluation());
    QVERIFY(dock.matchRateChart()->isVisibleTo(&dock));
    QVERIFY(dock.firstDivergenceChart()->isVisibleTo(&dock));
    QCOMPARE(dock.matchRateChart()->data().series[0].values, (std::vector<double>{100, 50, 0}));
    dock.setEvaluationReport(std::nullopt);
    QVERIFY(!dock.matchRateChart()->isVisibleTo(&dock));

    dock.setSessions(nullptr, {}, {});
    QVERIFY(dock.latencyChart()->isEmpty());
    QVERIFY(dock.toolCallsChart()->isEmpty());
    dock.resize(900, 700);
    QVERIFY(!dock.grab().isNull());  // every chart paints its empty state
  }

  void theDockFollowsARecordingArchive() {
    const std::string db = temp_.file("live.sqlite");
    store::Recorder recorder(db, session("live"));
    std::vector<protocol::Exchange> first = timedExchanges();
    first.resize(2);
    record(recorder, first);
    viewer::ChartsDock dock;
    dock.setSessions(std::make_shared<store::ArchiveReader>(db), QString::fromStdString(db),
                     {recorder.sessionId()});
    QCOMPARE(sum(dock.latencyChart()->data().bins.counts), 2.0);
    QCOMPARE(dock.toolCallsChart()->data().series[0].values, std::vector<double>{2});

    std::vector<protocol::Exchange> more = timedExchanges();
    more.resize(5);
    more.erase(more.begin(), more.begin() + 2);
    record(recorder, more);
    dock.refresh();
    QCOMPARE(sum(dock.latencyChart()->data().bins.counts), 5.0);
    // The steps' charts follow at once, or shortly when they were read a moment ago.
    QTRY_COMPARE(dock.toolCallsChart()->data().series[0].values, std::vector<double>{5});
    recorder.close();
  }
};

AGENTVCR_VIEWER_TEST(ChartsTest, "charts")

}  // namespace agentvcr

#include "charts_test.moc"
