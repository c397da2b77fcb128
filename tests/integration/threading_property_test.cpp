// Conversation threading against ground truth: seeded BENCH- and GEN-like callers run episodes
// at once through the real recording proxy, each logging which recorded candidate every step
// continued, and the archive's links are checked against those logs (docs/schema.md,
// "Conversation threading").
//
// AGENTVCR_THREADING_SEEDS (default 200) seeds run, from AGENTVCR_THREADING_SEED (default a
// fresh one, printed); scripts/threading-soak runs thousands.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "agentvcr/protocol/python_json.hpp"
#include "env_number.hpp"
#include "magma_output.hpp"
#include "proxy_fixture.hpp"

namespace agentvcr::testing {
namespace {

using nlohmann::ordered_json;

/// Which candidates of a step a caller carries on.
enum class Policy { First, Random, All };

const char* policyName(Policy p) {
  return p == Policy::First ? "first" : p == Policy::Random ? "random" : "all";
}

/// Everything one seed draws.
struct Scenario {
  std::uint32_t seed = 0;
  int callers = 1;                      ///< 1..16, at once
  int episodes = 1;                     ///< per caller
  bool equal_ids = true;                ///< inputs numbered by slot alike in every caller
  bool same_episodes = true;            ///< every caller runs the same episodes
  bool connection_per_request = false;  ///< else one kept connection per caller
  bool sampling = false;                ///< candidates differ (else greedy: identical)
  bool mixed_policies = false;          ///< callers follow different policies
  Policy policy = Policy::First;
  int batch = 1;          ///< inputs a request carries at most, as BENCH batches its slots
  bool failures = false;  ///< the agent sometimes answers an error candidate; the caller retries
  /// The agent takes 0-40 ms per request: a step that began first may be answered last.
  bool slow_agent = false;
  std::vector<int> steps;                 ///< per episode
  std::vector<std::vector<int>> outputs;  ///< num_outputs per episode and step

  Policy policyOf(int caller) const {
    return mixed_policies ? static_cast<Policy>(caller % 3) : policy;
  }

  /// Whether the bytes can tell the runs' trees apart: not when callers follow different
  /// policies, nor when an error candidate makes one run's tree differ from the others'.
  bool forestDecidable() const { return !mixed_policies && !failures; }

  std::string describe() const {
    std::ostringstream out;
    out << "seed " << seed << ": " << callers << " callers x " << episodes << " episodes, "
        << (equal_ids ? "equal" : "distinct") << " ids, " << (same_episodes ? "same" : "different")
        << " episodes, "
        << (connection_per_request ? "a connection per request" : "kept connections") << ", "
        << (sampling ? "sampling" : "greedy") << " agent, policy "
        << (mixed_policies ? "mixed" : policyName(policy)) << ", batch " << batch
        << (failures ? ", error candidates retried" : "") << (slow_agent ? ", slow agent" : "");
    return out.str();
  }
};

Scenario draw(std::uint32_t seed) {
  std::mt19937 random(seed);
  const auto pick = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  Scenario s;
  s.seed = seed;
  s.callers = pick(1, 16);
  s.episodes = pick(1, 3);
  s.equal_ids = pick(0, 1) == 1;
  s.same_episodes = pick(0, 3) != 0;
  s.connection_per_request = pick(0, 1) == 1;
  s.sampling = pick(0, 3) == 0;
  s.mixed_policies = pick(0, 4) == 0;
  s.policy = static_cast<Policy>(pick(0, 2));
  s.batch = pick(1, 3);
  s.failures = pick(0, 4) == 0;
  for (int e = 0; e < s.episodes; ++e) {
    s.steps.push_back(pick(1, 4));
    std::vector<int> outputs;
    for (int k = 0; k < s.steps.back(); ++k) {
      // A caller carrying every candidate on fans out at the first step only: trees, not bushes.
      const bool fans_out = s.mixed_policies || s.policy == Policy::All;
      outputs.push_back(k == 0 || !fans_out ? pick(1, 3) : 1);
    }
    s.outputs.push_back(outputs);
  }
  s.slow_agent = pick(0, 3) == 0;
  return s;
}

/// A recorded candidate, as the caller knows it: which request, which input, which candidate.
struct CandidateKey {
  std::string request_id;
  int position = 0;
  int index = 0;
  auto operator<=>(const CandidateKey&) const = default;
};

/// A step as the caller sent it.
struct TruthStep {
  std::string label;                   ///< instruction type and content: the input without ids
  std::optional<CandidateKey> parent;  ///< the candidate it carried on
  int caller = 0;
};

/// The agent: a memory that is a function of the input (greedy decoding), or of the input and
/// the candidate's draw (sampling). A request whose id ends in "!" gets error candidates for
/// its first input, returning its memory unchanged. A slow agent answers after 0-40 ms.
FakeReply agent(const protocol::HttpRequest& request, bool sampling, bool slow,
                std::atomic<int>& draws) {
  const ordered_json body = ordered_json::parse(request.body);
  const bool failing = body["request_id"].get<std::string>().ends_with("!");
  ordered_json outputs = ordered_json::array();
  int position = 0;
  for (const ordered_json& input : body["inputs"]) {
    const bool fail = failing && position++ == 0;
    for (std::int64_t k = 0; k < input["num_outputs"].get<std::int64_t>(); ++k) {
      ordered_json memory = input["memory"];
      std::string said = "ok " + input["instruction"]["content"].get<std::string>();
      if (sampling) {
        said += " #" + std::to_string(draws++);
      }
      memory["h"].push_back(said);
      outputs.push_back(magmaOutput(body, input, k, memory, fail, said));
    }
  }
  FakeReply reply = FakeReply::http(200, outputs.dump());
  if (slow) {
    // Drawn from the request id: the same seed, the same delays.
    const auto id = std::hash<std::string>{}(body["request_id"].get<std::string>());
    reply.delay = std::chrono::milliseconds(id % 41);
  }
  return reply;
}

class ThreadingPropertyTest : public ProxyTest {
 protected:
  void SetUp() override {
    agent_ = std::make_unique<FakeUpstream>([this](const protocol::HttpRequest& request) {
      return agent(request, sampling_.load(), slow_.load(), draws_);
    });
    startProxy(agent_->url(),
               [](proxy::RecordingProxyConfig& config) { config.server.threads = 4; });
  }

  /// Runs every caller of `s` at once; the truth of every step sent, by (request id, position).
  std::map<std::pair<std::string, int>, TruthStep> run(const Scenario& s) {
    sampling_ = s.sampling;
    slow_ = s.slow_agent;
    std::map<std::pair<std::string, int>, TruthStep> truth;
    std::mutex truth_mutex;
    std::vector<std::thread> callers;
    for (int c = 0; c < s.callers; ++c) {
      callers.emplace_back([&, c] {
        for (auto& [key, step] : runCaller(s, c)) {
          std::lock_guard lock(truth_mutex);
          truth.emplace(key, std::move(step));
        }
      });
    }
    for (std::thread& t : callers) {
      t.join();
    }
    return truth;
  }

  std::map<std::pair<std::string, int>, TruthStep> runCaller(const Scenario& s, int caller) {
    struct Branch {
      int episode = 0;
      int slot = 0;  ///< numbers the branch's input id, as BENCH numbers its slots
      int step = 0;
      ordered_json memory;
      std::optional<CandidateKey> parent;
    };

    std::mt19937 random(s.seed * 7919u + static_cast<std::uint32_t>(caller));
    std::map<std::pair<std::string, int>, TruthStep> truth;
    std::vector<Branch> waiting;
    // Input ids are unique within a request: a branch carries its episode's slot on, and each
    // further candidate carried on opens a slot of its own.
    std::vector<int> next_slot(static_cast<std::size_t>(s.episodes), 1);
    for (int e = 0; e < s.episodes; ++e) {
      waiting.push_back({e, 0, 0, {{"h", ordered_json::array()}, {"seed", s.seed}}, {}});
    }
    std::optional<net::HttpClient> connection;
    int requests = 0;
    while (!waiting.empty()) {
      const std::size_t n = std::min<std::size_t>(waiting.size(), s.batch);
      std::vector<Branch> sent(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(n));
      waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(n));
      const bool fails = s.failures && random() % 4 == 0;
      const std::string request_id = "s" + std::to_string(s.seed) + "-c" + std::to_string(caller) +
                                     "-r" + std::to_string(requests++) + (fails ? "!" : "");
      ordered_json inputs = ordered_json::array();
      for (std::size_t i = 0; i < sent.size(); ++i) {
        const Branch& b = sent[i];
        const std::string content =
            "episode " + std::to_string(b.episode) +
            (s.same_episodes ? "" : " of caller " + std::to_string(caller)) + " step " +
            std::to_string(b.step);
        const std::string type = b.step % 2 == 0 ? "user" : "env";
        const int id = (s.equal_ids ? 0 : caller * 10'000) + b.episode * 100 + b.slot;
        inputs.push_back({{"id", id},
                          {"instruction", {{"type", type}, {"content", content}}},
                          {"memory", b.memory},
                          {"num_outputs", s.outputs[b.episode][b.step]}});
        truth[{request_id, static_cast<int>(i)}] = {type + ": " + content, b.parent, caller};
      }
      if (!connection || s.connection_per_request) {
        connection.emplace("127.0.0.1", proxyPort());
      }
      const auto reply = connection->postJson(
          "/v1/responses",
          protocol::pythonJsonDumps(ordered_json{{"request_id", request_id}, {"inputs", inputs}},
                                    protocol::kPythonDefaultStyle));
      const ordered_json outputs = ordered_json::parse(reply.body);
      std::size_t at = 0;
      for (std::size_t i = 0; i < sent.size(); ++i) {
        const Branch& b = sent[i];
        const int count = s.outputs[b.episode][b.step];
        std::vector<int> carried;
        if (outputs[at]["status"] == "error") {
          // Asked again later from the same state: a sibling of the failed step.
          waiting.push_back(b);
          at += static_cast<std::size_t>(count);
          continue;
        }
        switch (s.policyOf(caller)) {
          case Policy::First:
            carried = {0};
            break;
          case Policy::Random:
            carried = {static_cast<int>(random() % static_cast<unsigned>(count))};
            break;
          case Policy::All:
            for (int k = 0; k < count; ++k) {
              carried.push_back(k);
            }
            break;
        }
        if (b.step + 1 < s.steps[b.episode]) {
          for (const int k : carried) {
            const int slot = k == carried.front() ? b.slot : next_slot[b.episode]++;
            waiting.push_back({b.episode, slot, b.step + 1, outputs[at + k]["memory"],
                               CandidateKey{request_id, static_cast<int>(i), k}});
          }
        }
        at += static_cast<std::size_t>(count);
      }
    }
    return truth;
  }

  std::unique_ptr<FakeUpstream> agent_;
  std::atomic<bool> sampling_{false};
  std::atomic<bool> slow_{false};
  std::atomic<int> draws_{0};
};

/// A step as the archive holds it.
struct ArchivedStep {
  std::int64_t id = 0;
  std::string label;
  std::optional<CandidateKey> parent;
  std::optional<std::int64_t> parent_step;
  std::int64_t ambiguity = 0;
  std::uint64_t memory_hash = 0;
  std::int64_t source_id = 0;
  std::string client;
  std::int64_t started_ns = 0;
};

/// A candidate as the archive holds it, with what threading may weigh.
struct ArchivedCandidate {
  CandidateKey key;
  std::uint64_t memory_hash = 0;
  std::int64_t source_id = 0;
  std::string client;
  std::int64_t answered_ns = 0;
  bool error = false;
};

/// Every step and candidate of the session, keyed as the callers key them.
struct Archived {
  std::map<std::pair<std::string, int>, ArchivedStep> steps;
  std::map<CandidateKey, ArchivedCandidate> candidates;
  std::multimap<std::uint64_t, CandidateKey> by_memory;  ///< the candidates that returned it
};

Archived readArchive(const store::ArchiveReader& reader, std::int64_t session) {
  Archived out;
  std::map<std::int64_t, std::pair<std::string, int>> step_keys;  // step id -> key
  std::map<std::int64_t, CandidateKey> candidate_keys;            // candidate id -> key
  for (const store::ExchangeRow& row : reader.exchanges(session, 0, 1'000'000)) {
    const store::ExchangeRow ex = *reader.exchange(row.id);
    const std::string request_id = ordered_json::parse(ex.request_body)["request_id"];
    const std::int64_t answered =
        ex.upstream_first_byte_ns.value_or(ex.ended_ns.value_or(ex.started_ns));
    for (const store::StepRow& step : reader.stepsOfExchange(ex.id)) {
      const std::pair key{request_id, static_cast<int>(step.position)};
      step_keys[step.id] = key;
      out.steps[key] = {step.id,
                        step.instruction_type + ": " + step.instruction_content,
                        std::nullopt,
                        step.parent_step_id,
                        step.parent_ambiguity,
                        step.memory_hash,
                        step.source_id,
                        ex.client_address,
                        ex.started_ns};
      for (const store::CandidateRow& c : reader.candidates(step.id)) {
        const CandidateKey candidate{request_id, static_cast<int>(step.position),
                                     static_cast<int>(c.candidate_index)};
        candidate_keys[c.id] = candidate;
        out.candidates[candidate] = {candidate,         c.memory_hash, step.source_id,
                                     ex.client_address, answered,      c.status == "error"};
        out.by_memory.emplace(c.memory_hash, candidate);
      }
    }
  }
  for (const store::ExchangeRow& row : reader.exchanges(session, 0, 1'000'000)) {
    for (const store::StepRow& step : reader.stepsOfExchange(row.id)) {
      if (step.parent_candidate_id) {
        out.steps[step_keys[step.id]].parent = candidate_keys.at(*step.parent_candidate_id);
      }
    }
  }
  return out;
}

/// The forest as a sorted list of its trees, each written with its children sorted: equal
/// lists, equal forests of labelled trees.
template <class ParentOf>
std::vector<std::string> forest(const std::map<std::pair<std::string, int>, std::string>& labels,
                                const ParentOf& parent_of) {
  std::map<std::pair<std::string, int>, std::vector<std::pair<std::string, int>>> children;
  std::vector<std::pair<std::string, int>> roots;
  for (const auto& [key, label] : labels) {
    if (const auto parent = parent_of(key)) {
      children[*parent].push_back(key);
    } else {
      roots.push_back(key);
    }
  }
  std::function<std::string(const std::pair<std::string, int>&)> write = [&](const auto& key) {
    std::vector<std::string> below;
    for (const auto& child : children[key]) {
      below.push_back(write(child));
    }
    std::sort(below.begin(), below.end());
    std::string out = labels.at(key) + "(";
    for (const std::string& b : below) {
      out += b + ",";
    }
    return out + ")";
  };
  std::vector<std::string> trees;
  for (const auto& root : roots) {
    trees.push_back(write(root));
  }
  std::sort(trees.begin(), trees.end());
  return trees;
}

TEST_F(ThreadingPropertyTest, ArchivedLinksAgreeWithWhatEveryCallerDid) {
  const auto first =
      static_cast<std::uint32_t>(envNumber("AGENTVCR_THREADING_SEED", std::random_device{}()));
  const auto seeds = static_cast<std::uint32_t>(envNumber("AGENTVCR_THREADING_SEEDS", 200));
  std::cout << "threading property: seeds " << first << ".." << first + seeds - 1
            << " (replay one with AGENTVCR_THREADING_SEED=N AGENTVCR_THREADING_SEEDS=1)"
            << std::endl;
  std::vector<std::pair<Scenario, std::map<std::pair<std::string, int>, TruthStep>>> runs;
  for (std::uint32_t seed = first; seed != first + seeds; ++seed) {
    const Scenario s = draw(seed);
    runs.emplace_back(s, run(s));
  }
  const Archived archived = readArchive(archive(), proxy_->sessionId());

  std::size_t guessed = 0, links = 0;
  /// Seeds whose forest is not asserted, and how many of them differ from the truth's.
  std::size_t undecidable = 0, undecidable_unlike = 0;
  for (const auto& [s, truth] : runs) {
    SCOPED_TRACE(s.describe());
    std::map<std::pair<std::string, int>, std::string> labels;
    bool seed_ok = true;
    for (const auto& [key, t] : truth) {
      labels[key] = t.label;
      const auto found = archived.steps.find(key);
      if (found == archived.steps.end()) {
        ADD_FAILURE() << "step " << key.first << "/" << key.second << " not in the archive";
        seed_ok = false;
        continue;
      }
      const ArchivedStep& a = found->second;
      if (!t.parent) {
        continue;
      }
      ++links;
      // (a) A link is consistent: the parent returned the step's memory, before it was asked.
      const ArchivedCandidate* parent =
          a.parent ? &archived.candidates.at(*a.parent) : static_cast<ArchivedCandidate*>(nullptr);
      if (!parent || parent->memory_hash != a.memory_hash || parent->answered_ns > a.started_ns) {
        ADD_FAILURE() << "step " << key.first << "/" << key.second << " has no consistent parent";
        seed_ok = false;
        continue;
      }
      if (*a.parent == *t.parent) {
        continue;
      }
      ++guessed;
      // A wrong link is only ever a guess among several candidates that fit.
      if (a.ambiguity <= 1) {
        ADD_FAILURE() << "step " << key.first << "/" << key.second
                      << " linked to a sole match that is not its parent";
        seed_ok = false;
      }
      // (b) Where one candidate alone fits by memory, time, input id and connection, it is the
      // parent.
      int fitting = 0;
      const auto [from, to] = archived.by_memory.equal_range(a.memory_hash);
      for (auto it = from; it != to; ++it) {
        const ArchivedCandidate& c = archived.candidates.at(it->second);
        fitting += !c.error && c.answered_ns <= a.started_ns && c.source_id == a.source_id &&
                   c.client == a.client;
      }
      if (fitting == 1) {
        ADD_FAILURE() << "step " << key.first << "/" << key.second
                      << " missed the one candidate that fits";
        seed_ok = false;
      }
    }
    // (c) The same trees, each step labelled by its input without its id.
    if (seed_ok) {
      const auto truth_parent = [&](const std::pair<std::string, int>& key) {
        const auto& p = truth.at(key).parent;
        return p ? std::optional(std::pair{p->request_id, p->position}) : std::nullopt;
      };
      const auto archived_parent = [&](const std::pair<std::string, int>& key) {
        const auto& p = archived.steps.at(key).parent;
        return p ? std::optional(std::pair{p->request_id, p->position}) : std::nullopt;
      };
      const bool alike = forest(labels, archived_parent) == forest(labels, truth_parent);
      if (!s.forestDecidable()) {
        ++undecidable;
        undecidable_unlike += alike ? 0 : 1;
      } else {
        EXPECT_TRUE(alike) << "the archive's conversations are not the runs'";
      }
    }
  }
  std::cout << "threading property: " << seeds << " seeds, " << links << " links, " << guessed
            << " guessed among identical candidates ("
            << (links == 0 ? 0.0 : 100.0 * static_cast<double>(guessed) / links)
            << "%); conversations differ from the runs' on " << undecidable_unlike << " of "
            << undecidable << " seeds the bytes cannot decide" << std::endl;
}

}  // namespace
}  // namespace agentvcr::testing
