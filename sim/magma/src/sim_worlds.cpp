// The tool semantics of the two demo worlds (SimEnvironment::applyPress / applySorting).

#include <algorithm>

#include "agentvcr/sim/magma/sim_environment.hpp"

namespace agentvcr::sim::magma {

namespace {

std::optional<std::string> stringArgument(const protocol::magma::ToolCall& call,
                                          const std::string& name) {
  const auto it = call.arguments.find(name);
  if (it == call.arguments.end() || !it->is_string()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::string argumentError(const std::string& tool, const std::string& name) {
  return "Invalid arguments for " + tool + ": " + name + " must be a str.";
}

/// "right_zone" -> "right", as the sorting scenario words its state report.
std::string areaLabel(const std::string& area) {
  const std::string suffix = "_zone";
  if (area.size() > suffix.size() &&
      area.compare(area.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return area.substr(0, area.size() - suffix.size());
  }
  return area;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

SimEnvironment::CallResult SimEnvironment::applyPress(PressButtonWorld& world,
                                                      const protocol::magma::ToolCall& call) {
  if (call.name != world.tool) {
    return {false, call.name + " is not a known tool."};
  }
  const auto id = stringArgument(call, world.param);
  if (!id) {
    return {false, argumentError(call.name, world.param)};
  }
  if (std::find(world.buttons.begin(), world.buttons.end(), *id) == world.buttons.end()) {
    return {false, noObjectMessage(*id)};
  }
  world.pressed.insert(*id);
  return {true, "You have the " + *id + " button pressed."};
}

SimEnvironment::CallResult SimEnvironment::applySorting(SortingWorld& world,
                                                        const protocol::magma::ToolCall& call) {
  const std::string& robot = call.target_robot_name;
  if (call.name == world.inspect_tool) {
    std::vector<std::string> areas;
    std::map<std::string, std::vector<std::string>> by_area;
    std::vector<std::string> damaged;
    for (const SortingObject& object : world.objects) {
      if (by_area.count(object.area) == 0) {
        areas.push_back(object.area);
      }
      by_area[object.area].push_back(object.name);
      if (object.damaged) {
        damaged.push_back(object.name);
      }
    }
    std::string message = "This is the position of existing objects: ";
    for (const std::string& area : areas) {
      message += joinNames(by_area[area]) + " are in the " + areaLabel(area) + " area. ";
    }
    message +=
        "Damaged objects: " + (damaged.empty() ? std::string("none") : joinNames(damaged)) + ". ";
    return {true, message};
  }
  if (call.name != world.move_tool) {
    return {false, call.name + " is not a known tool."};
  }
  const auto name = stringArgument(call, "object");
  if (!name) {
    return {false, argumentError(call.name, "object")};
  }
  const auto target = stringArgument(call, "target_area");
  if (!target) {
    return {false, argumentError(call.name, "target_area")};
  }
  const auto object = std::find_if(world.objects.begin(), world.objects.end(),
                                   [&](const SortingObject& item) { return item.name == *name; });
  if (object == world.objects.end()) {
    return {false, noObjectMessage(*name)};
  }
  const std::set<std::string>& reach = world.reach[robot];
  for (const std::string& area : {object->area, *target}) {
    if (reach.count(area) == 0) {
      return {false, "The area " + area + " is out of range for robot " + robot + "."};
    }
  }
  object->area = *target;
  return {true, "Successfully depose " + *name + " to " + *target};
}

}  // namespace agentvcr::sim::magma
