#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agentvcr/store/transfer.hpp"

/// Sessions out of the fleet archive into a SQLite archive (docs/fleet.md, Pull a slice), where
/// replay, eval, lint, stats, export and the viewer work on them unchanged.
namespace agentvcr::fleet {

struct PullOptions {
  std::string uri;      ///< the fleet archive
  std::string db_path;  ///< the SQLite archive to write (created if missing)
  /// Sessions by uuid, or its first 8 characters or more (ls prints 8), in either case
  /// (store::uuidPrefix()); empty: any. Anything else is refused.
  std::vector<std::string> sessions;
  std::vector<std::string> nodes;  ///< only sessions recorded on these nodes; empty: any
  /// Only sessions that started at or after this time, as PostgreSQL reads a timestamptz
  /// ("2026-12-01", "2026-12-01T08:00:00Z", "yesterday").
  std::optional<std::string> since;
  bool as_new = false;  ///< as store::MergeOptions::as_new
};

/// Copies the sessions that match `options` with store::copySessions(): each once, with its
/// identity, exchanges (bodies and headers byte for byte, every timing point), stream event
/// times, agent identity, replay misses and evaluation links; the archive decodes and threads
/// them again. Throws PgError "[fleet.*]" when the fleet archive cannot be read.
store::CopyResult pull(const PullOptions& options);

}  // namespace agentvcr::fleet
