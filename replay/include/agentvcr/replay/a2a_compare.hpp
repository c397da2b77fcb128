#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/rows.hpp"

/// How an evaluation judges an A2A agent's live answer to a recorded call against the recorded
/// answer (docs/eval.md, A2A): what the two say, ids and timestamps aside.
namespace agentvcr::replay {

/// What an A2A answer says, as the archive decodes it (protocol::a2a::Call).
struct A2aReply {
  std::string kind;   ///< result kind: "task", "message", "" when the answer had no result
  std::string state;  ///< the task's state in v0.3 names (a2a::normalTaskState); "" for none
  std::string text;   ///< the text parts of the answer: the artifacts', else the message's
  std::optional<std::int64_t> error_code;  ///< a JSON-RPC error
  std::string error_message;
};

/// The reply of a call decoded from a live exchange.
A2aReply a2aReplyOf(const protocol::a2a::Call& call);
/// The reply of a recorded call.
A2aReply a2aReplyOf(const store::A2aCallRow& call);

/// {"kind","state","text","error_code"}: what a report and another agent's answer compare.
protocol::Json toJson(const A2aReply& reply);
A2aReply a2aReplyFromJson(const protocol::Json& json);

/// One live answer against the recorded one.
struct A2aReplyComparison {
  /// "kind \"task\" vs \"message\"", "state \"completed\" vs \"failed\"", "text \"a\" vs \"b\"",
  /// each side shortened to one line of 40 characters as a MAGMA step's differences are.
  std::vector<std::string> differences;
  /// The live answer broke the contract: "JSON-RPC error -32603: Internal error", "no
  /// JSON-RPC result" (an unparsable answer). The recorded answer is not held to it.
  std::vector<std::string> violations;
  /// The texts matched only once normalised (replay::normaliseSay).
  bool text_normalised = false;

  bool match() const { return differences.empty() && violations.empty(); }
};

/// Compares the kind, the task state and the text (equal, or equal once normalised as eval
/// compares a say) of `live` with `recorded`. A live JSON-RPC error, or a live answer with no
/// result kind, is a violation.
A2aReplyComparison compareA2aReplies(const A2aReply& recorded, const A2aReply& live);

/// Whether two agents' live answers (toJson) say the same: compareA2aReplies finds no
/// difference and neither broke the contract. What pairwiseAgreement() compares A2A answers by.
bool sameA2aReplies(const protocol::Json& first, const protocol::Json& second);

}  // namespace agentvcr::replay
