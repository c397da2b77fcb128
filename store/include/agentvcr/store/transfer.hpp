#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/rows.hpp"

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
  std::size_t links = 0;  ///< evaluation and fork links, of steps and of A2A calls
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

/// A step named by what it is rather than by an archive's row id: its session's uuid, its
/// exchange's `seq` and its position in the request's inputs. The same in every copy.
struct StepKey {
  std::string session_uuid;
  std::int64_t seq = 0;
  std::int64_t position = 0;
};

/// What a link ties: steps (`step_links`) or A2A calls (`call_links`), both named by a StepKey:
/// a call's key is its exchange's seq and its position in a batch.
enum class LinkKind { Step, Call };

/// A link of a copied evaluation or fork session: its step or call, and the recorded one it
/// asked again.
struct CopiedLink {
  StepKey step;
  StepKey recorded;
  LinkKind kind = LinkKind::Step;
};

/// A replay miss of a copied session, its closest recorded step named by key.
struct CopiedMiss {
  ReplayMissRow miss;  ///< closest_step_id is ignored: `closest` names it
  std::optional<StepKey> closest;
};

/// Where copied sessions come from: an archive file (merge) or the fleet archive (pull).
class SessionSource {
 public:
  virtual ~SessionSource() = default;

  /// The sessions to copy, in order.
  virtual std::vector<SessionRow> sessions() = 0;
  /// Calls `each` with every exchange of `session` in seq order, bodies as relayed, and the
  /// arrival times of its stream events in order.
  virtual void exchanges(
      const SessionRow& session,
      const std::function<void(const ExchangeRow&, const std::vector<std::int64_t>&)>& each) = 0;
  /// Its step links, then its call links.
  virtual std::vector<CopiedLink> links(const SessionRow& session) = 0;
  virtual std::vector<CopiedMiss> replayMisses(const SessionRow& session) = 0;
};

/// Copies the sessions of `source` into `out_path` (created if missing), each through a
/// Recorder with its identity, exchanges, agent identity, replay misses and evaluation links.
/// A session whose uuid `out_path` already holds is skipped (CopyResult::already_held) unless
/// `as_new`. A link or a miss's closest step is kept when the step it names is in `out_path`
/// once the session is copied (copied before, or held already), looked up by its key.
CopyResult copySessions(SessionSource& source, const std::string& out_path,
                        const MergeOptions& options = {});

/// A body as relayed, from the bytes an archive stores (docs/schema.md, Bodies): `stored`
/// with `codec` (NULL or "zstd"), compressed against `dictionary` (a dictionary's content as
/// relayed) when there is one. Throws std::runtime_error "[store.body.*]".
std::string unpackStoredBody(std::string_view stored, const std::optional<std::string>& codec,
                             std::optional<std::string_view> dictionary = std::nullopt);

/// The header fields an archive's `request_headers` / `response_headers` column holds (none
/// for text that is not such a column's).
protocol::Headers storedHeaders(const std::string& text);

/// Copies every session of the archive `in_path` into `out_path` (created if missing), each
/// with copySessions(): merging the same archive twice copies each session once.
CopyResult mergeArchive(const std::string& out_path, const std::string& in_path,
                        const MergeOptions& options = {});

}  // namespace agentvcr::store
