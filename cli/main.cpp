// agentvcr: record, inspect and replay agent HTTP traffic. Each command registers its own
// options (agentvcr/cli/command_line.hpp); this only parses and runs the chosen one.

#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/fleet/uri_secrets.hpp"

int main(int argc, char** argv) {
  using namespace agentvcr;
  CLI::App app{"agentvcr: record, inspect and replay AI-agent HTTP traffic"};
  app.require_subcommand(1);
  cli::Invocation invocation;
  invocation.arguments.assign(argv + 1, argv + argc);
  cli::registerAll(app, invocation, argv[0]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 quotes an argument it cannot place, a connection string too: never its password.
    std::ostringstream message;
    const int status = app.exit(error, std::cout, message);
    std::cerr << fleet::withoutPasswords(message.str(), invocation.arguments);
    return status;
  }
  return cli::execute(invocation, std::cout, std::cerr);
}
