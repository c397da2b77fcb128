#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agentvcr/otel/otlp_json.hpp"
#include "agentvcr/otel/span_tree.hpp"

/// `agentvcr export --format otlp`: an archive's recordings as OTLP requests, read once.
namespace agentvcr::otel {

struct ArchiveExportOptions {
  std::string db_path;
  bool content = false;                ///< see SpanOptions::content
  std::vector<std::int64_t> sessions;  ///< session ids as `agentvcr ls` shows them; all when empty
  std::vector<std::int64_t>
      conversations;  ///< only these conversations' traces (ids, as `ls` shows)
  PayloadLimits limits;
  std::size_t batch_exchanges = 500;  ///< exchanges read per feed batch
};

/// What `emit` took.
struct ExportCounts {
  std::uint64_t traces = 0;  ///< traces of which every span was taken
  std::uint64_t spans = 0;
  std::uint64_t payloads = 0;
};

/// Reads what the archive has indexed, session by session, and hands each request body to
/// `emit`, which returns false to end the export there (a request it could not deliver). A
/// session's conversation root spans come after its other spans. Throws std::runtime_error
/// when the archive, a session or a conversation does not exist.
ExportCounts exportArchive(const ArchiveExportOptions& options,
                           const std::function<bool(const Payload&)>& emit);

}  // namespace agentvcr::otel
