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

void printShipped(const fleet::ShipStats& stats, const std::string& db_path, std::ostream& out) {
  out << "agentvcr ship: " << stats.exchanges << " exchange(s), " << stats.rows << " row(s) in "
      << stats.batches << " batch(es)";
  if (stats.left > 0) {
    out << "; " << stats.left << " exchange(s) of " << db_path
        << " not shipped yet: run `agentvcr ship --db " << db_path << " --to URI` to send them";
  }
  out << std::endl;
}

/// Runs `shipper` (following) until it fails or a signal comes, then lets it ship what is
/// committed for at most `drain`.
int runShipWhileSignalled(fleet::Shipper& shipper, std::chrono::seconds drain) {
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
  return end.get() == fleet::ShipEnd::Failed ? kExitFailure : kExitOk;
}

}  // namespace

int runShip(const ShipCommand& command, std::ostream& out) {
  if (!std::filesystem::is_regular_file(command.db_path)) {
    throw std::runtime_error("[store.open] no archive at " + command.db_path);
  }
  fleet::ShipOptions options;
  options.db_path = command.db_path;
  options.uri = command.uri;
  options.follow = command.follow;
  options.batch_exchanges = command.batch;
  options.log = [](const std::string& line) {
    std::cerr << "agentvcr ship: " << line << std::endl;
  };
  fleet::Shipper shipper(options);
  int status = kExitOk;
  if (command.follow) {
    out << "agentvcr ship: following " << command.db_path << " into "
        << fleet::redactedUri(command.uri) << std::endl;
    status = runShipWhileSignalled(shipper, command.drain);
  } else {
    status = shipper.run() == fleet::ShipEnd::Failed ? kExitFailure : kExitOk;
  }
  printShipped(shipper.stats(), command.db_path, out);
  if (status != kExitOk) {
    std::cerr << "agentvcr ship: " << shipper.error() << std::endl;
  }
  return status;
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
  ship->add_option("--batch", command->batch, "Exchanges per PostgreSQL transaction")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  ship->add_option_function<int>(
          "--drain-timeout",
          [command](int seconds) { command->drain = std::chrono::seconds(seconds); },
          "With --follow: seconds to keep shipping after SIGTERM (default 10)")
      ->check(CLI::Range(0, 3600));
  runWhenParsed<ShipCommand>(ship, invocation, "ship", command, {}, runShip);
  return {ship, command};
}

}  // namespace agentvcr::cli
