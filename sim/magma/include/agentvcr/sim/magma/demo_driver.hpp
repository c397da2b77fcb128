#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/sim/magma/demo_plan.hpp"
#include "agentvcr/sim/magma/request_ids.hpp"
#include "agentvcr/sim/magma/sim_environment.hpp"

namespace agentvcr::sim::magma {

/// How one episode, or one branch of a GEN tree, ended.
struct BranchOutcome {
  std::size_t episode = 0;  ///< index into DemoPlan::episodes
  std::string label;        ///< episode name, plus "/k" per fork ("sort/1")
  bool done = false;        ///< every stage answered; false: failed
  std::string reason;       ///< why it failed (empty when done)
  std::string last_say;     ///< the last text answer
  std::int64_t agent_calls = 0;
  std::size_t stages_completed = 0;
};

struct Summary {
  std::vector<BranchOutcome> outcomes;  ///< by episode, then label
  std::size_t requests = 0;
  std::optional<std::string> abort_reason;  ///< set when a reply aborted the run (as BENCH)
};

/// Drives BENCH-like episodes and GEN-like trees against an agent, without sockets: the caller
/// moves bytes between nextRequestBody() and the agent, and hands the reply to onResponse().
///
/// - BENCH episodes run in slots 0..nb_env-1 (the input id), reused when an episode ends.
///   GEN episodes take a fresh situation id per input. All waiting inputs share one request,
///   in the order they started waiting; request bodies are written as Python's json.dumps.
/// - A reply is validated against the request (strict models + candidate order); anything
///   else than a valid 200 aborts the run, as in BENCH. A candidate's memory replaces the
///   branch memory verbatim (key order kept). Tool calls run in the branch's simulated
///   environment and come back as env feedback; a say ends the stage (next user instruction,
///   or done); an error candidate fails the branch; an empty decision gets the §11.3 error.
/// - An input with num_outputs > 1 forks: each candidate continues as its own branch with
///   its own memory and its own copy of the environment.
///
/// Not thread-safe; one request in flight at a time.
class DemoDriver {
 public:
  explicit DemoDriver(DemoPlan plan);

  /// True when every branch has ended or the run was aborted.
  bool done() const;

  /// True between nextRequestBody() and onResponse().
  bool awaitingResponse() const { return !in_flight_.empty(); }

  /// The next POST /v1/responses body, batching every waiting input. Returns "" when done()
  /// or a request is already in flight.
  std::string nextRequestBody();

  /// The request nextRequestBody() last returned, parsed (for validation and tests).
  const std::optional<protocol::magma::AgentRequest>& lastRequest() const { return request_; }

  /// Consumes the agent's reply to the last request. Returns the error text when the reply is
  /// not a valid answer; the run is then aborted.
  std::optional<std::string> onResponse(int status, std::string_view body);

  Summary summary() const;

  const DemoPlan& plan() const { return plan_; }

 private:
  struct Branch {
    std::size_t episode = 0;
    std::string label;
    std::optional<std::int64_t> slot;
    SimEnvironment env;
    nlohmann::ordered_json memory;
    std::size_t stage = 0;
    std::int64_t steps_in_stage = 0;
    std::int64_t agent_calls = 0;
    protocol::magma::InstructionType type = protocol::magma::InstructionType::User;
    std::string content;
    std::int64_t num_outputs = 1;
    std::string last_say;
  };

  void startEpisodes();
  void advance(Branch branch, const protocol::magma::AgentOutput& output,
               nlohmann::ordered_json memory);
  void finish(const Branch& branch, bool done, std::string reason);
  std::optional<std::string> abort(std::string reason);

  DemoPlan plan_;
  RequestIdGenerator ids_;
  std::size_t next_episode_ = 0;
  std::set<std::int64_t> free_slots_;
  std::int64_t next_gen_id_ = 0;
  std::deque<Branch> waiting_;
  std::vector<Branch> in_flight_;
  std::optional<protocol::magma::AgentRequest> request_;
  std::vector<BranchOutcome> outcomes_;
  std::size_t requests_ = 0;
  std::optional<std::string> abort_reason_;
};

/// A report for people, one line per branch:
/// `press-sw1: done after 2 answers, last say "Done, sw1 is pressed."` or
/// `self-destruct: failed after 1 answer: agent error ...`, then `aborted: REASON` if the run
/// was aborted.
std::string formatSummary(const Summary& summary);

/// Differences between a run and the plan's `expect` entries, one sentence each (empty: the
/// run went as expected). Episodes without expectations are not checked.
std::vector<std::string> checkExpectations(const DemoPlan& plan, const Summary& summary);

}  // namespace agentvcr::sim::magma
