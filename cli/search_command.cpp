// `agentvcr search`: the viewer's search box and filters in the terminal. Each hit names its
// conversation and the step's number there as the viewer's timeline shows it, with the field
// that matched and FTS5's excerpt of it (docs/lint-and-stats.md).

#include "agentvcr/cli/search_command.hpp"

#include <cmath>
#include <ostream>
#include <sstream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::cli {
namespace {

using protocol::Json;

std::string textOf(const SearchCommand& command) {
  std::string text;
  for (const std::string& word : command.words) {
    text += (text.empty() ? "" : " ") + word;
  }
  return text;
}

store::SearchQuery queryOf(const SearchCommand& command) {
  store::SearchQuery query;
  query.text = textOf(command);
  query.session_id = command.session;
  query.tool = command.tool;
  query.robot = command.robot;
  query.status = command.status;
  query.error_code = command.error_code;
  if (command.min_latency_ms) {
    query.min_latency_ns = std::llround(*command.min_latency_ms * 1e6);
  }
  query.limit = command.limit;
  return query;
}

/// The excerpt on one line, its runs of whitespace made one space, as the viewer shows it.
std::string simplified(const std::string& text) {
  std::string line;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v') {
      space = !line.empty();
      continue;
    }
    if (space) {
      line += ' ';
      space = false;
    }
    line += c;
  }
  return line;
}

/// "conversation 1 #3 (step 8, session 1)", or "A2A call 9 (session 1)" for a call no
/// conversation holds.
std::string placeOf(const store::SearchHit& hit, std::int64_t number) {
  const std::string item = hit.a2a_call_id != 0 ? "A2A call " + std::to_string(hit.a2a_call_id)
                                                : "step " + std::to_string(hit.step_id);
  if (hit.conversation_id == 0) {
    return item + " (session " + std::to_string(hit.session_id) + ")";
  }
  return "conversation " + std::to_string(hit.conversation_id) + " #" + std::to_string(number) +
         " (" + item + ", session " + std::to_string(hit.session_id) + ")";
}

void writeHitLines(const std::vector<store::SearchHit>& hits,
                   const std::vector<std::int64_t>& numbers, std::size_t limit, std::ostream& out) {
  for (std::size_t i = 0; i < hits.size(); ++i) {
    out << placeOf(hits[i], numbers[i]);
    if (!hits[i].field.empty()) {
      out << "  " << hits[i].field << ": " << simplified(hits[i].snippet);
    }
    if (hits[i].repeated_by > 0) {
      out << "  (repeated by " << hits[i].repeated_by << " later step"
          << (hits[i].repeated_by == 1 ? "" : "s") << ")";
    }
    out << "\n";
  }
  if (hits.empty()) {
    out << "no step or call matches\n";
  } else if (hits.size() >= limit) {
    out << hits.size() << " steps and calls (the first " << limit << ": --limit raises it)\n";
  } else {
    out << hits.size() << (hits.size() == 1 ? " step or call\n" : " steps and calls\n");
  }
}

Json orNull(std::int64_t id) {
  return id != 0 ? Json(id) : Json();
}

void writeHitsJson(const std::vector<store::SearchHit>& hits,
                   const std::vector<std::int64_t>& numbers, std::size_t limit, std::ostream& out) {
  Json list = Json::array();
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const store::SearchHit& hit = hits[i];
    list.push_back({{"session_id", hit.session_id},
                    {"conversation_id", orNull(hit.conversation_id)},
                    {"number", orNull(numbers[i])},
                    {"step_id", orNull(hit.step_id)},
                    {"a2a_call_id", orNull(hit.a2a_call_id)},
                    {"exchange_id", hit.exchange_id},
                    {"field", hit.field.empty() ? Json() : Json(hit.field)},
                    {"excerpt", hit.field.empty() ? Json() : Json(simplified(hit.snippet))},
                    {"repeated_by", hit.repeated_by}});
  }
  out << Json{{"hits", list}, {"count", hits.size()}, {"limited", hits.size() >= limit}}.dump(2)
      << "\n";
}

}  // namespace

std::string searchUsageError(const SearchCommand& command) {
  if (simplified(textOf(command)).empty() && !command.session && !command.tool && !command.robot &&
      !command.status && !command.error_code && !command.min_latency_ms) {
    return "nothing to search for: give words, or a filter (--tool, --robot, --status, "
           "--error-code, --min-latency-ms, --session)";
  }
  if (command.status && *command.status != "completed" && *command.status != "error") {
    return "--status takes completed or error (a candidate's status), got '" + *command.status +
           "'";
  }
  if (command.min_latency_ms && !(*command.min_latency_ms >= 0 && *command.min_latency_ms < 1e12)) {
    std::ostringstream text;
    text << "--min-latency-ms takes milliseconds from 0, got " << *command.min_latency_ms;
    return text.str();
  }
  if (command.limit == 0) {
    return "--limit takes 1 or more";
  }
  return {};
}

int runSearch(const SearchCommand& command, std::ostream& out) {
  const store::ArchiveReader reader(command.db_path);
  const std::vector<store::SearchHit> hits = reader.search(queryOf(command));
  const std::vector<std::int64_t> numbers = reader.timelineNumbers(hits);
  if (command.json) {
    writeHitsJson(hits, numbers, command.limit, out);
  } else {
    writeHitLines(hits, numbers, command.limit, out);
  }
  return hits.empty() ? kExitFailure : kExitOk;
}

Registration<SearchCommand> registerSearch(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<SearchCommand>();
  auto* search = app.add_subcommand(
      "search",
      "Find steps and A2A calls by their words and filters, as the viewer's search does "
      "(exit 1 if none)");
  search->add_option("words", command->words,
                     "Words, all in one field of a step or call, in any order (a trailing * "
                     "matches a prefix): instructions, env feedback, says, errors, prompts, raw "
                     "outputs, A2A questions, answers and errors");
  search->add_option("--db", command->db_path, "Archive")->capture_default_str();
  search->add_option("--session", command->session, "Only this session");
  search->add_option("--tool", command->tool, "A candidate of the step called this tool");
  search->add_option("--robot", command->robot,
                     "A candidate of the step called a tool on this robot (target_robot_name)");
  search->add_option("--status", command->status,
                     "A candidate of the step has this status: completed or error");
  search->add_option("--error-code", command->error_code,
                     "A candidate of the step failed with this error code");
  search->add_option("--min-latency-ms", command->min_latency_ms,
                     "The step's or call's exchange took at least this long");
  search->add_option("--limit", command->limit, "At most this many steps and calls")
      ->capture_default_str();
  search->add_flag("--json", command->json, "One JSON object instead of lines");
  runWhenParsed<SearchCommand>(search, invocation, "search", command, searchUsageError, runSearch);
  return {search, command};
}

}  // namespace agentvcr::cli
