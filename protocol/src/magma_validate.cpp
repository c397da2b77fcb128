// Parsers of the response side: AgentResponse with the candidate-order rule, AgentHealth and
// AgentInfo (magma-core protocol/agent.py).

#include <algorithm>
#include <cstdint>
#include <limits>

#include "agentvcr/protocol/magma.hpp"
#include "magma_readers.hpp"

namespace agentvcr::protocol::magma {
namespace {

using protocol::detail::checkArray;
using protocol::detail::checkBool;
using protocol::detail::checkLiteral;
using protocol::detail::checkNullableString;
using protocol::detail::checkString;
using protocol::detail::childPath;
using protocol::detail::Findings;
using protocol::detail::ModelReader;

struct CandidateSlot {
  std::string request_id;
  std::int64_t source_id = 0;
  std::int64_t candidate_index = 0;

  bool operator==(const CandidateSlot&) const = default;
};

std::string describe(const CandidateSlot& slot) {
  return "(request_id=" + dumpCompact(Json(slot.request_id)) +
         ", source_id=" + std::to_string(slot.source_id) +
         ", candidate_index=" + std::to_string(slot.candidate_index) + ")";
}

Json slotJson(const CandidateSlot& slot) {
  return Json{{"request_id", slot.request_id},
              {"source_id", slot.source_id},
              {"candidate_index", slot.candidate_index}};
}

/// The (request_id, source_id, candidate_index) of a raw output, when all three are readable.
std::optional<CandidateSlot> slotOf(const Json& item) {
  if (!item.is_object()) {
    return std::nullopt;
  }
  auto request_id = item.find("request_id");
  auto source_id = item.find("source_id");
  auto index = item.find("candidate_index");
  if (request_id == item.end() || !request_id->is_string() || source_id == item.end() ||
      index == item.end()) {
    return std::nullopt;
  }
  auto source = protocol::detail::asInt64(*source_id);
  auto candidate = protocol::detail::asInt64(*index);
  if (!source || !candidate) {
    return std::nullopt;
  }
  return CandidateSlot{request_id->get<std::string>(), *source, *candidate};
}

/// Walks the expected slots of a request without materialising them (num_outputs is untrusted
/// and may be huge): for each input in order, k = 0..num_outputs-1.
class ExpectedSlots {
 public:
  explicit ExpectedSlots(const AgentRequest& request) : request_(request) { skipEmpty(); }

  bool done() const { return input_ >= request_.inputs.size(); }

  CandidateSlot current() const {
    return CandidateSlot{request_.request_id, request_.inputs[input_].id, k_};
  }

  void next() {
    ++k_;
    skipEmpty();
  }

  /// Slots left, current one included; saturates instead of overflowing.
  std::uint64_t remaining() const {
    std::uint64_t total = 0;
    for (std::size_t i = input_; i < request_.inputs.size(); ++i) {
      auto count =
          static_cast<std::uint64_t>(std::max<std::int64_t>(request_.inputs[i].num_outputs, 0));
      if (i == input_) {
        count -= static_cast<std::uint64_t>(k_);
      }
      constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
      total = total > kMax - count ? kMax : total + count;
    }
    return total;
  }

 private:
  void skipEmpty() {
    while (input_ < request_.inputs.size() && k_ >= request_.inputs[input_].num_outputs) {
      ++input_;
      k_ = 0;
    }
  }

  const AgentRequest& request_;
  std::size_t input_ = 0;
  std::int64_t k_ = 0;
};

/// AgentResponse.validate_request: the response must be exactly the expected slot sequence.
/// One finding per position that differs (positions whose slot is unreadable already carry
/// their own findings), plus one for the first missing slot, counting the rest.
void checkCandidateOrder(const Json& body, const AgentRequest& request, Findings& findings) {
  ExpectedSlots expected(request);
  std::size_t expected_seen = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    JsonPath loc{static_cast<std::int64_t>(i)};
    auto actual = slotOf(body[i]);
    if (expected.done()) {
      if (actual) {
        findings.add("candidate_order", std::move(loc),
                     "Unexpected candidate " + describe(*actual) + ": the request asks for " +
                         std::to_string(expected_seen) + " candidates",
                     slotJson(*actual));
      }
      continue;
    }
    CandidateSlot wanted = expected.current();
    expected.next();
    ++expected_seen;
    if (actual && !(*actual == wanted)) {
      findings.add("candidate_order", std::move(loc),
                   "Expected candidate " + describe(wanted) + ", got " + describe(*actual),
                   slotJson(*actual));
    }
  }
  if (!expected.done()) {
    std::uint64_t missing = expected.remaining();
    std::string message = "Missing candidate " + describe(expected.current());
    if (missing > 1) {
      message += " and " + std::to_string(missing - 1) + " more";
    }
    findings.add("candidate_order", JsonPath{static_cast<std::int64_t>(body.size())},
                 std::move(message), nullptr);
  }
}

}  // namespace

Parsed<AgentResponse> parseAgentResponse(const Json& body, const AgentRequest* request,
                                         const ValidationOptions& options) {
  Findings findings;
  AgentResponse response;
  if (checkArray(body, {}, findings)) {
    for (std::size_t i = 0; i < body.size(); ++i) {
      JsonPath loc{static_cast<std::int64_t>(i)};
      if (auto output = detail::readAgentOutput(body[i], loc, findings, options)) {
        response.push_back(std::move(*output));
      }
    }
    if (request != nullptr) {
      checkCandidateOrder(body, *request, findings);
    }
  }
  return detail::toParsed(std::optional<AgentResponse>(std::move(response)), findings);
}

Parsed<AgentHealth> parseAgentHealth(const Json& body) {
  Findings findings;
  ModelReader reader(body, {}, findings);
  AgentHealth health;
  if (const Json* status = reader.optional("status")) {
    if (auto text = checkLiteral(*status, reader.at("status"), {"ready"}, findings)) {
      health.status = std::move(*text);
    }
  }
  reader.finish();
  return detail::toParsed(std::optional<AgentHealth>(std::move(health)), findings);
}

Parsed<AgentInfo> parseAgentInfo(const Json& body) {
  Findings findings;
  ModelReader reader(body, {}, findings);
  AgentInfo info;
  if (const Json* version = reader.optional("protocol_version")) {
    if (auto text = checkString(*version, reader.at("protocol_version"), findings)) {
      info.protocol_version = std::move(*text);
    }
  }
  if (const Json* agent_id = reader.required("agent_id")) {
    if (auto text = checkString(*agent_id, reader.at("agent_id"), findings)) {
      info.agent_id = std::move(*text);
    }
  }
  if (const Json* agent_version = reader.required("agent_version")) {
    if (auto text = checkString(*agent_version, reader.at("agent_version"), findings)) {
      info.agent_version = std::move(*text);
    }
  }
  if (const Json* kinds = reader.optional("specialized_coaching")) {
    JsonPath kinds_loc = reader.at("specialized_coaching");
    if (checkArray(*kinds, kinds_loc, findings)) {
      for (std::size_t i = 0; i < kinds->size(); ++i) {
        if (auto kind = checkLiteral((*kinds)[i], childPath(kinds_loc, i),
                                     {"failure", "suboptimal", "format"}, findings)) {
          info.specialized_coaching.push_back(std::move(*kind));
        }
      }
    }
  }
  if (const Json* resume = reader.optional("coaching_resume")) {
    if (auto flag = checkBool(*resume, reader.at("coaching_resume"), findings)) {
      info.coaching_resume = *flag;
    }
  }
  if (const Json* session = reader.optional("coaching_session_version")) {
    if (auto text =
            checkNullableString(*session, reader.at("coaching_session_version"), findings)) {
      info.coaching_session_version = std::move(*text);
    }
  }
  if (const Json* reason = reader.optional("coaching_unavailable_reason")) {
    if (auto text =
            checkNullableString(*reason, reader.at("coaching_unavailable_reason"), findings)) {
      info.coaching_unavailable_reason = std::move(*text);
    }
  }
  if (const Json* capabilities = reader.required("capabilities")) {
    JsonPath capabilities_loc = reader.at("capabilities");
    if (!capabilities->is_object()) {
      findings.add("dict_type", capabilities_loc, "Input should be an object", *capabilities);
    } else {
      for (auto it = capabilities->begin(); it != capabilities->end(); ++it) {
        if (auto flag = checkBool(*it, childPath(capabilities_loc, it.key()), findings)) {
          info.capabilities[it.key()] = *flag;
        }
      }
    }
  }
  reader.finish();
  return detail::toParsed(std::optional<AgentInfo>(std::move(info)), findings);
}

}  // namespace agentvcr::protocol::magma
