#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "agentvcr/metrics/traffic_metrics.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/chaos.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/store/recorder.hpp"

namespace agentvcr::services {

struct ReplayServiceConfig {
  std::string db_path = "agentvcr.sqlite";
  replay::ReplayOptions replay;
  proxy::ServerOptions server;
  /// The live agent asked under --on-miss forward (plain http).
  std::optional<net::Url> upstream;
  std::chrono::milliseconds forward_timeout{600'000};
  /// Keep each miss in the archive (`replay_misses`, in a session of mode "replay", or
  /// "replay-forward" when forwarding, or "fork" under ReplayOptions::fork_at). The session is only
  /// created at the first miss, so a replay that hits everything leaves the archive untouched.
  bool store_misses = true;
  std::string node;  ///< the node that session names (empty: the host name)
  /// Where each miss is logged, one JSON object per line (stderr by default).
  std::function<void(const std::string& line)> log_miss;
  /// Faults injected on purpose (`--chaos`, `--chaos-header`). Null: none, and a request that
  /// asks for one with X-Agentvcr-Chaos is refused.
  std::shared_ptr<protocol::Chaos> chaos;
  /// Where answers, replayed inputs (hit, miss, forward), A2A calls and injected faults are
  /// counted (`--metrics-listen`). Null: not counted.
  std::shared_ptr<metrics::TrafficMetrics> metrics;
};

/// `agentvcr replay` as an object: a Replayer over an archive behind an HTTP server, plus the
/// forwarding and recording that misses may call for.
class ReplayService {
 public:
  /// Loads the replay index and binds the listener (throws on either failure).
  explicit ReplayService(ReplayServiceConfig config);
  ~ReplayService();
  ReplayService(const ReplayService&) = delete;
  ReplayService& operator=(const ReplayService&) = delete;

  const net::HostPort& endpoint() const { return server_->endpoint(); }

  replay::Replayer& replayer() { return *replayer_; }

  void start();
  /// Stops serving and commits what misses and forwards recorded; under --fork-at, then links
  /// each stored step that asked a recorded input again to that step (store/step_links.hpp).
  /// Idempotent.
  void stop();

  /// Ends stop()'s drain at once (proxy::Server::cutNow()). Safe from any thread.
  void cutNow() { server_->cutNow(); }

  /// Blocks until the misses and forwarded exchanges so far are committed.
  void flush();
  /// The session misses and forwards are recorded in, once the first one happened.
  std::optional<std::int64_t> recordingSessionId();

 private:
  /// The reply to one request: a fault chaos injects, or replay's answer.
  protocol::HttpReply answer(const protocol::HttpRequest& request);
  /// replay's answer, or a 500 when the archive cannot be read.
  protocol::HttpReply replayed(const protocol::HttpRequest& request);
  replay::ReplayOutcome handle(const protocol::HttpRequest& request);
  replay::ForwardReply forward(const protocol::HttpRequest& request,
                               const replay::Reasked& reasked);
  void noteMisses(const replay::ReplayOutcome& outcome);
  /// The recorder of misses and forwards, made at the first of them. `origin_session`: the
  /// session of what the first forward asks again, which a fork session's name gives as its
  /// origin.
  store::Recorder& recorder(std::optional<std::int64_t> origin_session = std::nullopt);
  /// Links the fork session's stored steps and A2A calls to the recorded ones they asked again.
  void linkForkedExchanges();
  /// Ends the forwards in progress and every later one: the stop's drain is over (the server's
  /// on_cut), and a forward blocks its worker where no cut reaches it.
  void cutForwards();
  bool forwardsCut();

  ReplayServiceConfig config_;
  std::mutex forwards_mutex_;
  std::set<net::HttpClient*> forwards_;  ///< waiting on the live agent right now
  bool forwards_cut_ = false;
  std::unique_ptr<replay::Replayer> replayer_;
  replay::Forwarder forwarder_;
  std::mutex recorder_mutex_;
  std::unique_ptr<store::Recorder> recorder_;
  /// What the forwarded exchanges asked again, in the order they were submitted, which is the
  /// order the recorder numbers them in: linkForkedExchanges() pairs them by position.
  std::mutex submit_mutex_;
  std::vector<replay::Reasked> submitted_;
  std::unique_ptr<proxy::Server> server_;
};

}  // namespace agentvcr::services
