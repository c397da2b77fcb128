#pragma once

// How far the live exporter sent each session to one collector, kept in a file beside the
// archive (docs/observability.md, "Where the exporter resumes"): a restart resumes there, so a
// collector never gets a trace twice after a clean stop, and after a kill at most the batch that
// was in flight.

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::otel::detail {

/// What was sent of one session.
struct SentSession {
  store::FeedPosition position;
  std::set<std::int64_t> roots;  ///< conversations whose root span went out
};

/// An append-only log (uuids in hex, whatever bytes they hold): one line per batch or root sent,
/// compacted into a fresh file once it holds several times what it says. A position belongs to one
/// collector: a log written for another endpoint is started afresh.
class ExportPositions {
 public:
  /// Reads the log at `path` (none yet: nothing sent) for `endpoint`. An empty `path` keeps
  /// nothing. A last line cut short by a kill is ignored. Throws std::runtime_error when the
  /// file cannot be written.
  ExportPositions(std::string path, std::string endpoint);

  /// What was sent of `uuid` (nothing when unknown).
  const SentSession& sent(const std::string& uuid);

  /// Records that everything of `uuid` up to `position` was sent.
  void recordPosition(const std::string& uuid, const store::FeedPosition& position);
  /// Records that the root span of conversation `number` of `uuid` was sent.
  void recordRoot(const std::string& uuid, std::int64_t number);

 private:
  void append(const std::string& line);
  void rewrite();

  std::string path_;
  std::string endpoint_;
  std::map<std::string, SentSession> sessions_;
  std::ofstream log_;
  std::size_t lines_ = 0;
};

}  // namespace agentvcr::otel::detail
