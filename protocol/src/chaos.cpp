#include "agentvcr/protocol/chaos.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::protocol {
namespace {

/// SplitMix64's finaliser: consecutive counters give independent-looking draws.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A uniform number in [0, 1) from 53 bits of `bits`.
double unitInterval(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

template <class Number>
Number parseNumber(std::string_view item, std::string_view value) {
  Number number{};
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size()) {
    throw std::invalid_argument("--chaos: '" + std::string(item) + "' needs a number");
  }
  return number;
}

std::chrono::milliseconds parseDuration(std::string_view item, std::string_view value,
                                        double to_ms) {
  const double amount = parseNumber<double>(item, value);
  if (!std::isfinite(amount) || amount < 0 || amount * to_ms > 1e12) {
    throw std::invalid_argument("--chaos: '" + std::string(item) +
                                "' needs a finite duration of 0 or more");
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(amount * to_ms)));
}

bool isMagmaResponsesCall(const ChaosCall& call) {
  return magma::routeOf(call.method, call.target) == magma::Route::Responses;
}

/// The JSON-RPC request (or batch) in `body`, when it is one.
std::optional<Json> jsonRpcRequest(std::string_view body) {
  JsonParseResult parsed = parseJson(body);
  if (!parsed.value || !a2a::isJsonRpc(*parsed.value)) {
    return std::nullopt;
  }
  return std::move(parsed.value);
}

/// A JSON-RPC error answering `request` (one error per call of a batch, each with its id).
std::string jsonRpcErrors(const Json& request, int code, std::string_view message,
                          const Json& data) {
  auto errorFor = [&](const Json& call) {
    OrderedJson answer;
    answer["jsonrpc"] = "2.0";
    const auto id = call.is_object() ? call.find("id") : call.end();
    answer["id"] = id != call.end() ? OrderedJson::parse(id->dump()) : OrderedJson(nullptr);
    answer["error"]["code"] = code;
    answer["error"]["message"] = message;
    answer["error"]["data"] = OrderedJson::parse(data.dump());
    return answer;
  };
  if (!request.is_array()) {
    return errorFor(request).dump();
  }
  OrderedJson batch = OrderedJson::array();
  for (const Json& call : request) {
    batch.push_back(errorFor(call));
  }
  return batch.dump();
}

/// Every candidate the request asks for, as an error with code "chaos": what an agent whose
/// every attempt failed answers (magma-protocol.md §8, error candidates keep their memory).
std::optional<std::string> magmaErrorCandidates(std::string_view body) {
  JsonParseResult parsed = parseJson(body);
  if (!parsed.value) {
    return std::nullopt;
  }
  Parsed<magma::AgentRequest> request = magma::parseAgentRequest(*parsed.value);
  if (!request.ok()) {
    return std::nullopt;
  }
  magma::AgentResponse response;
  for (const magma::AgentInput& input : request.value->inputs) {
    for (std::int64_t k = 0; k < input.num_outputs; ++k) {
      magma::AgentOutput output;
      output.request_id = request.value->request_id;
      output.source_id = input.id;
      output.candidate_index = k;
      output.status = magma::OutputStatus::Error;
      output.memory = input.memory;
      output.error = magma::AgentError{"chaos", "fault injected by agentvcr --chaos", "agentvcr"};
      response.push_back(std::move(output));
    }
  }
  return magma::serializeResponse(response);
}

ChaosDecision refusal(std::string_view id, const std::string& message) {
  ChaosDecision decision;
  decision.refusal = HttpReply{400, "application/json", {}, errorBody(id, message), {}};
  decision.refusal_error = "[" + std::string(id) + "] " + message;
  return decision;
}

std::string injectedMessage(FaultKind kind) {
  return std::string("fault '") + faultName(kind) + "' injected by agentvcr --chaos";
}

}  // namespace

const char* faultName(FaultKind kind) {
  switch (kind) {
    case FaultKind::Error:
      return "error";
    case FaultKind::Malformed:
      return "malformed";
    case FaultKind::Disconnect:
      return "disconnect";
    case FaultKind::Stall:
      return "stall";
    case FaultKind::Latency:
      return "latency";
    case FaultKind::Truncate:
      return "truncate";
    case FaultKind::MagmaError:
      return "magma_error";
    case FaultKind::A2aError:
      return "a2a_error";
    case FaultKind::RateLimit:
      return "rate_limit";
  }
  return "unknown";
}

std::optional<FaultKind> faultFromName(std::string_view name) {
  for (FaultKind kind : kFaultKinds) {
    if (name == faultName(kind)) {
      return kind;
    }
  }
  return std::nullopt;
}

bool faultReachesAgent(FaultKind kind) {
  return kind == FaultKind::Latency || kind == FaultKind::Truncate;
}

ChaosSpec parseChaosSpec(std::string_view text) {
  ChaosSpec spec;
  double total = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trimBlanks(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      throw std::invalid_argument("--chaos: empty item in '" + std::string(text) + "'");
    }
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw std::invalid_argument("--chaos: '" + std::string(item) + "' is not NAME=VALUE");
    }
    const std::string_view name = trimBlanks(item.substr(0, equals));
    const std::string_view value = trimBlanks(item.substr(equals + 1));
    if (name == "seed") {
      spec.seed = parseNumber<std::uint64_t>(item, value);
    } else if (name == "stall_s") {
      spec.stall = parseDuration(item, value, 1000);
    } else if (name == "latency_ms") {
      spec.latency = parseDuration(item, value, 1);
    } else if (name == "retry_after_s") {
      spec.retry_after_s = parseNumber<int>(item, value);
      if (spec.retry_after_s < 0) {
        throw std::invalid_argument("--chaos: retry_after_s must be 0 or more");
      }
    } else if (std::optional<FaultKind> kind = faultFromName(name)) {
      const double fraction = parseNumber<double>(item, value);
      if (!(fraction >= 0 && fraction <= 1)) {
        throw std::invalid_argument("--chaos: the rate of '" + std::string(name) +
                                    "' must be between 0 and 1");
      }
      for (const ChaosSpec::Rate& rate : spec.rates) {
        if (rate.kind == *kind) {
          throw std::invalid_argument("--chaos: '" + std::string(name) + "' given twice");
        }
      }
      spec.rates.push_back({*kind, fraction});
      total += fraction;
    } else {
      throw std::invalid_argument(
          "--chaos: unknown fault or setting '" + std::string(name) +
          "' (kinds: error, malformed, disconnect, stall, latency, truncate, magma_error, "
          "a2a_error, rate_limit; settings: seed, stall_s, latency_ms, retry_after_s)");
    }
  }
  if (total > 1 + 1e-9) {
    throw std::invalid_argument("--chaos: the rates add up to more than 1");
  }
  // One order for every spelling of the same spec, so the same seed draws the same faults.
  std::vector<ChaosSpec::Rate> ordered;
  for (FaultKind kind : kFaultKinds) {
    for (const ChaosSpec::Rate& rate : spec.rates) {
      if (rate.kind == kind) {
        ordered.push_back(rate);
      }
    }
  }
  spec.rates = std::move(ordered);
  return spec;
}

bool faultApplies(FaultKind kind, const ChaosCall& call) {
  switch (kind) {
    case FaultKind::MagmaError:
      return isMagmaResponsesCall(call) && magmaErrorCandidates(call.body).has_value();
    case FaultKind::A2aError:
      return jsonRpcRequest(call.body).has_value();
    default:
      return true;
  }
}

Chaos::Chaos(std::optional<ChaosSpec> spec, bool honour_header)
    : spec_(spec.value_or(ChaosSpec{})), random_(spec.has_value()), honour_header_(honour_header) {
  if (random_) {
    honour_header_ = true;
  }
}

ChaosDecision Chaos::decide(const ChaosCall& call) {
  if (call.forced) {
    if (!honour_header_) {
      return refusal("chaos.refused", std::string(kChaosHeader) +
                                          " is honoured only when agentvcr runs with --chaos or "
                                          "--chaos-header");
    }
    if (call.forced_twice) {
      return refusal("chaos.repeated",
                     std::string(kChaosHeader) + ": one fault per request, in one header");
    }
    const std::optional<FaultKind> kind = faultFromName(trimBlanks(*call.forced));
    if (!kind) {
      return refusal("chaos.unknown_kind",
                     std::string(kChaosHeader) + ": no fault '" + std::string(*call.forced) + "'");
    }
    if (!faultApplies(*kind, call)) {
      return refusal("chaos.not_applicable", std::string(kChaosHeader) + ": '" + faultName(*kind) +
                                                 "' does not apply to this request");
    }
    return ChaosDecision{kind, std::nullopt, {}};
  }
  if (random_ && call.method == "POST") {
    const std::optional<FaultKind> kind = draw();
    if (kind && faultApplies(*kind, call)) {
      return ChaosDecision{kind, std::nullopt, {}};
    }
  }
  return ChaosDecision{};
}

std::optional<FaultKind> Chaos::draw() {
  const std::uint64_t n = draws_.fetch_add(1, std::memory_order_relaxed);
  const double u = unitInterval(mix(spec_.seed ^ mix(n)));
  double edge = 0;
  for (const ChaosSpec::Rate& rate : spec_.rates) {
    edge += rate.fraction;
    if (u < edge) {
      return rate.kind;
    }
  }
  return std::nullopt;
}

HttpReply Chaos::injectedAnswer(FaultKind kind, const ChaosCall& call) const {
  const std::string message = injectedMessage(kind);
  const std::string id = std::string("chaos.") + faultName(kind);
  HttpReply reply;
  switch (kind) {
    case FaultKind::Error:
      reply.status = 500;
      reply.body = errorBody(id, message);
      break;
    case FaultKind::Malformed:
      // Starts like an answer and breaks off: what a crashed or confused agent sends.
      reply.body = R"({"agentvcr_chaos": "malformed", "outputs": [{"status": )";
      break;
    case FaultKind::Disconnect:
      reply.status = 0;
      reply.body.clear();
      reply.delivery = Delivery::CloseBeforeAnswer;
      break;
    case FaultKind::Stall:
      reply.status = 504;
      reply.body =
          errorBody(id, message + ": no answer for " + std::to_string(spec_.stall.count()) + " ms");
      reply.hold = spec_.stall;
      break;
    case FaultKind::MagmaError:
      reply.body = magmaErrorCandidates(call.body).value_or(errorBody(id, message));
      break;
    case FaultKind::A2aError: {
      const std::optional<Json> request = jsonRpcRequest(call.body);
      reply.body = jsonRpcErrors(request.value_or(Json::object()), -32603, "Internal error",
                                 Json{{"agentvcr_fault", faultName(kind)}});
      break;
    }
    case FaultKind::RateLimit: {
      reply.status = 429;
      const std::string wait = std::to_string(spec_.retry_after_s);
      reply.headers.push_back({"Retry-After", wait});
      // Magisterium's rate-limit error (A2A protocol notes §2.7); standard A2A has none.
      if (const std::optional<Json> request = jsonRpcRequest(call.body)) {
        reply.body = jsonRpcErrors(*request, -32003, "Rate limit exceeded",
                                   Json{{"retryAfter", spec_.retry_after_s}});
      } else {
        reply.body = errorBody(id, message + ": retry after " + wait + " s");
      }
      break;
    }
    case FaultKind::Latency:
    case FaultKind::Truncate:
      throw std::logic_error(std::string("chaos: '") + faultName(kind) +
                             "' is delivered on the agent's own answer");
  }
  return reply;
}

}  // namespace agentvcr::protocol
