#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "agentvcr/cli/command.hpp"

namespace agentvcr::cli {

/// `agentvcr ls`: the sessions of an archive, or the conversations of one.
struct LsCommand {
  std::string db_path = kDefaultArchive;
  std::optional<std::int64_t> session;
};

int runLs(const std::string& db_path, std::optional<std::int64_t> session, std::ostream& out);

struct ShowCommand {
  std::string db_path = kDefaultArchive;
  std::optional<std::int64_t> conversation;
  std::optional<std::int64_t> exchange;
  bool bodies = false;  ///< with --exchange: print request and response bodies too
};

int runShow(const ShowCommand& command, std::ostream& out);

Registration<LsCommand> registerLs(CLI::App& app, Invocation& invocation);
Registration<ShowCommand> registerShow(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
