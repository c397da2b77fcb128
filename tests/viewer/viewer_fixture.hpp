#pragma once

// The archive the viewer tests look at: the bundled demo (BENCH-like episodes and a GEN tree
// with 2 candidates) recorded through the real proxy into a real SQLite file, once per test
// binary; and the demo evaluated against a replay of itself.

#include <memory>
#include <string>

#include "agentvcr/net/url.hpp"
#include "agentvcr/services/evaluator.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_recording.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

/// Records the demo into `db_path` as one session named `name`, the agent's identity probed at
/// start as `agentvcr record` does.
inline sim::magma::Summary recordDemoInto(const std::string& db_path, const std::string& name) {
  return recordDemo(db_path, name, demoPlan(), /*probe_identity=*/true);
}

/// The conversation whose title starts with `title`, in the first session.
inline std::int64_t conversationTitled(const std::string& db_path, const std::string& title) {
  store::ArchiveReader reader(db_path);
  for (const auto& conversation : reader.conversations(1)) {
    if (conversation.title && conversation.title->rfind(title, 0) == 0) {
      return conversation.id;
    }
  }
  return 0;
}

/// Records the demo into `db_path`, then evaluates it against a replay of itself (every step
/// matches): the archive then holds the recording (session 1) and its evaluation.
inline services::EvalRun recordAndEvaluateDemo(const std::string& db_path) {
  recordDemoInto(db_path, "demo");
  services::ReplayServiceConfig replay;
  replay.db_path = db_path;
  replay.server.port = 0;
  services::ReplayService service(replay);
  service.start();
  services::EvalConfig eval;
  eval.db_path = db_path;
  eval.agent = *net::parseUrl("http://127.0.0.1:" + std::to_string(service.endpoint().port));
  services::EvalRun run = services::runEvaluation(eval);
  service.stop();
  return run;
}

}  // namespace agentvcr::testing
