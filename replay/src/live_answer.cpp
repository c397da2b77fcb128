#include "agentvcr/replay/live_answer.hpp"

#include <optional>
#include <utility>

#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

bool success(int status) {
  return status >= 200 && status < 300;
}

/// The source_id of response element `index` when readable.
std::optional<std::int64_t> sourceIdAt(const Json& body, std::size_t index) {
  if (!body.is_array() || index >= body.size() || !body[index].is_object()) {
    return std::nullopt;
  }
  auto it = body[index].find("source_id");
  if (it == body[index].end() || !it->is_number_integer()) {
    return std::nullopt;
  }
  return it->get<std::int64_t>();
}

/// `outputs` (AgentOutput objects) without the parts eval is told to ignore, taken out as replay
/// takes ignored parts out of an input's key (an output has no top-level id for it to drop).
Json withoutIgnoredParts(Json outputs, const KeyRules& ignored) {
  if (!ignored.ignoresNothing() && outputs.is_array()) {
    for (Json& output : outputs) {
      output = ignored.keyedContent(std::move(output));
    }
  }
  return outputs;
}

}  // namespace

std::vector<std::string> CheckedAnswer::violationsOf(std::int64_t source_id) const {
  std::vector<std::string> violations = shared_findings_;
  if (auto own = findings_of_source_.find(source_id); own != findings_of_source_.end()) {
    violations.insert(violations.end(), own->second.begin(), own->second.end());
  }
  return violations;
}

Json CheckedAnswer::outputsOf(std::int64_t source_id) const {
  Json outputs = Json::array();
  for (const Json& output : body_) {
    if (output.is_object() && output.value("source_id", Json()) == source_id) {
      outputs.push_back(output);
    }
  }
  return outputs;
}

CheckedAnswer checkAnswer(const LiveAnswer& answer) {
  namespace magma = protocol::magma;
  CheckedAnswer checked;
  if (!answer.client_error.empty()) {
    checked.shared_findings_.push_back("no answer: " + answer.client_error);
    return checked;
  }
  if (!success(answer.status)) {
    checked.shared_findings_.push_back("http status " + std::to_string(answer.status));
    return checked;
  }
  auto parsed = protocol::parseJson(answer.response_body);
  if (!parsed.value) {
    checked.shared_findings_.push_back("response is not JSON");
    return checked;
  }
  const Json body = std::move(*parsed.value);
  // The request was built by the evaluator, so it parses; the candidate order rule needs it.
  protocol::Parsed<magma::AgentRequest> request;
  if (auto request_json = protocol::parseJson(answer.request_body); request_json.value) {
    request = magma::parseAgentRequest(*request_json.value);
  }
  const auto response = magma::parseAgentResponse(body, request.ok() ? &*request.value : nullptr);
  for (const auto& finding : response.findings) {
    std::string text =
        protocol::toJsonPointer(finding.loc) + " " + finding.type + ": " + finding.msg;
    const auto* index = finding.loc.empty() ? nullptr : std::get_if<std::int64_t>(&finding.loc[0]);
    if (auto source = index ? sourceIdAt(body, static_cast<std::size_t>(*index)) : std::nullopt) {
      checked.findings_of_source_[*source].push_back(std::move(text));
    } else {
      checked.shared_findings_.push_back(std::move(text));
    }
  }
  if (body.is_array()) {
    checked.body_ = body;
  }
  return checked;
}

std::string StepVerdict::firstProblem() const {
  if (!violations.empty()) {
    return "contract: " + violations.front();
  }
  const std::vector<std::string> differences = comparison.allDifferences();
  return differences.empty() ? "" : differences.front();
}

StepVerdict judgeStep(const Json& input, std::int64_t source_id, const Json& recorded_outputs,
                      const CheckedAnswer& answer, const KeyRules& ignored) {
  StepVerdict verdict;
  Json live = answer.outputsOf(source_id);
  for (const Json& output : live) {
    verdict.error_candidates += output.value("status", Json()) == "error" ? 1 : 0;
  }
  verdict.live_outputs = withoutIgnoredParts(std::move(live), ignored);
  verdict.comparison =
      compareDecisions(input, withoutIgnoredParts(recorded_outputs, ignored), verdict.live_outputs);
  verdict.violations = answer.violationsOf(source_id);
  return verdict;
}

}  // namespace agentvcr::replay
