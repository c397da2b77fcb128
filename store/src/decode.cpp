#include "decode.hpp"

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/protocol/json_spans.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/redact.hpp"
#include "agentvcr/protocol/validation.hpp"
#include "body_compression.hpp"

namespace agentvcr::store::detail {
namespace {

using protocol::Json;
namespace magma = protocol::magma;

Json locToJson(const protocol::JsonPath& path) {
  Json loc = Json::array();
  for (const protocol::PathElement& element : path) {
    if (const auto* key = std::get_if<std::string>(&element)) {
      loc.push_back(*key);
    } else {
      loc.push_back(std::get<std::int64_t>(element));
    }
  }
  return loc;
}

/// The findings column: {"side","type","loc","msg"} objects, bounded per side.
class FindingList {
 public:
  void add(const std::string& side, const std::string& type, Json loc, const std::string& msg) {
    std::size_t& n = counts_[side];
    ++n;
    if (n <= kMaxFindingsPerSide) {
      items_.push_back(Json{{"side", side}, {"type", type}, {"loc", std::move(loc)}, {"msg", msg}});
    }
  }

  void addAll(const char* side, const std::vector<protocol::Finding>& findings) {
    for (const protocol::Finding& f : findings) {
      add(side, f.type, locToJson(f.loc), f.msg);
    }
  }

  /// Takes back findings written earlier by toText() (those redaction raised when the exchange
  /// was captured); text that does not read as such is ignored.
  void addText(const std::optional<std::string>& text) {
    if (!text) {
      return;
    }
    protocol::JsonParseResult parsed = protocol::parseJson(*text);
    if (!parsed.value || !parsed.value->is_array()) {
      return;
    }
    for (Json& item : *parsed.value) {
      if (item.is_object() && item.value("side", Json()).is_string() &&
          item.value("type", Json()).is_string() && item.value("msg", Json()).is_string()) {
        add(item["side"].get<std::string>(), item["type"].get<std::string>(),
            std::move(item["loc"]), item["msg"].get<std::string>());
      }
    }
  }

  std::optional<std::string> toText() {
    for (const auto& [side, n] : counts_) {
      if (n > kMaxFindingsPerSide) {
        items_.push_back(
            Json{{"side", side},
                 {"type", "too_many_findings"},
                 {"loc", Json::array()},
                 {"msg", std::to_string(n - kMaxFindingsPerSide) + " more findings not recorded"}});
      }
    }
    if (items_.empty()) {
      return std::nullopt;
    }
    return protocol::dumpCompact(items_);
  }

 private:
  Json items_ = Json::array();
  std::map<std::string, std::size_t> counts_;
};

/// A body parsed as JSON, or why not. `judged` is false when the body was not looked at
/// (too large): validity then stays unknown (NULL).
struct BodyJson {
  std::optional<Json> value;
  bool judged = true;
};

BodyJson parseBody(const std::string& body, const char* side, FindingList& findings,
                   const DecodeOptions& options) {
  BodyJson result;
  if (body.size() > options.max_decode_bytes) {
    findings.add(side, "too_large", Json::array(),
                 "body of " + std::to_string(body.size()) +
                     " bytes exceeds the decoding limit of " +
                     std::to_string(options.max_decode_bytes) + " bytes; stored undecoded");
    result.judged = false;
    return result;
  }
  protocol::JsonParseResult parsed = protocol::parseJson(body);
  if (!parsed.value) {
    findings.add(side, "json_invalid", Json::array(),
                 "invalid JSON at byte " + std::to_string(parsed.error.offset) + ": " +
                     parsed.error.message);
    return result;
  }
  result.value = std::move(parsed.value);
  return result;
}

bool is2xx(int status) {
  return status >= 200 && status < 300;
}

/// Validates one side with `parse` (Json -> Parsed<T>) and records validity and findings.
/// Returns the parsed model when valid.
template <class Parse>
auto validateSide(const std::string& body, const char* side, FindingList& findings,
                  const DecodeOptions& options, std::optional<bool>& valid, Parse&& parse)
    -> decltype(parse(std::declval<const Json&>()).value) {
  BodyJson json = parseBody(body, side, findings, options);
  if (!json.value) {
    if (json.judged) {
      valid = false;
    }
    return std::nullopt;
  }
  auto parsed = parse(*json.value);
  valid = parsed.ok();
  findings.addAll(side, parsed.findings);
  return std::move(parsed.value);
}

/// Collects the distinct blobs of one exchange.
class BlobCollector {
 public:
  explicit BlobCollector(std::vector<BlobText>& out) : out_(out) {}

  std::uint64_t addMemory(const Json& value) {
    return add(protocol::canonicalJson(value), /*is_memory=*/true);
  }

  /// Adds a blob given its canonical text.
  std::uint64_t add(std::string text, bool is_memory = false) {
    std::uint64_t hash = protocol::stableHash(text);
    if (seen_.insert(hash).second) {
      out_.push_back(BlobText{hash, std::move(text), is_memory, std::nullopt, std::nullopt});
    }
    return hash;
  }

 private:
  std::vector<BlobText>& out_;
  std::unordered_set<std::uint64_t> seen_;
};

std::optional<std::string> stringField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it != object.end() && it->is_string()) {
    return it->get<std::string>();
  }
  return std::nullopt;
}

std::optional<std::string> takeStringField(Json& object, const char* key) {
  auto it = object.find(key);
  if (it != object.end() && it->is_string()) {
    std::string value = std::move(it->get_ref<std::string&>());
    object.erase(it);
    return value;
  }
  return std::nullopt;
}

DecodedInternalStep decodeInternalStep(Json& entry) {
  DecodedInternalStep step;
  if (entry.is_object()) {
    step.step_key = stringField(entry, "id");
    step.component = stringField(entry, "component");
    step.origin = stringField(entry, "origin");
    // The two big strings move to their own columns; the rest keeps everything else.
    step.full_prompt = takeStringField(entry, "full_prompt");
    step.output_raw = takeStringField(entry, "output_raw");
  }
  step.rest = protocol::canonicalJson(entry);
  return step;
}

void decodeSteps(magma::AgentRequest& request, DecodedExchange& d, BlobCollector& blobs) {
  d.steps.reserve(request.inputs.size());
  std::int64_t position = 0;
  for (magma::AgentInput& input : request.inputs) {
    DecodedStep step;
    step.position = position++;
    step.source_id = input.id;
    // Each free part is serialized once: for its blob and for the replay key.
    std::string memory_text = protocol::canonicalJson(input.memory);
    std::string tools_text = protocol::canonicalJson(input.tools);
    std::string attributes_text = protocol::canonicalJson(input.attributes);
    std::string extra_keys_text = protocol::canonicalJson(input.extra_keys);
    step.replay_key =
        magma::replayKey(input, tools_text, attributes_text, memory_text, extra_keys_text);
    step.is_env = input.instruction.type == magma::InstructionType::Env;
    if (step.is_env) {
      // The decoded feedback is not kept: readers decode it again from the instruction.
      step.env_failure = protocol::decodeEnvFeedback(input.instruction.content).anyFailure();
    }
    step.content = std::move(input.instruction.content);
    step.memory_hash = blobs.add(std::move(memory_text), /*is_memory=*/true);
    step.tools_hash = blobs.add(std::move(tools_text));
    step.attributes_hash = blobs.add(std::move(attributes_text));
    step.extra_keys_hash = blobs.add(std::move(extra_keys_text));
    step.num_outputs = input.num_outputs;
    d.steps.push_back(std::move(step));
  }
}

void decodeCandidates(magma::AgentResponse& response, DecodedExchange& d, BlobCollector& blobs) {
  std::unordered_map<std::int64_t, std::size_t> step_of_source;
  for (std::size_t i = 0; i < d.steps.size(); ++i) {
    step_of_source.emplace(d.steps[i].source_id, i);
  }
  d.candidates.reserve(response.size());
  std::size_t position = 0;
  for (magma::AgentOutput& output : response) {
    auto it = step_of_source.find(output.source_id);
    if (it == step_of_source.end()) {
      ++position;
      continue;  // cannot happen after the order check; never trust it blindly
    }
    DecodedCandidate c;
    c.step_index = it->second;
    c.response_position = position++;
    c.candidate_index = output.candidate_index;
    c.is_error = output.status == magma::OutputStatus::Error;
    if (output.output) {
      const magma::AgentDecision& decision = *output.output;
      Json calls = Json::array();
      for (const magma::ToolCall& call : decision.tool_calls) {
        calls.push_back(Json{{"name", call.name},
                             {"arguments", call.arguments},
                             {"target_robot_name", call.target_robot_name}});
      }
      c.say = decision.say;
      c.tool_calls = protocol::canonicalJson(calls);
      const bool has_say = !decision.say.empty();
      const bool has_calls = !decision.tool_calls.empty();
      c.decision_kind =
          has_say ? (has_calls ? "mixed" : "say") : (has_calls ? "tool_calls" : "empty");
    }
    if (output.error) {
      c.error_code = output.error->code;
      c.error_message = output.error->message;
      c.error_component = output.error->component;
    }
    c.memory_hash = blobs.addMemory(output.memory);
    if (output.internal_steps.is_array()) {
      c.internal_steps.reserve(output.internal_steps.size());
      for (Json& entry : output.internal_steps) {
        c.internal_steps.push_back(decodeInternalStep(entry));
      }
    }
    d.candidates.push_back(std::move(c));
  }
}

/// Finds each internal step's prompt in the response body (DecodedInternalStep::full_prompt_at):
/// only where the literal there holds exactly the decoded text.
void findPromptReferences(std::string_view body, std::vector<DecodedCandidate>& candidates) {
  std::unordered_map<std::size_t, DecodedCandidate*> at_position;
  for (DecodedCandidate& c : candidates) {
    for (const DecodedInternalStep& step : c.internal_steps) {
      if (step.full_prompt) {
        at_position.emplace(c.response_position, &c);
        break;
      }
    }
  }
  if (at_position.empty()) {
    return;
  }
  static constexpr protocol::JsonPathStep kPrompts[] = {
      {""}, {"internal_steps"}, {""}, {"full_prompt"}};

  // The last literal found at a place is the one decoded. Met once on its path, it is the text
  // the decoder read, and a reader decoding it again gets that text back, unless a \u escape
  // might decode otherwise (a lone surrogate): only then, or when a member is named twice on
  // the way, is the literal decoded and compared, which costs as much as the body's parse.
  struct Literal {
    protocol::JsonSpan span;
    bool repeated = false;
  };

  std::map<std::pair<std::size_t, std::size_t>, Literal> literals;
  protocol::findJsonValues(body, kPrompts,
                           [&](std::span<const std::size_t> indexes, protocol::JsonSpan span) {
                             const auto key = std::pair{indexes[0], indexes[1]};
                             auto known = literals.find(key);
                             literals.insert_or_assign(key, Literal{span, known != literals.end()});
                           });
  for (const auto& [key, literal] : literals) {
    auto candidate = at_position.find(key.first);
    if (candidate == at_position.end() || key.second >= candidate->second->internal_steps.size()) {
      continue;
    }
    DecodedInternalStep& step = candidate->second->internal_steps[key.second];
    if (!step.full_prompt) {
      continue;
    }
    const std::string_view text =
        body.substr(literal.span.begin, literal.span.end - literal.span.begin);
    bool same = false;
    if (text.size() < 2 || text.front() != '"') {
      same = false;
    } else if (text.find('\\') == std::string_view::npos) {
      same = text.substr(1, text.size() - 2) == *step.full_prompt;
    } else if (!literal.repeated && text.find("\\u") == std::string_view::npos) {
      same = true;
    } else {
      same = protocol::jsonStringAt(body, literal.span.begin) == step.full_prompt;
    }
    step.full_prompt_at = same ? std::optional<std::size_t>(literal.span.begin) : std::nullopt;
  }
}

void decodeMagma(magma::Route route, DecodedExchange& d, FindingList& findings,
                 const DecodeOptions& options) {
  const protocol::Exchange& ex = d.exchange;
  // An injected answer is agentvcr's, never the agent's: only the request is decoded.
  const bool response_applies =
      is2xx(ex.status) && ex.outcome != protocol::ExchangeOutcome::Injected;
  switch (route) {
    case magma::Route::Responses: {
      std::optional<magma::AgentRequest> request =
          validateSide(ex.request_body, "request", findings, options, d.request_valid,
                       [](const Json& j) { return magma::parseAgentRequest(j); });
      BlobCollector blobs(d.blobs);
      if (request) {
        d.magma_request_id = request->request_id;
      }
      if (response_applies) {
        const magma::AgentRequest* req = request ? &*request : nullptr;
        std::optional<magma::AgentResponse> response =
            validateSide(ex.response_body, "response", findings, options, d.response_valid,
                         [req](const Json& j) { return magma::parseAgentResponse(j, req); });
        if (request) {
          decodeSteps(*request, d, blobs);
          if (response) {
            decodeCandidates(*response, d, blobs);
            findPromptReferences(ex.response_body, d.candidates);
          }
        }
      } else if (request) {
        decodeSteps(*request, d, blobs);
      }
      break;
    }
    case magma::Route::Health:
      if (response_applies) {
        validateSide(ex.response_body, "response", findings, options, d.response_valid,
                     [](const Json& j) { return magma::parseAgentHealth(j); });
      }
      break;
    case magma::Route::Info:
      if (response_applies) {
        validateSide(ex.response_body, "response", findings, options, d.response_valid,
                     [](const Json& j) { return magma::parseAgentInfo(j); });
      }
      break;
    case magma::Route::CoachingPut:
      // The body was redacted already; redaction keeps the shape, so it validates the same.
      validateSide(ex.request_body, "request", findings, options, d.request_valid,
                   [](const Json& j) { return magma::parseCoachingSessionConfig(j); });
      break;
    case magma::Route::Coaching: {
      std::optional<magma::SpecializedCoachingRequest> request =
          validateSide(ex.request_body, "request", findings, options, d.request_valid,
                       [](const Json& j) { return magma::parseSpecializedCoachingRequest(j); });
      if (response_applies) {
        const magma::SpecializedCoachingRequest* req = request ? &*request : nullptr;
        validateSide(
            ex.response_body, "response", findings, options, d.response_valid,
            [req](const Json& j) { return magma::parseSpecializedCoachingResponse(j, req); });
      }
      break;
    }
    case magma::Route::CoachingDelete:
    case magma::Route::None:
      break;
  }
}

void redactSecrets(RedactedExchange& r, magma::Route route, FindingList& findings) {
  protocol::Exchange& ex = r.exchange;
  try {
    protocol::redactHeaders(ex.request_headers);
    protocol::redactHeaders(ex.response_headers);
  } catch (const std::exception& e) {
    // Never store a header we could not vet.
    for (protocol::Headers* headers : {&ex.request_headers, &ex.response_headers}) {
      for (protocol::HeaderField& field : *headers) {
        field.value = "[redaction failed]";
      }
    }
    findings.add("exchange", "redaction_error", Json::array(), e.what());
  }
  if (route != magma::Route::CoachingPut) {
    return;
  }
  try {
    if (std::optional<std::string> redacted =
            protocol::redactCoachingSessionBody(ex.request_body)) {
      ex.request_body = std::move(*redacted);
      r.request_body_redacted = true;
    }
  } catch (const std::exception& e) {
    ex.request_body.clear();  // a body that may hold credentials is dropped, not stored
    r.request_body_redacted = true;
    findings.add("request", "redaction_error", Json::array(), e.what());
  }
}

/// The MAGMA route of an exchange; a target that cannot be read is a finding, not an error.
magma::Route routeOrFinding(const protocol::Exchange& ex, FindingList& findings) {
  try {
    return magma::routeOf(ex.method, ex.target);
  } catch (const std::exception& e) {
    findings.add("exchange", "decode_error", Json::array(), e.what());
    return magma::Route::None;
  }
}

}  // namespace

const std::string& DecodedCandidate::endedIn() const {
  static const std::string kError = "error";
  if (is_error || !decision_kind) {
    return kError;
  }
  return *decision_kind;
}

bool DecodedExchange::failed() const {
  return exchange.outcome != protocol::ExchangeOutcome::Complete || exchange.status >= 400;
}

bool DecodedExchange::invalid() const {
  return (request_valid && !*request_valid) || (response_valid && !*response_valid);
}

RedactedExchange redactExchange(protocol::Exchange&& exchange) {
  RedactedExchange r;
  r.exchange = std::move(exchange);
  FindingList findings;
  const magma::Route route = routeOrFinding(r.exchange, findings);
  r.protocol = route == magma::Route::None ? "http" : "magma";
  r.route = magma::routeName(route);
  redactSecrets(r, route, findings);
  try {
    r.findings = findings.toText();
  } catch (const std::exception&) {
    r.findings = R"([{"side":"exchange","type":"redaction_error","loc":[],"msg":"findings"}])";
  }
  return r;
}

DecodedExchange decodeExchange(RedactedExchange&& redacted, const DecodeOptions& options) {
  DecodedExchange d;
  d.exchange = std::move(redacted.exchange);
  d.request_body_redacted = redacted.request_body_redacted;
  FindingList findings;
  try {
    findings.addText(redacted.findings);
  } catch (const std::exception& e) {
    findings.add("exchange", "decode_error", Json::array(), e.what());
  }
  // Redaction already recorded a target it could not read.
  FindingList ignored;
  const magma::Route route = routeOrFinding(d.exchange, ignored);
  d.protocol = route == magma::Route::None ? "http" : "magma";
  d.route = magma::routeName(route);
  try {
    decodeMagma(route, d, findings, options);
    decodeStreamEvents(d);
    if (route == magma::Route::None) {
      decodeA2a(d, options);
    }
  } catch (const std::exception& e) {
    // Keep the raw exchange; drop whatever was half-decoded.
    d.steps.clear();
    d.candidates.clear();
    d.blobs.clear();
    d.a2a_calls.clear();
    d.stream_events.clear();
    findings.add("exchange", "decode_error", Json::array(), e.what());
  }
  try {
    d.findings = findings.toText();
  } catch (const std::exception&) {
    d.findings = R"([{"side":"exchange","type":"decode_error","loc":[],"msg":"findings"}])";
  }
  return d;
}

std::string conversationTitle(const std::string& content) {
  std::string folded;
  folded.reserve(std::min(content.size(), kTitleCodePoints * 4 + 4));
  std::size_t code_points = 0;
  bool pending_space = false;
  bool cut = false;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const auto c = static_cast<unsigned char>(content[i]);
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      pending_space = !folded.empty();
      continue;
    }
    const bool starts_code_point = (c & 0xC0U) != 0x80U;
    if (starts_code_point) {
      if (code_points + (pending_space ? 1 : 0) >= kTitleCodePoints) {
        cut = true;
        break;
      }
      if (pending_space) {
        folded.push_back(' ');
        ++code_points;
        pending_space = false;
      }
      ++code_points;
    }
    folded.push_back(static_cast<char>(c));
  }
  if (cut) {
    // Make room for the ellipsis: drop the last code point.
    while (!folded.empty() && (static_cast<unsigned char>(folded.back()) & 0xC0U) == 0x80U) {
      folded.pop_back();
    }
    if (!folded.empty()) {
      folded.pop_back();
    }
    while (!folded.empty() && folded.back() == ' ') {
      folded.pop_back();
    }
    folded += "\xE2\x80\xA6";  // U+2026
  }
  return folded;
}

std::string headersToJson(const protocol::Headers& headers) {
  // Written directly: every captured exchange has two header lists, and a Json tree of them
  // cost more than the rest of the row's preparation.
  std::size_t size = 2;
  for (const protocol::HeaderField& field : headers) {
    size += field.name.size() + field.value.size() + 8;
  }
  std::string text;
  text.reserve(size);
  text += '[';
  for (const protocol::HeaderField& field : headers) {
    if (text.size() > 1) {
      text += ',';
    }
    text += '[';
    protocol::appendJsonString(text, field.name);
    text += ',';
    protocol::appendJsonString(text, field.value);
    text += ']';
  }
  text += ']';
  return text;
}

protocol::Headers headersFromJson(const std::string& text) {
  protocol::Headers headers;
  protocol::JsonParseResult parsed = protocol::parseJson(text);
  if (!parsed.value || !parsed.value->is_array()) {
    return headers;
  }
  for (const Json& pair : *parsed.value) {
    if (pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_string()) {
      headers.push_back({pair[0].get<std::string>(), pair[1].get<std::string>()});
    }
  }
  return headers;
}

std::optional<std::string> arrivalsToJson(const std::vector<protocol::BodyArrival>& arrivals) {
  if (arrivals.empty()) {
    return std::nullopt;
  }
  Json array = Json::array();
  for (const protocol::BodyArrival& arrival : arrivals) {
    array.push_back(Json::array({arrival.end, arrival.at_ns}));
  }
  return protocol::dumpCompact(array);
}

std::vector<protocol::BodyArrival> arrivalsFromJson(const std::optional<std::string>& text) {
  std::vector<protocol::BodyArrival> arrivals;
  if (!text) {
    return arrivals;
  }
  protocol::JsonParseResult parsed = protocol::parseJson(*text);
  if (!parsed.value || !parsed.value->is_array()) {
    return arrivals;
  }
  for (const Json& pair : *parsed.value) {
    if (pair.is_array() && pair.size() == 2 && pair[0].is_number_unsigned() &&
        pair[1].is_number_integer()) {
      arrivals.push_back({pair[0].get<std::size_t>(), pair[1].get<std::int64_t>()});
    }
  }
  return arrivals;
}

void referenceMemories(DecodedExchange& d, const std::function<bool(std::uint64_t)>& wanted) {
  std::unordered_map<std::uint64_t, BlobText*> open;
  for (BlobText& blob : d.blobs) {
    // A short memory costs less kept whole, and stays readable with plain SQL.
    if (blob.is_memory && !blob.in_body && blob.text.size() >= kCompressFrom && wanted(blob.hash)) {
      open.emplace(blob.hash, &blob);
    }
  }
  if (open.empty()) {
    return;
  }

  // The last span found at each position is the value parseJson() kept, which the decoder
  // copied verbatim into the step or candidate. Steps and candidates exist only where the whole
  // body validated, so positions do not shift. Met once along its path, that value therefore
  // reads back to the memory's canonical text without a second reading, which would cost as
  // much as decoding the body again. A member named twice on the way is read back as a reader
  // will, and kept only if it agrees.
  struct Found {
    protocol::JsonSpan span;
    bool repeated = false;
  };

  auto offer = [&](bool response, std::string_view body, std::uint64_t hash, const Found& at) {
    auto found = open.find(hash);
    if (found == open.end() || found->second->in_body) {
      return;
    }
    if (at.repeated) {
      protocol::JsonParseResult parsed =
          protocol::parseJson(body.substr(at.span.begin, at.span.end - at.span.begin));
      if (!parsed.value || protocol::canonicalJson(*parsed.value) != found->second->text) {
        return;
      }
    }
    found->second->in_body = BodyReference{response, at.span.begin, at.span.end};
  };
  auto collect = [](std::string_view body, std::span<const protocol::JsonPathStep> path,
                    std::size_t positions) {
    std::vector<std::optional<Found>> spans(positions);
    protocol::findJsonValues(body, path,
                             [&](std::span<const std::size_t> at, protocol::JsonSpan span) {
                               if (at[0] < spans.size()) {
                                 bool repeated = spans[at[0]].has_value();
                                 spans[at[0]] = Found{span, repeated};
                               }
                             });
    return spans;
  };
  const protocol::Exchange& ex = d.exchange;
  static constexpr protocol::JsonPathStep kInputMemories[] = {{"inputs"}, {""}, {"memory"}};
  // Steps are decoded in the order of the request's inputs.
  std::vector<std::optional<Found>> inputs =
      collect(ex.request_body, kInputMemories, d.steps.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]) {
      offer(false, ex.request_body, d.steps[i].memory_hash, *inputs[i]);
    }
  }
  std::size_t outputs = 0;
  for (const DecodedCandidate& c : d.candidates) {
    outputs = std::max(outputs, c.response_position + 1);
  }
  static constexpr protocol::JsonPathStep kCandidateMemories[] = {{""}, {"memory"}};
  std::vector<std::optional<Found>> candidates =
      collect(ex.response_body, kCandidateMemories, outputs);
  for (const DecodedCandidate& c : d.candidates) {
    if (candidates[c.response_position]) {
      offer(true, ex.response_body, c.memory_hash, *candidates[c.response_position]);
    }
  }
}

}  // namespace agentvcr::store::detail
