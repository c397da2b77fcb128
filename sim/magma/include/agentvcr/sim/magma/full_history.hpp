#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/magma.hpp"

/// The memory conventions of the reference full-history agent (magma-protocol.md §13).
namespace agentvcr::sim::magma {

/// `{"say": ..., "action": ...}` as full-history records a model turn: `action` is
/// `{robot: {"name", "arguments"}}`, or a list of one-robot objects in call order when a robot
/// is called twice, or `{}` for a say.
nlohmann::ordered_json modelTurn(const protocol::magma::AgentDecision& decision);

/// `json.dumps(modelTurn(decision), ensure_ascii=False)`: the MODEL entry's content.
std::string modelTurnText(const protocol::magma::AgentDecision& decision);

/// The memory a valid candidate returns: a copy of `memory` (every key kept) whose `history`
/// gains `{"author": "USER"|"SYSTEM", "content": instruction}` and
/// `{"author": "MODEL", "content": model_text}`. A missing `history` starts empty.
protocol::Json appendTurn(const protocol::Json& memory,
                          const protocol::magma::Instruction& instruction,
                          const std::string& model_text);

/// The chat messages the prompt is made of: `memory_list` rules as system messages, the
/// history (USER -> user, SYSTEM -> env, MODEL -> assistant), then the new instruction.
protocol::Json promptMessages(const protocol::Json& memory,
                              const protocol::magma::Instruction& instruction);

/// The rendered prompt: one "role: content" line per message, then "assistant:" (the shape
/// of the docs' example "user: Say hello.\nassistant:").
std::string renderPrompt(const protocol::Json& messages);

/// The full-history server's own 422 checks of input `index`: `memory.history` must be a list
/// of objects, `memory.memory_list` a list of strings, `memory.summary` a string and
/// `extra_keys.inference_mode` a boolean when present. Returns the `detail` text on failure.
std::optional<std::string> checkMemoryShape(const protocol::magma::AgentInput& input,
                                            std::size_t index);

}  // namespace agentvcr::sim::magma
