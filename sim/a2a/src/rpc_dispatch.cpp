#include "agentvcr/sim/a2a/rpc_dispatch.hpp"

#include <exception>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/sim/a2a/json_rpc.hpp"

namespace agentvcr::sim::a2a {
namespace {

/// The caller a request authenticates as: a token (or "anonymous") and its plan.
struct Caller {
  std::string user;
  Plan plan = Plan::Pro;
};

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool isJsonMediaType(const protocol::HeaderField* content_type) {
  if (content_type == nullptr) {
    return true;  // clients that send none are given the benefit of the doubt
  }
  const std::string_view type = content_type->value;
  return protocol::equalsIgnoreCase(trimmed(type.substr(0, type.find(';'))), "application/json");
}

std::optional<Caller> identify(const protocol::Headers& headers, const MockConfig& config) {
  const protocol::HeaderField* authorization = protocol::findHeader(headers, "authorization");
  if (authorization == nullptr) {
    return config.no_auth ? std::optional<Caller>(Caller{"anonymous", Plan::Pro}) : std::nullopt;
  }
  const std::string_view value = trimmed(authorization->value);
  const auto space = value.find(' ');
  if (space == std::string_view::npos ||
      !protocol::equalsIgnoreCase(value.substr(0, space), "bearer")) {
    return std::nullopt;
  }
  const std::string_view token = trimmed(value.substr(space + 1));
  auto plan = token.empty() ? std::nullopt : config.tokens.find(token);
  if (!plan) {
    return std::nullopt;
  }
  return Caller{std::string(token), *plan};
}

bool isSendMethod(std::string_view method) {
  return method == "message/send" || method == "message/stream";
}

}  // namespace

/// Everything the checks look at, read from the request up front: reading has no side
/// effects, so only the order of the checks decides which fault is reported.
struct RpcDispatcher::Call {
  bool json_content_type = true;
  std::optional<Json> document;
  Envelope envelope;
  bool envelope_valid = false;
  std::optional<Caller> caller;
  bool method_known = false;
  std::string params_error;
  std::optional<SendParams> send;
  std::optional<TaskIdParams> task;
  const Skill* skill = nullptr;
};

std::optional<RpcError> RpcDispatcher::run(Check check, Call& call) {
  switch (check) {
    case Check::Parse:
      if (!call.json_content_type) {
        return profile_.error(Fault::ContentTypeNotSupported);
      }
      if (!call.document) {
        return profile_.error(Fault::ParseError);
      }
      return std::nullopt;
    case Check::Envelope:
      if (call.document && !call.envelope_valid) {
        return profile_.error(Fault::InvalidRequest);
      }
      return std::nullopt;
    case Check::Auth:
      if (profile_.checks_auth && !call.caller) {
        return profile_.error(Fault::Unauthorized);
      }
      return std::nullopt;
    case Check::Plan:
      if (profile_.checks_auth && call.caller && !isPaid(call.caller->plan)) {
        return profile_.error(Fault::PlanRequired);
      }
      return std::nullopt;
    case Check::Method:
      if (call.envelope_valid && !call.method_known) {
        return profile_.error(Fault::MethodNotFound, call.envelope.method);
      }
      return std::nullopt;
    case Check::Params:
      if (call.method_known && !call.params_error.empty()) {
        return profile_.error(Fault::InvalidParams, call.params_error);
      }
      return std::nullopt;
    case Check::Skill:
      if (call.send && call.skill == nullptr) {
        return profile_.error(Fault::SkillNotFound);
      }
      return std::nullopt;
    case Check::Quota:
      // Only message/send counts, and only for a caller the other checks let through.
      if (profile_.checks_quota && config_.quota && call.envelope.method == "message/send" &&
          call.send && call.skill != nullptr && call.caller && isPaid(call.caller->plan)) {
        if (auto wait = limiter_.admit(call.caller->user, call.skill->tier, clock_.now())) {
          RpcError refused = profile_.error(Fault::RateLimited);
          refused.data = Json{{"retryAfter", *wait}};
          return refused;
        }
      }
      return std::nullopt;
  }
  return std::nullopt;
}

MethodOutcome RpcDispatcher::execute(const Call& call) {
  const std::string& method = call.envelope.method;
  const bool complete = call.envelope_valid && call.method_known && call.params_error.empty() &&
                        (!isSendMethod(method) || (call.send && call.skill != nullptr));
  if (!complete) {
    return MethodOutcome::failed(profile_.error(Fault::InternalError));  // a check was skipped
  }
  if (isSendMethod(method)) {
    if (method == "message/stream" && !streaming_) {
      return MethodOutcome::failed(
          profile_.error(Fault::UnsupportedOperation, "Streaming is not supported by this agent"));
    }
    return method == "message/send" ? tasks_.send(*call.send, *call.skill)
                                    : tasks_.stream(*call.send, *call.skill);
  }
  if (method == "tasks/get") {
    return tasks_.get(*call.task);
  }
  if (method == "tasks/cancel") {
    return tasks_.cancel(*call.task);
  }
  if (method == "tasks/resubscribe") {
    if (!streaming_) {
      return MethodOutcome::failed(
          profile_.error(Fault::UnsupportedOperation, "Streaming is not supported by this agent"));
    }
    return tasks_.resubscribe(*call.task);
  }
  if (method.rfind("tasks/pushNotificationConfig/", 0) == 0) {
    return MethodOutcome::failed(profile_.error(Fault::PushNotSupported));
  }
  if (method == "agent/getAuthenticatedExtendedCard") {
    return MethodOutcome::failed(profile_.error(Fault::ExtendedCardNotConfigured));
  }
  return MethodOutcome::failed(profile_.error(Fault::MethodNotFound, method));
}

RpcAnswer RpcDispatcher::dispatch(const protocol::Headers& headers, std::string_view body) {
  RpcAnswer answer{nullptr, {}};
  try {
    Call call;
    call.json_content_type = !profile_.checks_content_type ||
                             isJsonMediaType(protocol::findHeader(headers, "content-type"));
    call.document = parseJsonText(body);
    if (call.document) {
      call.envelope = readEnvelope(*call.document);
      call.envelope_valid = call.envelope.problem.empty();
      answer.id = call.envelope.id.value_or(nullptr);
    }
    call.caller = profile_.checks_auth ? identify(headers, config_)
                                       : std::optional<Caller>(Caller{"anonymous", Plan::Pro});
    const std::string& method = call.envelope.method;
    call.method_known = call.envelope_valid && profile_.answers(method);
    if (call.method_known && isSendMethod(method)) {
      auto read = readSendParams(call.envelope.params, profile_.honours_send_configuration);
      call.send = std::move(read.value);
      call.params_error = std::move(read.error);
    } else if (call.method_known && method.rfind("tasks/", 0) == 0 &&
               method.find("pushNotificationConfig") == std::string::npos) {
      auto read = readTaskIdParams(call.envelope.params, method == "tasks/get");
      call.task = std::move(read.value);
      call.params_error = std::move(read.error);
    }
    if (call.send) {
      const SkillTable& skills = config_.fixtures.skills;
      call.skill = call.send->skill_id ? skills.find(*call.send->skill_id) : &skills.defaultSkill();
      if (call.skill == nullptr && !profile_.routes_skills) {
        call.skill = &skills.defaultSkill();  // a generic server has no skill routing
      }
    }
    for (Check check : config_.check_order) {
      if (auto refused = run(check, call)) {
        answer.outcome = MethodOutcome::failed(std::move(*refused));
        return answer;
      }
    }
    answer.outcome = execute(call);
  } catch (const std::exception&) {
    answer.outcome = MethodOutcome::failed(profile_.error(Fault::InternalError));
  }
  return answer;
}

}  // namespace agentvcr::sim::a2a
