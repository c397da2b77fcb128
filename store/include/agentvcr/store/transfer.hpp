#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "agentvcr/store/recorder.hpp"

/// Copying recorded sessions into an archive: import of the archive JSONL (exportArchiveJsonl)
/// and merge of whole archives (docs/schema.md, Export, import and merge). Both write through
/// a Recorder, one per session, so steps, conversations, A2A calls and stream events are
/// decoded again and every id is the destination's own.
namespace agentvcr::store {

struct ImportOptions {
  /// Names every imported session when not empty; otherwise each keeps its exported name.
  std::string session_name;
  /// Copies every session as a new one: a fresh uuid, the copied one kept as `derived_from`.
  /// Without it, a session whose uuid the archive already holds is not copied again.
  bool as_new = false;
  RecorderOptions recorder;
};

struct MergeOptions {
  bool as_new = false;  ///< as ImportOptions::as_new
  RecorderOptions recorder;
};

/// A session a copy left out because the archive already held its uuid.
struct SkippedSession {
  std::string uuid;
  std::string name;
};

struct CopyResult {
  std::vector<std::int64_t> session_ids;  ///< the new sessions, in the order written
  std::size_t exchanges = 0;
  std::size_t replay_misses = 0;
  std::size_t step_links = 0;
  std::vector<SkippedSession> already_held;  ///< not copied: the archive held them before
};

/// Reads the archive JSONL from `in` and writes its exchanges into the archive at `db_path`
/// (created if missing): one new session per exported session id, with the exported session
/// row and identity when a {"session": ...} line precedes its exchanges (else name
/// "import-<id>", mode "import" and a fresh identity). A session whose uuid the archive already
/// holds is skipped with its exchanges (CopyResult::already_held) unless `as_new`. Throws
/// std::runtime_error "[store.import] line N: ..." for a line that is not the format; the
/// sessions written until then stay.
CopyResult importJsonl(std::istream& in, const std::string& db_path,
                       const ImportOptions& options = {});

/// Copies every session of the archive `in_path` into `out_path` (created if missing), each
/// as a new session with its identity (uuid, node, version), its exchanges in order, its agent
/// identity and its replay misses (a miss's closest step is pointed at the copy of that step when
/// it was copied from the same input before, else left empty) and its evaluation step links (kept
/// when both steps were copied: an evaluation comes after what it re-asked). A session whose uuid
/// `out_path` already holds is skipped (CopyResult::already_held) unless `as_new`: merging the same
/// archive twice copies each session once.
CopyResult mergeArchive(const std::string& out_path, const std::string& in_path,
                        const MergeOptions& options = {});

}  // namespace agentvcr::store
