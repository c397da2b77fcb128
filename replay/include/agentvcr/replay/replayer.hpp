#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/replay/input_key.hpp"
#include "agentvcr/replay/json_diff.hpp"
#include "agentvcr/replay/replay_index.hpp"
#include "agentvcr/store/rows.hpp"

/// Replay: recorded MAGMA conversations served back as a deterministic mock agent
/// (docs/replay.md). This library decides every answer; proxy/ only carries the bytes.
namespace agentvcr::replay {

/// What replay does with an input it has no recorded answer for. Every miss is also reported
/// (ReplayOutcome::misses) for the caller to log and store.
enum class MissPolicy {
  Error,    ///< answer error candidates with code "replay_miss" (the default)
  Http,     ///< answer the whole request with HTTP 503
  Forward,  ///< ask a live agent (record-missing mode)
};

std::optional<MissPolicy> parseMissPolicy(std::string_view name);
const char* missPolicyName(MissPolicy policy);

/// How fast replay answers, as a factor of the recorded times (docs/replay.md, "Pace"): each
/// answer is held back by the agent's recorded think time times the pace, and each event of a
/// stream by its recorded gap times the pace.
inline constexpr double kRecordedPace = 1.0;  ///< as the agent answered when recorded
inline constexpr double kFastPace = 0.0;      ///< at once

/// `recorded`, `fast` or a factor (`0.5`: twice as fast as recorded); empty for anything else,
/// including negative, infinite and NaN factors.
std::optional<double> parsePace(std::string_view text);

/// How long the recorded agent thought before answering an exchange: from the request reaching
/// it to its first answer byte (`upstream_first_byte_ns - upstream_sent_ns`). Archives older
/// than schema 11 did not time the sending, so their think time counts from the request's start.
/// Zero when the agent never answered; never negative.
std::chrono::nanoseconds recordedThinkTime(std::int64_t started_ns,
                                           std::optional<std::int64_t> upstream_sent_ns,
                                           std::optional<std::int64_t> upstream_first_byte_ns);

/// A recorded duration at `pace` (a factor parsePace() accepts).
std::chrono::nanoseconds paced(std::chrono::nanoseconds recorded, double pace);

struct ReplayOptions {
  store::ReplaySelection selection;  ///< what to serve; everything when empty
  KeyRules key_rules;                ///< --ignore
  MissPolicy on_miss = MissPolicy::Error;
  std::size_t max_difference_paths = 32;  ///< per near-miss report
  /// A2A: leave `params.message.messageId` out of the key, for callers that mint a new one per
  /// call.
  bool a2a_ignore_message_id = false;
  /// Answers (MAGMA, coaching, whole A2A answers) are held back by their recorded think time
  /// times this; at once by default.
  double answer_pace = kFastPace;
  /// Event streams: the first event waits the recorded think time, each next one its recorded
  /// gap, times this.
  double stream_pace = kRecordedPace;
  /// The request memo's budget (docs/replay.md, "The memo"); 0 turns it off.
  std::size_t memo_bytes = kDefaultMemoBytes;
  /// Every `GET /v1/info` rewinds, as `POST /_agentvcr/replay/rewind` does: BENCH asks it once
  /// at the start of each run, so each run of one caller gets the same answers.
  bool rewind_on_info = false;
  /// `--fork-at N`: a MAGMA input whose recorded step lies at depth N or deeper in its
  /// conversation goes to the live agent as a miss does (only under MissPolicy::Forward), so
  /// that the recording is kept up to step N and the live agent carries on from there.
  std::optional<std::int64_t> fork_at;
  static constexpr std::size_t kDefaultMemoBytes = std::size_t{64} << 20;
};

/// One input replay could not answer from the archive.
struct MissReport {
  std::string route;       ///< "responses", "coaching", "a2a", ...
  std::string request_id;  ///< the live request_id, when the request has one
  std::int64_t position = 0;
  std::optional<std::int64_t> source_id;
  std::uint64_t replay_key = 0;
  protocol::Json input;  ///< what was keyed (no id, ignored parts left out)
  std::optional<std::int64_t> closest_step_id;
  JsonDifferences differences;  ///< between `input` and the closest recorded one
  std::string reason;           ///< one line for logs and error messages
};

/// What a live agent answered a forwarded request; status 0 when it did not answer.
struct ForwardReply {
  int status = 0;
  protocol::Headers headers;
  std::string body;
  std::string error;  ///< why there is no answer, "[proxy.upstream.refused] ..."
};

/// A recorded A2A exchange that a call sent live by --fork-at asks again.
struct ReaskedExchange {
  std::int64_t exchange_id = 0;
  std::int64_t session_id = 0;  ///< the session it was recorded in: a fork's origin
};

/// What a forwarded request asks again of the recording, which links the stored live exchange
/// to it: for each input of a MAGMA request, in its order, the recorded step (sent live by
/// --fork-at) or empty (a miss); for an A2A request sent live by --fork-at, the recorded
/// exchange, whose calls its calls ask again position by position. Empty for misses.
struct Reasked {
  std::vector<std::optional<RecordedStep>> steps;
  std::optional<ReaskedExchange> a2a_exchange;
};

/// Sends a request to the live agent (and records the exchange). Must be safe to call from
/// several threads at once. Only consulted under MissPolicy::Forward.
using Forwarder = std::function<ForwardReply(const protocol::HttpRequest&, const Reasked& reasked)>;

struct ReplayOutcome {
  protocol::HttpReply reply;
  std::size_t hits = 0;
  std::size_t forked = 0;  ///< inputs recorded at depth --fork-at or deeper, sent live
  std::vector<MissReport> misses;
  bool forwarded = false;
};

/// Counters since start, for logs and the `/_agentvcr/replay` status route.
struct ReplayStats {
  std::uint64_t requests = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t forwarded = 0;
  std::uint64_t forked = 0;   ///< inputs sent live by --fork-at (ReplayOutcome::forked)
  std::uint64_t invalid = 0;  ///< requests answered 422
  std::uint64_t rewinds = 0;  ///< times every cursor went back to the first recorded answer
};

/// What replay can answer of the A2A calls it loaded.
struct RecordedA2a {
  std::size_t exchanges = 0;
  std::size_t calls = 0;  ///< a batch exchange holds several
  std::size_t contexts = 0;
};

/// The deterministic mock agent. Loads the replay index of the selected recorded steps, the
/// agent's identity and its coaching exchanges at construction; then answers requests from
/// the archive, which it only reads.
///
/// Thread-safe: handle() may run on several threads; the index cursors are updated under one
/// lock, so requests that arrive in the same order always get the same answers.
class Replayer {
 public:
  /// Throws std::runtime_error when the archive cannot be read or the selection names a
  /// session or conversation the archive does not hold.
  Replayer(const std::string& archive_path, ReplayOptions options);
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  /// Answers one request. `forward` is used only under MissPolicy::Forward (a miss with no
  /// forwarder answers as MissPolicy::Http does).
  ReplayOutcome handle(const protocol::HttpRequest& request, const Forwarder* forward = nullptr);

  ReplayStats stats() const;
  std::size_t recordedSteps() const;
  std::size_t distinctKeys() const;
  RecordedA2a recordedA2a() const;
  const ReplayOptions& options() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::replay
