#pragma once

// Import and merge write recorded exchanges again through a Recorder, so the archive decodes,
// threads and indexes them as if they had just been relayed.

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::store::detail {

/// The exchange `row` recorded (with headers and bodies). `event_at_ns` holds the times of its
/// stream events in order: they become response_arrivals at the end of each event of the body,
/// so the events keep their times once written again.
protocol::Exchange exchangeFromRow(const ExchangeRow& row,
                                   const std::vector<std::int64_t>& event_at_ns);

/// Submits `exchange`, waiting while the recorder's queue is full (a copy loses nothing).
/// Throws std::runtime_error when the recorder is closed.
void submitWaiting(Recorder& recorder, protocol::Exchange& exchange);

/// The SessionInfo that recreates `row`: name, mode, upstream, listen, start and end, and its
/// identity: its uuid, node and version, or with `as_new` a fresh uuid derived from its own.
SessionInfo sessionInfoOf(const SessionRow& row, bool as_new);

/// The uuids of the sessions an archive holds, so that a copy adds a session once however
/// often it meets it (import and merge are idempotent), however each spells them.
class HeldSessions {
 public:
  /// Reads the archive at `db_path`, migrating it first; none when there is no file yet.
  /// Throws std::runtime_error "[store.*]" like migrateArchive().
  HeldSessions(const std::string& db_path, std::chrono::milliseconds busy_timeout);

  /// `uuid` in any spelling: held ones are compared as canonicalUuid() spells them.
  bool holds(const std::string& uuid) const;

  /// Counts `uuid` as held from now on: the copy has just written it.
  void add(const std::string& uuid);

 private:
  std::set<std::string> uuids_;
};

}  // namespace agentvcr::store::detail
