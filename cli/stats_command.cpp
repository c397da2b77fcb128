// `agentvcr stats`: per-session aggregates of recorded traffic as aligned tables or one JSON
// object (docs/lint-and-stats.md).

#include "agentvcr/cli/stats_command.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/fleet/fleet_reads.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/stats.hpp"

namespace agentvcr::cli {
namespace {

using protocol::Json;

std::string agentLabel(const store::SessionStats& s) {
  if (!s.agent_id) {
    return "unknown agent";
  }
  return *s.agent_id + (s.agent_version ? " " + *s.agent_version : std::string());
}

std::string ms(double value) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << value;
  return text.str();
}

/// Rows of label/value pairs with the labels padded to one width.
void table(std::ostream& out, const std::string& title,
           const std::vector<std::pair<std::string, std::string>>& rows) {
  if (rows.empty()) {
    return;
  }
  std::size_t width = 0;
  for (const auto& [label, ignored] : rows) {
    width = std::max(width, label.size());
  }
  out << "  " << title << "\n";
  for (const auto& [label, value] : rows) {
    out << "    " << std::left << std::setw(static_cast<int>(width)) << label << "  " << std::right
        << value << "\n";
  }
}

template <class Map>
std::vector<std::pair<std::string, std::string>> rowsOf(const Map& counts) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& [key, count] : counts) {
    std::ostringstream label;
    label << key;
    rows.emplace_back(label.str().empty() ? "(none)" : label.str(), std::to_string(count));
  }
  return rows;
}

/// " (0.42x the bodies on the wire)": stored bytes against traffic bytes; empty without traffic.
std::string ratioText(std::int64_t stored, std::int64_t on_wire) {
  if (on_wire == 0) {
    return "";
  }
  char text[64];
  std::snprintf(text, sizeof text, " (%.2fx the bodies on the wire)",
                static_cast<double>(stored) / static_cast<double>(on_wire));
  return text;
}

void writeText(const store::ArchiveStats& stats, std::ostream& out) {
  for (const store::SessionStats& s : stats.sessions) {
    // The fleet archive has no session ids: its sessions are named by uuid.
    out << "session "
        << (s.session_id != 0 ? std::to_string(s.session_id) : store::shortUuid(s.uuid)) << " "
        << s.name << " (" << agentLabel(s) << ") on " << s.node << "\n";
    table(out, "traffic",
          {{"exchanges", std::to_string(s.exchanges)},
           {"steps", std::to_string(s.steps)},
           {"candidates", std::to_string(s.candidates)},
           {"env steps", std::to_string(s.env_steps)},
           {"env failures", std::to_string(s.env_failures)}});
    table(out, "body bytes",
          {{"on the wire", std::to_string(s.body_bytes_on_wire)},
           {"stored", std::to_string(s.body_bytes_stored) +
                          ratioText(s.body_bytes_stored, s.body_bytes_on_wire)}});
    table(out, "latency ms (" + std::to_string(s.latency.count) + " ended exchanges)",
          {{"p50", ms(s.latency.p50_ms)},
           {"p90", ms(s.latency.p90_ms)},
           {"p95", ms(s.latency.p95_ms)},
           {"p99", ms(s.latency.p99_ms)},
           {"max", ms(s.latency.max_ms)}});
    table(out, "HTTP statuses", rowsOf(s.http_statuses));
    table(out, "error candidates by code", rowsOf(s.error_codes));
    for (const auto& [robot, tools] : s.tools_by_robot) {
      table(out, "tools used by " + (robot.empty() ? std::string("(no robot)") : robot),
            rowsOf(tools));
    }
    table(out, "A2A calls by method", rowsOf(s.a2a_methods));
    table(out, "A2A error codes", rowsOf(s.a2a_errors));
    table(out, "A2A task states", rowsOf(s.a2a_task_states));
  }
  if (stats.sessions.empty()) {
    out << "no sessions\n";
  }
  out << "archive: " << stats.archive_bytes << " bytes for " << stats.body_bytes_on_wire
      << " bytes of bodies on the wire" << ratioText(stats.archive_bytes, stats.body_bytes_on_wire)
      << "\n";
}

template <class Map>
Json objectOf(const Map& counts) {
  Json object = Json::object();
  for (const auto& [key, count] : counts) {
    std::ostringstream name;
    name << key;
    object[name.str()] = count;
  }
  return object;
}

void writeJson(const store::ArchiveStats& stats, std::ostream& out) {
  Json sessions = Json::array();
  for (const store::SessionStats& s : stats.sessions) {
    Json tools = Json::object();
    for (const auto& [robot, by_tool] : s.tools_by_robot) {
      tools[robot] = objectOf(by_tool);
    }
    sessions.push_back(
        {{"session_id", s.session_id != 0 ? Json(s.session_id) : Json()},
         {"uuid", s.uuid},
         {"node", s.node},
         {"name", s.name},
         {"agent_id", s.agent_id ? Json(*s.agent_id) : Json()},
         {"agent_version", s.agent_version ? Json(*s.agent_version) : Json()},
         {"exchanges", s.exchanges},
         {"steps", s.steps},
         {"candidates", s.candidates},
         {"env_steps", s.env_steps},
         {"env_failures", s.env_failures},
         {"latency_ms",
          {{"count", s.latency.count},
           {"p50", s.latency.p50_ms},
           {"p90", s.latency.p90_ms},
           {"p95", s.latency.p95_ms},
           {"p99", s.latency.p99_ms},
           {"max", s.latency.max_ms}}},
         {"body_bytes", {{"on_wire", s.body_bytes_on_wire}, {"stored", s.body_bytes_stored}}},
         {"http_statuses", objectOf(s.http_statuses)},
         {"error_codes", objectOf(s.error_codes)},
         {"tools_by_robot", tools},
         {"a2a_methods", objectOf(s.a2a_methods)},
         {"a2a_error_codes", objectOf(s.a2a_errors)},
         {"a2a_task_states", objectOf(s.a2a_task_states)}});
  }
  out << Json{{"sessions", sessions},
              {"body_bytes_on_wire", stats.body_bytes_on_wire},
              {"archive_bytes", stats.archive_bytes}}
             .dump(2)
      << "\n";
}

}  // namespace

int runStats(const StatsCommand& command, std::ostream& out) {
  const store::ArchiveStats stats = fleet::isPostgresUri(command.db_path)
                                        ? fleet::collectFleetStats(command.db_path)
                                        : store::collectStats(command.db_path, command.sessions);
  if (command.format == "json") {
    writeJson(stats, out);
  } else {
    writeText(stats, out);
  }
  return kExitOk;
}

Registration<StatsCommand> registerStats(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<StatsCommand>();
  auto* stats = app.add_subcommand("stats", "Per-session traffic, latency and error stats");
  stats->add_option("--db", command->db_path, "Archive, or a fleet archive (postgresql://...)")
      ->capture_default_str();
  stats->add_option("--session", command->sessions,
                    "Only this session (repeatable; not on a fleet archive: `agentvcr pull` a "
                    "slice)");
  stats->add_option("--format", command->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  runWhenParsed<StatsCommand>(
      stats, invocation, "stats", command,
      [](StatsCommand& parsed) {
        return fleet::isPostgresUri(parsed.db_path) && !parsed.sessions.empty()
                   ? std::string(
                         "--session takes a session id of a SQLite archive; on a fleet "
                         "archive, `agentvcr pull` the sessions to look at")
                   : std::string();
      },
      runStats);
  return {stats, command};
}

}  // namespace agentvcr::cli
