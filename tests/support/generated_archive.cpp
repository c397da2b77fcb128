#include "generated_archive.hpp"

#include <array>
#include <chrono>
#include <filesystem>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/store/recorder.hpp"

namespace agentvcr::testing {
namespace {

using Ordered = nlohmann::ordered_json;

/// BENCH writes requests with json.dumps' defaults, other callers compactly; FastAPI answers
/// compactly, other servers with Python's default separators.
constexpr protocol::PythonJsonStyle kBenchStyle = protocol::kPythonDefaultStyle;
constexpr protocol::PythonJsonStyle kCompactStyle{};
constexpr protocol::PythonJsonStyle kSpacedStyle{.spaced = true};

constexpr std::int64_t kMs = 1'000'000;
constexpr std::size_t kSlots = 3;
constexpr const char* kRobots[] = {"panda", "ur5e", "kinova"};

/// Hands exchanges to the recorder one after the other, on a clock of its own, and keeps the
/// requests.
class Recording {
 public:
  explicit Recording(store::Recorder& recorder) : recorder_(recorder) {}

  /// Records `request` answered with `status`, `content_type` (none when empty) and `body`. An
  /// event stream names the body offsets where its pieces end: each arrived 40 ms after the
  /// one before.
  void add(const protocol::HttpRequest& request, std::vector<protocol::HttpRequest>& requests,
           int status, const std::string& content_type, std::string body,
           const std::vector<std::size_t>& piece_ends = {}) {
    protocol::Exchange exchange;
    exchange.client_address = "127.0.0.1:40100";
    exchange.method = request.method;
    exchange.target = request.target;
    exchange.request_headers = request.headers;
    exchange.request_body = request.body;
    exchange.status = status;
    exchange.response_headers = {{"date", "Wed, 02 Dec 2026 10:00:00 GMT"}, {"server", "uvicorn"}};
    if (!content_type.empty()) {
      exchange.response_headers.push_back({"content-type", content_type});
    }
    if (piece_ends.empty()) {
      exchange.response_headers.push_back({"content-length", std::to_string(body.size())});
    } else {
      exchange.response_headers.push_back({"cache-control", "no-cache"});
    }
    exchange.response_body = std::move(body);
    exchange.response_from_upstream = true;
    exchange.started_ns = clock_ns_;
    exchange.request_ended_ns = clock_ns_ + kMs / 10;
    exchange.upstream_sent_ns = clock_ns_ + kMs / 5;
    std::int64_t at_ns = clock_ns_ + 300 * kMs;
    exchange.upstream_first_byte_ns = at_ns;
    for (std::size_t end : piece_ends) {
      exchange.response_arrivals.push_back({end, at_ns});
      at_ns += 40 * kMs;
    }
    exchange.ended_ns = at_ns;
    clock_ns_ = at_ns + 2000 * kMs;
    // trySubmit() refuses while the queue is full: wait, as the record relay does.
    while (!recorder_.trySubmit(exchange)) {
      if (recorder_.stats().refused_closed > 0) {
        throw std::runtime_error("the recorder closed early");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    requests.push_back(request);
  }

 private:
  store::Recorder& recorder_;
  std::int64_t clock_ns_ = 1'796'000'000'000'000'000;  // late 2026
};

// --- MAGMA ---

/// A BENCH-like episode: a robot asked to press a few buttons in order, one step per press
/// (the next step reports it), then a step that says it is done.
struct Episode {
  std::string robot;
  int objects = 0;                ///< buttons on the table: sw0 .. sw<objects - 1>
  std::vector<std::string> task;  ///< the buttons asked for, in order
  bool arrows = false;            ///< the task worded "sw1 → sw3": non-ASCII text
  std::int64_t num_outputs = 1;   ///< of the first step (GEN-like when 2)
  int played_before = 0;          ///< a task played again word for word is answered otherwise
  std::size_t turn = 0;           ///< the next step: 0 asks, k reports press k
  Ordered memory;

  bool done() const { return turn > task.size(); }
};

Episode newEpisode(std::mt19937_64& random) {
  Episode episode;
  episode.robot = kRobots[random() % std::size(kRobots)];
  episode.objects = 4 + static_cast<int>(random() % 4);
  const std::size_t presses = 1 + random() % 3;
  while (episode.task.size() < presses) {
    episode.task.push_back("sw" + std::to_string(random() % episode.objects));
  }
  episode.arrows = random() % 3 == 0;
  episode.num_outputs = random() % 5 == 0 ? 2 : 1;
  // The memory's own ids, and names a request's ids go by, at depths where they are not ids.
  episode.memory["memory_list"] = Ordered::array({"Always answer in English."});
  episode.memory["history"] = Ordered::array();
  episode.memory["plan"]["id"] = "plan-" + episode.robot;
  episode.memory["plan"]["request_id"] = "inner-" + episode.robot;
  episode.memory["plan"]["inputs"] = Ordered::array({{{"id", 0}, {"button", episode.task[0]}}});
  return episode;
}

/// The task's buttons as the user words them: "sw1, sw2 and sw3", or "sw1 \u2192 sw3".
std::string buttonsText(const Episode& episode) {
  std::string text;
  for (std::size_t i = 0; i < episode.task.size(); ++i) {
    if (i > 0) {
      text += episode.arrows ? " \u2192 " : (i + 1 == episode.task.size() ? " and " : ", ");
    }
    text += episode.task[i];
  }
  return text;
}

std::string taskText(const Episode& episode) {
  return (episode.arrows ? "Press in this order: " : "Please press ") + buttonsText(episode);
}

Ordered pressAction(const std::string& robot, const std::string& button) {
  Ordered call;
  call["name"] = "press_button";
  call["arguments"]["id"] = button;
  return Ordered{{robot, std::move(call)}};
}

/// The env feedback BENCH sends after a press, as json.dumps writes it.
std::string pressFeedback(const std::string& robot, const std::string& button) {
  Ordered payload;
  payload["infos"] =
      robot + ": press_button succeed with message: You have the " + button + " button pressed.";
  payload["previous_tool_call"] = pressAction(robot, button);
  return protocol::pythonJsonDumps(payload, kBenchStyle);
}

Ordered tools() {
  Ordered press;
  press["name"] = "press_button";
  press["description"] = "Press a button.";
  press["arguments"]["id"] = {{"description", "The button."}, {"type", "str"}};
  return Ordered::array({std::move(press)});
}

Ordered inputOf(const Episode& episode, std::int64_t id) {
  Ordered input;
  input["id"] = id;
  input["instruction"]["type"] = episode.turn == 0 ? "user" : "env";
  input["instruction"]["content"] =
      episode.turn == 0 ? taskText(episode)
                        : pressFeedback(episode.robot, episode.task[episode.turn - 1]);
  input["tools"] = tools();
  Ordered objects = Ordered::array();
  for (int i = 0; i < episode.objects; ++i) {
    objects.push_back("sw" + std::to_string(i));
  }
  input["attributes"]["objects"] = std::move(objects);
  input["attributes"]["known_robots"] = Ordered::array({episode.robot});
  input["attributes"]["robot_statuses"][episode.robot] = "FREE";
  input["memory"] = episode.memory;
  input["num_outputs"] = episode.turn == 0 ? episode.num_outputs : 1;
  input["extra_keys"]["inference_mode"] = true;
  input["extra_keys"]["trace"]["id"] = episode.turn;
  return input;
}

/// Candidate `k` for `input`, the current step of `episode`: press the next button or say it is
/// done; the second candidate of a GEN-like step asks instead. Its memory is the input's with
/// the instruction and the agent's turn appended.
Ordered candidateOf(const Episode& episode, const Ordered& input, const std::string& request_id,
                    std::int64_t k) {
  std::string say;
  std::string press;
  if (k > 0) {
    say = "Which button first?";
  } else if (episode.turn < episode.task.size()) {
    press = episode.task[episode.turn];
  } else {
    say = "Done, I pressed " + buttonsText(episode) + ".";
  }
  Ordered turn;
  turn["say"] = say;
  turn["action"] = press.empty() ? Ordered::object() : pressAction(episode.robot, press);
  Ordered memory = input["memory"];
  const std::size_t next_id = memory["history"].size();
  memory["history"].push_back({{"id", next_id},
                               {"author", episode.turn == 0 ? "USER" : "SYSTEM"},
                               {"content", input["instruction"]["content"]}});
  memory["history"].push_back({{"id", next_id + 1},
                               {"author", "MODEL"},
                               {"content", protocol::pythonJsonDumps(turn, kSpacedStyle)}});
  Ordered step;
  step["id"] = "step-0";
  step["component"] = "commander";
  step["origin"] = "model";
  step["full_prompt"] = "<|im_start|>user\n" + input["instruction"]["content"].get<std::string>();
  step["output_raw"] = "<think>attempt " + std::to_string(episode.played_before + 1) + "</think>" +
                       protocol::pythonJsonDumps(turn, kCompactStyle);
  Ordered output;
  output["request_id"] = request_id;
  output["source_id"] = input["id"];
  output["candidate_index"] = k;
  output["status"] = "completed";
  output["memory"] = std::move(memory);
  output["internal_steps"] = Ordered::array({std::move(step)});
  output["output"]["say"] = say;
  output["output"]["tool_calls"] = Ordered::array();
  if (!press.empty()) {
    output["output"]["tool_calls"].push_back({{"name", "press_button"},
                                              {"arguments", {{"id", press}}},
                                              {"target_robot_name", episode.robot}});
  }
  output["error"] = nullptr;
  return output;
}

std::string hex32(std::mt19937_64& random) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int half = 0; half < 2; ++half) {
    std::uint64_t bits = random();
    for (int i = 0; i < 16; ++i) {
      out.push_back(kDigits[bits & 0xf]);
      bits >>= 4;
    }
  }
  return out;
}

void recordMagma(Recording& recording, std::mt19937_64& random, std::size_t steps,
                 std::vector<protocol::HttpRequest>& requests) {
  std::vector<Episode> started;  // each episode as it began, to be played again
  std::array<std::optional<Episode>, kSlots> slots;
  std::size_t recorded = 0;
  while (recorded < steps) {
    for (auto& slot : slots) {
      if (!slot || slot->done()) {
        if (!started.empty() && random() % 4 == 0) {
          Episode& again = started[random() % started.size()];
          ++again.played_before;
          slot = again;
        } else {
          slot = newEpisode(random);
          started.push_back(*slot);
        }
      }
    }
    const std::size_t count = std::min<std::size_t>(1 + random() % kSlots, steps - recorded);
    const std::size_t first = random() % kSlots;
    std::vector<Episode*> batch;
    Ordered inputs = Ordered::array();
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t s = (first + i) % kSlots;
      Episode& episode = *slots[s];
      batch.push_back(&episode);
      // BENCH's slot number; GEN-like callers number their inputs from 900.
      inputs.push_back(
          inputOf(episode, static_cast<std::int64_t>(s) + (episode.num_outputs > 1 ? 900 : 0)));
    }
    const std::string request_id = hex32(random);
    const Ordered body = {{"request_id", request_id}, {"inputs", inputs}};
    const protocol::HttpRequest request{
        "POST",
        "/v1/responses",
        {{"Host", "127.0.0.1:8080"}, {"Content-Type", "application/json"}},
        protocol::pythonJsonDumps(body, random() % 5 == 0 ? kCompactStyle : kBenchStyle)};
    recorded += count;
    // Now and then the agent fails or breaks the contract; the caller sends the inputs again.
    switch (random() % 32) {
      case 0:
        recording.add(request, requests, 500, "text/plain; charset=utf-8", "Internal Server Error");
        continue;
      case 1:
        recording.add(request, requests, 200, "application/json", "[]");
        continue;
      default:
        break;
    }
    Ordered candidates = Ordered::array();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::int64_t wanted = inputs[i]["num_outputs"].get<std::int64_t>();
      for (std::int64_t k = 0; k < wanted; ++k) {
        candidates.push_back(candidateOf(*batch[i], inputs[i], request_id, k));
      }
    }
    std::size_t at = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      batch[i]->memory = candidates[at]["memory"];
      at += inputs[i]["num_outputs"].get<std::size_t>();
      ++batch[i]->turn;
    }
    recording.add(
        request, requests, 200, "application/json",
        protocol::pythonJsonDumps(candidates, random() % 6 == 0 ? kSpacedStyle : kCompactStyle));
  }
}

// --- A2A ---

Ordered rpcCall(Ordered id, const std::string& method, Ordered params) {
  Ordered call;
  call["jsonrpc"] = "2.0";
  call["id"] = std::move(id);
  call["method"] = method;
  call["params"] = std::move(params);
  return call;
}

Ordered sendParams(const std::string& message_id, const std::string& text,
                   const std::string& context = "") {
  Ordered message;
  message["kind"] = "message";
  message["role"] = "user";
  message["messageId"] = message_id;
  if (!context.empty()) {
    message["contextId"] = context;
  }
  message["parts"] = Ordered::array({{{"kind", "text"}, {"text", text}}});
  message["metadata"] = {{"skillId", "catholic_qa"}, {"id", "meta-" + message_id}};
  return Ordered{{"message", std::move(message)}};
}

Ordered task(const std::string& task_id, const std::string& context, const std::string& text) {
  Ordered result;
  result["kind"] = "task";
  result["id"] = task_id;
  result["contextId"] = context;
  result["status"] = {{"state", "completed"}};
  result["history"] = Ordered::array(
      {{{"kind", "message"},
        {"role", "user"},
        {"messageId", "u-" + task_id},
        {"parts", Ordered::array({{{"kind", "text"}, {"text", text}}})}},
       {{"kind", "message"},
        {"role", "agent"},
        {"messageId", "a-" + task_id},
        {"parts", Ordered::array({{{"kind", "text"}, {"text", "answer: " + text}}})}}});
  result["artifacts"] = Ordered::array(
      {{{"artifactId", "art-" + task_id},
        {"parts", Ordered::array({{{"kind", "text"}, {"text", "answer: " + text}}})}}});
  return result;
}

Ordered rpcResult(Ordered id, Ordered result) {
  Ordered answer;
  answer["jsonrpc"] = "2.0";
  answer["id"] = std::move(id);
  answer["result"] = std::move(result);
  return answer;
}

Ordered rpcError(Ordered id, int code, const std::string& message) {
  Ordered answer;
  answer["jsonrpc"] = "2.0";
  answer["id"] = std::move(id);
  answer["error"] = {{"code", code}, {"message", message}};
  return answer;
}

void recordA2a(Recording& recording, std::vector<protocol::HttpRequest>& requests) {
  const protocol::Headers headers = {{"Host", "127.0.0.1:8080"},
                                     {"Content-Type", "application/json"}};
  auto post = [&](const std::string& body, const Ordered& answer,
                  const protocol::Headers& extra = {}) {
    protocol::HttpRequest request{"POST", kA2aEndpoint, headers, body};
    request.headers.insert(request.headers.end(), extra.begin(), extra.end());
    recording.add(request, requests, 200, "application/json", answer.dump());
  };

  Ordered card;
  card["protocolVersion"] = "0.3.0";
  card["name"] = "generated";
  card["url"] = "http://127.0.0.1:1" + std::string(kA2aEndpoint);
  card["capabilities"] = {{"streaming", true}};
  recording.add({"GET", kA2aCardPath, {{"Host", "127.0.0.1:8080"}}, ""}, requests, 200,
                "application/json", card.dump());

  post(rpcCall(1, "message/send", sendParams("m-1", "What is grace?")).dump(),
       rpcResult(1, task("task-1", "ctx-1", "What is grace?")));
  post(rpcCall("req-2", "message/send", sendParams("m-2", "And mercy?", "ctx-1")).dump(),
       rpcResult("req-2", task("task-2", "ctx-1", "And mercy?")));
  Ordered reply;
  reply["kind"] = "message";
  reply["role"] = "agent";
  reply["messageId"] = "a-3";
  reply["parts"] = Ordered::array({{{"kind", "text"}, {"text", "Saint Paul."}}});
  post(rpcCall(nullptr, "message/send", sendParams("m-3", "Who wrote it?")).dump(),
       rpcResult(nullptr, reply));
  post(rpcCall(4, "tasks/get", {{"id", "task-1"}, {"historyLength", 1}}).dump(),
       rpcResult(4, task("task-1", "ctx-1", "What is grace?")));
  post(rpcCall(5, "tasks/cancel", {{"id", "task-1"}}).dump(),
       rpcError(5, -32002, "Task not cancelable"));
  // A batch, answered in another order than asked.
  post(Ordered::array({rpcCall(6, "message/send", sendParams("m-6", "Batch one")),
                       rpcCall("seven", "tasks/get", {{"id", "task-2"}})})
           .dump(),
       Ordered::array({rpcResult("seven", task("task-2", "ctx-1", "And mercy?")),
                       rpcResult(6, task("task-6", "ctx-6", "Batch one"))}));
  // An event stream of three events, the middle one with fields of its own.
  {
    const Ordered submitted = {{"kind", "task"},
                               {"id", "task-8"},
                               {"contextId", "ctx-8"},
                               {"status", {{"state", "submitted"}}}};
    Ordered update = {{"kind", "status-update"},
                      {"taskId", "task-8"},
                      {"contextId", "ctx-8"},
                      {"status", {{"state", "working"}}},
                      {"final", false}};
    std::string body = "data: " + rpcResult(8, submitted).dump() + "\n\n";
    std::vector<std::size_t> ends = {body.size()};
    body += "event: status\nid: 2\ndata: " + rpcResult(8, update).dump() + "\n\n";
    ends.push_back(body.size());
    update["status"]["state"] = "completed";
    update["final"] = true;
    body += "data: " + rpcResult(8, update).dump() + "\n\n";
    ends.push_back(body.size());
    recording.add({"POST", kA2aEndpoint, headers,
                   rpcCall(8, "message/stream", sendParams("m-8", "Stream it")).dump()},
                  requests, 200, "text/event-stream", std::move(body), ends);
  }
  // The first call again (answered otherwise), then with another messageId only.
  post(rpcCall(9, "message/send", sendParams("m-1", "What is grace?")).dump(),
       rpcResult(9, task("task-9", "ctx-9", "What is grace?")));
  post(rpcCall(10, "message/send", sendParams("m-10", "What is grace?")).dump(),
       rpcResult(10, task("task-10", "ctx-10", "What is grace?")));
  // What the agent answered a body it could not parse.
  post(R"({"jsonrpc": "2.0", "id": 11, "method": "message/send", "params": {)",
       rpcError(nullptr, -32700, "Parse error"));
  // A v1.0 call.
  {
    Ordered message;
    message["messageId"] = "m-12";
    message["role"] = "ROLE_USER";
    message["parts"] = Ordered::array({{{"text", "Hello v1"}}});
    Ordered result;
    result["task"] = {{"id", "task-12"},
                      {"contextId", "ctx-12"},
                      {"status", {{"state", "TASK_STATE_COMPLETED"}}}};
    post(rpcCall(12, "SendMessage", {{"message", message}}).dump(), rpcResult(12, result),
         {{"A2A-Version", "1.0"}});
  }
  // A notification: no id, no answer.
  {
    Ordered notification;
    notification["jsonrpc"] = "2.0";
    notification["method"] = "tasks/cancel";
    notification["params"] = {{"id", "task-2"}};
    recording.add({"POST", kA2aEndpoint, headers, notification.dump()}, requests, 204, "", "");
  }
  post(rpcCall(14.5, "message/send", sendParams("m-14", "A fractional id")).dump(),
       rpcResult(14.5, task("task-14", "ctx-14", "A fractional id")));
}

/// One call recorded in scope `suite-a`, in `suite-b` and in none, answered otherwise each
/// time, so that each scope's cursor serves its own answer first.
void recordA2aScoped(Recording& recording, std::vector<protocol::HttpRequest>& requests) {
  int n = 0;
  for (const char* scope : {"suite-a", "suite-b", ""}) {
    protocol::Headers headers = {{"Host", "127.0.0.1:8080"}, {"Content-Type", "application/json"}};
    if (*scope != '\0') {
      headers.push_back({std::string(protocol::kScopeHeader), scope});
    }
    const std::string task_id = "task-s" + std::to_string(++n);
    recording.add({"POST", kA2aEndpoint, headers,
                   rpcCall(20 + n, "message/send", sendParams("m-s", "Scoped question")).dump()},
                  requests, 200, "application/json",
                  rpcResult(20 + n, task(task_id, "ctx-s", "Scoped question")).dump());
  }
}

/// Calls of v1.0's HTTP+JSON binding: answers that name no call id.
void recordA2aRest(Recording& recording, std::vector<protocol::HttpRequest>& requests) {
  const protocol::Headers headers = {
      {"Host", "127.0.0.1:8080"}, {"Content-Type", "application/json"}, {"A2A-Version", "1.0"}};
  auto call = [&](const std::string& method, const std::string& target, const std::string& body,
                  int status, const Ordered& answer) {
    recording.add({method, target, headers, body}, requests, status, "application/json",
                  answer.dump());
  };
  Ordered message;
  message["messageId"] = "rm-1";
  message["role"] = "ROLE_USER";
  message["parts"] = Ordered::array({{{"text", "Hello REST"}}});
  const std::string send = Ordered{{"message", message}}.dump();
  auto restTask = [](const std::string& id, const std::string& state) {
    return Ordered{{"id", id}, {"contextId", "ctx-r"}, {"status", {{"state", state}}}};
  };
  // Sent twice, answered otherwise the second time.
  call("POST", "/message:send", send, 200, {{"task", restTask("task-r1", "TASK_STATE_WORKING")}});
  call("POST", "/message:send", send, 200, {{"task", restTask("task-r2", "TASK_STATE_COMPLETED")}});
  call("GET", "/tasks/task-r1?historyLength=1", "", 200, restTask("task-r1", "TASK_STATE_WORKING"));
  call("GET", "/tasks/task-r1?historyLength=2", "", 200,
       restTask("task-r1", "TASK_STATE_COMPLETED"));
  // Bodies that differ in a top-level `id` only: a config's id, not a caller's call id.
  for (const char* config : {"cfg-1", "cfg-2"}) {
    Ordered body = {{"id", config}, {"url", "http://127.0.0.1:9/hook"}};
    call("POST", "/tasks/task-r1/pushNotificationConfigs", body.dump(), 200,
         {{"id", config}, {"taskId", "task-r1"}, {"url", "http://127.0.0.1:9/hook"}});
  }
  Ordered status;
  status["error"] = {{"code", 404},
                     {"status", "NOT_FOUND"},
                     {"message", "Task not found"},
                     {"details", Ordered::array({{{"@type", protocol::a2a::kErrorInfoType},
                                                  {"reason", "TASK_NOT_FOUND"},
                                                  {"domain", "a2a-protocol.org"}}})}};
  call("GET", "/tasks/task-gone", "", 404, status);
  // A stream whose events hold an `id` of their own, which replay must leave alone.
  Ordered stream_message = message;
  stream_message["messageId"] = "rm-2";
  std::string events =
      "data: " + Ordered{{"task", restTask("task-r3", "TASK_STATE_SUBMITTED")}}.dump() + "\n\n";
  std::vector<std::size_t> ends = {events.size()};
  events +=
      "data: " + Ordered{{"id", 7}, {"statusUpdate", {{"taskId", "task-r3"}}}}.dump() + "\n\n";
  ends.push_back(events.size());
  recording.add({"POST", "/message:stream", headers, Ordered{{"message", stream_message}}.dump()},
                requests, 200, "text/event-stream", std::move(events), ends);
}

}  // namespace

GeneratedArchive writeGeneratedArchive(const std::string& path, const GeneratedArchivePlan& plan) {
  if (std::filesystem::exists(path)) {
    throw std::runtime_error(path + " exists; only new archives are generated");
  }
  store::SessionInfo session;
  session.name = "generated";
  session.mode = "record";
  session.upstream = "http://127.0.0.1:8000";
  session.listen = "127.0.0.1:8080";
  store::Recorder recorder(path, session);
  GeneratedArchive archive;
  Recording recording(recorder);
  std::mt19937_64 random(plan.seed);
  recordMagma(recording, random, plan.magma_steps, archive.magma);
  if (plan.a2a_calls) {
    recordA2a(recording, archive.a2a);
    recordA2aScoped(recording, archive.a2a_scoped);
    recordA2aRest(recording, archive.a2a_rest);
  }
  recorder.close();
  const store::RecorderStats stats = recorder.stats();
  const std::size_t added = archive.magma.size() + archive.a2a.size() + archive.a2a_scoped.size() +
                            archive.a2a_rest.size();
  if (stats.written != added || stats.write_errors != 0) {
    throw std::runtime_error("the recorder did not write every generated exchange");
  }
  return archive;
}

}  // namespace agentvcr::testing
