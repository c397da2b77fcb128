#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::sim::magma::testing {

inline std::string readFixture(const std::string& relative) {
  std::ifstream in(std::string(AGENTVCR_FIXTURES_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline protocol::Json parse(std::string_view text) {
  protocol::JsonParseResult result = protocol::parseJson(text);
  EXPECT_TRUE(result.value.has_value()) << result.error.message << " in " << text;
  return result.value ? *result.value : protocol::Json();
}

/// The press_button world of magma-protocol.md §12.1/§12.3.
inline protocol::Json pressButtonTools() {
  return parse(
      R"([{"name":"cancel_current_action","description":"Cancel the current action running on the targeted robot.","arguments":{}},
    {"name":"press_button","description":"Press a button.","arguments":{"id":{"description":"Name of the button to press.","type":"str"}}}])");
}

inline protocol::Json pressButtonAttributes() {
  return parse(
      R"({"objects":["sw0","sw1","sw2","sw3","sw4"],"known_robots":["panda"],"robot_statuses":{"panda":"FREE"}})");
}

inline protocol::magma::AgentInput makeInput(
    std::int64_t id, protocol::magma::InstructionType type, std::string content,
    protocol::Json memory = {{"history", protocol::Json::array()}}, std::int64_t num_outputs = 1) {
  protocol::magma::AgentInput input;
  input.id = id;
  input.instruction = {type, std::move(content)};
  input.tools = pressButtonTools();
  input.attributes = pressButtonAttributes();
  input.memory = std::move(memory);
  input.num_outputs = num_outputs;
  input.extra_keys = {{"inference_mode", true}};
  return input;
}

inline protocol::magma::AgentInput userInput(std::string content) {
  return makeInput(0, protocol::magma::InstructionType::User, std::move(content));
}

inline protocol::magma::AgentInput envInput(std::string content) {
  return makeInput(0, protocol::magma::InstructionType::Env, std::move(content));
}

}  // namespace agentvcr::sim::magma::testing
