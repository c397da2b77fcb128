#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr noise`: the paths that vary between recordings of the same episodes (docs/replay.md).
struct NoiseCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< empty: the latest recording and its evaluations
  std::string out_path;                ///< --out; empty: `out`
};

/// kExitFailure when the sessions cannot be compared (the reason on `out`).
int runNoise(const NoiseCommand& command, std::ostream& out);

Registration<NoiseCommand> registerNoise(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
