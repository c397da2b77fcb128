#pragma once

// The charts of the chosen sessions: the agent's latency, outcomes over time, tool calls per
// robot, env failures per tool; for an evaluation, the match rate per conversation and where
// conversations first diverged. Pure functions from archive rows to chart data (tested
// without widgets), and SessionChartsSource, which reads those rows and keeps them current
// while a recorder writes the archive.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/evaluation_report.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/stats.hpp"
#include "charts/chart_data.hpp"

namespace agentvcr::viewer {

/// What the charts keep of one exchange: few bytes, since a long session has millions.
struct ExchangeSample {
  std::int64_t id = 0;
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> agent_ns;     ///< the agent's think time (store::timingSplit)
  std::optional<std::int64_t> duration_ns;  ///< request start to response end, when it ended
  bool faulted = false;                     ///< chaos injected a fault
  bool http_failed = false;  ///< no response, a status of 400 or more, or it did not complete
};

ExchangeSample sampleOf(const store::ExchangeRow& exchange);

/// A histogram of the agent's think time in ms with p50, p95 and p99 marked (nearest rank),
/// over the exchanges where it was measured. When none was (rows older than schema 11), over
/// the whole exchanges' durations instead, and the axis title says so.
HistogramData agentLatencyChart(const std::vector<ExchangeSample>& exchanges);

/// A width of the time buckets of outcomesOverTime() and its name.
struct TimeBucket {
  std::int64_t width_ns = 0;
  std::string name;  ///< "30 s"
};

/// The narrowest round width (1, 2, 5 × 10^k ms up to 500 ms; 1, 2, 5, 10, 15, 30 s; the same
/// in minutes; 1, 2, 3, 6, 12 h; then whole days) that cuts `span_ns` into at most 60 buckets.
/// Neighbouring widths differ by at most 2.5 times, so a span longer than a few tens of ms gets
/// 24 to 60 buckets.
TimeBucket timeBucketFor(std::int64_t span_ns);

/// Exchanges per time bucket (timeBucketFor() their start times), each counted once, in the
/// first series that applies: chaos faults, HTTP failures, error candidates (its response
/// holds one of the `with_error_candidates`), completed.
BarChartData outcomesOverTime(const std::vector<ExchangeSample>& exchanges,
                              const std::unordered_set<std::int64_t>& with_error_candidates);

/// Tool calls of every candidate per robot, stacked by tool: the sessions' tools_by_robot
/// summed.
BarChartData toolCallsPerRobot(const store::ArchiveStats& stats);

/// A robot's tool call an env step reports as failed.
struct FailedCall {
  std::string robot;
  std::string tool;

  bool operator==(const FailedCall&) const = default;
};

/// The calls an env step's decoded feedback (StepRow::env_feedback) blames for its failure:
/// each robot line that failed. When the failure is only in `error` or `failure_reason`,
/// each call of `previous_tool_call` (robot -> call): the environment did not say which one
/// failed, only that the decision did. An empty robot and tool when no call is named; nothing
/// when the feedback reports no failure.
std::vector<FailedCall> failedCalls(const protocol::Json& env_feedback);

/// Env steps whose feedback reports a failure per tool to blame (failedCalls()), stacked by
/// robot. Steps without a failure are skipped.
BarChartData envFailuresPerTool(const std::vector<store::StepRow>& env_steps);

/// The share of each evaluated conversation's steps that matched what was recorded, in %.
BarChartData matchRatePerConversation(const replay::EvaluationReport& report);

/// The step where each evaluated conversation first diverged from the recording, as a
/// histogram of whole steps; conversations that never diverged are left out (the title counts
/// them).
HistogramData firstDivergenceChart(const replay::EvaluationReport& report);

/// The four charts of recorded sessions.
struct SessionCharts {
  HistogramData latency;
  BarChartData outcomes;
  BarChartData tool_calls;
  BarChartData env_failures;
};

/// Reads what the charts of some sessions need from an archive and keeps it current while a
/// recorder writes there. The exchanges are read once each, as they come (seq is dense and
/// grows); what depends on the steps (error candidates, tool calls, env failures) takes
/// queries over the sessions' steps and candidates, so it is read again only when their
/// counters moved, and no sooner after the last such read than ten times what that read took:
/// the viewer's live tick then spends at most about a tenth of its time here.
class SessionChartsSource {
 public:
  /// `db_path` is the archive `reader` reads (store::collectStats opens its own connection).
  SessionChartsSource(std::shared_ptr<store::ArchiveReader> reader, std::string db_path,
                      std::vector<std::int64_t> session_ids);

  /// Reads what the archive gained since the last call; true when the charts changed. Throws
  /// std::runtime_error as ArchiveReader does.
  bool refresh();

  /// When the steps changed but were not read again yet (too soon after the last read): how
  /// long until refresh() will read them.
  std::optional<std::chrono::milliseconds> stepsDueIn() const;

  SessionCharts charts() const;

  const std::vector<std::int64_t>& sessionIds() const { return session_ids_; }

 private:
  /// How far each session was read: its next exchange and the counters its steps were read at.
  struct Progress {
    std::int64_t next_seq = 0;
    std::int64_t steps_read_at = -1;
    std::int64_t candidates_read_at = -1;
  };

  bool readNewExchanges(const store::SessionRow& session, Progress& progress);
  void readSteps();

  std::shared_ptr<store::ArchiveReader> reader_;
  std::string db_path_;
  std::vector<std::int64_t> session_ids_;
  std::vector<Progress> progress_;  ///< one per session id
  std::vector<ExchangeSample> exchanges_;
  std::unordered_set<std::int64_t> with_error_candidates_;
  BarChartData tool_calls_;
  BarChartData env_failures_;
  bool steps_stale_ = false;
  std::chrono::steady_clock::time_point steps_read_at_{};
  std::chrono::steady_clock::duration steps_read_took_{};
};

}  // namespace agentvcr::viewer
