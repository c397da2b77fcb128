#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/protocol/chaos.hpp"

namespace agentvcr::cli {

struct DemoCommand {
  std::string fixtures_dir;  ///< holds demo/agent-script.json and demo/episodes.json
  std::string db_path = kDefaultDemoArchive;
  unsigned threads = 2;
  std::string node;                        ///< --node; empty: the host name
  std::string program = "agentvcr";        ///< how the user runs agentvcr, for the printed hints
  std::shared_ptr<protocol::Chaos> chaos;  ///< --chaos: faults the demo's caller meets
};

int runDemo(const DemoCommand& command, std::ostream& out);

/// `program` is how the user ran agentvcr, for the hints the demo prints.
Registration<DemoCommand> registerDemo(CLI::App& app, Invocation& invocation,
                                       const std::string& program);

}  // namespace agentvcr::cli
