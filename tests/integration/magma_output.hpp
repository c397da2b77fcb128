#pragma once

// The MAGMA output a scripted agent answers for one candidate (docs: MAGMA contract §13).

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace agentvcr::testing {

/// Candidate `k` of `input` of `request`: completed, saying `say` and returning `memory`, or an
/// error candidate (`error`), which returns the input's memory unchanged.
inline nlohmann::ordered_json magmaOutput(const nlohmann::ordered_json& request,
                                          const nlohmann::ordered_json& input, std::int64_t k,
                                          const nlohmann::ordered_json& memory, bool error,
                                          const std::string& say) {
  nlohmann::ordered_json out = {{"request_id", request["request_id"]},
                                {"source_id", input["id"]},
                                {"candidate_index", k},
                                {"status", error ? "error" : "completed"},
                                {"memory", error ? input["memory"] : memory},
                                {"internal_steps", nlohmann::ordered_json::array()},
                                {"output", nullptr},
                                {"error", nullptr}};
  if (error) {
    out["error"] = {{"code", "invalid_output"},
                    {"message", "Model parser rejected its raw response"},
                    {"component", "commander"}};
  } else {
    out["output"] = {{"say", say}, {"tool_calls", nlohmann::ordered_json::array()}};
  }
  return out;
}

}  // namespace agentvcr::testing
