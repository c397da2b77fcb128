#include "agentvcr/sim/magma/demo_driver.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/sim/magma/env_payload.hpp"

namespace agentvcr::sim::magma {

namespace {

using Ordered = nlohmann::ordered_json;

constexpr const char* kEmptyDecisionMessage =
    "The agent returned neither a message nor a tool call.";
constexpr std::size_t kFindingsShown = 3;

std::string describeFindings(const std::vector<protocol::Finding>& findings) {
  std::string text;
  for (std::size_t i = 0; i < findings.size() && i < kFindingsShown; ++i) {
    text += (i == 0 ? "" : "; ") + protocol::toJsonPointer(findings[i].loc) + ": " +
            findings[i].msg + " (" + findings[i].type + ")";
  }
  if (findings.size() > kFindingsShown) {
    text += "; and " + std::to_string(findings.size() - kFindingsShown) + " more";
  }
  return text;
}

}  // namespace

DemoDriver::DemoDriver(DemoPlan plan)
    : plan_(std::move(plan)), ids_(plan_.seed), next_gen_id_(plan_.gen_first_id) {
  for (std::int64_t slot = 0; slot < plan_.nb_env; ++slot) {
    free_slots_.insert(slot);
  }
  startEpisodes();
}

bool DemoDriver::done() const {
  return abort_reason_.has_value() ||
         (waiting_.empty() && in_flight_.empty() && next_episode_ >= plan_.episodes.size());
}

void DemoDriver::startEpisodes() {
  while (!abort_reason_ && next_episode_ < plan_.episodes.size()) {
    const EpisodeSpec& episode = plan_.episodes[next_episode_];
    std::optional<std::int64_t> slot;
    if (episode.caller == Caller::Bench) {
      if (free_slots_.empty()) {
        return;  // episodes start in order: wait for a slot
      }
      slot = *free_slots_.begin();
      free_slots_.erase(free_slots_.begin());
    }
    const WorldSpec& world = plan_.worlds[episode.world];
    SimEnvironment::Load env = SimEnvironment::fromJson(world.sim, world.attributes);
    if (!env.env) {
      abort("world " + world.name + ": " + env.error);  // the loader checked it already
      return;
    }
    waiting_.push_back(Branch{.episode = next_episode_,
                              .label = episode.name,
                              .slot = slot,
                              .env = std::move(*env.env),
                              .memory = episode.memory,
                              .stage = 0,
                              .steps_in_stage = 0,
                              .agent_calls = 0,
                              .type = protocol::magma::InstructionType::User,
                              .content = episode.stages.front(),
                              .num_outputs = episode.num_outputs,
                              .last_say = ""});
    ++next_episode_;
  }
}

std::string DemoDriver::nextRequestBody() {
  if (abort_reason_ || !in_flight_.empty() || waiting_.empty()) {
    return "";
  }
  Ordered inputs = Ordered::array();
  for (const Branch& branch : waiting_) {
    const EpisodeSpec& episode = plan_.episodes[branch.episode];
    const WorldSpec& world = plan_.worlds[episode.world];
    Ordered input = Ordered::object();
    input["id"] = branch.slot ? *branch.slot : next_gen_id_++;
    input["instruction"] = Ordered::object();
    input["instruction"]["type"] =
        branch.type == protocol::magma::InstructionType::User ? "user" : "env";
    input["instruction"]["content"] = branch.content;
    input["tools"] = world.tools;
    input["attributes"] = world.attributes;
    input["memory"] = branch.memory;
    input["num_outputs"] = branch.num_outputs;
    input["extra_keys"] = episode.extra_keys;
    inputs.push_back(std::move(input));
  }
  Ordered request = Ordered::object();
  request["request_id"] = ids_.next();
  request["inputs"] = std::move(inputs);
  std::string body = protocol::pythonJsonDumps(request, protocol::kPythonDefaultStyle);

  // Our own request goes through the same strict model as the reply will: it is what the
  // reply is validated against, and a fixture the contract rejects is caught here.
  const protocol::JsonParseResult parsed = protocol::parseJson(body);
  protocol::Parsed<protocol::magma::AgentRequest> model =
      parsed.value ? protocol::magma::parseAgentRequest(*parsed.value)
                   : protocol::Parsed<protocol::magma::AgentRequest>{};
  if (!model.ok()) {
    in_flight_.assign(std::make_move_iterator(waiting_.begin()),
                      std::make_move_iterator(waiting_.end()));
    waiting_.clear();
    abort("the plan produced an invalid request: " + describeFindings(model.findings));
    return "";
  }
  request_ = std::move(model.value);
  in_flight_.assign(std::make_move_iterator(waiting_.begin()),
                    std::make_move_iterator(waiting_.end()));
  waiting_.clear();
  ++requests_;
  return body;
}

std::optional<std::string> DemoDriver::onResponse(int status, std::string_view body) {
  if (in_flight_.empty()) {
    return std::string("no request is in flight");
  }
  if (status != 200) {
    return abort("the agent answered HTTP " + std::to_string(status));
  }
  const protocol::JsonParseResult parsed = protocol::parseJson(body);
  if (!parsed.value) {
    return abort("the reply is not JSON (byte " + std::to_string(parsed.error.offset) +
                 "): " + parsed.error.message);
  }
  protocol::Parsed<protocol::magma::AgentResponse> response =
      protocol::magma::parseAgentResponse(*parsed.value, &*request_);
  if (!response.ok()) {
    return abort("invalid reply: " + describeFindings(response.findings));
  }
  // A second, order-keeping parse: memory goes back exactly as the agent wrote it.
  const Ordered ordered = Ordered::parse(body, nullptr, /*allow_exceptions=*/false);
  const protocol::magma::AgentResponse& outputs = *response.value;
  const bool keep_order = ordered.is_array() && ordered.size() == outputs.size();

  std::vector<Branch> batch = std::move(in_flight_);
  in_flight_.clear();
  std::size_t position = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::int64_t count = request_->inputs[i].num_outputs;
    for (std::int64_t k = 0; k < count; ++k, ++position) {
      const protocol::magma::AgentOutput& output = outputs[position];
      const Ordered* raw =
          keep_order && ordered[position].is_object() && ordered[position].contains("memory")
              ? &ordered[position]["memory"]
              : nullptr;
      Ordered memory = raw != nullptr ? *raw : Ordered(output.memory);
      Branch branch = batch[i];
      if (count > 1) {
        branch.label += "/" + std::to_string(k);
      }
      advance(std::move(branch), output, std::move(memory));
    }
  }
  startEpisodes();
  return std::nullopt;
}

void DemoDriver::advance(Branch branch, const protocol::magma::AgentOutput& output,
                         Ordered memory) {
  ++branch.agent_calls;
  ++branch.steps_in_stage;
  if (output.status == protocol::magma::OutputStatus::Error || !output.output) {
    const std::string code = output.error ? output.error->code : "unknown";
    const std::string message = output.error ? output.error->message : "";
    finish(branch, false, "agent error " + code + ": " + message);
    return;
  }
  branch.memory = std::move(memory);
  const protocol::magma::AgentDecision& decision = *output.output;
  const EpisodeSpec& episode = plan_.episodes[branch.episode];
  if (!decision.tool_calls.empty()) {
    // Tool calls win over a say (BENCH 2.0.0b4, magma-protocol.md §6).
    branch.type = protocol::magma::InstructionType::Env;
    branch.content = buildEnvContent(branch.env.execute(decision.tool_calls));
  } else if (decision.say.empty()) {
    branch.type = protocol::magma::InstructionType::Env;
    branch.content = protocol::pythonJsonDumps(Ordered{{"error", kEmptyDecisionMessage}},
                                               protocol::kPythonDefaultStyle);
  } else {
    branch.last_say = decision.say;
    ++branch.stage;
    branch.steps_in_stage = 0;
    if (branch.stage >= episode.stages.size()) {
      finish(branch, true, "");
      return;
    }
    branch.type = protocol::magma::InstructionType::User;
    branch.content = episode.stages[branch.stage];
  }
  if (branch.steps_in_stage >= plan_.max_steps_per_stage) {
    finish(branch, false,
           "step budget exhausted in stage " + std::to_string(branch.stage) + " after " +
               std::to_string(branch.steps_in_stage) + " answers");
    return;
  }
  branch.num_outputs = 1;
  waiting_.push_back(std::move(branch));
}

void DemoDriver::finish(const Branch& branch, bool done, std::string reason) {
  outcomes_.push_back(BranchOutcome{.episode = branch.episode,
                                    .label = branch.label,
                                    .done = done,
                                    .reason = std::move(reason),
                                    .last_say = branch.last_say,
                                    .agent_calls = branch.agent_calls,
                                    .stages_completed = branch.stage});
  if (branch.slot) {
    free_slots_.insert(*branch.slot);
  }
}

std::optional<std::string> DemoDriver::abort(std::string reason) {
  abort_reason_ = reason;
  const std::string why = "run aborted: " + reason;
  for (const Branch& branch : in_flight_) {
    finish(branch, false, why);
  }
  for (const Branch& branch : waiting_) {
    finish(branch, false, why);
  }
  in_flight_.clear();
  waiting_.clear();
  for (; next_episode_ < plan_.episodes.size(); ++next_episode_) {
    outcomes_.push_back(BranchOutcome{.episode = next_episode_,
                                      .label = plan_.episodes[next_episode_].name,
                                      .done = false,
                                      .reason = why + " (never started)",
                                      .last_say = "",
                                      .agent_calls = 0,
                                      .stages_completed = 0});
  }
  return reason;
}

Summary DemoDriver::summary() const {
  Summary summary;
  summary.outcomes = outcomes_;
  std::stable_sort(summary.outcomes.begin(), summary.outcomes.end(),
                   [](const BranchOutcome& a, const BranchOutcome& b) {
                     return std::tie(a.episode, a.label) < std::tie(b.episode, b.label);
                   });
  summary.requests = requests_;
  summary.abort_reason = abort_reason_;
  return summary;
}

std::string formatSummary(const Summary& summary) {
  std::string text;
  for (const BranchOutcome& outcome : summary.outcomes) {
    const std::string answers =
        std::to_string(outcome.agent_calls) + (outcome.agent_calls == 1 ? " answer" : " answers");
    text += outcome.label + ": ";
    if (outcome.done) {
      text += "done after " + answers + ", last say \"" + outcome.last_say + "\"\n";
    } else {
      text += "failed after " + answers + ": " + outcome.reason + "\n";
    }
  }
  if (summary.abort_reason) {
    text += "aborted: " + *summary.abort_reason + "\n";
  }
  return text;
}

std::vector<std::string> checkExpectations(const DemoPlan& plan, const Summary& summary) {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < plan.episodes.size(); ++i) {
    const EpisodeSpec& episode = plan.episodes[i];
    if (episode.expect.empty()) {
      continue;
    }
    std::vector<const BranchOutcome*> branches;
    for (const BranchOutcome& outcome : summary.outcomes) {
      if (outcome.episode == i) {
        branches.push_back(&outcome);
      }
    }
    if (branches.size() != episode.expect.size()) {
      problems.push_back(episode.name + ": expected " + std::to_string(episode.expect.size()) +
                         " branch(es), got " + std::to_string(branches.size()));
      continue;
    }
    for (std::size_t k = 0; k < branches.size(); ++k) {
      const ExpectedOutcome& expected = episode.expect[k];
      const BranchOutcome& actual = *branches[k];
      if (expected.done != actual.done) {
        problems.push_back(actual.label + ": expected " + (expected.done ? "done" : "failed") +
                           ", got " + (actual.done ? "done" : "failed: " + actual.reason));
      }
      if (expected.say && *expected.say != actual.last_say) {
        problems.push_back(actual.label + ": expected the last say \"" + *expected.say +
                           "\", got \"" + actual.last_say + "\"");
      }
      if (expected.reason_contains &&
          actual.reason.find(*expected.reason_contains) == std::string::npos) {
        problems.push_back(actual.label + ": expected a reason containing \"" +
                           *expected.reason_contains + "\", got \"" + actual.reason + "\"");
      }
    }
  }
  return problems;
}

}  // namespace agentvcr::sim::magma
