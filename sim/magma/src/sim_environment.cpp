#include "agentvcr/sim/magma/sim_environment.hpp"

#include <algorithm>
#include <utility>

namespace agentvcr::sim::magma {

namespace {

using Ordered = nlohmann::ordered_json;

constexpr const char* kCancelTool = "cancel_current_action";

bool readStrings(const Ordered& value, std::vector<std::string>& out) {
  if (!value.is_array()) {
    return false;
  }
  for (const Ordered& item : value) {
    if (!item.is_string()) {
      return false;
    }
    out.push_back(item.get<std::string>());
  }
  return true;
}

bool readString(const Ordered& object, const char* key, std::string& out) {
  const auto it = object.find(key);
  if (it == object.end()) {
    return true;
  }
  if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
    return false;
  }
  out = it->get<std::string>();
  return true;
}

std::optional<SortingWorld> readSorting(const Ordered& sim, std::string& error) {
  SortingWorld world;
  if (!readString(sim, "inspect_tool", world.inspect_tool) ||
      !readString(sim, "move_tool", world.move_tool)) {
    error = "sim: tool names must be non-empty strings";
    return std::nullopt;
  }
  const auto objects = sim.find("objects");
  if (objects == sim.end() || !objects->is_array()) {
    error = "sim.objects: expected a list of {name, area, damaged}";
    return std::nullopt;
  }
  for (const Ordered& item : *objects) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string() ||
        !item.contains("area") || !item["area"].is_string() ||
        !item.value("damaged", Ordered(false)).is_boolean()) {
      error = "sim.objects: expected a list of {name, area, damaged}";
      return std::nullopt;
    }
    world.objects.push_back({item["name"].get<std::string>(), item["area"].get<std::string>(),
                             item.value("damaged", false)});
  }
  const auto reach = sim.find("reach");
  if (reach == sim.end() || !reach->is_object()) {
    error = "sim.reach: expected {robot: [area, ...]}";
    return std::nullopt;
  }
  for (const auto& [robot, areas] : reach->items()) {
    std::vector<std::string> list;
    if (!readStrings(areas, list)) {
      error = "sim.reach." + robot + ": expected a list of areas";
      return std::nullopt;
    }
    world.reach[robot] = std::set<std::string>(list.begin(), list.end());
  }
  return world;
}

}  // namespace

std::string noObjectMessage(const std::string& id) {
  return "No objects corresponding to id = " + id + ". You must pass the id of the object to take.";
}

SimEnvironment::SimEnvironment(std::vector<std::string> robots,
                               std::variant<PressButtonWorld, SortingWorld> w)
    : robots_(std::move(robots)), world_(std::move(w)) {}

SimEnvironment::Load SimEnvironment::fromJson(const Ordered& sim, const Ordered& attributes) {
  Load load;
  std::vector<std::string> robots;
  if (!attributes.is_object() || !attributes.contains("known_robots") ||
      !readStrings(attributes["known_robots"], robots) || robots.empty()) {
    load.error = "attributes.known_robots: expected a non-empty list of robot names";
    return load;
  }
  if (!sim.is_object() || !sim.contains("kind") || !sim["kind"].is_string()) {
    load.error = "sim.kind: expected \"press_button\" or \"bi_robot_sorting\"";
    return load;
  }
  const std::string kind = sim["kind"].get<std::string>();
  if (kind == "press_button") {
    PressButtonWorld world;
    if (!readString(sim, "tool", world.tool) || !readString(sim, "param", world.param)) {
      load.error = "sim: tool and param must be non-empty strings";
      return load;
    }
    const Ordered none;
    const Ordered* buttons = &none;
    if (sim.contains("buttons")) {
      buttons = &sim["buttons"];
    } else if (attributes.contains("objects")) {
      buttons = &attributes["objects"];
    }
    if (!readStrings(*buttons, world.buttons)) {
      load.error = "sim.buttons: expected a list of button ids (default: attributes.objects)";
      return load;
    }
    load.env = SimEnvironment(std::move(robots), std::move(world));
    return load;
  }
  if (kind == "bi_robot_sorting") {
    auto world = readSorting(sim, load.error);
    if (world) {
      load.env = SimEnvironment(std::move(robots), std::move(*world));
    }
    return load;
  }
  load.error = "sim.kind: expected \"press_button\" or \"bi_robot_sorting\"";
  return load;
}

ExecutionReport SimEnvironment::execute(const std::vector<protocol::magma::ToolCall>& calls) {
  struct RobotState {
    RobotReport report;
    bool failed = false;
    bool cancels = false;
    bool starts = false;
  };

  std::vector<std::string> order;
  std::map<std::string, RobotState> states;
  std::map<std::string, Ordered> last_call;
  for (const auto& call : calls) {
    const std::string& robot = call.target_robot_name;
    if (states.count(robot) == 0) {
      order.push_back(robot);
      states[robot].report = {robot, call.name, false, ""};
    }
    Ordered previous = Ordered::object();
    previous["name"] = call.name;
    previous["arguments"] = Ordered(call.arguments);
    last_call[robot] = std::move(previous);

    RobotState& state = states[robot];
    if (state.failed) {
      continue;
    }
    state.report.tool = call.name;
    (call.name == kCancelTool ? state.cancels : state.starts) = true;
    CallResult result;
    if (std::find(robots_.begin(), robots_.end(), robot) == robots_.end()) {
      result = {false, robot + " is not a known robot."};
    } else if (state.cancels && state.starts) {
      result = {false, "Cannot cancel and start an action on the same robot in one answer."};
    } else {
      result = apply(call);
    }
    state.report.succeeded = result.succeeded;
    state.report.message = std::move(result.message);
    state.failed = !result.succeeded;
  }
  ExecutionReport report;
  for (const std::string& robot : order) {
    report.lines.push_back(states[robot].report);
    report.previous_tool_call[robot] = last_call[robot];
  }
  return report;
}

SimEnvironment::CallResult SimEnvironment::apply(const protocol::magma::ToolCall& call) {
  if (call.name == kCancelTool) {
    return {true, "No action is currently running on this robot."};
  }
  return std::visit(
      [&](auto& world) -> CallResult {
        using World = std::decay_t<decltype(world)>;
        if constexpr (std::is_same_v<World, PressButtonWorld>) {
          return applyPress(world, call);
        } else {
          return applySorting(world, call);
        }
      },
      world_);
}

}  // namespace agentvcr::sim::magma
