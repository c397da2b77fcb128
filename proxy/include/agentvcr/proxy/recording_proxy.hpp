#pragma once

#include <memory>
#include <string>

#include "agentvcr/proxy/relay.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/store/recorder.hpp"

namespace agentvcr::proxy {

struct RecordingProxyConfig {
  RelayOptions relay;
  ServerOptions server;
  std::string db_path = "agentvcr.sqlite";
  store::SessionInfo session;  ///< upstream and listen are filled in from the options
  store::RecorderOptions recorder;
  /// Ask a MAGMA upstream for /health and /v1/info at start and keep the answers with the
  /// session (plain-http upstreams only; the caller's own probes are recorded regardless).
  bool probe_identity = true;
};

/// `agentvcr record` as an object: an archive, a recorder writing one session into it, and a
/// server relaying to the upstream through the record tap.
class RecordingProxy {
 public:
  /// Opens the archive and binds the listener (throws on either failure).
  explicit RecordingProxy(RecordingProxyConfig config);
  ~RecordingProxy();

  const net::HostPort& endpoint() const { return server_->endpoint(); }

  store::Recorder& recorder() { return *recorder_; }

  std::int64_t sessionId() const { return recorder_->sessionId(); }

  void start();
  /// Stops accepting, lets exchanges in flight finish (Server::stop(): those that outlive the
  /// drain are cut and recorded as cut), drains the recorder. Idempotent.
  void stop();

  /// Ends stop()'s drain at once (Server::cutNow()). Safe from any thread.
  void cutNow() { server_->cutNow(); }

  /// Waits (up to `timeout`) until every exchange whose request has arrived is queued, then
  /// until the queue is committed: afterwards a reader sees everything any client was
  /// answered. Returns false on timeout (an exchange is still in progress).
  bool settle(std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  void probeIdentity();

  RecordingProxyConfig config_;
  RelayCounters counters_;
  std::unique_ptr<store::Recorder> recorder_;
  std::unique_ptr<Server> server_;
};

}  // namespace agentvcr::proxy
