#pragma once

// The bundled demo recorded through the real proxy into a real SQLite file: the scripted MAGMA
// agent on a loopback port, the demo's episode plan, a driver playing it as BENCH does, and the
// recording proxy in between. Replay, evaluation and viewer tests start from this archive.

#include <cstdint>
#include <memory>
#include <string>

#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/sim/magma/demo_driver.hpp"

namespace agentvcr::testing {

/// The demo's scripted MAGMA agent on 127.0.0.1:0.
class ScriptedAgentServer {
 public:
  ScriptedAgentServer();

  std::uint16_t port() const { return server_.endpoint().port; }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }

 private:
  proxy::Server server_;
};

/// The demo's episodes (BENCH-like episodes in 2 slots, a GEN tree with 2 candidates).
sim::magma::DemoPlan demoPlan();

/// Plays `driver` against the agent on `port`, one connection per call as BENCH does.
sim::magma::Summary drive(sim::magma::DemoDriver& driver, std::uint16_t port);

/// A recording proxy in front of `upstream_url` writing session `name` into `db_path`.
/// The recorder asks the agent for /health and /v1/info at start only when `probe_identity`.
std::unique_ptr<proxy::RecordingProxy> startRecording(const std::string& upstream_url,
                                                      const std::string& db_path,
                                                      const std::string& name,
                                                      bool probe_identity = false);

/// Records `plan` played against the scripted agent into `db_path` as one session named `name`,
/// after the caller's start-up probes (/health, /v1/info) as BENCH sends them.
sim::magma::Summary recordDemo(const std::string& db_path, const std::string& name,
                               sim::magma::DemoPlan plan = demoPlan(), bool probe_identity = false);

/// recordDemo() of the demo plan as session `name`, recorded once per test process and copied
/// to `db_path` from then on, for the tests that only read it: each gets an archive of its own
/// (the same session uuid in each). `db_path` must not exist yet.
sim::magma::Summary copyOfRecordedDemo(const std::string& db_path, const std::string& name);

/// Copies the SQLite archive at `from`, with its write-ahead log if it has one, to `to`.
void copyArchive(const std::string& from, const std::string& to);

}  // namespace agentvcr::testing
