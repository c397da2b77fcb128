#pragma once

// The archive the viewer tests look at: the bundled demo (BENCH-like episodes and a GEN tree
// with 2 candidates) recorded through the real proxy into a real SQLite file, once per test
// binary.

#include <memory>
#include <string>

#include "replay_fixture.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

/// Records the demo into `db_path` as one session named `name`.
inline sim::magma::Summary recordDemoInto(const std::string& db_path, const std::string& name) {
  ScriptedAgentServer agent;
  auto recording = startRecording(agent.url(), db_path, name, /*probe_identity=*/true);
  {
    proxy::HttpClient client("127.0.0.1", recording->endpoint().port());
    client.get("/health");
    client.get("/v1/info");
  }
  sim::magma::DemoDriver driver(demoPlan());
  auto summary = drive(driver, recording->endpoint().port());
  recording->settle();
  recording->stop();
  return summary;
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

}  // namespace agentvcr::testing
