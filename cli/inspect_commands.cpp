// `agentvcr ls` and `agentvcr show`: what an archive holds, for a terminal.

#include "agentvcr/cli/inspect_commands.hpp"

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/fleet/fleet_reads.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/timing.hpp"

namespace agentvcr::cli {
namespace {

constexpr std::size_t kTitleWidth = 40;

std::string utcTime(std::int64_t ns) {
  std::time_t seconds = static_cast<std::time_t>(ns / 1'000'000'000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  std::ostringstream text;
  text << std::put_time(&parts, "%Y-%m-%d %H:%M:%S");
  return text.str();
}

/// How long from `from_ns` to `to_ns`; "-" when the end never came or was never measured.
std::string duration(std::int64_t from_ns, std::optional<std::int64_t> to_ns) {
  if (!to_ns) {
    return "-";
  }
  std::ostringstream text;
  const double seconds = static_cast<double>(*to_ns - from_ns) / 1e9;
  text << std::fixed << std::setprecision(seconds < 10 ? 3 : 1) << seconds << "s";
  return text.str();
}

/// Texts shortened to one line as the viewer and `agentvcr eval` shorten them.
using protocol::oneLine;

/// The tool calls of recorded candidates as the agent wrote them. The archive keeps them in
/// canonical form (sorted keys, for comparing); a reader of `show` wants the agent's own order,
/// which only the recorded response body still has. Each body is parsed once.
class AgentToolCalls {
 public:
  explicit AgentToolCalls(const store::ArchiveReader& archive) : archive_(archive) {}

  /// The `tool_calls` array of the answer to input `source_id` as candidate `candidate_index`
  /// in exchange `exchange_id`, or null when that body does not hold it.
  const protocol::OrderedJson* of(std::int64_t exchange_id, std::int64_t source_id,
                                  std::int64_t candidate_index) {
    auto [cached, added] = answers_.try_emplace(exchange_id);
    if (added) {
      if (auto exchange = archive_.exchange(exchange_id)) {
        cached->second = protocol::parseOrderedJson(exchange->response_body);
      }
    }
    if (!cached->second || !cached->second->is_array()) {
      return nullptr;
    }
    for (const protocol::OrderedJson& output : *cached->second) {
      if (output.is_object() && output.value("source_id", protocol::OrderedJson()) == source_id &&
          output.value("candidate_index", protocol::OrderedJson()) == candidate_index &&
          output.contains("output") && output["output"].is_object() &&
          output["output"].contains("tool_calls") && output["output"]["tool_calls"].is_array()) {
        return &output["output"]["tool_calls"];
      }
    }
    return nullptr;
  }

 private:
  const store::ArchiveReader& archive_;
  std::unordered_map<std::int64_t, std::optional<protocol::OrderedJson>> answers_;
};

/// `calls` (a tool_calls array) as `robot.name({arguments})` items after `text`.
template <class JsonArray>
void appendCalls(const JsonArray& calls, std::string& text) {
  for (const auto& call : calls) {
    if (!text.empty()) {
      text += ", ";
    }
    text += call.value("target_robot_name", "?") + "." + call.value("name", "?") + "(" +
            oneLine(call.value("arguments", JsonArray::object()).dump(), 50) + ")";
  }
}

/// One line for a candidate's decision; `agent_calls`, when known, are its tool calls in the
/// agent's key order.
std::string decision(const store::CandidateRow& candidate,
                     const protocol::OrderedJson* agent_calls) {
  if (candidate.status == "error") {
    return "error " + candidate.error_code.value_or("?") + ": " +
           oneLine(candidate.error_message.value_or(""), 60);
  }
  std::string text;
  if (candidate.say && !candidate.say->empty()) {
    text = "say \"" + oneLine(*candidate.say, 60) + "\"";
  }
  if (agent_calls != nullptr) {
    appendCalls(*agent_calls, text);
  } else if (auto calls = protocol::parseJson(candidate.tool_calls.value_or("[]"));
             calls.value && calls.value->is_array()) {
    appendCalls(*calls.value, text);
  }
  return text.empty() ? "empty decision" : text;
}

std::string milliseconds(std::optional<std::int64_t> ns) {
  if (!ns) {
    return "not measured";
  }
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << static_cast<double>(*ns) / 1e6 << " ms";
  return text.str();
}

/// Each interval named for who spent it (docs/schema.md, "Timing points").
void printTiming(const store::TimingSplit& split, std::ostream& out) {
  out << "  timing: caller request " << milliseconds(split.caller_to_proxy)
      << ", agentvcr forwarding " << milliseconds(split.proxy_to_agent) << ", agent headers "
      << milliseconds(split.agent) << ", agent body complete " << milliseconds(split.agent_body)
      << ", relay " << milliseconds(split.relay) << "\n";
}

void printHeaders(const protocol::Headers& headers, std::ostream& out) {
  for (const auto& field : headers) {
    out << "    " << field.name << ": " << field.value << "\n";
  }
}

int showExchange(const store::ArchiveReader& archive, std::int64_t id, bool bodies,
                 std::ostream& out) {
  auto exchange = archive.exchange(id);
  if (!exchange) {
    out << "no exchange " << id << "\n";
    return kExitUsage;
  }
  out << "exchange " << exchange->id << " (session " << exchange->session_id << ", #"
      << exchange->seq << ") from " << exchange->client_address << "\n"
      << "  " << exchange->method << " " << exchange->target << " -> " << exchange->status
      << (exchange->response_from_upstream ? "" : " (answered by agentvcr)") << "\n"
      << "  protocol " << exchange->protocol << ", route " << exchange->route << ", outcome "
      << exchange->outcome << "\n"
      << "  started " << utcTime(exchange->started_ns) << " UTC, took "
      << duration(exchange->started_ns, exchange->ended_ns);
  if (exchange->upstream_first_byte_ns) {
    out << ", first byte after "
        << duration(exchange->started_ns, exchange->upstream_first_byte_ns);
  }
  out << "\n";
  printTiming(store::timingSplit(*exchange), out);
  if (exchange->error) {
    out << "  error: " << *exchange->error << "\n";
  }
  if (exchange->fault) {
    out << "  fault injected by agentvcr: " << *exchange->fault << "\n";
  }
  if (exchange->card_rewrite) {
    out << "  agent card: the client got it pointed at agentvcr; the agent's bytes are below: "
        << *exchange->card_rewrite << "\n";
  }
  if (exchange->findings) {
    out << "  contract findings: " << *exchange->findings << "\n";
  }
  out << "  request headers:\n";
  printHeaders(exchange->request_headers, out);
  out << "  response headers:\n";
  printHeaders(exchange->response_headers, out);
  out << "  request body: " << exchange->request_body.size() << " bytes"
      << (exchange->request_body_redacted ? " (secrets redacted)" : "") << "\n";
  if (bodies) {
    out << exchange->request_body << "\n";
  }
  out << "  response body: " << exchange->response_body.size() << " bytes\n";
  if (bodies) {
    out << exchange->response_body << "\n";
  }
  return kExitOk;
}

/// One A2A call, with what came of it.
void printA2aCall(const store::A2aCallRow& call, std::ostream& out) {
  out << "call " << call.id << " [" << call.method.value_or("?") << ", v" << call.wire_version
      << "] in exchange " << call.exchange_id;
  if (call.task_id) {
    out << ", task " << *call.task_id;
  }
  out << "\n";
  if (call.request_text && !call.request_text->empty()) {
    out << "    asked: \"" << oneLine(*call.request_text, 90) << "\"\n";
  }
  out << "    -> ";
  if (call.error_code) {
    out << "error " << *call.error_code << ": " << oneLine(call.error_message.value_or(""), 70);
  } else if (call.task_state) {
    out << *call.task_state;
  } else {
    out << call.result_kind.value_or("no result") << " (HTTP " << call.status << ")";
  }
  if (call.stream_event_count > 0) {
    out << ", " << call.stream_event_count << " stream events";
  }
  if (call.response_text && !call.response_text->empty()) {
    out << ": \"" << oneLine(*call.response_text, 80) << "\"";
  }
  out << "\n";
}

/// The calls of an A2A conversation (one context). A fork's context prints the recorded calls
/// before its fork point first, once, then a marker, then its live calls.
void showA2aCalls(const store::ArchiveReader& archive, const store::ConversationRow& conversation,
                  std::ostream& out) {
  const std::vector<store::A2aCallRow> calls = archive.a2aCalls(conversation.id);
  out << "conversation " << conversation.id << " of session " << conversation.session_id
      << ": A2A context " << conversation.context_id.value_or("-") << ", " << calls.size()
      << (calls.size() == 1 ? " call\n" : " calls\n");
  if (const auto fork = archive.a2aForkOrigin(conversation.id)) {
    const store::A2aCallRow& reasked = fork->reasked;
    out << "recorded prefix: conversation " << reasked.conversation_id.value_or(0) << " of session "
        << reasked.session_id << ", " << fork->prefix.size()
        << (fork->prefix.size() == 1 ? " call\n" : " calls\n");
    for (const store::A2aCallRow& call : fork->prefix) {
      printA2aCall(call, out);
    }
    out << "--- fork at call " << fork->prefix.size() + 1
        << ": the live agent from here (recorded call " << reasked.id << " asked again)\n";
  }
  for (const store::A2aCallRow& call : calls) {
    printA2aCall(call, out);
  }
}

int showConversation(const store::ArchiveReader& archive, std::int64_t id, std::ostream& out) {
  auto conversation = archive.conversation(id);
  if (!conversation) {
    out << "no conversation " << id << "\n";
    return kExitUsage;
  }
  if (conversation->protocol == "a2a") {
    showA2aCalls(archive, *conversation, out);
    return kExitOk;
  }
  out << "conversation " << conversation->id << " of session " << conversation->session_id << ": \""
      << oneLine(conversation->title.value_or(""), 80) << "\", " << conversation->step_count
      << " steps, " << conversation->candidate_count << " candidates\n";
  AgentToolCalls agent_calls(archive);
  const auto print = [&](const store::StepRow& step, std::int64_t depth) {
    const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    std::string instruction = step.instruction_content;
    if (step.instruction_type == "env" && step.env_feedback.is_object()) {
      instruction = step.env_feedback.value("infos", step.env_feedback.value("error", instruction));
    }
    out << indent << "step " << step.id << " [" << step.instruction_type << "] "
        << oneLine(instruction, 90) << (step.env_failure.value_or(false) ? "  (FAILED)" : "")
        << "\n"
        << indent << "    input id " << step.source_id << " in exchange " << step.exchange_id;
    if (step.parent_ambiguity > 1) {
      out << ", parent ambiguous among " << step.parent_ambiguity;
    }
    out << "\n";
    for (const auto& candidate : archive.candidates(step.id)) {
      out << indent << "    -> candidate " << candidate.candidate_index << " (" << candidate.status
          << "): "
          << decision(candidate, candidate.tool_calls
                                     ? agent_calls.of(step.exchange_id, step.source_id,
                                                      candidate.candidate_index)
                                     : nullptr)
          << ", " << candidate.internal_step_count << " internal steps\n";
    }
  };
  // A fork's live steps continue a recorded conversation: its prefix first, once, from the
  // recording, then the live steps below the fork point at their depth in the whole episode.
  std::int64_t live_depth = 0;
  if (const auto fork = archive.forkOrigin(id)) {
    const store::StepRow& reasked = fork->reasked;
    out << "recorded prefix: conversation " << reasked.conversation_id << " of session "
        << reasked.session_id << ", " << fork->prefix.size()
        << (fork->prefix.size() == 1 ? " step\n" : " steps\n");
    for (const auto& step : fork->prefix) {
      print(step, step.depth);
    }
    live_depth = reasked.depth;
    out << std::string(static_cast<std::size_t>(live_depth) * 2, ' ') << "--- fork at depth "
        << live_depth << ": the live agent from here (recorded step " << reasked.id
        << " asked again)\n";
  }
  for (const auto& step : archive.steps(id)) {
    print(step, live_depth + step.depth);
  }
  return kExitOk;
}

}  // namespace

namespace {

/// Writes `rows` under `header` in columns as wide as their widest value (UTF-8 characters
/// counted, not bytes) and two spaces apart, so that no value runs into the next.
void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  const auto width = [](const std::string& text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
  };
  std::vector<std::size_t> widths(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    widths[c] = width(header[c]);
    for (const auto& row : rows) {
      widths[c] = std::max(widths[c], width(row[c]));
    }
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      text += cells[c];
      if (c + 1 < cells.size()) {
        text.append(widths[c] - width(cells[c]) + 2, ' ');
      }
    }
    out << text << "\n";
  };
  line(header);
  for (const auto& row : rows) {
    line(row);
  }
}

}  // namespace

/// The sessions table of `ls`. Sessions of the fleet archive have no id (0): their uuid names
/// them.
void printSessions(const std::vector<store::SessionRow>& sessions, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& session : sessions) {
    const std::string agent =
        session.agent_id ? *session.agent_id + " " + session.agent_version.value_or("") : "-";
    rows.push_back({session.id != 0 ? std::to_string(session.id) : "-",
                    store::shortUuid(session.uuid), oneLine(session.node, 13),
                    oneLine(session.name, 15), session.mode, oneLine(session.upstream, 29),
                    oneLine(agent, 33), utcTime(session.started_ns),
                    session.ended_ns ? duration(session.started_ns, session.ended_ns)
                                     : store::sessionStateName(session.state),
                    std::to_string(session.exchange_count), std::to_string(session.step_count),
                    std::to_string(session.conversation_count),
                    std::to_string(session.failed_exchange_count + session.error_candidate_count)});
  }
  printTable({"ID", "UUID", "NODE", "NAME", "MODE", "UPSTREAM", "AGENT", "STARTED (UTC)",
              "DURATION", "EXCH", "STEPS", "CONV", "FAILED"},
             rows, out);
}

int runLs(const std::string& db_path, std::optional<std::int64_t> session_id, std::ostream& out) {
  if (fleet::isPostgresUri(db_path)) {
    printSessions(fleet::fleetSessions(db_path), out);
    return kExitOk;
  }
  store::ArchiveReader archive(db_path);
  if (!session_id) {
    printSessions(archive.sessions(), out);
    return kExitOk;
  }
  auto session = archive.session(*session_id);
  if (!session) {
    out << "no session " << *session_id << "\n";
    return kExitUsage;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& conversation : archive.conversations(*session_id)) {
    rows.push_back(
        {std::to_string(conversation.id), oneLine(conversation.title.value_or("-"), kTitleWidth),
         std::to_string(conversation.step_count), std::to_string(conversation.candidate_count),
         std::to_string(conversation.max_depth), std::to_string(conversation.error_candidates),
         std::to_string(conversation.env_failures), conversation.ended_in.value_or("-"),
         conversation.first_ns ? duration(*conversation.first_ns, conversation.last_ns) : "-"});
  }
  printTable(
      {"CONV", "TITLE", "STEPS", "CAND", "DEPTH", "ERRORS", "ENV-FAIL", "ENDED-IN", "DURATION"},
      rows, out);
  return kExitOk;
}

int runShow(const ShowCommand& command, std::ostream& out) {
  store::ArchiveReader archive(command.db_path);
  if (command.exchange) {
    return showExchange(archive, *command.exchange, command.bodies, out);
  }
  return showConversation(archive, *command.conversation, out);
}

namespace {

int runLsCommand(const LsCommand& command, std::ostream& out) {
  return runLs(command.db_path, command.session, out);
}

}  // namespace

Registration<LsCommand> registerLs(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<LsCommand>();
  auto* ls = app.add_subcommand("ls", "List sessions, or the conversations of one");
  ls->add_option("--db", command->db_path, "Archive, or a fleet archive (postgresql://...)")
      ->capture_default_str();
  ls->add_option("session", command->session, "Session id: list its conversations");
  runWhenParsed<LsCommand>(
      ls, invocation, "ls", command,
      [](LsCommand& parsed) {
        return fleet::isPostgresUri(parsed.db_path) && parsed.session
                   ? std::string(
                         "a fleet archive lists its sessions; `agentvcr pull` one to list "
                         "its conversations")
                   : std::string();
      },
      runLsCommand);
  return {ls, command};
}

Registration<ShowCommand> registerShow(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ShowCommand>();
  auto* show = app.add_subcommand("show", "Show a conversation's steps or one exchange");
  show->add_option("--db", command->db_path, "Archive")->capture_default_str();
  auto* conversation = show->add_option("conversation", command->conversation, "Conversation id");
  show->add_option("--exchange", command->exchange, "Exchange id")->excludes(conversation);
  show->add_flag("--bodies", command->bodies, "With --exchange: print the bodies");
  runWhenParsed<ShowCommand>(
      show, invocation, "show", command,
      [](ShowCommand& parsed) {
        return !parsed.conversation && !parsed.exchange
                   ? std::string("give a conversation id or --exchange ID")
                   : std::string();
      },
      runShow);
  return {show, command};
}

}  // namespace agentvcr::cli
