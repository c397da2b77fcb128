#pragma once

// The archive the viewer tests look at: the bundled demo (BENCH-like episodes and a GEN tree
// with 2 candidates) recorded through the real proxy into a real SQLite file, once per test
// binary.

#include <memory>
#include <string>

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

}  // namespace agentvcr::testing
