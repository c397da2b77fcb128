#include "agentvcr/services/evaluator.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "a2a_evaluator.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/replay/input_key.hpp"
#include "agentvcr/replay/live_answer.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/reindex.hpp"
#include "agentvcr/store/step_links.hpp"
#include "agentvcr/store/timing.hpp"
#include "eval_exchange.hpp"

namespace agentvcr::services {
namespace {

using protocol::Json;
namespace magma = protocol::magma;

bool success(int status) {
  return status >= 200 && status < 300;
}

/// The first finding of a parse, for a refusal message.
std::string firstFinding(const std::vector<protocol::Finding>& findings) {
  if (findings.empty()) {
    return "";
  }
  return protocol::toJsonPointer(findings.front().loc) + " " + findings.front().type + ": " +
         findings.front().msg;
}

struct AgentIdentity {
  std::string health_body;
  std::string info_body;
};

/// BENCH's start-up checks: /health strictly {"status":"ready"}, /v1/info valid with protocol
/// 2.0 and the inference capability.
AgentIdentity checkAgent(const net::Url& agent, std::chrono::milliseconds timeout) {
  const std::string where = agent.toString();
  try {
    net::HttpClient client(agent.host, agent.port, timeout);
    auto health = client.get(agent.base_path + "/health");
    auto health_json = protocol::parseJson(health.body);
    if (!success(health.status) || !health_json.value) {
      throw EvalRefused(where + "/health answered " + std::to_string(health.status) +
                        (health_json.value ? "" : " without JSON"));
    }
    auto parsed_health = magma::parseAgentHealth(*health_json.value);
    if (!parsed_health.ok() || parsed_health.value->status != "ready") {
      throw EvalRefused(where + "/health is not {\"status\":\"ready\"}: " + health.body);
    }
    auto info = client.get(agent.base_path + "/v1/info");
    auto info_json = protocol::parseJson(info.body);
    if (!success(info.status) || !info_json.value) {
      throw EvalRefused(where + "/v1/info answered " + std::to_string(info.status) +
                        (info_json.value ? "" : " without JSON"));
    }
    auto parsed_info = magma::parseAgentInfo(*info_json.value);
    if (!parsed_info.ok()) {
      throw EvalRefused(where + "/v1/info is invalid: " + firstFinding(parsed_info.findings));
    }
    if (parsed_info.value->protocol_version != magma::kProtocolVersion) {
      throw EvalRefused(where + "/v1/info has protocol_version " +
                        parsed_info.value->protocol_version + ", evaluation needs " +
                        magma::kProtocolVersion);
    }
    auto inference = parsed_info.value->capabilities.find("inference");
    if (inference == parsed_info.value->capabilities.end() || !inference->second) {
      throw EvalRefused(where + "/v1/info does not advertise the inference capability");
    }
    return {health.body, info.body};
  } catch (const net::ClientError& error) {
    throw EvalRefused(where + " is not answering: " + error.what());
  }
}

/// The agent's time to the first byte of its answer, from the request fully written to it, in
/// ms: the two points the relay records, which eval's client records too, so that the live and
/// recorded figures compare. The time an answer takes after its first byte is left out: it is
/// transport as much as the agent's, and differs between the relay and eval's client (an agent
/// that writes its body after its headers waits for the peer's delayed ACK, 40 ms on Linux).
std::optional<double> agentMs(std::optional<std::int64_t> first_byte_after_sent_ns) {
  if (!first_byte_after_sent_ns) {
    return std::nullopt;
  }
  return static_cast<double>(*first_byte_after_sent_ns) / 1e6;
}

/// One recorded step of a planned request.
struct PlannedStep {
  store::ReplayStepRef ref;
  std::int64_t step_number = 0;
  Json input;
  Json recorded_outputs = Json::array();
};

/// One recorded exchange to re-ask, and what came back.
struct PlannedExchange {
  std::int64_t recorded_exchange_id = 0;
  std::optional<double> recorded_ms;
  std::vector<PlannedStep> steps;  ///< by position
  std::string request_body;
  protocol::Exchange live;
  std::string client_error;
};

/// The sessions an empty selection stands for: all but earlier evaluations, so that an
/// evaluation never re-asks another evaluation.
store::ReplaySelection resolveSelection(const store::ArchiveReader& reader,
                                        store::ReplaySelection selection) {
  if (!selection.all()) {
    return selection;
  }
  for (const auto& session : reader.sessions()) {
    if (session.mode != "eval") {
      selection.sessions.push_back(session.id);
    }
  }
  return selection;
}

std::vector<PlannedExchange> plan(const store::ArchiveReader& reader,
                                  const store::ReplaySelection& selection) {
  std::map<std::int64_t, PlannedExchange> by_exchange;
  if (selection.all()) {
    return {};  // nothing but evaluations in the archive
  }
  std::map<std::int64_t, std::map<std::int64_t, std::int64_t>> step_numbers;
  reader.forEachReplayStep(selection, [&](const store::ReplayStepRef& ref) {
    auto& numbers = step_numbers[ref.conversation_id];
    if (numbers.empty()) {
      std::int64_t number = 0;
      for (const auto& step : reader.steps(ref.conversation_id)) {
        numbers[step.id] = ++number;
      }
    }
    PlannedStep step;
    step.ref = ref;
    step.step_number = numbers[ref.step_id];
    step.input = reader.inputJson(ref.step_id).value_or(Json::object());
    for (const auto& candidate : reader.candidates(ref.step_id)) {
      step.recorded_outputs.push_back(reader.outputJson(candidate.id).value_or(Json::object()));
    }
    auto& exchange = by_exchange[ref.exchange_id];
    exchange.recorded_exchange_id = ref.exchange_id;
    exchange.steps.push_back(std::move(step));
  });
  std::vector<PlannedExchange> exchanges;
  for (auto& [id, exchange] : by_exchange) {
    std::sort(
        exchange.steps.begin(), exchange.steps.end(),
        [](const PlannedStep& a, const PlannedStep& b) { return a.ref.position < b.ref.position; });
    if (auto row = reader.exchange(id)) {
      exchange.recorded_ms = agentMs(store::timingSplit(*row).agent);
    }
    exchanges.push_back(std::move(exchange));
  }
  return exchanges;
}

/// One request per step instead of the recorded batches. A step keeps the recorded latency
/// only when it was alone in its recorded request: a batch's time is not one step's.
std::vector<PlannedExchange> oneByOne(std::vector<PlannedExchange> batched) {
  std::vector<PlannedExchange> single;
  for (auto& exchange : batched) {
    const bool alone = exchange.steps.size() == 1;
    for (auto& step : exchange.steps) {
      PlannedExchange one;
      one.recorded_exchange_id = exchange.recorded_exchange_id;
      one.recorded_ms = alone ? exchange.recorded_ms : std::nullopt;
      one.steps.push_back(std::move(step));
      single.push_back(std::move(one));
    }
  }
  return single;
}

std::string freshRequestPrefix() {
  std::random_device device;
  std::mt19937_64 generator(device());
  static const char* kHex = "0123456789abcdef";
  std::string prefix = "eval-";
  for (int i = 0; i < 12; ++i) {
    prefix.push_back(kHex[generator() % 16]);
  }
  return prefix + "-";
}

void buildRequests(std::vector<PlannedExchange>& exchanges) {
  const std::string prefix = freshRequestPrefix();
  std::size_t number = 0;
  for (auto& exchange : exchanges) {
    Json inputs = Json::array();
    for (const auto& step : exchange.steps) {
      inputs.push_back(step.input);
    }
    exchange.request_body = protocol::dumpCompact(
        Json{{"request_id", prefix + std::to_string(number++)}, {"inputs", std::move(inputs)}});
  }
}

void ask(const EvalConfig& config, net::HttpClient& client, PlannedExchange& exchange) {
  auto& live = exchange.live;
  live.client_address = "agentvcr-eval";
  live.method = "POST";
  live.target = config.agent.base_path + "/v1/responses";
  live.request_headers = {{"Content-Type", "application/json"}};
  live.request_body = exchange.request_body;
  live.started_ns = protocol::nowNs();
  live.request_ended_ns = live.started_ns;  // eval is its own caller: nothing to read
  try {
    detail::takeAnswer(live, client.postJson(live.target, live.request_body));
  } catch (const net::ClientError& error) {
    exchange.client_error = error.what();
    detail::takeNoAnswer(live, error.what());
  }
  live.ended_ns = protocol::nowNs();
}

void askAll(const EvalConfig& config, std::vector<PlannedExchange>& exchanges) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  auto work = [&] {
    net::HttpClient client(config.agent.host, config.agent.port, config.timeout);
    for (std::size_t i = next++; i < exchanges.size(); i = next++) {
      ask(config, client, exchanges[i]);
      const std::size_t finished = ++done;
      if (config.progress) {
        config.progress(finished, exchanges.size());
      }
    }
  };
  const unsigned jobs =
      std::max(1u, std::min<unsigned>(config.jobs, static_cast<unsigned>(exchanges.size())));
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < jobs; ++j) {
    workers.emplace_back(work);
  }
  work();
  for (auto& worker : workers) {
    worker.join();
  }
}

/// Validates the live answer and compares it step by step, without the ignored output parts.
std::vector<EvalStep> judge(const PlannedExchange& exchange, const replay::KeyRules& ignored) {
  const replay::CheckedAnswer answer =
      replay::checkAnswer({exchange.request_body, exchange.client_error, exchange.live.status,
                           exchange.live.response_body});
  std::vector<EvalStep> steps;
  for (const auto& planned : exchange.steps) {
    replay::StepVerdict verdict = replay::judgeStep(planned.input, planned.ref.source_id,
                                                    planned.recorded_outputs, answer, ignored);
    EvalStep step;
    step.recorded_session_id = planned.ref.session_id;
    step.conversation_id = planned.ref.conversation_id;
    step.step_number = planned.step_number;
    step.recorded_step_id = planned.ref.step_id;
    step.recorded_exchange_id = exchange.recorded_exchange_id;
    step.comparison = std::move(verdict.comparison);
    step.live_outputs = std::move(verdict.live_outputs);
    step.violations = std::move(verdict.violations);
    step.error_candidates = verdict.error_candidates;
    steps.push_back(std::move(step));
  }
  return steps;
}

/// "eval of session 1", "eval of sessions 1, 2 (conversations 3, 4)": the recorded sessions
/// always, so that the viewer can pair the run with what it re-asked.
std::string sessionName(const store::ReplaySelection& requested,
                        const std::vector<std::int64_t>& recorded_sessions) {
  auto list = [](const std::vector<std::int64_t>& ids) {
    std::string text;
    for (auto id : ids) {
      text += (text.empty() ? "" : ", ") + std::to_string(id);
    }
    return text;
  };
  std::string name = "eval of";
  if (!recorded_sessions.empty()) {
    name += recorded_sessions.size() == 1 ? " session " : " sessions ";
    name += list(recorded_sessions);
  }
  if (!requested.conversations.empty()) {
    name += recorded_sessions.empty() ? " " : " (";
    name += requested.conversations.size() == 1 ? "conversation " : "conversations ";
    name += list(requested.conversations);
    name += recorded_sessions.empty() ? "" : ")";
  }
  return name;
}

/// Hands the live exchanges to a Recorder in recorded order, so that conversation threading
/// sees a parent before its children whatever order the concurrent answers came in. The session
/// spans the run, from the agent's checks to its last answer, not the moment of storing it.
std::int64_t storeRun(const EvalConfig& config, const std::string& name,
                      const std::optional<AgentIdentity>& identity,
                      std::vector<PlannedExchange>& exchanges,
                      std::vector<detail::PlannedA2aCall>& a2a_calls, std::int64_t started_ns,
                      std::int64_t ended_ns) {
  store::SessionInfo session;
  session.started_ns = started_ns;
  session.ended_ns = ended_ns;
  session.name = name;
  session.mode = "eval";
  session.upstream = config.agent.toString();
  session.node = config.node;
  store::Recorder recorder(config.db_path, session);
  if (identity) {
    recorder.recordAgentIdentity(identity->health_body, identity->info_body);
  }
  auto submit = [&recorder](protocol::Exchange& live) {
    while (!recorder.trySubmit(live)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  for (auto& exchange : exchanges) {
    submit(exchange.live);
  }
  // After the MAGMA exchanges, whose stored order linkSteps() reads; the recorder threads these
  // by contextId, as it does recorded A2A traffic.
  for (auto& call : a2a_calls) {
    submit(call.live);
  }
  recorder.close();
  return recorder.sessionId();
}

/// Links each stored step to the recorded step it re-asked: the recorder wrote the exchanges in
/// submission order and a request's inputs in planned order. Then threads the session by those
/// links: the recorder threaded it by memory, and a changed agent's memories would split and
/// reshape the conversations the report compares. Returns recorded step id -> eval step id.
std::map<std::int64_t, std::int64_t> linkSteps(const EvalConfig& config, std::int64_t session_id,
                                               const std::vector<PlannedExchange>& exchanges) {
  std::vector<store::StepLink> links;
  {
    const store::ArchiveReader reader(config.db_path);
    const auto stored = reader.exchanges(session_id, 0, store::ArchiveReader::kNoLimit);
    for (std::size_t i = 0; i < stored.size() && i < exchanges.size(); ++i) {
      for (const auto& step : reader.stepsOfExchange(stored[i].id)) {
        const auto position = static_cast<std::size_t>(step.position);
        if (position < exchanges[i].steps.size()) {
          links.push_back({step.id, exchanges[i].steps[position].ref.step_id});
        }
      }
    }
  }
  store::writeStepLinks(config.db_path, links);
  store::reindexSessions(config.db_path, {session_id});
  std::map<std::int64_t, std::int64_t> eval_step_of;
  for (const auto& link : links) {
    eval_step_of[link.recorded_step_id] = link.step_id;
  }
  return eval_step_of;
}

/// Links each live A2A call to the recorded call it asked again (store/step_links.hpp), and
/// notes the conversation it was threaded into: the recorder stored them, in order, after the
/// `magma_exchanges` MAGMA exchanges.
void linkA2aCalls(const EvalConfig& config, std::int64_t session_id, std::size_t magma_exchanges,
                  std::vector<A2aEvalCall>& calls) {
  if (calls.empty()) {
    return;
  }
  std::map<std::int64_t, std::int64_t> conversation_of;  // recorded call id -> eval conversation
  std::vector<store::CallLink> links;
  {
    const store::ArchiveReader reader(config.db_path);
    const auto stored = reader.exchanges(session_id, static_cast<std::int64_t>(magma_exchanges),
                                         store::ArchiveReader::kNoLimit);
    std::vector<std::int64_t> recorded_order;  // recorded call ids in the order they were sent
    for (const auto& call : calls) {
      recorded_order.push_back(call.recorded_call_id);
    }
    std::sort(recorded_order.begin(), recorded_order.end());
    for (std::size_t i = 0; i < stored.size() && i < recorded_order.size(); ++i) {
      const auto live = reader.a2aCallsOfExchange(stored[i].id);
      if (live.empty()) {
        continue;
      }
      links.push_back({live.front().id, recorded_order[i]});
      if (live.front().conversation_id) {
        conversation_of[recorded_order[i]] = *live.front().conversation_id;
      }
    }
  }
  store::writeCallLinks(config.db_path, links);
  for (auto& call : calls) {
    if (auto found = conversation_of.find(call.recorded_call_id); found != conversation_of.end()) {
      call.eval_conversation_id = found->second;
    }
  }
}

}  // namespace

EvalRun runEvaluation(const EvalConfig& config) {
  const auto ignored_outputs = replay::KeyRules::ignoring(config.ignored_output_paths);
  const std::int64_t started_ns = protocol::nowNs();
  std::vector<PlannedExchange> exchanges;
  std::vector<detail::PlannedA2aCall> a2a_calls;
  {
    store::ArchiveReader reader(config.db_path);
    const store::ReplaySelection resolved = resolveSelection(reader, config.selection);
    exchanges = plan(reader, resolved);
    a2a_calls = detail::planA2aCalls(reader, resolved);
  }
  // An agent asked only A2A calls need not speak MAGMA: BENCH's checks are for MAGMA agents.
  std::optional<AgentIdentity> identity;
  if (!exchanges.empty() || a2a_calls.empty()) {
    identity = checkAgent(config.agent, config.timeout);
  }
  if (config.one_by_one) {
    exchanges = oneByOne(std::move(exchanges));
  }
  buildRequests(exchanges);
  askAll(config, exchanges);
  detail::askA2aCalls(config.agent, config.timeout, a2a_calls, config.progress,
                      /*first_contact=*/!identity);
  const std::int64_t ended_ns = protocol::nowNs();

  EvalRun run;
  for (const auto& exchange : exchanges) {
    auto steps = judge(exchange, ignored_outputs);
    std::move(steps.begin(), steps.end(), std::back_inserter(run.steps));
    EvalExchange timing;
    timing.recorded_exchange_id = exchange.recorded_exchange_id;
    if (exchange.live.upstream_first_byte_ns != 0) {
      timing.live_ms =
          agentMs(exchange.live.upstream_first_byte_ns - exchange.live.upstream_sent_ns);
    }
    timing.recorded_ms = exchange.recorded_ms;
    run.exchanges.push_back(timing);
  }
  std::stable_sort(run.steps.begin(), run.steps.end(), [](const EvalStep& a, const EvalStep& b) {
    return std::pair(a.conversation_id, a.step_number) <
           std::pair(b.conversation_id, b.step_number);
  });
  for (const auto& call : a2a_calls) {
    run.a2a_calls.push_back(detail::judgeA2aCall(call));
  }
  std::stable_sort(run.a2a_calls.begin(), run.a2a_calls.end(),
                   [](const A2aEvalCall& a, const A2aEvalCall& b) {
                     return std::pair(a.conversation_id, a.message_number) <
                            std::pair(b.conversation_id, b.message_number);
                   });
  auto note_session = [&run](std::int64_t session_id) {
    if (std::find(run.recorded_sessions.begin(), run.recorded_sessions.end(), session_id) ==
        run.recorded_sessions.end()) {
      run.recorded_sessions.push_back(session_id);
    }
  };
  for (const auto& step : run.steps) {
    note_session(step.recorded_session_id);
  }
  for (const auto& call : run.a2a_calls) {
    note_session(call.recorded_session_id);
  }
  std::sort(run.recorded_sessions.begin(), run.recorded_sessions.end());
  std::string name = sessionName(config.selection, run.recorded_sessions);
  if (!config.label.empty()) {
    name += ", " + config.label;
  }
  run.eval_session_id =
      storeRun(config, name, identity, exchanges, a2a_calls, started_ns, ended_ns);
  const auto eval_step_of = linkSteps(config, run.eval_session_id, exchanges);
  linkA2aCalls(config, run.eval_session_id, exchanges.size(), run.a2a_calls);
  const store::ArchiveReader reader(config.db_path);
  for (auto& step : run.steps) {
    if (auto linked = eval_step_of.find(step.recorded_step_id); linked != eval_step_of.end()) {
      step.eval_step_id = linked->second;
      if (auto stored = reader.step(step.eval_step_id)) {
        step.eval_conversation_id = stored->conversation_id;
      }
    }
  }
  return run;
}

}  // namespace agentvcr::services
