#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

/// What an archive committed and indexed after a position, in the fleet archive's terms
/// (docs/fleet.md): rows keyed by their session's uuid and their natural position (an exchange's
/// `seq`, a step's input position, a candidate's index ...), never by this file's row ids, so
/// that the same recording shipped from a copy lands on the same keys. The shipper reads it; it
/// never writes the archive.
namespace agentvcr::store {

/// Bytes that are not text (a zstd frame, a dictionary).
struct FeedBytes {
  std::string data;
  bool operator==(const FeedBytes&) const = default;
};

/// One value of a fed row: NULL, an integer, a real, text or bytes.
using FeedValue = std::variant<std::monostate, std::int64_t, double, std::string, FeedBytes>;

/// Rows for one table of the fleet archive, columns named as that table names them.
struct FeedTable {
  std::string table;
  std::vector<std::string> columns;
  std::vector<std::vector<FeedValue>> rows;

  /// The index of column `name` in each row; columns.size() when the table has none.
  std::size_t column(std::string_view name) const {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) -
                                    columns.begin());
  }
};

/// How far a session was fed, as counts: its exchanges (numbered by `seq` from 0, so this is
/// also the next `seq` to feed), its replay misses and its step links.
struct FeedPosition {
  std::int64_t exchanges = 0;
  std::int64_t misses = 0;
  std::int64_t links = 0;
  bool operator==(const FeedPosition&) const = default;
};

/// A session of the archive, as the feed lists it.
struct FeedSession {
  std::int64_t id = 0;  ///< this file's id, only to ask the feed again
  std::string uuid;
  bool ended = false;
  /// Not ended, and its recorder is gone: it stopped without ending the session (killed, or its
  /// machine went down). The fed session row says so in its `interrupted` column.
  bool interrupted = false;
  /// Moves whenever anything of the session is written (its counters, its end, its agent
  /// identity, a replay miss, a step link): the archive's feed_tick, one past its highest.
  std::int64_t tick = 0;
  std::int64_t exchanges = 0;  ///< exchanges committed so far (sessions.exchange_count)
  std::int64_t misses = 0;     ///< replay misses recorded so far
  std::int64_t links = 0;      ///< step links written so far
  /// Of the session row as a batch feeds it: equal digests, equal rows.
  std::int64_t digest = 0;

  /// How far the session can be fed now.
  FeedPosition committed() const { return {exchanges, misses, links}; }
};

/// One batch of a session: its rows after a position, in an order that a database with
/// references could insert them (dictionaries and blobs, the session, conversations, then the
/// exchanges and what was decoded from them).
struct FeedBatch {
  FeedPosition end;                 ///< the position after this batch
  std::int64_t session_digest = 0;  ///< FeedSession::digest of the session row it carries
  std::size_t exchanges = 0;        ///< exchanges in the batch
  std::size_t misses = 0;           ///< replay misses in the batch
  std::size_t links = 0;            ///< step links in the batch
  bool caught_up = false;           ///< no committed row of the session is left after `end`
  bool waiting_for_index = false;   ///< stopped at an exchange the recorder has not indexed yet
  /// Bytes of the exchanges' bodies and headers in the batch.
  std::size_t exchange_bytes = 0;
  std::vector<FeedTable> tables;

  std::size_t rowCount() const;
};

/// How much one batch may carry: whichever limit comes first, and at least one exchange.
struct FeedLimits {
  std::size_t exchanges = 2000;
  std::size_t bytes = 64u << 20;  ///< of the exchanges' bodies and headers, as stored
};

/// Reads an archive's changes in short read transactions: each call opens one, reads, and
/// closes it before returning, so a slow consumer never holds back the archive's WAL checkpoints.
/// It never writes the file, nor migrates it: it reads archives of this agentvcr's schema only.
class ChangeFeed {
 public:
  /// Opens `db_path` read-only. Throws std::runtime_error "[store.open] ..." when it cannot,
  /// "[store.schema.old] ..." naming `agentvcr migrate --db FILE` when the archive is older.
  explicit ChangeFeed(const std::string& db_path,
                      std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});
  ~ChangeFeed();
  ChangeFeed(const ChangeFeed&) = delete;
  ChangeFeed& operator=(const ChangeFeed&) = delete;

  /// Every session of the archive, in id order.
  std::vector<FeedSession> sessions();

  /// The sessions written since their tick was `tick` (every session for 0), in id order: what a
  /// follower that saw ticks up to `tick` must look at again. Costs what changed, through the
  /// feed_tick index.
  std::vector<FeedSession> sessionsChangedSince(std::int64_t tick);

  /// Session `id` as sessions() lists it, read afresh; nullopt once it is gone.
  std::optional<FeedSession> session(std::int64_t id);

  /// Whether no recorder holds session `id` now (session_lock.hpp): a recorder that dies writes
  /// nothing, so a follower asks this of the sessions it saw being recorded.
  bool recorderStopped(std::int64_t id);

  /// SQLite's data_version of this connection: it differs from the last reading once another
  /// connection committed anything, and costs nothing to read.
  std::int64_t dataVersion();

  /// The session's rows after `after`: indexed exchanges in `seq` order up to `limits` (stopping
  /// before the first one not yet indexed) with everything decoded from them, the replay misses
  /// after `after.misses`, the session row and the conversations the batch touched (both as they
  /// stand now: they change as the session goes on). Dictionaries and blobs come with every
  /// batch that refers to them.
  FeedBatch next(const FeedSession& session, FeedPosition after, FeedLimits limits);

  /// Which tables a batch can hold, in the order next() fills them.
  static const std::vector<std::string>& tableNames();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::store
