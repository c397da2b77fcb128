#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/sim/magma/env_payload.hpp"

namespace agentvcr::sim::magma {

/// The press_button world: pressing a known button succeeds, any other id is rejected before
/// execution with the §11.3 message.
struct PressButtonWorld {
  std::string tool = "press_button";
  std::string param = "id";
  std::vector<std::string> buttons;
  std::set<std::string> pressed;
};

/// One object of the bi-robot sorting world.
struct SortingObject {
  std::string name;
  std::string area;
  bool damaged = false;
};

/// The bi-robot sorting world: `get_objects_state` lists objects by area and the damaged
/// ones; `deplace(object, target_area)` moves an object when both areas are within the robot's
/// reach.
struct SortingWorld {
  std::string inspect_tool = "get_objects_state";
  std::string move_tool = "deplace";
  std::vector<SortingObject> objects;
  std::map<std::string, std::set<std::string>> reach;  ///< robot -> reachable areas
};

/// A tiny deterministic environment that executes an agent's tool calls the way BENCH's
/// executor reports them, enough for demos and tests. A value type: copying it forks the
/// world (one copy per GEN branch). Not thread-safe; one owner at a time.
///
/// Execution of one decision: calls run in order; after a robot's call fails, that robot's
/// later calls are skipped. Each robot gets one line (its last executed call, or the failed
/// one), robots in order of first appearance; previous_tool_call keeps each robot's last
/// call. `cancel_current_action` always reports that nothing is running; cancelling and
/// starting on one robot in one decision fails that robot; unknown tools and robots fail.
class SimEnvironment {
 public:
  struct Load;

  /// `sim` is the world's `sim` object: `{"kind":"press_button", "tool"?, "param"?,
  /// "buttons"?}` (buttons default to attributes.objects) or `{"kind":"bi_robot_sorting",
  /// "inspect_tool"?, "move_tool"?, "objects":[{"name","area","damaged"}],
  /// "reach":{robot:[area,...]}}`. Robots come from attributes.known_robots. Never throws.
  static Load fromJson(const nlohmann::ordered_json& sim, const nlohmann::ordered_json& attributes);

  /// Applies one decision's tool calls and reports what BENCH would deliver.
  ExecutionReport execute(const std::vector<protocol::magma::ToolCall>& calls);

  const std::variant<PressButtonWorld, SortingWorld>& world() const { return world_; }

 private:
  struct CallResult {
    bool succeeded = false;
    std::string message;
  };

  SimEnvironment(std::vector<std::string> robots, std::variant<PressButtonWorld, SortingWorld> w);

  CallResult apply(const protocol::magma::ToolCall& call);
  CallResult applyPress(PressButtonWorld& world, const protocol::magma::ToolCall& call);
  CallResult applySorting(SortingWorld& world, const protocol::magma::ToolCall& call);

  std::vector<std::string> robots_;
  std::variant<PressButtonWorld, SortingWorld> world_;
};

struct SimEnvironment::Load {
  std::optional<SimEnvironment> env;
  std::string error;
};

/// The §11.3 message for an id that names no object.
std::string noObjectMessage(const std::string& id);

}  // namespace agentvcr::sim::magma
