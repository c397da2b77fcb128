#pragma once

// GET /health and GET /v1/info: what the recorded agent answered, or a stand-in built from
// what was recorded.

#include <cstdint>
#include <vector>

#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::replay::detail {

class IdentityReplies {
 public:
  /// Prefers the latest recorded 2xx exchange of the route in `sessions` that validates, then
  /// the latest identity the recorder probed at start; else `{"status":"ready"}` and an info
  /// with `capabilities.inference` true and `coaching` only when `coaching_recorded`.
  IdentityReplies(const store::ArchiveReader& reader, const store::ReplaySelection& selection,
                  const std::vector<store::SessionRow>& sessions, bool coaching_recorded);

  const protocol::HttpReply& health() const { return health_; }

  const protocol::HttpReply& info() const { return info_; }

 private:
  protocol::HttpReply health_;
  protocol::HttpReply info_;
};

}  // namespace agentvcr::replay::detail
