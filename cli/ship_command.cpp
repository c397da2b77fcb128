// `agentvcr ship`: what an archive committed, copied into the fleet archive (docs/fleet.md).

#include "agentvcr/cli/ship_command.hpp"

#include <chrono>
#include <filesystem>
#include <future>
#include <iostream>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/shipper.hpp"

namespace agentvcr::cli {
namespace {

/// What the run shipped, and what it did not ship and why: `error` is why a failed run ended.
void printShipped(const fleet::ShipStats& stats, fleet::ShipEnd end, const std::string& error,
                  const std::string& db_path, std::ostream& out) {
  out << "agentvcr ship: " << stats.exchanges << " exchange(s), " << stats.rows << " row(s) in "
      << stats.batches << " batch(es)";
  if (stats.quarantined > 0) {
    out << "; " << stats.quarantined << " item(s) quarantined (named above): fix the cause, "
        << "then run `agentvcr ship --db " << db_path << " --to URI --retry-quarantined`";
  }
  if (stats.pruned > 0) {
    out << "; " << stats.pruned << " session(s) pruned from the fleet archive, not shipped";
  }
  if (stats.left > 0) {
    out << "; " << stats.left << " exchange(s) of " << db_path;
    switch (end) {
      case fleet::ShipEnd::CaughtUp:
        // A pass that went through the whole archive leaves only what it could not read yet.
        out << " not indexed yet, so not shipped: a recorder still writing indexes them (ship "
               "again later), one that was killed left them (run `agentvcr migrate --db "
            << db_path << "`, then ship again)";
        break;
      case fleet::ShipEnd::Stopped:
        out << " not shipped by this run, stopped before it reached them: the archive keeps "
               "them for the next `agentvcr ship`";
        break;
      case fleet::ShipEnd::Failed:
        // The error's first line says why; the whole of it follows on stderr.
        out << " not shipped by this run, which failed (" << error.substr(0, error.find('\n'))
            << "): the archive keeps them for the next `agentvcr ship`";
        break;
    }
  }
  out << std::endl;
}

/// Runs `shipper` (following) until it fails or a signal comes, then lets it ship what is
/// committed for at most `drain`.
fleet::ShipEnd runShipWhileSignalled(fleet::Shipper& shipper, std::chrono::seconds drain) {
  StopSignals stop_signals;
  std::promise<fleet::ShipEnd> ended;
  std::future<fleet::ShipEnd> end = ended.get_future();
  std::thread worker([&] {
    ended.set_value(shipper.run());
    stop_signals.interrupt();
  });
  if (stop_signals.wait() != 0) {
    // Ship what is committed for a bounded time, then stop: the rest stays in the archive.
    shipper.finish();
    if (end.wait_for(drain) != std::future_status::ready) {
      shipper.stop();
    }
  }
  worker.join();
  return end.get();
}

}  // namespace

int shipExitStatus(fleet::ShipEnd end, const fleet::ShipStats& stats) {
  if (end == fleet::ShipEnd::Failed) {
    return kExitFailure;
  }
  if (stats.quarantined > 0) {
    return kExitQuarantined;
  }
  return stats.left > 0 && end == fleet::ShipEnd::CaughtUp ? kExitNotIndexed : kExitOk;
}

int runShip(const ShipCommand& command, std::ostream& out) {
  if (!std::filesystem::is_regular_file(command.db_path)) {
    throw std::runtime_error("[store.open] no archive at " + command.db_path);
  }
  if (fleet::carriesPassword(command.uri)) {
    std::cerr << "agentvcr ship: warning: " << fleet::passwordWarning() << std::endl;
  }
  fleet::ShipOptions options;
  options.db_path = command.db_path;
  options.uri = command.uri;
  options.follow = command.follow;
  options.batch.exchanges = command.batch;
  options.batch.bytes = command.batch_mib << 20;
  options.retry_quarantined = command.retry_quarantined;
  options.log = [](const std::string& line) {
    std::cerr << "agentvcr ship: " << line << std::endl;
  };
  fleet::Shipper shipper(options);
  fleet::ShipEnd end = fleet::ShipEnd::CaughtUp;
  if (command.follow) {
    out << "agentvcr ship: following " << command.db_path << " into "
        << fleet::redactedUri(command.uri) << std::endl;
    end = runShipWhileSignalled(shipper, command.drain);
  } else {
    end = shipper.run();
  }
  const fleet::ShipStats stats = shipper.stats();
  printShipped(stats, end, shipper.error(), command.db_path, out);
  if (end == fleet::ShipEnd::Failed) {
    std::cerr << "agentvcr ship: " << shipper.error() << std::endl;
  }
  return shipExitStatus(end, stats);
}

Registration<ShipCommand> registerShip(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ShipCommand>();
  auto* ship = app.add_subcommand(
      "ship", "Copy what an archive committed into the fleet archive on PostgreSQL");
  ship->add_option("--db", command->db_path, "Archive to read (never written)")
      ->capture_default_str();
  ship->add_option("--to", command->uri,
                   "Fleet archive: postgresql://[user@]host[:port]/db[?sslmode=...] or a libpq "
                   "connection string; passwords come from PGPASSWORD or ~/.pgpass")
      ->required();
  ship->add_flag("--follow", command->follow,
                 "Keep shipping new rows until SIGINT/SIGTERM (beside a running recorder)");
  ship->add_option("--batch", command->batch, "Exchanges per PostgreSQL transaction, at most")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  ship->add_option("--batch-mib", command->batch_mib,
                   "Bodies and headers per PostgreSQL transaction, at most (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  ship->add_flag("--retry-quarantined", command->retry_quarantined,
                 "First try again what the fleet archive quarantined of this archive's sessions "
                 "(after fixing the cause)");
  ship->add_option_function<int>(
          "--drain-timeout",
          [command](int seconds) { command->drain = std::chrono::seconds(seconds); },
          "With --follow: seconds to keep shipping after SIGTERM (default 10)")
      ->check(CLI::Range(0, 3600));
  runWhenParsed<ShipCommand>(ship, invocation, "ship", command, {}, runShip);
  return {ship, command};
}

}  // namespace agentvcr::cli
