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
  cli::registerAll(app, invocation, argv[0]);
  CLI11_PARSE(app, argc, argv);
  return cli::execute(invocation, std::cout, std::cerr);
}
