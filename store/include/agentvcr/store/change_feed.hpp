#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
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
  /// Changes whenever anything of the session was written: its counters, its end, its agent
  /// identity, a new replay miss. Equal fingerprints: nothing new to feed.
  std::string fingerprint;
  std::int64_t exchanges = 0;  ///< exchanges committed so far (sessions.exchange_count)
};

/// One batch of a session: its rows after a position, in an order that a database with
/// references could insert them (dictionaries and blobs, the session, conversations, then the
/// exchanges and what was decoded from them).
struct FeedBatch {
  FeedPosition end;                ///< the position after this batch
  std::size_t exchanges = 0;       ///< exchanges in the batch
  std::size_t misses = 0;          ///< replay misses in the batch
  std::size_t links = 0;           ///< step links in the batch
  bool caught_up = false;          ///< no committed row of the session is left after `end`
  bool waiting_for_index = false;  ///< stopped at an exchange the recorder has not indexed yet
  std::vector<FeedTable> tables;

  std::size_t rowCount() const;
};

/// Reads an archive's changes in short read transactions: each call opens one, reads, and
/// closes it before returning, so a slow consumer never holds back the archive's WAL checkpoints.
class ChangeFeed {
 public:
  /// Opens `db_path` read-only (migrating it first if it is older). Throws std::runtime_error
  /// "[store.open] ..." when it cannot.
  explicit ChangeFeed(const std::string& db_path,
                      std::chrono::milliseconds busy_timeout = std::chrono::milliseconds{5000});
  ~ChangeFeed();
  ChangeFeed(const ChangeFeed&) = delete;
  ChangeFeed& operator=(const ChangeFeed&) = delete;

  /// Every session of the archive, in id order.
  std::vector<FeedSession> sessions();

  /// The session's rows after `after`: up to `max_exchanges` indexed exchanges in `seq` order
  /// (stopping before the first one not yet indexed) with everything decoded from them, the
  /// replay misses after `after.misses`, the session row and the conversations the batch touched
  /// (both as they stand now: they change as the session goes on). Dictionaries and blobs come
  /// with every batch that refers to them.
  FeedBatch next(const FeedSession& session, FeedPosition after, std::size_t max_exchanges);

  /// Which tables a batch can hold, in the order next() fills them.
  static const std::vector<std::string>& tableNames();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::store
