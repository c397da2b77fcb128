// `agentvcr lint`: contract violations in recorded traffic, both directions, located by exchange
// id and JSON pointer (docs/lint-and-stats.md).

#include "agentvcr/cli/lint_command.hpp"

#include <algorithm>
#include <ostream>

#include <strings.h>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/lint.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::cli {
namespace {

using protocol::Json;

struct Violation {
  std::int64_t session_id = 0;
  std::int64_t exchange_id = 0;
  std::string side;  ///< "request", "response" or "exchange"
  std::string rule;
  std::string path;  ///< JSON pointer into that side's body
  std::string message;
};

/// The stored `loc` (array of keys and indexes) as a JSON pointer.
std::string pointerOf(const Json& loc) {
  protocol::JsonPath path;
  if (loc.is_array()) {
    for (const Json& step : loc) {
      if (step.is_number_integer()) {
        path.emplace_back(step.get<std::int64_t>());
      } else {
        path.emplace_back(step.is_string() ? step.get<std::string>() : step.dump());
      }
    }
  }
  return protocol::toJsonPointer(path);
}

/// Findings strict validation stored when the exchange was recorded, as they are.
void storedFindings(const store::ExchangeRow& ex, std::vector<Violation>& out) {
  if (!ex.findings) {
    return;
  }
  Json findings = Json::parse(*ex.findings, nullptr, false);
  if (!findings.is_array()) {
    return;
  }
  for (const Json& f : findings) {
    out.push_back({ex.session_id, ex.id, f.value("side", "exchange"), f.value("type", "?"),
                   pointerOf(f.value("loc", Json::array())), f.value("msg", "")});
  }
}

void add(const store::ExchangeRow& ex, const std::string& side, protocol::JsonPath prefix,
         const std::vector<protocol::lint::LintFinding>& findings, std::vector<Violation>& out) {
  for (const auto& f : findings) {
    protocol::JsonPath path = prefix;
    path.insert(path.end(), f.path.begin(), f.path.end());
    out.push_back({ex.session_id, ex.id, side, f.rule, protocol::toJsonPointer(path), f.message});
  }
}

/// The decision rules over each recorded candidate. A valid response lists candidates input by
/// input, each by candidate_index (the candidate-order rule), so a candidate's index in the
/// response body is its rank in that order.
void magmaRules(const store::ArchiveReader& reader, const store::ExchangeRow& ex,
                std::vector<Violation>& out) {
  std::int64_t body_index = 0;
  for (const store::StepRow& step : reader.stepsOfExchange(ex.id)) {
    auto input = reader.inputJson(step.id);
    for (const store::CandidateRow& candidate : reader.candidates(step.id)) {
      auto output = reader.outputJson(candidate.id);
      if (input && output) {
        add(ex, "response", {body_index}, protocol::lint::lintCandidate(*input, *output), out);
      }
      ++body_index;
    }
  }
}

bool isEventStream(const store::ExchangeRow& ex) {
  for (const auto& [name, value] : ex.response_headers) {
    if (name.size() == 12 && strncasecmp(name.c_str(), "content-type", 12) == 0 &&
        value.find("text/event-stream") != std::string::npos) {
      return true;
    }
  }
  return false;
}

/// The JSON-RPC envelope rules and, for v1.0 calls (method name or A2A-Version header), the
/// params and result shapes. Unparsable bodies are left to the stored findings. An
/// event-stream response is checked event by event: each event's data is one JSON-RPC
/// response, found under /events/POSITION.
void a2aRules(const store::ArchiveReader& reader, const store::ExchangeRow& listed,
              std::vector<Violation>& out) {
  if (listed.route != "a2a.jsonrpc") {
    return;
  }
  auto ex = reader.exchange(listed.id);
  if (!ex) {
    return;
  }
  Json request = Json::parse(ex->request_body, nullptr, false);
  if (!request.is_discarded()) {
    add(*ex, "request", {},
        protocol::lint::lintA2aRequest(request,
                                       protocol::headerValue(ex->request_headers, "A2A-Version")),
        out);
  }
  const auto lintAnswer = [&](const Json& response, protocol::JsonPath at) {
    add(*ex, "response", std::move(at),
        request.is_discarded() ? protocol::lint::lintA2aResponse(response)
                               : protocol::lint::lintA2aExchange(request, response),
        out);
  };
  if (isEventStream(*ex)) {
    for (const store::StreamEventRow& event : reader.streamEvents(ex->id)) {
      Json data = Json::parse(event.data, nullptr, false);
      if (!data.is_discarded()) {
        lintAnswer(data, {protocol::PathElement{"events"}, protocol::PathElement{event.position}});
      }
    }
    return;
  }
  Json response = Json::parse(ex->response_body, nullptr, false);
  if (!ex->response_body.empty() && !response.is_discarded()) {
    lintAnswer(response, {});
  }
}

/// The v1.0 rules of an HTTP+JSON exchange, read as the JSON-RPC call it stands for: the params
/// in the request body, the answer (or each event of a stream) against the call's result shape,
/// an error as a google.rpc.Status with its ErrorInfo.
void a2aRestRules(const store::ArchiveReader& reader, const store::ExchangeRow& listed,
                  std::vector<Violation>& out) {
  auto ex = reader.exchange(listed.id);
  if (!ex) {
    return;
  }
  const auto route = protocol::a2a::restRouteOfRequest(
      ex->method, ex->target, ex->request_headers,
      protocol::headerValue(ex->response_headers, "Content-Type"));
  if (!route) {
    return;
  }
  const Json body = Json::parse(ex->request_body, nullptr, false);
  const Json call =
      protocol::a2a::restCallObject(*route, ex->target, body.is_discarded() ? Json() : body);
  add(*ex, "request", {}, protocol::lint::lintA2aRestRequest(call), out);
  if (isEventStream(*ex)) {
    for (const store::StreamEventRow& event : reader.streamEvents(ex->id)) {
      Json data = Json::parse(event.data, nullptr, false);
      if (!data.is_discarded()) {
        add(*ex, "response",
            {protocol::PathElement{"events"}, protocol::PathElement{event.position}},
            protocol::lint::lintA2aRestResponse(call, data.contains("error") ? 500 : 200, data),
            out);
      }
    }
    return;
  }
  const Json response = Json::parse(ex->response_body, nullptr, false);
  if (!response.is_discarded()) {
    add(*ex, "response", {}, protocol::lint::lintA2aRestResponse(call, ex->status, response), out);
  }
}

std::vector<Violation> collect(const store::ArchiveReader& reader,
                               const std::vector<std::int64_t>& sessions) {
  constexpr std::size_t kPage = 500;
  std::vector<Violation> out;
  for (const store::SessionRow& session : reader.sessions()) {
    if (!sessions.empty() &&
        std::find(sessions.begin(), sessions.end(), session.id) == sessions.end()) {
      continue;
    }
    for (std::int64_t offset = 0;; offset += static_cast<std::int64_t>(kPage)) {
      auto page = reader.exchanges(session.id, offset, kPage);
      for (const store::ExchangeRow& ex : page) {
        storedFindings(ex, out);
        if (ex.protocol == "magma") {
          magmaRules(reader, ex, out);
        } else if (ex.route == "a2a.rest") {
          a2aRestRules(reader, ex, out);
        } else if (ex.protocol == "a2a") {
          a2aRules(reader, ex, out);
        }
      }
      if (page.size() < kPage) {
        break;
      }
    }
  }
  return out;
}

void writeText(const std::vector<Violation>& violations, std::ostream& out) {
  for (const Violation& v : violations) {
    out << "exchange " << v.exchange_id << " " << v.side << " "
        << (v.path.empty() ? std::string("/") : v.path) << ": " << v.rule << ": " << v.message
        << "\n";
  }
  out << violations.size() << (violations.size() == 1 ? " violation\n" : " violations\n");
}

void writeJson(const std::vector<Violation>& violations, std::ostream& out) {
  Json list = Json::array();
  for (const Violation& v : violations) {
    list.push_back({{"session_id", v.session_id},
                    {"exchange_id", v.exchange_id},
                    {"side", v.side},
                    {"rule", v.rule},
                    {"path", v.path},
                    {"message", v.message}});
  }
  out << Json{{"violations", list}, {"count", violations.size()}}.dump(2) << "\n";
}

}  // namespace

int runLint(const LintCommand& command, std::ostream& out) {
  store::ArchiveReader reader(command.db_path);
  const std::vector<Violation> violations = collect(reader, command.sessions);
  if (command.format == "json") {
    writeJson(violations, out);
  } else {
    writeText(violations, out);
  }
  return violations.empty() ? kExitOk : kExitFailure;
}

Registration<LintCommand> registerLint(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<LintCommand>();
  auto* lint =
      app.add_subcommand("lint", "Report contract violations in recorded traffic (exit 1 if any)");
  lint->add_option("--db", command->db_path, "Archive")->capture_default_str();
  lint->add_option("--session", command->sessions, "Only this session (repeatable)");
  lint->add_option("--format", command->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  runWhenParsed<LintCommand>(lint, invocation, "lint", command, {}, runLint);
  return {lint, command};
}

}  // namespace agentvcr::cli
