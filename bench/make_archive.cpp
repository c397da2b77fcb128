// agentvcr_make_archive: writes a large, realistic MAGMA archive through the real recorder, for
// bench/replay. It plays BENCH-like press_button episodes (magma-protocol.md §11, §13, §19
// Episode A) against an imaginary full-history agent and submits every call as one recorded
// /v1/responses exchange (one input per request, as BENCH sends with one environment):
//
//   - each episode has its own robot, its own button set and one or two ordered tasks
//     ("Please press sw3, sw7 and sw1"); the agent presses them one per step, sometimes
//     presses a button that does not exist first and retries after the failure feedback, then
//     says it is done. Every step's memory is the previous candidate's, so every input is
//     distinct (the generator checks it) and conversations thread through memory;
//   - request bodies in BENCH's formatting (json.dumps defaults, ASCII escapes), answers in
//     FastAPI's (compact, raw UTF-8, model key order), python-requests and uvicorn headers.
//
// It also writes the wrk corpus: K recorded inputs, evenly spread over the archive, each as a
// request body with a new request_id and a new input id (so the replay key matches and
// nothing else does), one per line; and, line for line, the answer replay must give each: the
// recorded answer re-stamped with the new request_id and source_id.
//
// With --a2a it writes A2A instead: N JSON-RPC `message/send` calls to `/`, each a question in
// a conversation of its own answered with a completed task (about 2 KB, compact, as the
// reference SDK's server writes it); the corpus sends each sampled call again with a new
// JSON-RPC id (numbers and strings in turn) and a new messageId, as an SDK client mints them
// (replay keys it under --a2a-ignore-message-id), and expects the recorded answer with the new
// id.
//
// Deterministic for a given --seed. Fails (exit 1) unless the recorder wrote every exchange it
// was given and the archive holds one step (or A2A call) per submitted exchange.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"

namespace {

namespace fs = std::filesystem;
namespace protocol = agentvcr::protocol;
namespace store = agentvcr::store;
using Ordered = nlohmann::ordered_json;

constexpr const char* kUsage =
    "usage: agentvcr_make_archive --db FILE [--steps N] [--corpus FILE --expected FILE\n"
    "                             [--corpus-size K]] [--episode-steps E] [--seed S] [--a2a]\n"
    "Writes N recorded /v1/responses steps (default 100000) to a new archive FILE through\n"
    "store::Recorder, and K (default 1000) request bodies that replay answers from it to the\n"
    "corpus file, with the answers expected line for line in the expected file. With E, every\n"
    "episode runs E steps (task after task) and the agent keeps a window of its history, so\n"
    "one conversation can be thousands of steps long (the viewer's waterfall benchmark).\n"
    "With --a2a, the N recorded exchanges are A2A JSON-RPC message/send calls to /.\n";

struct Options {
  std::string db;
  std::string corpus;
  std::string expected;
  std::uint64_t steps = 100000;
  std::uint64_t corpus_size = 1000;
  std::uint64_t seed = 1;
  std::uint64_t episode_steps = 0;  ///< 0: one or two tasks per episode
  bool a2a = false;                 ///< A2A message/send calls instead of MAGMA steps
};

/// splitmix64: a tiny PRNG whose sequence is the same everywhere (the standard distributions
/// are not), so an archive is reproducible from its seed.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [lo, hi] (the modulo bias is irrelevant here).
  int between(int lo, int hi) {
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }

  bool chance(int percent) { return between(1, 100) <= percent; }

  /// 32 lowercase hex digits, the shape of BENCH's uuid4().hex.
  std::string hex32() {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (int half = 0; half < 2; ++half) {
      std::uint64_t bits = next();
      for (int i = 0; i < 16; ++i) {
        out.push_back(kDigits[bits & 0xf]);
        bits >>= 4;
      }
    }
    return out;
  }

 private:
  std::uint64_t state_;
};

constexpr protocol::PythonJsonStyle kBenchStyle = protocol::kPythonDefaultStyle;  // requests
constexpr protocol::PythonJsonStyle kFastApiStyle{};  // answers: compact, raw UTF-8
/// full-history's MODEL entries: json.dumps(..., ensure_ascii=False), default separators.
constexpr protocol::PythonJsonStyle kModelTurnStyle{.spaced = true, .ensure_ascii = false};

std::string joinButtons(const std::vector<std::string>& buttons, const char* last_glue) {
  std::string text;
  for (std::size_t i = 0; i < buttons.size(); ++i) {
    if (i > 0) {
      text += i + 1 == buttons.size() ? last_glue : ", ";
    }
    text += buttons[i];
  }
  return text;
}

/// How a user words a task; the arrow form exercises non-ASCII text (\u2192 in requests, raw
/// UTF-8 in answers).
std::string taskText(const std::vector<std::string>& buttons, int phrasing, bool follow_up) {
  switch (phrasing) {
    case 0:
      return std::string(follow_up ? "Now press " : "Please press ") +
             joinButtons(buttons, " and ");
    case 1:
      return "Press " + joinButtons(buttons, ", then ") + (follow_up ? " as well" : "");
    case 2: {
      std::string text = follow_up ? "Next: " : "Press in this order: ";
      for (std::size_t i = 0; i < buttons.size(); ++i) {
        text += (i > 0 ? " \u2192 " : "") + buttons[i];
      }
      return text;
    }
    default:
      return "Ok press " + joinButtons(buttons, ", then ") + (follow_up ? " too" : "");
  }
}

Ordered pressAction(const std::string& robot, const std::string& button) {
  Ordered call;
  call["name"] = "press_button";
  call["arguments"]["id"] = button;
  Ordered action;
  action[robot] = std::move(call);
  return action;
}

/// The env feedback BENCH sends after a press (magma-protocol.md §11.2), as json.dumps writes it.
std::string envFeedback(const std::string& robot, const std::string& button, bool exists) {
  Ordered payload;
  payload["infos"] = robot + ": press_button " +
                     (exists ? "succeed with message: You have the " + button + " button pressed."
                             : "failed with message: No objects corresponding to id = " + button +
                                   ". You must pass the id of the object to take.");
  payload["previous_tool_call"] = pressAction(robot, button);
  return protocol::pythonJsonDumps(payload, kBenchStyle);
}

/// One scripted agent turn: what it says or which button it presses.
struct Decision {
  std::string say;                    ///< non-empty for a text answer
  std::string press;                  ///< non-empty for a press_button call
  std::vector<std::string> thinking;  ///< rendered into internal_steps' output_raw
};

/// One episode of one robot: the tools and attributes every step carries, the memory the
/// agent keeps, and the conversation so far.
class Episode {
 public:
  Episode(Random& random, std::uint64_t number) : robot_(kRobots[random.between(0, 3)]) {
    const int buttons = random.between(6, 14);
    for (int i = 0; i < buttons; ++i) {
      objects_.push_back("sw" + std::to_string(i));
    }
    slot_ = static_cast<std::int64_t>(number % 8);  // BENCH's environment slot, reused
    tools_ = Ordered::array();
    Ordered cancel;
    cancel["name"] = "cancel_current_action";
    cancel["description"] = "Cancel the current action running on the targeted robot.";
    cancel["arguments"] = Ordered::object();
    Ordered press;
    press["name"] = "press_button";
    press["description"] =
        "Press a button. The robot moves its arm above the button, pushes it once and returns "
        "to its rest position.";
    press["arguments"]["id"]["description"] =
        "Name of the button to press, one of the objects listed in the attributes.";
    press["arguments"]["id"]["type"] = "str";
    // The tool order varies between episodes (it is part of the replay key).
    if (random.chance(50)) {
      tools_.push_back(std::move(cancel));
      tools_.push_back(std::move(press));
    } else {
      tools_.push_back(std::move(press));
      tools_.push_back(std::move(cancel));
    }
    attributes_["objects"] = objects_;
    attributes_["known_robots"] = Ordered::array({robot_});
    attributes_["robot_statuses"][robot_] = "FREE";
    memory_["memory_list"] = Ordered::array({"Always answer in English."});
    if (random.chance(40)) {
      memory_["memory_list"].push_back("Never press a button that was not asked for.");
    }
    memory_["history"] = Ordered::array();
  }

  /// The agent keeps only the last `entries` of its history, and counts its turns in the
  /// memory so that a long episode's inputs stay distinct: a memory that stays small however
  /// long the episode runs.
  void keepHistoryWindow(std::size_t entries) {
    history_window_ = entries;
    memory_["turns"] = 0;
  }

  const std::string& robot() const { return robot_; }

  const std::vector<std::string>& objects() const { return objects_; }

  std::int64_t slot() const { return slot_; }

  /// The input of the next step (its id is the slot; a request has one input).
  Ordered input(bool env, const std::string& content) const {
    Ordered in;
    in["id"] = slot_;
    in["instruction"]["type"] = env ? "env" : "user";
    in["instruction"]["content"] = content;
    in["tools"] = tools_;
    in["attributes"] = attributes_;
    in["memory"] = memory_;
    in["num_outputs"] = 1;
    in["extra_keys"]["max_new_tokens"] = 512;
    in["extra_keys"]["inference_mode"] = true;
    return in;
  }

  /// The agent's candidate for `in`: full-history appends the instruction and its own turn to
  /// the memory (magma-protocol.md §13), which becomes the memory of the next step.
  Ordered answer(const Ordered& in, const std::string& request_id, const Decision& decision) {
    const bool env = in["instruction"]["type"] == "env";
    const std::string& content = in["instruction"]["content"].get_ref<const std::string&>();
    Ordered action =
        decision.press.empty() ? Ordered::object() : pressAction(robot_, decision.press);
    Ordered turn;
    turn["say"] = decision.say;
    turn["action"] = action;
    Ordered entry;
    entry["author"] = env ? "SYSTEM" : "USER";
    entry["content"] = content;
    memory_["history"].push_back(std::move(entry));
    Ordered model;
    model["author"] = "MODEL";
    model["content"] = protocol::pythonJsonDumps(turn, kModelTurnStyle);
    memory_["history"].push_back(std::move(model));
    if (history_window_ > 0) {
      auto& history = memory_["history"];
      while (history.size() > history_window_) {
        history.erase(history.begin());
      }
      memory_["turns"] = memory_["turns"].get<std::int64_t>() + 1;
    }

    std::string output_raw;
    for (const std::string& thought : decision.thinking) {
      output_raw += "<think>" + thought + "</think>";
    }
    if (decision.press.empty()) {
      output_raw += decision.say;
    } else {
      output_raw += "<tool_call>{\"" + robot_ +
                    "\":{\"name\":\"press_button\",\"arguments\":{\"id\":\"" + decision.press +
                    "\"}}}</tool_call>";
    }
    Ordered step;
    step["id"] = "step-0";
    step["component"] = "commander";
    step["origin"] = "model";
    step["full_prompt"] = "<|im_start|>system\nYou control the robot " + robot_ +
                          ". Buttons: " + joinButtons(objects_, ", ") +
                          ".<|im_end|>\n<|im_start|>" + (env ? "tool" : "user") + "\n" + content +
                          "<|im_end|>\n<|im_start|>assistant\n";
    step["input_elements"]["enable_thinking"] = !decision.thinking.empty();
    step["output_raw"] = std::move(output_raw);

    Ordered output;
    output["request_id"] = request_id;
    output["source_id"] = in["id"];
    output["candidate_index"] = 0;
    output["status"] = "completed";
    output["memory"] = memory_;
    output["internal_steps"] = Ordered::array({std::move(step)});
    output["output"]["say"] = decision.say;
    output["output"]["tool_calls"] = Ordered::array();
    if (!decision.press.empty()) {
      Ordered call;
      call["name"] = "press_button";
      call["arguments"]["id"] = decision.press;
      call["target_robot_name"] = robot_;
      output["output"]["tool_calls"].push_back(std::move(call));
    }
    output["error"] = nullptr;
    return output;
  }

 private:
  static constexpr const char* kRobots[] = {"panda", "arm1", "ur5e", "kinova"};

  std::string robot_;
  std::vector<std::string> objects_;
  std::int64_t slot_ = 0;
  Ordered tools_;
  Ordered attributes_;
  Ordered memory_;
  std::size_t history_window_ = 0;  ///< 0: the whole history
};

/// One turn of the script: the instruction the caller sends and what the agent decides. The
/// input itself is built when the turn is played, with the memory the previous turn left.
struct Turn {
  bool env = false;
  std::string content;
  Decision decision;
};

/// Scripts one episode: one or two tasks of 2 to 5 distinct buttons (more tasks until it has
/// `min_turns` turns); a press is wrong first (a button that does not exist) one time in eight,
/// and retried after the failure feedback.
std::vector<Turn> scriptEpisode(Random& random, const Episode& episode,
                                std::unordered_set<std::string>& first_tasks,
                                std::size_t min_turns) {
  std::vector<Turn> turns;
  const std::vector<std::string>& objects = episode.objects();
  const int last_object = static_cast<int>(objects.size()) - 1;
  const int tasks = random.chance(40) ? 2 : 1;
  for (int task = 0; task < tasks || turns.size() < min_turns; ++task) {
    std::vector<std::string> buttons;
    std::string text;
    // The first task (with robot and button count) tells episodes apart: every later input
    // carries it in its memory, so distinct first tasks make every input distinct.
    for (int attempt = 0;; ++attempt) {
      buttons.clear();
      const int count = random.between(2, 5);
      while (static_cast<int>(buttons.size()) < count) {
        const std::string& pick = objects[random.between(0, last_object)];
        if (std::find(buttons.begin(), buttons.end(), pick) == buttons.end()) {
          buttons.push_back(pick);
        }
      }
      text = taskText(buttons, random.between(0, 3), task > 0);
      const std::string identity =
          episode.robot() + "|" + std::to_string(objects.size()) + "|" + text;
      if (task > 0 || first_tasks.insert(identity).second) {
        break;
      }
      if (attempt > 1000) {
        throw std::runtime_error("out of distinct tasks: ask for fewer steps");
      }
    }
    Turn turn{false, text, {}};
    for (const std::string& button : buttons) {
      if (random.chance(12)) {
        const std::string wrong = "sw" + std::to_string(objects.size() + random.between(0, 5));
        turn.decision = Decision{"", wrong, {}};
        turns.push_back(turn);
        turn = Turn{true, envFeedback(episode.robot(), wrong, false),
                    Decision{"", button, {"There is no " + wrong + ", the user meant " + button}}};
      } else {
        turn.decision = Decision{"", button, {}};
      }
      turns.push_back(turn);
      turn = Turn{true, envFeedback(episode.robot(), button, true), {}};
    }
    turn.decision = Decision{"Done, I pressed " + joinButtons(buttons, " and ") + ".", "", {}};
    turns.push_back(turn);
  }
  return turns;
}

Options parseOptions(int argc, char** argv) {
  Options options;
  auto number = [](const std::string& name, const std::string& text) {
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
      value = std::stoull(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || text.empty() || text[0] == '-') {
      throw std::invalid_argument(name + " needs a non-negative integer, got '" + text + "'");
    }
    return static_cast<std::uint64_t>(value);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "-h" || name == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (name == "--a2a") {
      options.a2a = true;
      continue;
    }
    if (i + 1 >= argc) {
      throw std::invalid_argument(name + " needs a value");
    }
    const std::string value = argv[++i];
    if (name == "--db") {
      options.db = value;
    } else if (name == "--corpus") {
      options.corpus = value;
    } else if (name == "--expected") {
      options.expected = value;
    } else if (name == "--steps") {
      options.steps = number(name, value);
    } else if (name == "--corpus-size") {
      options.corpus_size = number(name, value);
    } else if (name == "--episode-steps") {
      options.episode_steps = number(name, value);
    } else if (name == "--seed") {
      options.seed = number(name, value);
    } else {
      throw std::invalid_argument("unknown option " + name);
    }
  }
  if (options.db.empty()) {
    throw std::invalid_argument("--db is required");
  }
  if (options.corpus.empty() != options.expected.empty()) {
    throw std::invalid_argument("--corpus and --expected go together");
  }
  if (options.steps == 0) {
    throw std::invalid_argument("--steps must be positive");
  }
  if (!options.corpus.empty() &&
      (options.corpus_size == 0 || options.corpus_size > options.steps)) {
    throw std::invalid_argument("--corpus-size must be between 1 and --steps");
  }
  return options;
}

/// A POST exchange (to /v1/responses unless told) as the record relay would hand it over:
/// BENCH's request with python-requests headers, a uvicorn answer, plausible model latency.
protocol::Exchange makeExchange(std::string request_body, std::string response_body,
                                std::int64_t started_ns, std::int64_t model_ns,
                                std::string target = "/v1/responses") {
  protocol::Exchange exchange;
  exchange.client_address = "127.0.0.1:" + std::to_string(40000 + started_ns % 20000);
  exchange.method = "POST";
  exchange.target = std::move(target);
  exchange.http_version = 11;
  exchange.request_headers = {
      {"Host", "127.0.0.1:8080"},           {"User-Agent", "python-requests/2.31.0"},
      {"Accept-Encoding", "gzip, deflate"}, {"Accept", "*/*"},
      {"Connection", "keep-alive"},         {"Content-Length", std::to_string(request_body.size())},
      {"Content-Type", "application/json"}};
  exchange.request_body = std::move(request_body);
  exchange.status = 200;
  exchange.response_headers = {{"date", "Sun, 30 Nov 2026 06:00:00 GMT"},
                               {"server", "uvicorn"},
                               {"content-length", std::to_string(response_body.size())},
                               {"content-type", "application/json"}};
  exchange.response_body = std::move(response_body);
  exchange.response_from_upstream = true;
  exchange.started_ns = started_ns;
  exchange.upstream_first_byte_ns = started_ns + model_ns;
  exchange.ended_ns = started_ns + model_ns + 150'000;
  exchange.outcome = protocol::ExchangeOutcome::Complete;
  return exchange;
}

std::string requestBody(const std::string& request_id, Ordered input) {
  Ordered body;
  body["request_id"] = request_id;
  body["inputs"] = Ordered::array({std::move(input)});
  return protocol::pythonJsonDumps(body, kBenchStyle);
}

void submit(store::Recorder& recorder, protocol::Exchange& exchange) {
  // trySubmit() refuses while the writer's queue is full: wait, as the record relay does.
  while (!recorder.trySubmit(exchange)) {
    if (recorder.stats().refused_closed > 0) {
      throw std::runtime_error("the recorder closed early");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

/// An A2A user message as the SDK's client sends it.
Ordered a2aMessage(const std::string& message_id, const std::string& context_id,
                   const std::string& text, const char* role) {
  Ordered message;
  message["kind"] = "message";
  message["role"] = role;
  message["messageId"] = message_id;
  message["contextId"] = context_id;
  message["parts"] = Ordered::array({{{"kind", "text"}, {"text", text}}});
  return message;
}

Ordered a2aSend(const Ordered& id, Ordered message) {
  Ordered call;
  call["jsonrpc"] = "2.0";
  call["id"] = id;
  call["method"] = "message/send";
  call["params"]["message"] = std::move(message);
  call["params"]["configuration"] = {{"acceptedOutputModes", Ordered::array({"text/plain"})},
                                     {"blocking", true}};
  return call;
}

/// --a2a: N message/send calls, each a question of its own answered with a completed task.
void recordA2aCalls(const Options& options, store::Recorder& recorder, std::ofstream& corpus,
                    std::ofstream& expected, std::uint64_t& sampled, std::uint64_t& request_bytes,
                    std::uint64_t& response_bytes) {
  static constexpr const char* kTopics[] = {
      "the red button",     "sw3",          "the panda arm", "the rest position",
      "the emergency stop", "the conveyor", "the gripper",   "the camera"};
  Random random(options.seed);
  Random corpus_ids(options.seed ^ 0x5eed5eed5eedULL);
  std::int64_t clock_ns = 1'796'000'000'000'000'000;
  for (std::uint64_t n = 0; n < options.steps; ++n) {
    const std::string context_id = random.hex32();
    const std::string topic = kTopics[random.between(0, 7)];
    const std::string question = "Question " + std::to_string(n) + ": what happens to " + topic +
                                 " after step " + std::to_string(random.between(1, 99)) + "?";
    std::string answer_text = "Answer " + std::to_string(n) + ":";
    while (answer_text.size() < 900) {
      answer_text += " The robot checks " + topic + ", reports its state (" +
                     std::to_string(random.between(0, 9999)) + ") and waits for the next task.";
    }
    const Ordered recorded_id = static_cast<std::int64_t>(n + 1);
    Ordered task;
    task["kind"] = "task";
    task["id"] = random.hex32();
    task["contextId"] = context_id;
    task["status"] = {{"state", "completed"}, {"timestamp", "2026-11-30T06:00:00.000000+00:00"}};
    task["history"] = Ordered::array(
        {a2aMessage(random.hex32(), context_id, question, "user"),
         a2aMessage(random.hex32(), context_id, answer_text.substr(0, 200), "agent")});
    task["artifacts"] =
        Ordered::array({{{"artifactId", random.hex32()},
                         {"name", "answer"},
                         {"parts", Ordered::array({{{"kind", "text"}, {"text", answer_text}}})}}});
    Ordered answer = {{"jsonrpc", "2.0"}, {"id", recorded_id}, {"result", std::move(task)}};
    const Ordered message = answer["result"]["history"][0];
    if (!options.corpus.empty() &&
        (n + 1) * options.corpus_size / options.steps != n * options.corpus_size / options.steps) {
      // A new id, numbers and strings in turn, and a new messageId: only the key still matches.
      Ordered live_id = sampled % 2 == 0 ? Ordered(1000 + corpus_ids.between(0, 8999))
                                         : Ordered("req-" + corpus_ids.hex32());
      Ordered live_message = message;
      live_message["messageId"] = corpus_ids.hex32();
      corpus << a2aSend(live_id, std::move(live_message)).dump() << '\n';
      Ordered restamped = answer;
      restamped["id"] = std::move(live_id);
      expected << restamped.dump() << '\n';
      ++sampled;
    }
    const std::int64_t model_ns = 300'000'000 + random.between(0, 900) * 1'000'000LL;
    std::string request_body = a2aSend(recorded_id, message).dump();
    std::string response_body = answer.dump();
    request_bytes += request_body.size();
    response_bytes += response_body.size();
    protocol::Exchange exchange =
        makeExchange(std::move(request_body), std::move(response_body), clock_ns, model_ns, "/");
    clock_ns += model_ns + 1'000'000'000LL;
    submit(recorder, exchange);
  }
}

int run(const Options& options) {
  if (fs::exists(options.db)) {
    throw std::runtime_error(options.db + " exists; the generator only writes new archives");
  }
  std::ofstream corpus;
  std::ofstream expected;
  if (!options.corpus.empty()) {
    corpus.open(options.corpus, std::ios::binary | std::ios::trunc);
    expected.open(options.expected, std::ios::binary | std::ios::trunc);
    if (!corpus || !expected) {
      throw std::runtime_error("cannot write " + options.corpus + " or " + options.expected);
    }
  }
  const auto started = std::chrono::steady_clock::now();
  store::SessionInfo session;
  session.name = "bench-replay-archive";
  session.mode = "record";
  session.upstream = "http://127.0.0.1:8000";
  session.listen = "127.0.0.1:8080";
  store::Recorder recorder(options.db, session);
  recorder.recordAgentIdentity(
      R"({"status":"ready"})",
      R"({"protocol_version":"2.0","agent_id":"full-history","agent_version":"0.9.0",)"
      R"("specialized_coaching":[],"coaching_resume":false,"coaching_session_version":null,)"
      R"("coaching_unavailable_reason":"Coaching is disabled in this deployment",)"
      R"("capabilities":{"inference":true,"coaching":false}})");

  Random random(options.seed);
  Random corpus_ids(options.seed ^ 0x5eed5eed5eedULL);
  std::unordered_set<std::string> first_tasks;
  std::unordered_set<std::uint64_t> keys;
  std::int64_t clock_ns = 1'796'000'000'000'000'000;  // late 2026, one step after the other
  std::uint64_t step = 0;
  std::uint64_t episodes = 0;
  std::uint64_t sampled = 0;
  std::uint64_t request_bytes = 0;
  std::uint64_t response_bytes = 0;
  if (options.a2a) {
    recordA2aCalls(options, recorder, corpus, expected, sampled, request_bytes, response_bytes);
    step = options.steps;
  }
  while (step < options.steps) {
    Episode episode(random, episodes++);
    if (options.episode_steps > 0) {
      episode.keepHistoryWindow(40);
    }
    for (const Turn& turn : scriptEpisode(random, episode, first_tasks, options.episode_steps)) {
      if (step == options.steps) {
        break;
      }
      Ordered input = episode.input(turn.env, turn.content);
      if (!keys.insert(protocol::magma::replayKey(nlohmann::json::parse(input.dump()))).second) {
        throw std::runtime_error("step " + std::to_string(step) + " repeats an earlier input");
      }
      const std::string request_id = random.hex32();
      Ordered output = episode.answer(input, request_id, turn.decision);
      std::string response_body =
          protocol::pythonJsonDumps(Ordered::array({output}), kFastApiStyle);
      // K steps spread evenly over the archive: step i is sampled when floor(i*K/N) moves on.
      const bool sample =
          !options.corpus.empty() && (step + 1) * options.corpus_size / options.steps !=
                                         step * options.corpus_size / options.steps;
      if (sample) {
        // New request_id and a new input id: only the replay key still matches.
        const std::string live_id = corpus_ids.hex32();
        const std::int64_t live_source = 100 + corpus_ids.between(0, 899);
        Ordered live_input = input;
        live_input["id"] = live_source;
        corpus << requestBody(live_id, std::move(live_input)) << '\n';
        output["request_id"] = live_id;
        output["source_id"] = live_source;
        expected << protocol::pythonJsonDumps(Ordered::array({output}), kFastApiStyle) << '\n';
        ++sampled;
      }
      std::string request_body = requestBody(request_id, std::move(input));
      request_bytes += request_body.size();
      response_bytes += response_body.size();
      const std::int64_t model_ns = 300'000'000 + random.between(0, 900) * 1'000'000LL;
      protocol::Exchange exchange =
          makeExchange(std::move(request_body), std::move(response_body), clock_ns, model_ns);
      clock_ns += model_ns + 4'000'000'000LL;  // BENCH polls every 4 s
      submit(recorder, exchange);
      ++step;
    }
  }
  recorder.close();
  const store::RecorderStats stats = recorder.stats();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (corpus.is_open()) {
    corpus.close();
    expected.close();
    if (!corpus || !expected) {
      throw std::runtime_error("writing the corpus failed");
    }
  }

  const store::ArchiveCounts counts = store::ArchiveReader(options.db).counts();
  std::fprintf(stderr,
               "agentvcr_make_archive: %llu steps in %llu episodes (%llu conversations), "
               "recorder submitted %llu, wrote %llu in %llu batches, %llu write errors, "
               "%.1f s (%.0f exchanges/s); requests %.0f B, answers %.0f B on average; "
               "corpus %llu requests\n",
               static_cast<unsigned long long>(counts.steps),
               static_cast<unsigned long long>(episodes),
               static_cast<unsigned long long>(counts.conversations),
               static_cast<unsigned long long>(stats.submitted),
               static_cast<unsigned long long>(stats.written),
               static_cast<unsigned long long>(stats.batches),
               static_cast<unsigned long long>(stats.write_errors), seconds,
               static_cast<double>(step) / seconds,
               static_cast<double>(request_bytes) / static_cast<double>(step),
               static_cast<double>(response_bytes) / static_cast<double>(step),
               static_cast<unsigned long long>(sampled));
  bool ok = true;
  if (stats.submitted != options.steps || stats.written != stats.submitted ||
      stats.write_errors != 0) {
    std::fprintf(stderr, "agentvcr_make_archive: the recorder did not write every exchange\n");
    ok = false;
  }
  const std::uint64_t steps_expected = options.a2a ? 0 : options.steps;
  if (counts.exchanges != static_cast<std::int64_t>(options.steps) ||
      counts.steps != static_cast<std::int64_t>(steps_expected)) {
    std::fprintf(stderr,
                 "agentvcr_make_archive: the archive holds %lld exchanges and %lld steps, "
                 "expected %llu and %llu\n",
                 static_cast<long long>(counts.exchanges), static_cast<long long>(counts.steps),
                 static_cast<unsigned long long>(options.steps),
                 static_cast<unsigned long long>(steps_expected));
    ok = false;
  }
  if (!options.corpus.empty() && sampled != options.corpus_size) {
    std::fprintf(stderr, "agentvcr_make_archive: sampled %llu corpus requests, expected %llu\n",
                 static_cast<unsigned long long>(sampled),
                 static_cast<unsigned long long>(options.corpus_size));
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const std::invalid_argument& error) {
    std::cerr << "agentvcr_make_archive: " << error.what() << "\n" << kUsage;
    return 2;
  }
  try {
    return run(options);
  } catch (const std::exception& error) {
    std::cerr << "agentvcr_make_archive: " << error.what() << "\n";
    return 1;
  }
}
