#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "agentvcr/store/change_feed.hpp"

/// Shipping an archive into the fleet archive (docs/fleet.md): the SQLite file is the local
/// buffer, PostgreSQL the destination. The shipper only reads the file, so it never competes with
/// a recorder for its write lock, and a slow or absent PostgreSQL never slows the recording.
namespace agentvcr::fleet {

struct ShipOptions {
  std::string db_path;  ///< the SQLite archive to read (never written)
  std::string uri;      ///< the fleet archive, a libpq URI or connection string
  /// Keep looking for new rows until stop(); otherwise stop once everything committed so far
  /// and indexed is shipped.
  bool follow = false;
  /// What one PostgreSQL transaction carries at most.
  store::FeedLimits batch;
  std::chrono::milliseconds poll{200};          ///< how often --follow looks for new rows
  std::chrono::milliseconds retry_first{250};   ///< first wait after a failure, doubled up to
  std::chrono::milliseconds retry_max{10'000};  ///< ... this
  /// Without `follow`, give up after this many failed attempts in a row (0: never).
  int attempts = 5;
  /// First try again what the fleet archive quarantined of this archive's sessions (after the
  /// cause was fixed): their items leave the quarantine, and the sessions ship from the start.
  bool retry_quarantined = false;
  /// Where the shipper reports: one line per outage, recovery, quarantined item or fatal error,
  /// never per row.
  std::function<void(const std::string&)> log;
  /// Called when a batch failed, before the connection is dropped and the retry waits: a seam
  /// that lets a test act at exactly that point.
  std::function<void()> on_failure;
};

struct ShipStats {
  std::uint64_t exchanges = 0;  ///< exchanges shipped (rows the fleet already held count too)
  std::uint64_t rows = 0;       ///< rows of every table sent
  std::uint64_t batches = 0;
  std::uint64_t sessions = 0;     ///< sessions with anything shipped
  std::uint64_t outages = 0;      ///< times PostgreSQL went away or failed a batch for a while
  std::uint64_t quarantined = 0;  ///< items PostgreSQL refused, kept in `quarantine` with why
  std::uint64_t pruned = 0;       ///< sessions not shipped because the fleet archive pruned them
  /// Exchanges the archive had committed that were not shipped when run() returned: after a
  /// pass that ended CaughtUp, those not indexed yet.
  std::uint64_t left = 0;
  /// While running: exchanges committed and not shipped after the last round, and how long the
  /// fleet has been missing some (zero once a round caught up).
  std::uint64_t lag_exchanges = 0;
  std::chrono::nanoseconds lag{0};
};

/// The outcome of run(): everything shipped that could be, or why not.
enum class ShipEnd { CaughtUp, Stopped, Failed };

class Shipper {
 public:
  /// Opens the archive read-only (throws std::runtime_error "[store.open] ..." or
  /// "[store.schema.old] ..." naming `agentvcr migrate`).
  explicit Shipper(ShipOptions options);
  ~Shipper();
  Shipper(const Shipper&) = delete;
  Shipper& operator=(const Shipper&) = delete;

  /// Ships until caught up (or, with `follow`, until stop()). Transient failures (the
  /// connection, the server restarting, a conflict) are retried with backoff; rows PostgreSQL
  /// refuses are quarantined and the rest ships; a fleet schema that is missing, older or newer,
  /// or a failure retrying cannot fix (privileges), ends it: ShipEnd::Failed, why in error().
  ShipEnd run();

  /// Ends run() from any thread: the batch in flight is cancelled and rolled back (the rows
  /// stay in the archive for the next shipper).
  void stop();

  /// Ends `follow` mode once caught up: run() ships what is committed now, then returns.
  void finish();

  ShipStats stats() const;
  std::string error() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentvcr::fleet
