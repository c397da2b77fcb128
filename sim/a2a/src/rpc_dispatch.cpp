#include "agentvcr/sim/a2a/rpc_dispatch.hpp"

#include <exception>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/sim/a2a/card.hpp"
#include "agentvcr/sim/a2a/json_rpc.hpp"

namespace agentvcr::sim::a2a {
namespace {

/// The caller a request authenticates as: a token (or "anonymous") and its plan.
struct Caller {
  std::string user;
  Plan plan = Plan::Pro;
};

bool isJsonMediaType(const protocol::HeaderField* content_type) {
  if (content_type == nullptr) {
    return true;  // clients that send none are given the benefit of the doubt
  }
  const std::string_view type = content_type->value;
  return protocol::equalsIgnoreCase(protocol::trimBlanks(type.substr(0, type.find(';'))),
                                    "application/json");
}

std::optional<Caller> identify(const protocol::Headers& headers, const MockConfig& config) {
  const protocol::HeaderField* authorization = protocol::findHeader(headers, "authorization");
  if (authorization == nullptr) {
    return config.no_auth ? std::optional<Caller>(Caller{"anonymous", Plan::Pro}) : std::nullopt;
  }
  const std::string_view value = protocol::trimBlanks(authorization->value);
  const auto space = value.find(' ');
  if (space == std::string_view::npos ||
      !protocol::equalsIgnoreCase(value.substr(0, space), "bearer")) {
    return std::nullopt;
  }
  const std::string_view token = protocol::trimBlanks(value.substr(space + 1));
  auto plan = token.empty() ? std::nullopt : config.tokens.find(token);
  if (!plan) {
    return std::nullopt;
  }
  return Caller{std::string(token), *plan};
}

/// The value of query parameter `name` in `target` ("/a2a?A2A-Version=1.0"), undecoded: a
/// version needs no escaping.
std::string_view queryParameter(std::string_view target, std::string_view name) {
  const auto question = target.find('?');
  if (question == std::string_view::npos) {
    return {};
  }
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto equals = pair.find('=');
    if (pair.substr(0, equals) == name) {
      return equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1);
    }
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  return {};
}

bool isSend(std::optional<Operation> operation) {
  return operation == Operation::Send || operation == Operation::Stream;
}

void giveErrorDetails(MethodOutcome& outcome) {
  if (outcome.error) {
    addV10ErrorDetails(*outcome.error);
  }
  for (StreamFrame& frame : outcome.stream) {
    if (frame.error) {
      addV10ErrorDetails(*frame.error);
    }
  }
}

}  // namespace

/// The A2A version a request asked for, read from its `A2A-Version` header or query parameter.
struct RpcDispatcher::Version {
  WireVersion version = WireVersion::V03;  ///< what to answer in when served
  bool served = true;
  std::string asked;  ///< the value sent ("0.3" when none was), for the -32009 message

  /// Whether errors take v1.0's shape: for v1.0, and for a version newer than the mock knows
  /// (it is refused with v1.0's VersionNotSupported).
  bool v10Errors(const Profile& profile) const {
    return profile.kind == ProfileKind::Standard &&
           (served ? version == WireVersion::V10 : !asked.starts_with("0."));
  }
};

/// Everything the checks look at, read from the request up front: reading has no side
/// effects, so only the order of the checks decides which fault is reported.
struct RpcDispatcher::Call {
  bool json_content_type = true;
  bool parsed = false;
  Envelope envelope;
  bool envelope_valid = false;
  const Version* version = nullptr;
  bool in_batch = false;
  std::optional<Caller> caller;
  std::optional<Operation> operation;  ///< set when the method is known in the version asked
  std::string params_error;
  std::optional<SendParams> send;
  std::optional<TaskIdParams> task;
  std::optional<ListTasksParams> list;
  const Skill* skill = nullptr;
};

std::optional<RpcError> RpcDispatcher::run(Check check, Call& call) {
  switch (check) {
    case Check::Parse:
      if (!call.json_content_type) {
        return profile_.error(Fault::ContentTypeNotSupported);
      }
      if (!call.parsed) {
        return profile_.error(Fault::ParseError);
      }
      return std::nullopt;
    case Check::Envelope:
      if (call.parsed && !call.envelope_valid) {
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
      // The version comes first: it decides which methods exist.
      if (call.envelope_valid && !call.version->served) {
        RpcError refused = profile_.error(Fault::VersionNotSupported, call.version->asked);
        Json served = Json::array();
        for (WireVersion version : profile_.versions) {
          served.push_back(protocol::a2a::wireVersionName(version));
        }
        refused.data = Json{{"supportedVersions", std::move(served)}};
        return refused;
      }
      if (call.envelope_valid && !call.operation) {
        const std::string& method = call.envelope.method;
        // The usual mistake of a hand-written v1.0 call: the header that selects v1.0 is missing.
        const bool v10_name = call.version->version == WireVersion::V03 &&
                              profile_.serves(WireVersion::V10) &&
                              operationOf(method, WireVersion::V10);
        return profile_.error(
            Fault::MethodNotFound,
            v10_name ? method + " (a v1.0 method: send A2A-Version: 1.0)" : method);
      }
      return std::nullopt;
    case Check::Params:
      if (call.operation && !call.params_error.empty()) {
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
      if (profile_.checks_quota && config_.quota && call.operation == Operation::Send &&
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
  const bool complete = call.envelope_valid && call.version->served && call.operation &&
                        call.params_error.empty() &&
                        (!isSend(call.operation) || (call.send && call.skill != nullptr));
  if (!complete) {
    return MethodOutcome::failed(profile_.error(Fault::InternalError));  // a check was skipped
  }
  const WireVersion version = call.version->version;
  const bool streams =
      call.operation == Operation::Stream || call.operation == Operation::Subscribe;
  if (streams && !streaming_) {
    return MethodOutcome::failed(
        profile_.error(Fault::UnsupportedOperation, "Streaming is not supported by this agent"));
  }
  if (streams && call.in_batch) {
    return MethodOutcome::failed(profile_.error(
        Fault::UnsupportedOperation, "A streaming method cannot be answered inside a batch"));
  }
  switch (*call.operation) {
    case Operation::Send:
      return tasks_.send(*call.send, *call.skill, version);
    case Operation::Stream:
      return tasks_.stream(*call.send, *call.skill, version);
    case Operation::GetTask:
      return tasks_.get(*call.task, version);
    case Operation::ListTasks:
      return tasks_.list(*call.list);
    case Operation::Cancel:
      return tasks_.cancel(*call.task, version);
    case Operation::Subscribe:
      return tasks_.subscribe(*call.task, version);
    case Operation::PushConfig:
      return MethodOutcome::failed(profile_.error(Fault::PushNotSupported));
    case Operation::ExtendedCard:
      return extended_card_
                 ? MethodOutcome::ok(version == WireVersion::V10 ? v10Card(*extended_card_)
                                                                 : *extended_card_)
                 : MethodOutcome::failed(profile_.error(Fault::ExtendedCardNotConfigured));
  }
  return MethodOutcome::failed(profile_.error(Fault::MethodNotFound, call.envelope.method));
}

RpcDispatcher::Version RpcDispatcher::readVersion(const protocol::HttpRequest& request) const {
  Version read;
  if (!profile_.reads_version_header) {
    return read;
  }
  const protocol::HeaderField* header = protocol::findHeader(request.headers, "a2a-version");
  std::string_view asked = header != nullptr ? std::string_view(header->value)
                                             : queryParameter(request.target, "A2A-Version");
  asked = protocol::trimBlanks(asked);
  // No version named means 0.3 (a2a-v1.md, "Versions on the wire").
  const std::optional<WireVersion> version =
      asked.empty() ? std::optional<WireVersion>(WireVersion::V03) : versionFromText(asked);
  read.asked = asked.empty() ? "0.3" : std::string(asked);
  read.served = version && profile_.serves(*version);
  if (version) {
    read.version = *version;
  }
  return read;
}

void RpcDispatcher::readParams(Call& call) const {
  const std::optional<Json>& params = call.envelope.params;
  switch (*call.operation) {
    case Operation::Send:
    case Operation::Stream: {
      auto read = readSendParams(params, call.version->version, profile_.honours_send_configuration,
                                 !profile_.ignores_unknown_fields);
      call.send = std::move(read.value);
      call.params_error = std::move(read.error);
      return;
    }
    case Operation::GetTask:
    case Operation::Cancel:
    case Operation::Subscribe: {
      auto read = readTaskIdParams(params, call.operation == Operation::GetTask);
      call.task = std::move(read.value);
      call.params_error = std::move(read.error);
      return;
    }
    case Operation::ListTasks: {
      auto read = readListTasksParams(params);
      call.list = std::move(read.value);
      call.params_error = std::move(read.error);
      return;
    }
    case Operation::PushConfig:
      call.params_error = checkObjectParams(params, false);
      return;
    case Operation::ExtendedCard:
      call.params_error = checkObjectParams(params, true);
      return;
  }
}

RpcAnswer RpcDispatcher::answer(const protocol::Headers& headers, bool json_content_type,
                                const Json* document, const Version& version, bool in_batch) {
  RpcAnswer answer{nullptr, {}};
  try {
    Call call;
    call.json_content_type = json_content_type;
    call.parsed = document != nullptr;
    call.version = &version;
    call.in_batch = in_batch;
    if (document != nullptr) {
      call.envelope = readEnvelope(*document, profile_.requires_id);
      call.envelope_valid = call.envelope.problem.empty();
      answer.id = call.envelope.id.value_or(nullptr);
    }
    call.caller = profile_.checks_auth ? identify(headers, config_)
                                       : std::optional<Caller>(Caller{"anonymous", Plan::Pro});
    if (call.envelope_valid && version.served) {
      call.operation = profile_.answers(call.envelope.method, version.version);
    }
    if (call.operation) {
      readParams(call);
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
        break;
      }
    }
    if (!answer.outcome.error) {
      answer.outcome = execute(call);
    }
  } catch (const std::exception&) {
    answer.outcome = MethodOutcome::failed(profile_.error(Fault::InternalError));
  }
  if (version.v10Errors(profile_)) {
    giveErrorDetails(answer.outcome);
  }
  return answer;
}

RpcAnswers RpcDispatcher::dispatch(const protocol::HttpRequest& request) {
  RpcAnswers answers;
  const bool json_content_type =
      !profile_.checks_content_type ||
      isJsonMediaType(protocol::findHeader(request.headers, "content-type"));
  const std::optional<Json> document = parseJsonText(request.body);
  const Version version = readVersion(request);
  if (document && document->is_array() && profile_.accepts_batches && json_content_type) {
    if (document->empty()) {
      // JSON-RPC 2.0 §6: an empty batch is one Invalid Request, not an empty array.
      MethodOutcome refused = MethodOutcome::failed(profile_.error(Fault::InvalidRequest));
      if (version.v10Errors(profile_)) {
        giveErrorDetails(refused);
      }
      answers.answers.push_back({nullptr, std::move(refused)});
      return answers;
    }
    answers.batch = true;
    for (const Json& element : *document) {
      answers.answers.push_back(answer(request.headers, true, &element, version, true));
    }
    return answers;
  }
  answers.answers.push_back(
      answer(request.headers, json_content_type, document ? &*document : nullptr, version, false));
  return answers;
}

}  // namespace agentvcr::sim::a2a
