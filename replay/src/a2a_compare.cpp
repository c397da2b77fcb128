#include "agentvcr/replay/a2a_compare.hpp"

#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/replay/decision_compare.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

/// As wide as a MAGMA step's difference shows each side (decision_compare.cpp).
constexpr std::size_t kA2aValueChars = 40;

std::string quotedValue(const std::string& text) {
  return "\"" + protocol::oneLine(text, kA2aValueChars) + "\"";
}

A2aReply replyOfFields(const std::optional<std::string>& kind,
                       const std::optional<std::string>& state,
                       const std::optional<std::string>& text,
                       const std::optional<std::int64_t>& error_code,
                       const std::optional<std::string>& error_message) {
  A2aReply reply;
  reply.kind = kind.value_or("");
  reply.state = state ? std::string(protocol::a2a::normalTaskState(*state)) : "";
  reply.text = text.value_or("");
  reply.error_code = error_code;
  reply.error_message = error_message.value_or("");
  return reply;
}

}  // namespace

A2aReply a2aReplyOf(const protocol::a2a::Call& call) {
  return replyOfFields(call.result_kind, call.task_state, call.response_text, call.error_code,
                       call.error_message);
}

A2aReply a2aReplyOf(const store::A2aCallRow& call) {
  return replyOfFields(call.result_kind, call.task_state, call.response_text, call.error_code,
                       call.error_message);
}

Json toJson(const A2aReply& reply) {
  return Json{{"kind", reply.kind},
              {"state", reply.state},
              {"text", reply.text},
              {"error_code", reply.error_code ? Json(*reply.error_code) : Json()},
              {"error_message", reply.error_message}};
}

A2aReply a2aReplyFromJson(const Json& json) {
  A2aReply reply;
  auto text = [&](const char* key) {
    const Json& value = protocol::memberOrNull(json, key);
    return value.is_string() ? value.get<std::string>() : std::string();
  };
  reply.kind = text("kind");
  reply.state = text("state");
  reply.text = text("text");
  reply.error_message = text("error_message");
  if (const Json& code = protocol::memberOrNull(json, "error_code"); code.is_number_integer()) {
    reply.error_code = code.get<std::int64_t>();
  }
  return reply;
}

A2aReplyComparison compareA2aReplies(const A2aReply& recorded, const A2aReply& live) {
  A2aReplyComparison result;
  if (live.error_code) {
    result.violations.push_back("JSON-RPC error " + std::to_string(*live.error_code) + ": " +
                                protocol::oneLine(live.error_message, kA2aValueChars));
    return result;
  }
  if (live.kind.empty()) {
    result.violations.push_back("no JSON-RPC result");
    return result;
  }
  if (recorded.kind != live.kind) {
    result.differences.push_back("kind " + quotedValue(recorded.kind) + " vs " +
                                 quotedValue(live.kind));
  }
  if (recorded.state != live.state) {
    result.differences.push_back("state " + quotedValue(recorded.state) + " vs " +
                                 quotedValue(live.state));
  }
  if (recorded.text != live.text) {
    if (normaliseSay(recorded.text) == normaliseSay(live.text)) {
      result.text_normalised = true;
    } else {
      result.differences.push_back("text " + quotedValue(recorded.text) + " vs " +
                                   quotedValue(live.text));
    }
  }
  return result;
}

bool sameA2aReplies(const Json& first, const Json& second) {
  const A2aReply first_reply = a2aReplyFromJson(first);
  const A2aReply second_reply = a2aReplyFromJson(second);
  if (first_reply.error_code || second_reply.error_code) {
    return false;  // a broken answer agrees with nothing, as pairwiseAgreement counts it
  }
  return compareA2aReplies(first_reply, second_reply).match();
}

}  // namespace agentvcr::replay
