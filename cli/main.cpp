// agentvcr: record, inspect and replay agent HTTP traffic. Each command registers its own
// options (agentvcr/cli/command_line.hpp); this only parses and runs the chosen one.

#include <iostream>

#include <CLI/CLI.hpp>

#include "agentvcr/cli/command_line.hpp"

int main(int argc, char** argv) {
  using namespace agentvcr;
  CLI::App app{"agentvcr: record, inspect and replay AI-agent HTTP traffic"};
  app.require_subcommand(1);
  cli::Invocation invocation;
  invocation.arguments.assign(argv + 1, argv + argc);
  cli::registerAll(app, invocation, argv[0]);
  return cli::parseAndExecute(app, invocation, argc, argv, std::cout, std::cerr);
}
