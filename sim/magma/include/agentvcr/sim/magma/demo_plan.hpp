#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

/// The plan of `agentvcr demo`: BENCH-like episodes and GEN-like trees against one agent.
/// The fixture format (fixtures/demo/episodes.json, documented in fixtures/demo/README.md):
///
///     {"seed": 7, "nb_env": 2, "max_steps_per_stage": 6, "gen_first_id": 41,
///      "extra_keys": {"inference_mode": true},
///      "worlds": {"NAME": {"tools": [...], "attributes": {...}, "sim": {...}}},
///      "episodes": [{"name": "...", "world": "NAME", "caller": "bench"|"gen",
///                    "stages": ["user instruction", ...], "memory": {"history": []},
///                    "num_outputs": 1, "extra_keys": {...},
///                    "expect": [{"outcome": "done"|"failed", "say": "...",
///                                "reason_contains": "..."}]}]}
///
/// Key order inside tools, attributes, memory and extra_keys is kept as written: it is the
/// order in which requests send them.
namespace agentvcr::sim::magma {

/// The tools, attributes and simulated environment shared by the episodes of one world.
struct WorldSpec {
  std::string name;
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();
  nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
  nlohmann::ordered_json sim = nlohmann::ordered_json::object();  ///< see SimEnvironment
};

/// What a test or the demo expects of one branch (or of the episode when it does not fork).
struct ExpectedOutcome {
  bool done = true;  ///< "done" or "failed"
  std::optional<std::string> say;
  std::optional<std::string> reason_contains;
};

enum class Caller { Bench, Gen };

struct EpisodeSpec {
  std::string name;
  std::size_t world = 0;  ///< index into DemoPlan::worlds
  Caller caller = Caller::Bench;
  std::vector<std::string> stages;  ///< one user instruction per stage, never empty
  nlohmann::ordered_json memory = {{"history", nlohmann::ordered_json::array()}};
  /// Candidates asked for the episode's first input (GEN only; later inputs ask for 1).
  std::int64_t num_outputs = 1;
  nlohmann::ordered_json extra_keys = nlohmann::ordered_json::object();
  std::vector<ExpectedOutcome> expect;  ///< one per branch, in branch order; may be empty
};

struct DemoPlan {
  std::uint64_t seed = 1;
  std::int64_t nb_env = 1;               ///< BENCH slots: input ids 0..nb_env-1, reused
  std::int64_t max_steps_per_stage = 8;  ///< agent answers per stage before it fails
  std::int64_t gen_first_id = 100;       ///< first GEN situation id
  std::vector<WorldSpec> worlds;
  std::vector<EpisodeSpec> episodes;
};

/// A loaded plan, or why the document is not one.
struct PlanLoad {
  std::optional<DemoPlan> plan;
  std::string error;
};

/// Loads and checks a plan (worlds exist and their sims load, stages are non-empty, only GEN
/// episodes ask for several candidates). Never throws.
PlanLoad loadDemoPlan(const nlohmann::ordered_json& document);

/// Parses text (strict JSON, key order kept) and loads it.
PlanLoad loadDemoPlanText(std::string_view text);

}  // namespace agentvcr::sim::magma
