// `agentvcr eval` against live agents on loopback: the replay of the archive itself (everything
// must match), an agent that changes known answers and every memory of that replay, and one
// that writes its headers and body apart.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agentvcr/cli/eval_command.hpp"
#include "agentvcr/cli/eval_report.hpp"
#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/replay/conversation_diff.hpp"
#include "agentvcr/replay/evaluation_report.hpp"
#include "replay_fixture.hpp"
#include "timing_points.hpp"

namespace agentvcr::testing {
namespace {

using protocol::Json;

/// A live agent that asks the replay for each answer, then changes one output of the first
/// requests in a known way (one change per request, in this order).
class MutatingAgent {
 public:
  struct Change {
    std::size_t request = 0;  ///< ordinal of the /v1/responses request
    std::int64_t source_id = 0;
    std::string kind;
  };

  /// `rewrite_memory`: every output returns a memory of its own, unlike any recorded one.
  MutatingAgent(std::uint16_t replay_port, std::vector<std::string> kinds,
                std::string protocol_version = "2.0", bool rewrite_memory = false)
      : replay_port_(replay_port),
        pending_(std::move(kinds)),
        protocol_version_(std::move(protocol_version)),
        rewrite_memory_(rewrite_memory),
        server_(proxy::ServerOptions{},
                proxy::makeLocalServiceFactory(
                    [this](const protocol::HttpRequest& request) { return handle(request); })) {
    server_.start();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.endpoint().port); }

  std::vector<Change> changes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return changes_;
  }

  std::size_t pending() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pending_.size();
  }

 private:
  protocol::HttpReply handle(const protocol::HttpRequest& request) {
    net::HttpClient client("127.0.0.1", replay_port_);
    auto answer = client.send(request.method, request.target, request.body);
    protocol::HttpReply response;
    response.status = answer.status;
    response.body = answer.body;
    if (request.target == "/v1/info") {
      Json info = Json::parse(answer.body);
      info["protocol_version"] = protocol_version_;
      response.body = info.dump();
    }
    if (request.target == "/v1/responses" && answer.status == 200) {
      Json outputs = Json::parse(answer.body);
      std::lock_guard<std::mutex> lock(mutex_);
      const std::size_t ordinal = requests_++;
      bool changed = !pending_.empty() && mutate(outputs, ordinal);
      if (rewrite_memory_) {
        for (std::size_t i = 0; i < outputs.size(); ++i) {
          outputs[i]["memory"]["live_turn"] = std::to_string(ordinal) + "." + std::to_string(i);
        }
        changed = true;
      }
      if (changed) {
        response.body = outputs.dump();
      }
    }
    return response;
  }

  static bool hasToolCalls(const Json& output) {
    return output["status"] == "completed" && !output["output"]["tool_calls"].empty();
  }

  static bool hasSay(const Json& output) {
    return output["status"] == "completed" && !output["output"]["say"].get<std::string>().empty();
  }

  /// Changes the first output this change applies to; false when none does.
  bool mutate(Json& outputs, std::size_t ordinal) {
    const std::string kind = pending_.front();
    for (auto& output : outputs) {
      const bool tool_change = kind == "tool" || kind == "robot";
      if ((tool_change && !hasToolCalls(output)) || (kind == "say" && !hasSay(output))) {
        continue;
      }
      if (kind == "tool") {
        output["output"]["tool_calls"][0]["name"] = "teleport";
      } else if (kind == "robot") {
        output["output"]["tool_calls"][0]["target_robot_name"] = "ghost_robot";
      } else if (kind == "say") {
        output["output"]["say"] = "something else entirely";
      } else if (kind == "invalid") {
        output["status"] = "finished";
      } else if (kind == "error") {
        output["status"] = "error";
        output["output"] = nullptr;
        output["error"] = {{"code", "agent_failure"}, {"message", "boom"}, {"component", nullptr}};
      }
      changes_.push_back({ordinal, output["source_id"].get<std::int64_t>(), kind});
      pending_.erase(pending_.begin());
      return true;
    }
    return false;
  }

  std::uint16_t replay_port_;
  std::mutex mutex_;
  std::size_t requests_ = 0;
  std::vector<std::string> pending_;
  std::vector<Change> changes_;
  std::string protocol_version_;
  bool rewrite_memory_ = false;
  proxy::Server server_;
};

/// A live agent on plain sockets, Nagle's algorithm left on as most servers leave it, that writes
/// each answer's headers and body in two writes after `delay`. The answers are those of the
/// server at `backend_port`.
class SplitWritingAgent {
 public:
  SplitWritingAgent(std::uint16_t backend_port, std::chrono::milliseconds delay = {})
      : backend_port_(backend_port), delay_(delay) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("SplitWritingAgent: cannot listen");
    }
    port_ = ntohs(address.sin_port);
    threads_.emplace_back([this] { acceptAll(); });
  }

  ~SplitWritingAgent() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int fd : connections_) {
        ::shutdown(fd, SHUT_RDWR);
      }
    }
    for (auto& thread : threads_) {
      thread.join();
    }
    ::close(listen_fd_);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void acceptAll() {
    for (;;) {
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) {
        return;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      connections_.push_back(fd);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  static bool writeAll(int fd, const std::string& bytes) {
    return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }

  void serve(int fd) {
    net::HttpClient backend("127.0.0.1", backend_port_);
    std::string buffer;
    char chunk[65536];
    for (;;) {
      std::size_t header_end;
      while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
        const auto n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
          return;
        }
        buffer.append(chunk, static_cast<std::size_t>(n));
      }
      const std::string head = buffer.substr(0, header_end);
      std::size_t body_length = 0;
      if (auto at = head.find("Content-Length: "); at != std::string::npos) {
        body_length = std::stoul(head.substr(at + 16));
      }
      while (buffer.size() < header_end + 4 + body_length) {
        const auto n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
          return;
        }
        buffer.append(chunk, static_cast<std::size_t>(n));
      }
      const std::string body = buffer.substr(header_end + 4, body_length);
      buffer.erase(0, header_end + 4 + body_length);
      std::istringstream request_line(head);
      std::string method;
      std::string target;
      request_line >> method >> target;
      const auto answer = backend.send(method, target, body);
      std::this_thread::sleep_for(delay_);
      if (!writeAll(fd, "HTTP/1.1 " + std::to_string(answer.status) +
                            " OK\r\nContent-Type: application/json\r\nContent-Length: " +
                            std::to_string(answer.body.size()) + "\r\n\r\n") ||
          !writeAll(fd, answer.body)) {
        return;
      }
    }
  }

  std::uint16_t backend_port_;
  std::chrono::milliseconds delay_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::mutex mutex_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
};

class EvalTest : public ReplayTest {
 protected:
  int runEval(const std::string& agent_url, unsigned jobs, std::optional<double> fail_under = {},
              bool one_by_one = false, std::optional<std::string> db_path = {}) {
    cli::EvalCommand command;
    command.config.one_by_one = one_by_one;
    command.config.db_path = db_path.value_or(db_path_);
    command.agents = {*net::parseUrl(agent_url)};
    command.config.jobs = jobs;
    command.report_path = report_path_;
    command.fail_under = fail_under;
    return cli::runEval(command, output_);
  }

  /// `agentvcr eval --agent A --agent B ...` with the report written as for one agent.
  int runCompare(const std::vector<std::string>& agent_urls,
                 std::optional<double> fail_under = {}) {
    cli::EvalCommand command;
    command.config.db_path = db_path_;
    for (const auto& url : agent_urls) {
      command.agents.push_back(*net::parseUrl(url));
    }
    command.report_path = report_path_;
    command.fail_under = fail_under;
    return cli::runEval(command, output_);
  }

  Json report() const {
    std::ifstream file(report_path_);
    return Json::parse(file);
  }

  std::string report_path_ = temp_.file("report.json");
  std::ostringstream output_;
};

TEST_F(EvalTest, TheReplayOfTheArchiveMatchesEverything) {
  recordDemo();
  startReplay();
  ASSERT_EQ(runEval(replayUrl(), 2, 1.0), cli::kExitOk) << output_.str();
  const Json result = report();
  const Json& overall = result["overall"];
  EXPECT_GT(overall["steps"].get<int>(), 10);
  EXPECT_EQ(overall["matched"], overall["steps"]);
  EXPECT_EQ(overall["match_rate"].get<double>(), 1.0);
  EXPECT_EQ(overall["contract_violations"], 0);
  EXPECT_NE(output_.str().find("100.0%"), std::string::npos) << output_.str();

  // The run is a session of its own whose steps carry the recorded steps' replay keys.
  store::ArchiveReader reader(db_path_);
  auto session = reader.session(result["eval_session_id"].get<std::int64_t>());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->mode, "eval");
  EXPECT_EQ(session->name, "eval of session 1");
  EXPECT_EQ(session->step_count, overall["steps"].get<std::int64_t>());
  for (const auto& listed : reader.exchanges(session->id, 0, store::ArchiveReader::kNoLimit)) {
    SCOPED_TRACE(listed.id);
    expectTimingPointsInOrder(*reader.exchange(listed.id));
  }
  std::multiset<std::uint64_t> recorded_keys;
  std::multiset<std::uint64_t> eval_keys;
  reader.forEachReplayStep(
      {{1}, {}}, [&](const store::ReplayStepRef& step) { recorded_keys.insert(step.replay_key); });
  reader.forEachReplayStep({{session->id}, {}}, [&](const store::ReplayStepRef& step) {
    eval_keys.insert(step.replay_key);
  });
  EXPECT_EQ(recorded_keys, eval_keys);

  // Every recorded step is linked to the step that re-asked it, and each recorded conversation
  // pairs with one evaluated conversation that the viewer's diff finds identical.
  const auto links = reader.stepLinksOfSession(session->id);
  EXPECT_EQ(links.size(), recorded_keys.size());
  std::set<std::int64_t> linked_recorded;
  for (const auto& link : links) {
    EXPECT_EQ(reader.step(link.step_id)->replay_key,
              reader.step(link.recorded_step_id)->replay_key);
    EXPECT_EQ(reader.step(link.recorded_step_id)->session_id, 1);
    linked_recorded.insert(link.recorded_step_id);
  }
  EXPECT_EQ(linked_recorded.size(), links.size());
  for (const auto& step : result["steps"]) {
    EXPECT_GT(step["eval_step_id"].get<std::int64_t>(), 0) << step.dump();
  }
  for (const auto& conversation : reader.conversations(1)) {
    SCOPED_TRACE(conversation.id);
    const auto pairs = reader.evaluationPairs(conversation.id);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].recorded_conversation_id, conversation.id);
    const auto diff =
        replay::diffConversations(replay::diffStepsOf(reader, conversation.id),
                                  replay::diffStepsOf(reader, pairs[0].evaluated_conversation_id));
    EXPECT_FALSE(diff.first_divergence) << diff.summary;
    EXPECT_EQ(reader.evaluationPairs(pairs[0].evaluated_conversation_id).size(), 1u);
  }

  // A second evaluation of the whole archive leaves the first evaluation out.
  output_.str("");
  ASSERT_EQ(runEval(replayUrl(), 1), cli::kExitOk) << output_.str();
  EXPECT_EQ(report()["overall"]["steps"], overall["steps"]);
}

TEST_F(EvalTest, OneByOneSendsEachInputAloneAndStillMatches) {
  recordDemo();
  startReplay();
  ASSERT_EQ(runEval(replayUrl(), 2, 1.0, true), cli::kExitOk) << output_.str();
  const Json result = report();
  const Json& overall = result["overall"];
  EXPECT_EQ(overall["requests"], overall["steps"]);
  EXPECT_EQ(overall["match_rate"].get<double>(), 1.0);
  store::ArchiveReader reader(db_path_);
  const auto session = reader.session(result["eval_session_id"].get<std::int64_t>());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->exchange_count, session->step_count);
  EXPECT_EQ(reader.stepLinksOfSession(session->id).size(),
            static_cast<std::size_t>(session->step_count));
}

TEST_F(EvalTest, EachKnownChangeIsReportedAtItsStep) {
  recordDemo();
  startReplay();
  MutatingAgent agent(replayPort(), {"tool", "robot", "say", "invalid", "error"});
  EXPECT_EQ(runEval(agent.url(), 1, 0.5), cli::kExitFailure) << output_.str();
  ASSERT_EQ(agent.pending(), 0u) << "the demo lacks an answer some change needs";
  const Json result = report();

  // The k-th request re-asked the k-th recorded exchange (by id).
  std::set<std::int64_t> exchange_set;
  for (const auto& step : result["steps"]) {
    exchange_set.insert(step["recorded_exchange_id"].get<std::int64_t>());
  }
  const std::vector<std::int64_t> exchanges(exchange_set.begin(), exchange_set.end());
  store::ArchiveReader reader(db_path_);
  const std::map<std::string, std::vector<std::string>> expected = {
      {"tool", {"tool call 0 name", "\"teleport\"", "names undeclared tool \"teleport\""}},
      {"robot", {"tool call 0 robot", "\"ghost_robot\"", "targets unknown robot"}},
      {"say", {"say \"", "\" vs \"something else entirely\""}},
      {"invalid", {"/status literal_error"}},
      {"error", {"status \"completed\" vs \"error\"", "error code \"\" vs \"agent_failure\""}},
  };
  std::set<std::int64_t> changed_steps;
  for (const auto& change : agent.changes()) {
    SCOPED_TRACE(change.kind);
    const std::int64_t exchange_id = exchanges.at(change.request);
    const Json* found = nullptr;
    for (const auto& step : result["steps"]) {
      if (step["recorded_exchange_id"] == exchange_id &&
          reader.step(step["recorded_step_id"].get<std::int64_t>())->source_id ==
              change.source_id) {
        found = &step;
      }
    }
    ASSERT_NE(found, nullptr);
    changed_steps.insert((*found)["recorded_step_id"].get<std::int64_t>());
    EXPECT_FALSE((*found)["match"].get<bool>());
    std::string text = (*found)["differences"].dump() + (*found)["violations"].dump();
    for (const auto& part : expected.at(change.kind)) {
      std::string escaped = Json(part).dump();
      escaped = escaped.substr(1, escaped.size() - 2);
      EXPECT_NE(text.find(escaped), std::string::npos) << part << " not in " << text;
    }
  }
  // Every other step still matches, and the counts add up.
  for (const auto& step : result["steps"]) {
    const bool changed = changed_steps.count(step["recorded_step_id"].get<std::int64_t>()) > 0;
    EXPECT_EQ(step["match"].get<bool>(), !changed) << step.dump();
  }
  const Json& overall = result["overall"];
  EXPECT_EQ(overall["steps"].get<std::size_t>() - overall["matched"].get<std::size_t>(), 5u);
  EXPECT_EQ(overall["contract_violations"], 1);
  EXPECT_GE(overall["error_candidates"].get<int>(), 1);
  EXPECT_NE(output_.str().find("contract"), std::string::npos) << output_.str();
}

TEST_F(EvalTest, TheReportRecomputedFromTheArchiveIsTheEvaluatorsReport) {
  recordDemo();
  startReplay();
  MutatingAgent agent(replayPort(), {"robot", "invalid", "error", "say"});
  EXPECT_EQ(runEval(agent.url(), 2), cli::kExitFailure) << output_.str();
  ASSERT_EQ(agent.pending(), 0u) << "the demo lacks an answer some change needs";
  const Json result = report();
  const Json& overall = result["overall"];

  store::ArchiveReader reader(db_path_);
  EXPECT_FALSE(replay::evaluationReport(reader, 1)) << "session 1 is a recording";
  const auto recomputed =
      replay::evaluationReport(reader, result["eval_session_id"].get<std::int64_t>());
  ASSERT_TRUE(recomputed);
  EXPECT_EQ(recomputed->steps, overall["steps"].get<std::int64_t>());
  EXPECT_EQ(recomputed->matched, overall["matched"].get<std::int64_t>());
  EXPECT_EQ(recomputed->steps - recomputed->matched, 4);
  EXPECT_EQ(recomputed->say_normalised, overall["say_normalised"].get<std::int64_t>());
  EXPECT_EQ(recomputed->contract_violations, overall["contract_violations"].get<std::int64_t>());
  EXPECT_EQ(recomputed->error_candidates, overall["error_candidates"].get<std::int64_t>());
  EXPECT_DOUBLE_EQ(recomputed->matchRate(), overall["match_rate"].get<double>());

  // Conversation by conversation, in the evaluator's order, with its first divergence.
  const Json& conversations = result["conversations"];
  const auto links = reader.stepLinksOfSession(recomputed->session_id);
  ASSERT_EQ(recomputed->conversations.size(), conversations.size());
  std::size_t divergent = 0;
  for (std::size_t i = 0; i < conversations.size(); ++i) {
    const Json& expected = conversations[i];
    const replay::EvaluatedConversation& got = recomputed->conversations[i];
    SCOPED_TRACE(expected.dump());
    EXPECT_EQ(got.recorded_conversation_id, expected["conversation_id"].get<std::int64_t>());
    // The evaluated side is the conversation that re-asked the recorded root step, as the
    // evaluator reported it.
    EXPECT_EQ(got.evaluated_conversation_id, expected["eval_conversation_id"].get<std::int64_t>());
    const std::int64_t root = reader.steps(got.recorded_conversation_id).front().id;
    for (const auto& link : links) {
      if (link.recorded_step_id == root) {
        EXPECT_EQ(got.evaluated_conversation_id, reader.step(link.step_id)->conversation_id);
      }
    }
    EXPECT_EQ(got.title, reader.conversation(got.recorded_conversation_id)->title.value_or(""));
    EXPECT_EQ(got.steps, expected["steps"].get<std::int64_t>());
    EXPECT_EQ(got.matched, expected["matched"].get<std::int64_t>());
    if (expected["first_divergent_step"].is_null()) {
      EXPECT_FALSE(got.first_divergent_step);
      EXPECT_EQ(got.first_difference, "");
    } else {
      ++divergent;
      EXPECT_EQ(got.first_divergent_step, expected["first_divergent_step"].get<std::int64_t>());
      EXPECT_EQ(got.first_difference, expected["first_difference"].get<std::string>());
    }
  }
  EXPECT_GE(divergent, 1u);
}

/// The step ids `agentvcr show` lists for a conversation, in its order.
std::vector<std::int64_t> shownStepIds(const std::string& db_path, std::int64_t conversation_id) {
  cli::ShowCommand show;
  show.db_path = db_path;
  show.conversation = conversation_id;
  std::ostringstream out;
  EXPECT_EQ(cli::runShow(show, out), cli::kExitOk);
  std::vector<std::int64_t> ids;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find_first_not_of(' ');
    if (at != std::string::npos && line.compare(at, 5, "step ") == 0) {
      ids.push_back(std::stoll(line.substr(at + 5)));
    }
  }
  return ids;
}

TEST_F(EvalTest, AChangedAgentsRunThreadsAsTheRecordingAndEveryViewAgrees) {
  recordDemo();
  startReplay();
  // Every answer carries a memory no recorded step has, and some decisions change too.
  MutatingAgent agent(replayPort(), {"tool", "say", "error", "robot"}, "2.0", true);
  EXPECT_EQ(runEval(agent.url(), 2), cli::kExitFailure) << output_.str();
  ASSERT_EQ(agent.pending(), 0u) << "the demo lacks an answer some change needs";
  const Json result = report();
  const std::int64_t session_id = result["eval_session_id"].get<std::int64_t>();

  // As many conversations as the recording, each of the recorded shape.
  store::ArchiveReader reader(db_path_);
  const auto recorded = reader.conversations(1);
  const auto evaluated = reader.conversations(session_id);
  ASSERT_EQ(evaluated.size(), recorded.size());
  EXPECT_EQ(reader.session(session_id)->conversation_count,
            static_cast<std::int64_t>(recorded.size()));
  ASSERT_EQ(result["conversations"].size(), recorded.size());

  const auto recomputed = replay::evaluationReport(reader, session_id);
  ASSERT_TRUE(recomputed);
  ASSERT_EQ(recomputed->conversations.size(), recorded.size());
  std::size_t differing = 0;
  for (std::size_t c = 0; c < recorded.size(); ++c) {
    const Json& conversation = result["conversations"][c];
    const std::int64_t recorded_id = conversation["conversation_id"].get<std::int64_t>();
    const std::int64_t evaluated_id = conversation["eval_conversation_id"].get<std::int64_t>();
    SCOPED_TRACE("recorded conversation " + std::to_string(recorded_id));
    // The viewer's eval view pairs the same conversations and counts the same.
    EXPECT_EQ(recomputed->conversations[c].recorded_conversation_id, recorded_id);
    EXPECT_EQ(recomputed->conversations[c].evaluated_conversation_id, evaluated_id);
    EXPECT_EQ(recomputed->conversations[c].matched, conversation["matched"].get<std::int64_t>());
    EXPECT_EQ(recomputed->conversations[c].first_divergent_step.value_or(0),
              conversation["first_divergent_step"].is_null()
                  ? 0
                  : conversation["first_divergent_step"].get<std::int64_t>());
    const auto pairs = reader.evaluationPairs(recorded_id);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].evaluated_conversation_id, evaluated_id);

    // The report's steps of this conversation, by step number.
    std::vector<Json> steps;
    for (const auto& step : result["steps"]) {
      if (step["conversation_id"] == recorded_id) {
        EXPECT_EQ(step["eval_conversation_id"], evaluated_id);
        steps.push_back(step);
      }
    }
    ASSERT_EQ(static_cast<std::int64_t>(steps.size()), conversation["steps"].get<std::int64_t>());
    const auto recorded_steps = reader.steps(recorded_id);
    const auto evaluated_steps = reader.steps(evaluated_id);
    ASSERT_EQ(evaluated_steps.size(), steps.size());
    ASSERT_EQ(recorded_steps.size(), steps.size());
    const std::vector<std::int64_t> shown = shownStepIds(db_path_, evaluated_id);
    ASSERT_EQ(shown.size(), steps.size());

    // The viewer's diff pairs step k with step k, and its decisions differ where the report's do.
    const auto left = replay::diffStepsOf(reader, recorded_id);
    const auto right = replay::diffStepsOf(reader, evaluated_id);
    const auto diff = replay::diffConversations(left, right);
    ASSERT_EQ(diff.rows.size(), steps.size()) << diff.summary;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const Json& step = steps[k];
      SCOPED_TRACE(step.dump());
      EXPECT_EQ(step["step"].get<std::size_t>(), k + 1);
      EXPECT_EQ(step["recorded_step_id"], recorded_steps[k].id);
      EXPECT_EQ(step["eval_step_id"], evaluated_steps[k].id);
      EXPECT_EQ(shown[k], evaluated_steps[k].id);
      EXPECT_EQ(evaluated_steps[k].depth, recorded_steps[k].depth);
      const bool same_parent = recorded_steps[k].parent_candidate_id.has_value() ==
                               evaluated_steps[k].parent_candidate_id.has_value();
      EXPECT_TRUE(same_parent);
      ASSERT_EQ(diff.rows[k].left, k);
      ASSERT_EQ(diff.rows[k].right, k);
      const bool decisions_differ = replay::decisionText(left[k]) != replay::decisionText(right[k]);
      EXPECT_EQ(decisions_differ, !step["match"].get<bool>());
      // The rows the diff marks as differing in their decision are the steps the report failed;
      // a row whose memory alone differs is counted apart.
      EXPECT_EQ(diff.rows[k].decision_differs, !step["match"].get<bool>());
      differing += decisions_differ ? 1 : 0;
    }
    const auto decision_rows = std::count_if(diff.rows.begin(), diff.rows.end(),
                                             [](const auto& row) { return row.decision_differs; });
    const auto other_rows = std::count_if(diff.rows.begin(), diff.rows.end(), [](const auto& row) {
      return row.kind == replay::RowKind::Changed && !row.decision_differs;
    });
    if (other_rows > 0 && decision_rows + other_rows > 1) {
      EXPECT_NE(
          diff.summary.find(", " + std::to_string(other_rows) + " of them with the same decision"),
          std::string::npos)
          << "the summary counts apart the rows the report counts as matched: " << diff.summary;
    }
  }
  EXPECT_EQ(differing, 4u);
}

TEST_F(EvalTest, TheSessionSpansTheRunFromItsChecksToItsLastAnswer) {
  recordDemo();
  startReplay();
  constexpr auto kDelay = std::chrono::milliseconds(40);
  SplitWritingAgent agent(replayPort(), kDelay);
  ASSERT_EQ(runEval(agent.url(), 1, 1.0), cli::kExitOk) << output_.str();
  const Json result = report();
  store::ArchiveReader reader(db_path_);
  const auto session = reader.session(result["eval_session_id"].get<std::int64_t>());
  ASSERT_TRUE(session && session->ended_ns);
  // Each request waited kDelay for its answer, one after another.
  const std::int64_t asked = result["overall"]["requests"].get<std::int64_t>();
  EXPECT_GE(*session->ended_ns - session->started_ns,
            asked * std::chrono::nanoseconds(kDelay).count());
  for (const auto& listed : reader.exchanges(session->id, 0, store::ArchiveReader::kNoLimit)) {
    const auto exchange = reader.exchange(listed.id);
    EXPECT_GE(exchange->started_ns, session->started_ns);
    EXPECT_LE(*exchange->ended_ns, *session->ended_ns);
  }
}

TEST_F(EvalTest, LiveAndRecordedLatenciesAreMeasuredAlike) {
  // Recorded through the proxy from an agent that writes each answer whole, then evaluated
  // against the same answers written headers first, body second: the agent thinks no longer,
  // only its body waits on the transport (Nagle's algorithm against a delayed ACK).
  recordDemo();
  startReplay();
  const std::string recorded_path = temp_.file("through-proxy.sqlite");
  {
    proxy::RecordingProxyConfig config;
    config.relay.upstream = *net::parseUrl(replayUrl());
    config.server.threads = 2;
    config.db_path = recorded_path;
    config.session.name = "through the proxy";
    config.session.mode = "record";
    config.probe_identity = false;
    proxy::RecordingProxy proxy(config);
    proxy.start();
    const std::string proxy_url = "http://127.0.0.1:" + std::to_string(proxy.endpoint().port);
    ASSERT_EQ(runEval(proxy_url, 1, 1.0), cli::kExitOk) << output_.str();
    ASSERT_TRUE(proxy.settle());
    proxy.stop();
  }
  SplitWritingAgent agent(replayPort());
  output_.str("");
  ASSERT_EQ(runEval(agent.url(), 1, 1.0, false, recorded_path), cli::kExitOk) << output_.str();
  const Json result = report();
  const Json& latency = result["overall"]["latency_ms"];
  ASSERT_FALSE(latency["recorded"].is_null()) << output_.str();
  EXPECT_NEAR(latency["live"]["p50"].get<double>(), latency["recorded"]["p50"].get<double>(), 5.0)
      << output_.str();
  EXPECT_NE(output_.str().find("agent's time to first byte: live p50 "), std::string::npos)
      << output_.str();

  // Whole exchanges, as eval used to compare them, differ by the transport's delay: the
  // scenario still shows what the first-byte figures leave out.
  store::ArchiveReader reader(recorded_path);
  const auto medianMs = [&reader](std::int64_t session) {
    std::vector<double> values;
    for (const auto& listed : reader.exchanges(session, 0, store::ArchiveReader::kNoLimit)) {
      const auto row = reader.exchange(listed.id);
      values.push_back(static_cast<double>(*row->ended_ns - row->started_ns) / 1e6);
    }
    return cli::percentile(values, 50);
  };
  EXPECT_GT(medianMs(result["eval_session_id"].get<std::int64_t>()),
            medianMs(result["recorded_sessions"][0].get<std::int64_t>()) + 20)
      << output_.str();
}

TEST_F(EvalTest, RefusesAnAgentOfAnotherProtocolVersion) {
  recordDemo();
  startReplay();
  MutatingAgent agent(replayPort(), {}, "1.0");
  EXPECT_EQ(runEval(agent.url(), 1), cli::kExitNotEvaluated);
  EXPECT_NE(output_.str().find("refusing to evaluate"), std::string::npos) << output_.str();
  EXPECT_NE(output_.str().find("protocol_version"), std::string::npos) << output_.str();
  store::ArchiveReader reader(db_path_);
  for (const auto& session : reader.sessions()) {
    EXPECT_NE(session.mode, "eval");
  }
}

/// The recorded steps an agent's changes hit, in the order it made them, found as
/// EachKnownChangeIsReportedAtItsStep finds them: the k-th request re-asked the k-th recorded
/// exchange, and a change names its input.
std::vector<std::int64_t> changedSteps(const store::ArchiveReader& reader, const Json& report,
                                       const std::vector<MutatingAgent::Change>& changes) {
  std::set<std::int64_t> exchange_set;
  for (const auto& step : report["steps"]) {
    exchange_set.insert(step["recorded_exchange_id"].get<std::int64_t>());
  }
  const std::vector<std::int64_t> exchanges(exchange_set.begin(), exchange_set.end());
  std::vector<std::int64_t> steps;
  for (const auto& change : changes) {
    for (const auto& step : report["steps"]) {
      const auto recorded = step["recorded_step_id"].get<std::int64_t>();
      if (step["recorded_exchange_id"] == exchanges.at(change.request) &&
          reader.step(recorded)->source_id == change.source_id) {
        steps.push_back(recorded);
      }
    }
  }
  EXPECT_EQ(std::set<std::int64_t>(steps.begin(), steps.end()).size(), changes.size())
      << "each change hits a step of its own";
  return steps;
}

// The three agents: the recorded one (the replay of the archive), a changed one and a
// broken one. Each agent's rate and every pair's agreement equal a count made by hand from the
// changes each agent made, and the viewer's comparison recomputed from the archive agrees.
TEST_F(EvalTest, ThreeAgentsAreRankedAndComparedPairByPairAsCountedByHand) {
  recordDemo();
  startReplay();
  // Both start by rewording the same say; then the changed agent moves a robot while the broken
  // one breaks the contract and fails a candidate.
  MutatingAgent changed(replayPort(), {"say", "robot"});
  MutatingAgent broken(replayPort(), {"say", "invalid", "error"});
  EXPECT_EQ(runCompare({replayUrl(), changed.url(), broken.url()}, 0.5), cli::kExitFailure)
      << output_.str();
  ASSERT_EQ(changed.pending(), 0u) << "the demo lacks an answer some change needs";
  ASSERT_EQ(broken.pending(), 0u) << "the demo lacks an answer some change needs";
  const Json comparison = report();
  const Json& agents = comparison["agents"];
  ASSERT_EQ(agents.size(), 3u) << comparison.dump(2);
  store::ArchiveReader reader(db_path_);

  // The hand count.
  const std::vector<std::int64_t> changed_steps =
      changedSteps(reader, agents[1]["report"], changed.changes());
  const std::vector<std::int64_t> broken_steps =
      changedSteps(reader, agents[2]["report"], broken.changes());
  ASSERT_EQ(changed_steps.size(), 2u);
  ASSERT_EQ(broken_steps.size(), 3u);
  const std::int64_t steps = agents[0]["report"]["overall"]["steps"].get<std::int64_t>();
  // Both reworded their first say alike: the one step where they can agree.
  const std::int64_t same_say = changed_steps[0] == broken_steps[0] ? 1 : 0;
  std::set<std::int64_t> either(changed_steps.begin(), changed_steps.end());
  either.insert(broken_steps.begin(), broken_steps.end());

  const std::vector<std::int64_t> differing_by_agent{
      0, static_cast<std::int64_t>(changed_steps.size()),
      static_cast<std::int64_t>(broken_steps.size())};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("agent " + std::to_string(i + 1));
    const Json& overall = agents[i]["report"]["overall"];
    EXPECT_EQ(overall["steps"].get<std::int64_t>(), steps);
    EXPECT_EQ(overall["matched"].get<std::int64_t>(), steps - differing_by_agent[i]);
    EXPECT_DOUBLE_EQ(
        overall["match_rate"].get<double>(),
        static_cast<double>(steps - differing_by_agent[i]) / static_cast<double>(steps));
    EXPECT_EQ(overall["contract_violations"].get<int>(), i == 2 ? 1 : 0);
  }
  const Json expected_agreement = Json::array(
      {Json{{"agents", {0, 1}},
            {"differing_steps", changed_steps.size()},
            {"agreeing_steps", 0},
            {"rate", 0.0}},
       Json{{"agents", {0, 2}},
            {"differing_steps", broken_steps.size()},
            {"agreeing_steps", 0},
            {"rate", 0.0}},
       Json{{"agents", {1, 2}},
            {"differing_steps", either.size()},
            {"agreeing_steps", same_say},
            {"rate", static_cast<double>(same_say) / static_cast<double>(either.size())}}});
  EXPECT_EQ(comparison["agreement"], expected_agreement) << comparison["agreement"].dump();
  EXPECT_EQ(same_say, 1) << "both reworded the same say the same way";

  // The first divergent step of each conversation, agent by agent, is that agent's own.
  for (const auto& conversation : comparison["conversations"]) {
    for (std::size_t i = 0; i < 3; ++i) {
      for (const auto& own : agents[i]["report"]["conversations"]) {
        if (own["conversation_id"] == conversation["conversation_id"]) {
          EXPECT_EQ(conversation["first_divergent_step"][i], own["first_divergent_step"]);
        }
      }
    }
  }

  // --fail-under holds each agent: only the broken one fails, and it is named.
  const std::string printed = output_.str();
  EXPECT_NE(printed.find("FAILED: agent 3 (" + broken.url() + "): the agent broke the contract"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("FAILED: agent 1"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("FAILED: agent 2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("agents 2 and 3: the same decisions at 1 of " +
                         std::to_string(either.size()) + " steps where either differs"),
            std::string::npos)
      << printed;

  // Each agent's run is an evaluation session of its own, named for its place; the viewer's
  // comparison, recomputed from those sessions, gives the same figures.
  std::vector<std::int64_t> sessions;
  for (std::size_t i = 0; i < 3; ++i) {
    sessions.push_back(agents[i]["report"]["eval_session_id"].get<std::int64_t>());
    EXPECT_EQ(reader.session(sessions.back())->name,
              "eval of session 1, agent " + std::to_string(i + 1) + " of 3");
  }
  const replay::EvaluationComparison recomputed = replay::compareEvaluations(reader, sessions);
  ASSERT_EQ(recomputed.agents.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(recomputed.agents[i].matched,
              agents[i]["report"]["overall"]["matched"].get<std::int64_t>());
    EXPECT_EQ(recomputed.agents[i].agent, agents[i]["agent"].get<std::string>());
    // No A2A call was recorded: none is judged, as none was asked.
    EXPECT_EQ(recomputed.agents[i].a2a_calls,
              agents[i]["report"]["a2a"]["overall"]["calls"].get<std::int64_t>());
    EXPECT_TRUE(recomputed.agents[i].a2a_contexts.empty());
  }
  ASSERT_EQ(recomputed.a2a_agreement.size(), comparison["a2a_agreement"].size());
  for (std::size_t k = 0; k < recomputed.a2a_agreement.size(); ++k) {
    EXPECT_EQ(recomputed.a2a_agreement[k].differing_steps,
              comparison["a2a_agreement"][k]["differing_steps"].get<std::int64_t>());
  }
  ASSERT_EQ(recomputed.agreement.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(recomputed.agreement[k].differing_steps,
              expected_agreement[k]["differing_steps"].get<std::int64_t>());
    EXPECT_EQ(recomputed.agreement[k].agreeing_steps,
              expected_agreement[k]["agreeing_steps"].get<std::int64_t>());
  }

  // Held to a rate the changed agent reaches and without the broken one, the gate passes;
  // held to every step, the changed agent fails it alone.
  const double changed_rate = agents[1]["report"]["overall"]["match_rate"].get<double>();
  MutatingAgent changed_again(replayPort(), {"say", "robot"});
  output_.str("");
  EXPECT_EQ(runCompare({replayUrl(), changed_again.url()}, changed_rate), cli::kExitOk)
      << output_.str();
  MutatingAgent changed_once_more(replayPort(), {"say", "robot"});
  output_.str("");
  EXPECT_EQ(runCompare({replayUrl(), changed_once_more.url()}), cli::kExitFailure) << output_.str();
  EXPECT_NE(output_.str().find("FAILED: agent 2 (" + changed_once_more.url() + "): 2 of " +
                               std::to_string(steps) + " steps differ"),
            std::string::npos)
      << output_.str();
  EXPECT_EQ(output_.str().find("FAILED: agent 1"), std::string::npos) << output_.str();
}

TEST_F(EvalTest, AnAgentThatIsDownIsReportedAndTheOthersStillCompared) {
  recordDemo();
  startReplay();
  EXPECT_EQ(runCompare({replayUrl(), "http://127.0.0.1:1"}), cli::kExitNotEvaluated)
      << output_.str();
  const Json comparison = report();
  EXPECT_EQ(comparison["agents"][0]["report"]["overall"]["match_rate"].get<double>(), 1.0);
  EXPECT_FALSE(comparison["agents"][1].contains("report"));
  EXPECT_NE(comparison["agents"][1]["refused"].get<std::string>().find("127.0.0.1:1"),
            std::string::npos)
      << comparison.dump(2);
  EXPECT_TRUE(comparison["agreement"].empty()) << "one agent is not a pair";
  EXPECT_NE(output_.str().find("agent 2 (http://127.0.0.1:1) was not evaluated"), std::string::npos)
      << output_.str();
}

}  // namespace
}  // namespace agentvcr::testing
