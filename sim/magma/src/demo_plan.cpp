#include "agentvcr/sim/magma/demo_plan.hpp"

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/sim/magma/sim_environment.hpp"

namespace agentvcr::sim::magma {

namespace {

using Ordered = nlohmann::ordered_json;

bool readInt(const Ordered& object, const char* key, std::int64_t minimum, std::int64_t& out,
             std::string& error) {
  const auto it = object.find(key);
  if (it == object.end()) {
    return true;
  }
  if (!it->is_number_integer() || it->get<std::int64_t>() < minimum) {
    error = std::string("/") + key + ": expected an integer >= " + std::to_string(minimum);
    return false;
  }
  out = it->get<std::int64_t>();
  return true;
}

bool readExpectation(const Ordered& value, const std::string& where, ExpectedOutcome& expected,
                     std::string& error) {
  if (!value.is_object()) {
    error = where + ": expected an object";
    return false;
  }
  for (const auto& [key, item] : value.items()) {
    if (key == "outcome" && (item == "done" || item == "failed")) {
      expected.done = item == "done";
    } else if (key == "say" && item.is_string()) {
      expected.say = item.get<std::string>();
    } else if (key == "reason_contains" && item.is_string()) {
      expected.reason_contains = item.get<std::string>();
    } else {
      error = where + "/" + key + ": unknown key or bad value";
      return false;
    }
  }
  return true;
}

bool readWorld(const std::string& name, const Ordered& value, WorldSpec& world,
               std::string& error) {
  const std::string where = "/worlds/" + name;
  world.name = name;
  if (!value.is_object()) {
    error = where + ": expected an object";
    return false;
  }
  for (const auto& [key, item] : value.items()) {
    if (key == "tools" && item.is_array()) {
      world.tools = item;
    } else if (key == "attributes" && item.is_object()) {
      world.attributes = item;
    } else if (key == "sim" && item.is_object()) {
      world.sim = item;
    } else {
      error = where + "/" + key + ": unknown key or bad value";
      return false;
    }
  }
  SimEnvironment::Load env = SimEnvironment::fromJson(world.sim, world.attributes);
  if (!env.env) {
    error = where + ": " + env.error;
    return false;
  }
  return true;
}

bool readEpisode(const DemoPlan& plan, const Ordered& value, const std::string& where,
                 const Ordered& default_extra_keys, EpisodeSpec& episode, std::string& error) {
  if (!value.is_object()) {
    error = where + ": expected an object";
    return false;
  }
  episode.extra_keys = default_extra_keys;
  bool has_world = false;
  for (const auto& [key, item] : value.items()) {
    const std::string at = where + "/" + key;
    if (key == "name" && item.is_string()) {
      episode.name = item.get<std::string>();
    } else if (key == "world" && item.is_string()) {
      for (std::size_t i = 0; i < plan.worlds.size(); ++i) {
        if (plan.worlds[i].name == item) {
          episode.world = i;
          has_world = true;
        }
      }
      if (!has_world) {
        error = at + ": no such world";
        return false;
      }
    } else if (key == "caller" && (item == "bench" || item == "gen")) {
      episode.caller = item == "gen" ? Caller::Gen : Caller::Bench;
    } else if (key == "stages" && item.is_array() && !item.empty()) {
      for (const Ordered& stage : item) {
        if (!stage.is_string()) {
          error = at + ": expected a list of strings";
          return false;
        }
        episode.stages.push_back(stage.get<std::string>());
      }
    } else if (key == "memory" && item.is_object()) {
      episode.memory = item;
    } else if (key == "num_outputs" && item.is_number_integer() && item.get<std::int64_t>() > 0) {
      episode.num_outputs = item.get<std::int64_t>();
    } else if (key == "extra_keys" && item.is_object()) {
      episode.extra_keys = item;
    } else if (key == "expect" && (item.is_object() || item.is_array())) {
      const Ordered list = item.is_array() ? item : Ordered::array({item});
      for (std::size_t i = 0; i < list.size(); ++i) {
        ExpectedOutcome expected;
        if (!readExpectation(list[i], at + "/" + std::to_string(i), expected, error)) {
          return false;
        }
        episode.expect.push_back(std::move(expected));
      }
    } else {
      error = at + ": unknown key or bad value";
      return false;
    }
  }
  if (episode.name.empty() || !has_world || episode.stages.empty()) {
    error = where + ": name, world and a non-empty stages list are required";
    return false;
  }
  if (episode.caller == Caller::Bench && episode.num_outputs != 1) {
    error = where + "/num_outputs: BENCH always asks for one candidate";
    return false;
  }
  return true;
}

}  // namespace

PlanLoad loadDemoPlan(const Ordered& document) {
  PlanLoad load;
  DemoPlan plan;
  if (!document.is_object()) {
    load.error = "/: expected an object";
    return load;
  }
  for (const auto& [key, item] : document.items()) {
    if (key != "seed" && key != "nb_env" && key != "max_steps_per_stage" && key != "gen_first_id" &&
        key != "extra_keys" && key != "worlds" && key != "episodes") {
      load.error = "/" + key + ": unknown key";
      return load;
    }
  }
  if (const auto seed = document.find("seed"); seed != document.end()) {
    if (!seed->is_number_unsigned()) {
      load.error = "/seed: expected a non-negative integer";
      return load;
    }
    plan.seed = seed->get<std::uint64_t>();
  }
  if (!readInt(document, "nb_env", 1, plan.nb_env, load.error) ||
      !readInt(document, "max_steps_per_stage", 1, plan.max_steps_per_stage, load.error) ||
      !readInt(document, "gen_first_id", 0, plan.gen_first_id, load.error)) {
    return load;
  }
  if (plan.gen_first_id < plan.nb_env) {
    load.error = "/gen_first_id: GEN situation ids must not collide with BENCH slots";
    return load;
  }
  Ordered extra_keys = {{"inference_mode", true}};
  if (const auto it = document.find("extra_keys"); it != document.end()) {
    if (!it->is_object()) {
      load.error = "/extra_keys: expected an object";
      return load;
    }
    extra_keys = *it;
  }
  const auto worlds = document.find("worlds");
  if (worlds == document.end() || !worlds->is_object() || worlds->empty()) {
    load.error = "/worlds: expected a non-empty object";
    return load;
  }
  for (const auto& [name, value] : worlds->items()) {
    WorldSpec world;
    if (!readWorld(name, value, world, load.error)) {
      return load;
    }
    plan.worlds.push_back(std::move(world));
  }
  const auto episodes = document.find("episodes");
  if (episodes == document.end() || !episodes->is_array() || episodes->empty()) {
    load.error = "/episodes: expected a non-empty list";
    return load;
  }
  for (std::size_t i = 0; i < episodes->size(); ++i) {
    EpisodeSpec episode;
    if (!readEpisode(plan, (*episodes)[i], "/episodes/" + std::to_string(i), extra_keys, episode,
                     load.error)) {
      return load;
    }
    plan.episodes.push_back(std::move(episode));
  }
  load.plan = std::move(plan);
  return load;
}

PlanLoad loadDemoPlanText(std::string_view text) {
  PlanLoad load;
  // The strict parser reports where the text is wrong; the ordered parse keeps key order.
  const protocol::JsonParseResult strict = protocol::parseJson(text);
  if (!strict.value) {
    load.error =
        "invalid JSON at byte " + std::to_string(strict.error.offset) + ": " + strict.error.message;
    return load;
  }
  const Ordered document = Ordered::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    load.error = "invalid JSON";
    return load;
  }
  return loadDemoPlan(document);
}

}  // namespace agentvcr::sim::magma
