#include "models/session_charts.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <QDateTime>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/store/timing.hpp"
#include "charts/chart_scale.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSecond = 1000 * kMs;
constexpr std::int64_t kMinute = 60 * kSecond;
constexpr std::int64_t kHour = 60 * kMinute;
constexpr std::int64_t kDay = 24 * kHour;

constexpr int kLatencyBins = 30;
constexpr int kDivergenceBins = 20;
constexpr std::int64_t kMaxTimeBuckets = 60;
/// Steps are read again no sooner than this many times the last read's duration after it.
constexpr int kStepsReadSpacing = 10;
/// Exchanges read at a time: a session's whole list at once cost more memory than the rest of
/// the viewer (600 bytes a row, kept only to be sampled).
constexpr std::size_t kExchangePage = 4096;

struct NamedWidth {
  std::int64_t ns;
  const char* name;
};

constexpr NamedWidth kBucketWidths[] = {
    {1 * kMs, "1 ms"},        {2 * kMs, "2 ms"},        {5 * kMs, "5 ms"},
    {10 * kMs, "10 ms"},      {20 * kMs, "20 ms"},      {50 * kMs, "50 ms"},
    {100 * kMs, "100 ms"},    {200 * kMs, "200 ms"},    {500 * kMs, "500 ms"},
    {kSecond, "1 s"},         {2 * kSecond, "2 s"},     {5 * kSecond, "5 s"},
    {10 * kSecond, "10 s"},   {15 * kSecond, "15 s"},   {30 * kSecond, "30 s"},
    {kMinute, "1 min"},       {2 * kMinute, "2 min"},   {5 * kMinute, "5 min"},
    {10 * kMinute, "10 min"}, {15 * kMinute, "15 min"}, {30 * kMinute, "30 min"},
    {kHour, "1 h"},           {2 * kHour, "2 h"},       {3 * kHour, "3 h"},
    {6 * kHour, "6 h"},       {12 * kHour, "12 h"},     {kDay, "1 d"}};

/// The outcome series, bottom to top: what went well under what went wrong.
enum OutcomeSeries { Completed, ErrorCandidates, HttpFailures, ChaosFaults, OutcomeSeriesCount };

OutcomeSeries outcomeOf(const ExchangeSample& exchange,
                        const std::unordered_set<std::int64_t>& with_error_candidates) {
  // agentvcr's own faults first: the failure they cause is not the agent's.
  if (exchange.faulted) {
    return ChaosFaults;
  }
  if (exchange.http_failed) {
    return HttpFailures;
  }
  return with_error_candidates.count(exchange.id) != 0 ? ErrorCandidates : Completed;
}

/// The start of a bucket, as precise as the buckets are narrow; with the date when the
/// buckets span more than a day.
QString bucketLabel(std::int64_t start_ns, std::int64_t width_ns, std::int64_t span_ns) {
  const QDateTime at = QDateTime::fromMSecsSinceEpoch(start_ns / kMs, Qt::UTC);
  if (width_ns >= kDay) {
    return at.toString(QStringLiteral("yyyy-MM-dd"));
  }
  if (span_ns >= kDay) {
    return at.toString(QStringLiteral("MM-dd HH:mm"));
  }
  if (width_ns >= kMinute) {
    return at.toString(QStringLiteral("HH:mm"));
  }
  return at.toString(width_ns >= kSecond ? QStringLiteral("HH:mm:ss")
                                         : QStringLiteral("HH:mm:ss.zzz"));
}

/// A stacked bar chart of counts by category and series: categories by name, series by total
/// (largest first, so the most frequent get the palette's first, most distinct colours).
/// `unnamed` stands in for an empty name.
BarChartData stackedCounts(const std::map<std::string, std::map<std::string, double>>& counts,
                           const QString& unnamed) {
  std::map<std::string, double> series_totals;
  for (const auto& [category, by_series] : counts) {
    for (const auto& [series, count] : by_series) {
      series_totals[series] += count;
    }
  }
  std::vector<std::pair<std::string, double>> order(series_totals.begin(), series_totals.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const auto name = [&unnamed](const std::string& text) {
    return text.empty() ? unnamed : QString::fromStdString(text);
  };
  BarChartData chart;
  for (const auto& [category, by_series] : counts) {
    chart.categories << name(category);
  }
  for (std::size_t s = 0; s < order.size(); ++s) {
    ChartSeries series{name(order[s].first), seriesColor(s), {}};
    for (const auto& [category, by_series] : counts) {
      const auto it = by_series.find(order[s].first);
      series.values.push_back(it == by_series.end() ? 0 : it->second);
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

std::string stringField(const protocol::Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

ExchangeSample sampleOf(const store::ExchangeRow& exchange) {
  ExchangeSample sample;
  sample.id = exchange.id;
  sample.started_ns = exchange.started_ns;
  sample.agent_ns = store::timingSplit(exchange).agent;
  if (exchange.ended_ns) {
    sample.duration_ns = *exchange.ended_ns - exchange.started_ns;
  }
  sample.faulted = exchange.fault.has_value();
  sample.http_failed =
      exchange.status == 0 || exchange.status >= 400 ||
      exchange.outcome != protocol::outcomeName(protocol::ExchangeOutcome::Complete);
  return sample;
}

HistogramData agentLatencyChart(const std::vector<ExchangeSample>& exchanges) {
  std::vector<std::int64_t> agent;
  std::vector<std::int64_t> whole;
  for (const ExchangeSample& exchange : exchanges) {
    if (exchange.agent_ns) {
      agent.push_back(*exchange.agent_ns);
    }
    if (exchange.duration_ns) {
      whole.push_back(*exchange.duration_ns);
    }
  }
  const bool measured = !agent.empty();
  std::vector<std::int64_t>& sorted = measured ? agent : whole;
  std::sort(sorted.begin(), sorted.end());

  HistogramData chart;
  chart.title = QStringLiteral("Agent latency (%1 exchanges)").arg(sorted.size());
  chart.x_label = measured ? QStringLiteral("agent think time, ms (request sent → first byte back)")
                           : QStringLiteral("whole exchange, ms (agent think time not measured)");
  chart.y_label = QStringLiteral("exchanges");
  chart.color = QColor(66, 133, 204);
  std::vector<double> ms;
  ms.reserve(sorted.size());
  for (const std::int64_t ns : sorted) {
    ms.push_back(static_cast<double>(ns) / kMs);
  }
  chart.bins = binValues(ms, kLatencyBins);
  if (sorted.empty()) {
    return chart;
  }
  const std::pair<double, QColor> percentiles[] = {
      {50, QColor(40, 140, 70)}, {95, QColor(220, 120, 20)}, {99, QColor(200, 40, 40)}};
  for (const auto& [percent, color] : percentiles) {
    const double ns = store::nearestRank(sorted, percent);
    chart.markers.push_back({QStringLiteral("p%1 %2").arg(percent).arg(QString::fromStdString(
                                 durationText(static_cast<std::int64_t>(ns)))),
                             ns / kMs, color});
  }
  return chart;
}

TimeBucket timeBucketFor(std::int64_t span_ns) {
  for (const NamedWidth& width : kBucketWidths) {
    if (span_ns <= kMaxTimeBuckets * width.ns) {
      return {width.ns, width.name};
    }
  }
  const std::int64_t days = (span_ns + kMaxTimeBuckets * kDay - 1) / (kMaxTimeBuckets * kDay);
  return {days * kDay, std::to_string(days) + " d"};
}

BarChartData outcomesOverTime(const std::vector<ExchangeSample>& exchanges,
                              const std::unordered_set<std::int64_t>& with_error_candidates) {
  BarChartData chart;
  chart.title = QStringLiteral("Outcomes over time");
  chart.y_label = QStringLiteral("exchanges");
  if (exchanges.empty()) {
    return chart;
  }
  const auto [first, last] = std::minmax_element(
      exchanges.begin(), exchanges.end(),
      [](const ExchangeSample& a, const ExchangeSample& b) { return a.started_ns < b.started_ns; });
  const std::int64_t span = last->started_ns - first->started_ns;
  const TimeBucket bucket = timeBucketFor(span);
  // Buckets start at whole multiples of their width, so that they read as round clock times.
  const std::int64_t origin = first->started_ns / bucket.width_ns * bucket.width_ns;
  const auto count = static_cast<std::size_t>((last->started_ns - origin) / bucket.width_ns) + 1;
  chart.x_label = QStringLiteral("exchange start (UTC), buckets of %1")
                      .arg(QString::fromStdString(bucket.name));
  for (std::size_t i = 0; i < count; ++i) {
    chart.categories << bucketLabel(origin + static_cast<std::int64_t>(i) * bucket.width_ns,
                                    bucket.width_ns, span);
  }
  chart.series = {
      {QStringLiteral("completed"), QColor(80, 170, 100), std::vector<double>(count)},
      {QStringLiteral("error candidates"), QColor(230, 160, 40), std::vector<double>(count)},
      {QStringLiteral("HTTP failures"), QColor(205, 70, 60), std::vector<double>(count)},
      {QStringLiteral("chaos faults"), QColor(150, 110, 220), std::vector<double>(count)}};
  static_assert(OutcomeSeriesCount == 4, "one series per OutcomeSeries");
  for (const ExchangeSample& exchange : exchanges) {
    const auto at = static_cast<std::size_t>((exchange.started_ns - origin) / bucket.width_ns);
    chart.series[outcomeOf(exchange, with_error_candidates)].values[at] += 1;
  }
  return chart;
}

BarChartData toolCallsPerRobot(const store::ArchiveStats& stats) {
  std::map<std::string, std::map<std::string, double>> calls;
  for (const store::SessionStats& session : stats.sessions) {
    for (const auto& [robot, tools] : session.tools_by_robot) {
      for (const auto& [tool, count] : tools) {
        calls[robot][tool] += static_cast<double>(count);
      }
    }
  }
  BarChartData chart = stackedCounts(calls, QStringLiteral("(none)"));
  chart.title = QStringLiteral("Tool calls per robot");
  chart.x_label = QStringLiteral("robot (target_robot_name)");
  chart.y_label = QStringLiteral("tool calls");
  return chart;
}

std::vector<FailedCall> failedCalls(const protocol::Json& env_feedback) {
  std::vector<FailedCall> failed;
  if (!env_feedback.is_object()) {
    return failed;
  }
  if (const auto outcomes = env_feedback.find("outcomes");
      outcomes != env_feedback.end() && outcomes->is_array()) {
    for (const protocol::Json& outcome : *outcomes) {
      const auto succeeded = outcome.find("succeeded");
      if (succeeded != outcome.end() && succeeded->is_boolean() && !succeeded->get<bool>()) {
        failed.push_back({stringField(outcome, "robot"), stringField(outcome, "tool")});
      }
    }
  }
  if (!failed.empty() ||
      (!env_feedback.contains("error") && !env_feedback.contains("failure_reason"))) {
    return failed;
  }
  if (const auto previous = env_feedback.find("previous_tool_call");
      previous != env_feedback.end() && previous->is_object()) {
    for (const auto& [robot, call] : previous->items()) {
      failed.push_back({robot, call.is_object() ? stringField(call, "name") : std::string()});
    }
  }
  if (failed.empty()) {
    failed.emplace_back();
  }
  return failed;
}

BarChartData envFailuresPerTool(const std::vector<store::StepRow>& env_steps) {
  std::map<std::string, std::map<std::string, double>> failures;
  for (const store::StepRow& step : env_steps) {
    for (const FailedCall& call : failedCalls(step.env_feedback)) {
      failures[call.tool][call.robot] += 1;
    }
  }
  BarChartData chart = stackedCounts(failures, QStringLiteral("(unknown)"));
  chart.title = QStringLiteral("Env failures per tool");
  chart.x_label = QStringLiteral("tool the environment reported failing");
  chart.y_label = QStringLiteral("failed calls");
  return chart;
}

BarChartData matchRatePerConversation(const replay::EvaluationReport& report) {
  BarChartData chart;
  chart.title = QStringLiteral("Match rate per conversation (overall %1%)")
                    .arg(100 * report.matchRate(), 0, 'f', 1);
  chart.x_label = QStringLiteral("evaluated conversation");
  chart.y_label = QStringLiteral("% of steps matched");
  ChartSeries rate{QStringLiteral("steps matched"), QColor(80, 170, 100), {}};
  for (const replay::EvaluatedConversation& conversation : report.conversations) {
    chart.categories << QStringLiteral("#%1 %2")
                            .arg(conversation.evaluated_conversation_id)
                            .arg(QString::fromStdString(conversation.title));
    rate.values.push_back(conversation.steps == 0
                              ? 0
                              : 100.0 * static_cast<double>(conversation.matched) /
                                    static_cast<double>(conversation.steps));
  }
  chart.series.push_back(std::move(rate));
  return chart;
}

HistogramData firstDivergenceChart(const replay::EvaluationReport& report) {
  std::vector<double> steps;
  for (const replay::EvaluatedConversation& conversation : report.conversations) {
    if (conversation.first_divergent_step) {
      steps.push_back(static_cast<double>(*conversation.first_divergent_step));
    }
  }
  HistogramData chart;
  chart.title = QStringLiteral("First divergent step (%1 of %2 conversations diverged)")
                    .arg(steps.size())
                    .arg(report.conversations.size());
  chart.x_label = QStringLiteral("step where the answer first differed (1-based, tree order)");
  chart.y_label = QStringLiteral("conversations");
  chart.discrete = true;
  chart.color = QColor(230, 140, 50);
  chart.bins = binValues(steps, kDivergenceBins, /*discrete=*/true);
  return chart;
}

SessionChartsSource::SessionChartsSource(std::shared_ptr<store::ArchiveReader> reader,
                                         std::string db_path, std::vector<std::int64_t> session_ids)
    : reader_(std::move(reader)),
      db_path_(std::move(db_path)),
      session_ids_(std::move(session_ids)),
      progress_(session_ids_.size()) {}

bool SessionChartsSource::refresh() {
  bool changed = false;
  std::vector<std::optional<store::SessionRow>> sessions;
  for (std::size_t i = 0; i < session_ids_.size(); ++i) {
    sessions.push_back(reader_->session(session_ids_[i]));
    if (!sessions.back()) {
      continue;
    }
    const store::SessionRow& session = *sessions.back();
    Progress& progress = progress_[i];
    changed = readNewExchanges(session, progress) || changed;
    steps_stale_ = steps_stale_ || session.step_count != progress.steps_read_at ||
                   session.candidate_count != progress.candidates_read_at;
  }
  if (steps_stale_ && stepsDueIn() == std::chrono::milliseconds{0}) {
    // The counters as they were before the read: steps recorded meanwhile mark it stale again.
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      if (sessions[i]) {
        progress_[i].steps_read_at = sessions[i]->step_count;
        progress_[i].candidates_read_at = sessions[i]->candidate_count;
      }
    }
    readSteps();
    changed = true;
  }
  return changed;
}

std::optional<std::chrono::milliseconds> SessionChartsSource::stepsDueIn() const {
  if (!steps_stale_) {
    return std::nullopt;
  }
  const auto due = steps_read_at_ + kStepsReadSpacing * steps_read_took_;
  const auto wait =
      std::chrono::ceil<std::chrono::milliseconds>(due - std::chrono::steady_clock::now());
  return std::max(wait, std::chrono::milliseconds{0});
}

SessionCharts SessionChartsSource::charts() const {
  return {agentLatencyChart(exchanges_), outcomesOverTime(exchanges_, with_error_candidates_),
          tool_calls_, env_failures_};
}

bool SessionChartsSource::readNewExchanges(const store::SessionRow& session, Progress& progress) {
  bool read = false;
  while (session.exchange_count > progress.next_seq) {
    const std::vector<store::ExchangeRow> rows =
        reader_->exchanges(session.id, progress.next_seq, kExchangePage);
    for (const store::ExchangeRow& row : rows) {
      exchanges_.push_back(sampleOf(row));
    }
    progress.next_seq += static_cast<std::int64_t>(rows.size());
    read = read || !rows.empty();
    if (rows.size() < kExchangePage) {
      break;
    }
  }
  return read;
}

void SessionChartsSource::readSteps() {
  const auto started = std::chrono::steady_clock::now();
  std::unordered_set<std::int64_t> with_error_candidates;
  std::vector<store::StepRow> failed_env_steps;
  for (const std::int64_t session_id : session_ids_) {
    store::SearchQuery errors;
    errors.session_id = session_id;
    errors.status = "error";
    errors.limit = store::ArchiveReader::kNoLimit;
    for (const store::SearchHit& hit : reader_->search(errors)) {
      with_error_candidates.insert(hit.exchange_id);
    }
    for (store::StepRow& step : reader_->envFailureSteps(session_id)) {
      failed_env_steps.push_back(std::move(step));
    }
  }
  with_error_candidates_ = std::move(with_error_candidates);
  tool_calls_ = toolCallsPerRobot(store::collectStats(db_path_, session_ids_));
  env_failures_ = envFailuresPerTool(failed_env_steps);
  steps_stale_ = false;
  steps_read_at_ = std::chrono::steady_clock::now();
  steps_read_took_ = steps_read_at_ - started;
}

}  // namespace agentvcr::viewer
