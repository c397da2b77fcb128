// Parsers of the coaching models (magma-core protocol/agent_coaching.py):
// CoachingSessionConfig, SpecializedCoachingRequest and SpecializedCoachingResponse.

#include <set>

#include "agentvcr/protocol/magma.hpp"
#include "magma_readers.hpp"

namespace agentvcr::protocol::magma {
namespace {

using protocol::detail::addValueError;
using protocol::detail::asInt64;
using protocol::detail::checkArray;
using protocol::detail::checkBool;
using protocol::detail::checkFreeObject;
using protocol::detail::checkFreeObjectList;
using protocol::detail::checkInt;
using protocol::detail::checkLiteral;
using protocol::detail::checkNullableString;
using protocol::detail::checkNumber;
using protocol::detail::checkString;
using protocol::detail::childPath;
using protocol::detail::Findings;
using protocol::detail::ModelReader;

/// A number > 0 ("greater_than" otherwise).
std::optional<double> checkPositive(const Json& value, const JsonPath& loc, Findings& findings) {
  auto number = checkNumber(value, loc, findings);
  if (number && *number <= 0) {
    findings.add("greater_than", loc, "Input should be greater than 0", value);
    return std::nullopt;
  }
  return number;
}

/// ^[a-z][a-z0-9_]*$ (Pydantic's Rust regex: `$` is the very end, no trailing newline).
bool isCoachingType(const std::string& text) {
  if (text.empty() || text.front() < 'a' || text.front() > 'z') {
    return false;
  }
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) {
      return false;
    }
  }
  return true;
}

// --- CoachingSessionConfig ---

std::optional<CoachingBackendConfig> readBackend(const Json& value, const JsonPath& loc,
                                                 Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingBackendConfig backend;
  for (auto [key, field] :
       {std::pair{"type", &backend.type}, std::pair{"endpoint", &backend.endpoint},
        std::pair{"default_model", &backend.default_model}}) {
    if (const Json* json = reader.required(key)) {
      if (auto text = checkString(*json, reader.at(key), findings)) {
        *field = std::move(*text);
      }
    }
  }
  if (const Json* headers = reader.optional("headers")) {
    JsonPath headers_loc = reader.at("headers");
    if (!headers->is_object()) {
      findings.add("dict_type", headers_loc, "Input should be an object", *headers);
    } else {
      for (auto it = headers->begin(); it != headers->end(); ++it) {
        if (auto text = checkString(*it, childPath(headers_loc, it.key()), findings)) {
          backend.headers[it.key()] = std::move(*text);
        }
      }
    }
  }
  if (const Json* timeout = reader.optional("timeout")) {
    if (auto number = checkPositive(*timeout, reader.at("timeout"), findings)) {
      backend.timeout = *number;
    }
  }
  if (const Json* max_retry = reader.optional("max_retry")) {
    JsonPath at = reader.at("max_retry");
    if (auto number = checkInt(*max_retry, at, findings)) {
      if (*number >= 0) {
        backend.max_retry = *number;
      } else {
        findings.add("greater_than_equal", std::move(at),
                     "Input should be greater than or equal to 0", *max_retry);
      }
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return backend;
}

// --- SpecializedCoachingRequest ---

std::optional<CoachingStage> readStage(const Json& value, const JsonPath& loc, Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingStage stage;
  if (const Json* id = reader.required("id")) {
    if (auto number = checkInt(*id, reader.at("id"), findings)) {
      stage.id = *number;
    }
  }
  if (const Json* goal = reader.required("goal")) {
    if (auto text = checkString(*goal, reader.at("goal"), findings)) {
      stage.goal = std::move(*text);
    }
  }
  if (const Json* hint = reader.optional("hint")) {
    if (auto text = checkNullableString(*hint, reader.at("hint"), findings)) {
      stage.hint = std::move(*text);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return stage;
}

std::optional<CoachingActiveError> readActiveError(const Json& value, const JsonPath& loc,
                                                   Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingActiveError error;
  if (const Json* code = reader.required("code")) {
    if (auto text = checkString(*code, reader.at("code"), findings)) {
      error.code = std::move(*text);
    }
  }
  if (const Json* description = reader.required("description")) {
    if (auto text = checkString(*description, reader.at("description"), findings)) {
      error.description = std::move(*text);
    }
  }
  if (const Json* details = reader.optional("details")) {
    if (auto object = checkFreeObject(*details, reader.at("details"), findings)) {
      error.details = std::move(*object);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return error;
}

std::optional<CoachingDiagnosis> readDiagnosis(const Json& value, const JsonPath& loc,
                                               Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingDiagnosis diagnosis;
  if (const Json* explanation = reader.required("explanation")) {
    if (auto text = checkString(*explanation, reader.at("explanation"), findings)) {
      diagnosis.explanation = std::move(*text);
    }
  }
  if (const Json* expected = reader.optional("expected_decision")) {
    if (auto text = checkNullableString(*expected, reader.at("expected_decision"), findings)) {
      diagnosis.expected_decision = std::move(*text);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return diagnosis;
}

std::optional<CoachingTrajectoryStep> readStep(const Json& value, const JsonPath& loc,
                                               Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingTrajectoryStep step;
  if (const Json* id = reader.required("id")) {
    if (auto number = checkInt(*id, reader.at("id"), findings)) {
      step.id = *number;
    }
  }
  if (const Json* input = reader.required("input")) {
    if (auto parsed = detail::readAgentInput(*input, reader.at("input"), findings)) {
      step.input = std::move(*parsed);
    }
  }
  if (const Json* output = reader.optional("output"); output != nullptr && !output->is_null()) {
    step.output = detail::readAgentDecision(*output, reader.at("output"), findings, {});
  }
  if (const Json* error = reader.optional("error"); error != nullptr && !error->is_null()) {
    step.error = detail::readAgentError(*error, reader.at("error"), findings);
  }
  if (const Json* steps = reader.optional("internal_steps")) {
    if (auto list = checkFreeObjectList(*steps, reader.at("internal_steps"), findings)) {
      step.internal_steps = std::move(*list);
    }
  }
  if (const Json* execution = reader.optional("execution")) {
    if (auto object = checkFreeObject(*execution, reader.at("execution"), findings)) {
      step.execution = std::move(*object);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return step;
}

std::optional<ReinjectionPoint> readPoint(const Json& value, const JsonPath& loc,
                                          Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  ReinjectionPoint point;
  if (const Json* id = reader.required("id")) {
    if (auto text = checkString(*id, reader.at("id"), findings)) {
      point.id = std::move(*text);
    }
  }
  const Json* step_id = reader.optional("input_step_id");
  bool has_step_id = step_id != nullptr && !step_id->is_null();
  if (has_step_id) {
    if (auto number = checkInt(*step_id, reader.at("input_step_id"), findings)) {
      point.input_step_id = *number;
    }
  }
  const Json* input = reader.optional("input");
  bool has_input = input != nullptr && !input->is_null();
  if (has_input) {
    point.input = detail::readAgentInput(*input, reader.at("input"), findings);
  }
  reader.finish();
  if (reader.isObject() && has_step_id == has_input) {
    addValueError(findings, loc, "Provide exactly one input or input_step_id", value);
  }
  if (findings.size() != before) {
    return std::nullopt;
  }
  return point;
}

// --- SpecializedCoachingResponse ---

std::optional<CoachingLog> readLog(const Json& value, const JsonPath& loc, Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingLog log;
  if (const Json* type = reader.required("coaching_type")) {
    JsonPath at = reader.at("coaching_type");
    if (auto text = checkString(*type, at, findings)) {
      if (isCoachingType(*text)) {
        log.coaching_type = std::move(*text);
      } else {
        findings.add("string_pattern_mismatch", std::move(at),
                     "String should match pattern '^[a-z][a-z0-9_]*$'", *type);
      }
    }
  }
  if (const Json* content = reader.required("content")) {
    if (auto text = checkString(*content, reader.at("content"), findings)) {
      log.content = std::move(*text);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return log;
}

std::optional<CoachingProposal> readProposal(const Json& value, const JsonPath& loc,
                                             Findings& findings) {
  std::size_t before = findings.size();
  ModelReader reader(value, loc, findings);
  CoachingProposal proposal;
  if (const Json* point = reader.required("reinjection_point_id")) {
    if (auto text = checkString(*point, reader.at("reinjection_point_id"), findings)) {
      proposal.reinjection_point_id = std::move(*text);
    }
  }
  if (const Json* extra_keys = reader.required("extra_keys")) {
    if (auto object = checkFreeObject(*extra_keys, reader.at("extra_keys"), findings)) {
      proposal.extra_keys = std::move(*object);
    }
  }
  reader.finish();
  if (findings.size() != before) {
    return std::nullopt;
  }
  return proposal;
}

/// Reads a list of models with `read`, keeping the readable ones.
template <class T, class Reader>
void readList(const Json& value, const JsonPath& loc, Findings& findings, std::vector<T>& out,
              Reader read) {
  if (!checkArray(value, loc, findings)) {
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (auto item = read(value[i], childPath(loc, i), findings)) {
      out.push_back(std::move(*item));
    }
  }
}

/// validate_references: unique step and point ids, a target step that exists, and point
/// references that name steps. Ids are read from the raw JSON so that one malformed step does
/// not hide the others; a reference check runs only when every step id is readable.
void checkReferences(const Json& body, Findings& findings) {
  constexpr const char* kUnique = "Step and reinjection point ids must be unique";
  std::set<std::int64_t> step_ids;
  bool all_step_ids = false;
  if (auto steps = body.find("trajectory"); steps != body.end() && steps->is_array()) {
    all_step_ids = true;
    for (std::size_t i = 0; i < steps->size(); ++i) {
      const Json& step = (*steps)[i];
      std::optional<std::int64_t> id;
      if (step.is_object()) {
        if (auto it = step.find("id"); it != step.end()) {
          id = asInt64(*it);
        }
      }
      if (!id) {
        all_step_ids = false;
      } else if (!step_ids.insert(*id).second) {
        addValueError(findings, {"trajectory", static_cast<std::int64_t>(i), "id"}, kUnique, *id);
      }
    }
  }
  auto points = body.find("reinjection_points");
  if (points != body.end() && points->is_array()) {
    std::set<std::string> point_ids;
    for (std::size_t i = 0; i < points->size(); ++i) {
      const Json& point = (*points)[i];
      if (!point.is_object()) {
        continue;
      }
      auto index = static_cast<std::int64_t>(i);
      if (auto id = point.find("id"); id != point.end() && id->is_string()) {
        if (!point_ids.insert(id->get<std::string>()).second) {
          addValueError(findings, {"reinjection_points", index, "id"}, kUnique, *id);
        }
      }
      if (auto ref = point.find("input_step_id"); all_step_ids && ref != point.end()) {
        if (auto step_id = asInt64(*ref); step_id && step_ids.count(*step_id) == 0) {
          addValueError(findings, {"reinjection_points", index, "input_step_id"},
                        "Unknown reinjection input reference", *ref);
        }
      }
    }
  }
  if (auto target = body.find("target_step_id"); all_step_ids && target != body.end()) {
    if (auto target_id = asInt64(*target); target_id && step_ids.count(*target_id) == 0) {
      addValueError(findings, {"target_step_id"}, "Target step is absent from trajectory", *target);
    }
  }
}

}  // namespace

Parsed<CoachingSessionConfig> parseCoachingSessionConfig(const Json& body) {
  Findings findings;
  ModelReader reader(body, {}, findings);
  CoachingSessionConfig config;
  bool backends_known = true;
  if (const Json* backends = reader.optional("backends")) {
    JsonPath backends_loc = reader.at("backends");
    if (!backends->is_object()) {
      findings.add("dict_type", backends_loc, "Input should be an object", *backends);
      backends_known = false;
    } else {
      for (auto it = backends->begin(); it != backends->end(); ++it) {
        if (auto backend = readBackend(*it, childPath(backends_loc, it.key()), findings)) {
          config.backends[it.key()] = std::move(*backend);
        }
      }
      backends_known = true;
    }
  }
  std::optional<std::string> provider = "llm";
  if (const Json* provider_json = reader.optional("provider")) {
    provider = checkLiteral(*provider_json, reader.at("provider"), {"llm", "human"}, findings);
    if (provider) {
      config.provider = *provider;
    }
  }
  bool endpoint_known = true;
  if (const Json* endpoint = reader.optional("endpoint")) {
    auto text = checkNullableString(*endpoint, reader.at("endpoint"), findings);
    endpoint_known = text.has_value();
    if (text) {
      config.endpoint = std::move(*text);
    }
  }
  if (const Json* timeout = reader.optional("connect_timeout")) {
    if (auto number = checkPositive(*timeout, reader.at("connect_timeout"), findings)) {
      config.connect_timeout = *number;
    }
  }
  if (const Json* capture = reader.optional("capture_logs")) {
    if (auto flag = checkBool(*capture, reader.at("capture_logs"), findings)) {
      config.capture_logs = *flag;
    }
  }
  reader.finish();
  // validate_provider. An empty endpoint counts as none (Python's `not self.endpoint`).
  if (reader.isObject()) {
    if (provider == "llm" && backends_known && config.backends.empty() &&
        body.value("backends", Json::object()).empty()) {
      addValueError(findings, {"backends"}, "LLM coaching requires at least one backend",
                    body.value("backends", Json::object()));
    }
    if (provider == "human" && endpoint_known &&
        (!config.endpoint.has_value() || config.endpoint->empty())) {
      addValueError(findings, {"endpoint"}, "Human coaching requires an endpoint",
                    body.value("endpoint", Json()));
    }
  }
  return magma::detail::toParsed(std::optional<CoachingSessionConfig>(std::move(config)), findings);
}

Parsed<SpecializedCoachingRequest> parseSpecializedCoachingRequest(const Json& body) {
  Findings findings;
  ModelReader reader(body, {}, findings);
  SpecializedCoachingRequest request;
  if (const Json* run_id = reader.required("run_id")) {
    if (auto text = checkString(*run_id, reader.at("run_id"), findings, 1)) {
      request.run_id = std::move(*text);
    }
  }
  if (const Json* request_id = reader.required("request_id")) {
    if (auto text = checkString(*request_id, reader.at("request_id"), findings, 1)) {
      request.request_id = std::move(*text);
    }
  }
  if (const Json* kind = reader.required("kind")) {
    if (auto text =
            checkLiteral(*kind, reader.at("kind"), {"failure", "suboptimal", "format"}, findings)) {
      request.kind = std::move(*text);
    }
  }
  if (const Json* stage = reader.required("stage")) {
    if (auto parsed = readStage(*stage, reader.at("stage"), findings)) {
      request.stage = std::move(*parsed);
    }
  }
  if (const Json* errors = reader.optional("active_errors")) {
    readList(*errors, reader.at("active_errors"), findings, request.active_errors, readActiveError);
  }
  if (const Json* diagnosis = reader.optional("diagnosis");
      diagnosis != nullptr && !diagnosis->is_null()) {
    request.diagnosis = readDiagnosis(*diagnosis, reader.at("diagnosis"), findings);
  }
  if (const Json* target = reader.required("target_step_id")) {
    if (auto number = checkInt(*target, reader.at("target_step_id"), findings)) {
      request.target_step_id = *number;
    }
  }
  if (const Json* trajectory = reader.required("trajectory")) {
    readList(*trajectory, reader.at("trajectory"), findings, request.trajectory, readStep);
  }
  if (const Json* points = reader.required("reinjection_points")) {
    readList(*points, reader.at("reinjection_points"), findings, request.reinjection_points,
             readPoint);
  }
  if (const Json* info = reader.optional("additional_info")) {
    if (auto object = checkFreeObject(*info, reader.at("additional_info"), findings)) {
      request.additional_info = std::move(*object);
    }
  }
  reader.finish();
  if (reader.isObject()) {
    checkReferences(body, findings);
  }
  return magma::detail::toParsed(std::optional<SpecializedCoachingRequest>(std::move(request)),
                                 findings);
}

Parsed<SpecializedCoachingResponse> parseSpecializedCoachingResponse(
    const Json& body, const SpecializedCoachingRequest* request) {
  Findings findings;
  ModelReader reader(body, {}, findings);
  SpecializedCoachingResponse response;
  if (const Json* logs = reader.optional("logs")) {
    readList(*logs, reader.at("logs"), findings, response.logs, readLog);
  }
  bool request_id_ok = false;
  if (const Json* request_id = reader.required("request_id")) {
    if (auto text = checkString(*request_id, reader.at("request_id"), findings, 1)) {
      response.request_id = std::move(*text);
      request_id_ok = true;
    }
  }
  std::optional<std::string> status;
  if (const Json* status_json = reader.required("status")) {
    status = checkLiteral(*status_json, reader.at("status"), {"corrected", "abandoned", "error"},
                          findings);
    if (status) {
      response.status = *status;
    }
  }
  bool proposals_ok = true;
  const Json* proposals = reader.optional("proposals");
  if (proposals != nullptr) {
    std::size_t before = findings.size();
    readList(*proposals, reader.at("proposals"), findings, response.proposals, readProposal);
    proposals_ok = findings.size() == before;
  }
  bool reason_ok = true;
  if (const Json* reason = reader.optional("reason")) {
    auto text = checkNullableString(*reason, reader.at("reason"), findings);
    reason_ok = text.has_value();
    if (text) {
      response.reason = std::move(*text);
    }
  }
  reader.finish();

  // validate_status. Python's `not self.reason`: an empty reason counts as none.
  bool has_proposals = proposals != nullptr && proposals->is_array() && !proposals->empty();
  if (status == "corrected") {
    if (proposals_ok && !has_proposals) {
      addValueError(findings, {"proposals"}, "A correction requires proposals",
                    proposals != nullptr ? *proposals : Json::array());
    }
  } else if (status && reader.isObject()) {
    constexpr const char* kMessage = "Abandon/error requires a reason and no proposals";
    if (has_proposals) {
      addValueError(findings, {"proposals"}, kMessage, *proposals);
    }
    if (reason_ok && (!response.reason.has_value() || response.reason->empty())) {
      addValueError(findings, {"reason"}, kMessage, body.value("reason", Json()));
    }
  }

  // validate_request, when the request is known.
  if (request != nullptr) {
    if (request_id_ok && response.request_id != request->request_id) {
      addValueError(findings, {"request_id"}, "Coaching request id mismatch", response.request_id);
    }
    if (proposals != nullptr && proposals->is_array()) {
      for (std::size_t i = 0; i < proposals->size(); ++i) {
        const Json& proposal = (*proposals)[i];
        if (!proposal.is_object()) {
          continue;
        }
        auto id = proposal.find("reinjection_point_id");
        if (id == proposal.end() || !id->is_string()) {
          continue;
        }
        bool known = false;
        for (const ReinjectionPoint& point : request->reinjection_points) {
          known = known || point.id == id->get_ref<const std::string&>();
        }
        if (!known) {
          addValueError(findings,
                        {"proposals", static_cast<std::int64_t>(i), "reinjection_point_id"},
                        "Unknown reinjection point", *id);
        }
      }
    }
  }
  return magma::detail::toParsed(std::optional<SpecializedCoachingResponse>(std::move(response)),
                                 findings);
}

}  // namespace agentvcr::protocol::magma
