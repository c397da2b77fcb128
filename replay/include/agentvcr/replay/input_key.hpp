#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::replay {

/// How replay keys an input: the canonical input without `id` (magma-protocol.md §18.2), minus
/// the volatile parts a user asked to ignore (`--ignore /attributes/robot_statuses`). With no
/// ignored parts the key is exactly the one the recorder stored (magma::replayKey).
class KeyRules {
 public:
  KeyRules() = default;

  /// Throws std::invalid_argument naming the pointer when one is not an RFC 6901 pointer or
  /// addresses the whole input.
  static KeyRules ignoring(const std::vector<std::string>& pointers);

  bool ignoresNothing() const { return ignored_.empty(); }

  const std::vector<std::string>& ignoredPointers() const { return texts_; }

  /// The key of a live input.
  std::uint64_t keyOf(const protocol::magma::AgentInput& input) const;
  /// The key of a recorded input object as ArchiveReader::inputJson rebuilds it.
  std::uint64_t keyOf(const protocol::Json& input_json) const;

  /// What the key hashes: `input_json` without "id" and without the ignored parts (a pointer
  /// that addresses nothing in this input is skipped).
  protocol::Json keyedContent(protocol::Json input_json) const;

 private:
  std::vector<protocol::Json::json_pointer> ignored_;
  std::vector<std::string> texts_;
};

}  // namespace agentvcr::replay
