#pragma once

// The A2A half of `agentvcr eval` (docs/eval.md, A2A): each recorded context's message/send
// calls sent again to the live agent in recorded order, under the ids the live agent gave, and
// each answer judged against the recorded one. runEvaluation() stores and reports them.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/services/evaluator.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::services::detail {

/// One recorded call to send again, and what came back.
struct PlannedA2aCall {
  A2aEvalCall report;  ///< filled by planA2aCalls(), judged by judgeA2aCall()
  store::A2aCallRow recorded;
  std::string target;        ///< the recorded request's target, below the agent's base path
  std::string a2a_version;   ///< the recorded `A2A-Version` header; empty when absent
  protocol::Json request;    ///< the recorded JSON-RPC request object
  std::string request_body;  ///< as recorded
  protocol::Exchange live;   ///< what was sent and answered
  std::string client_error;  ///< why no answer came; empty when one did
  std::optional<std::int64_t> recorded_ms;  ///< the recorded agent's time to first byte
};

/// The calls of the recorded contexts in `selection` that evaluation sends again, in recorded
/// order: single JSON-RPC `message/send` and `SendMessage` calls answered without a stream. Each
/// is numbered by its place among all its context's calls, as replay --fork-at counts them.
std::vector<PlannedA2aCall> planA2aCalls(const store::ArchiveReader& reader,
                                         const store::ReplaySelection& selection);

/// Sends the calls one after the other: the first of a context as recorded, each later one
/// with the contextId and taskId the live agent gave in place of the recorded ones. Calls
/// `progress` after each answer. With `first_contact`, nothing else has reached the agent yet:
/// when the first call gets no answer at all, throws EvalRefused, as the start-up checks do
/// for a MAGMA agent that is down.
void askA2aCalls(const net::Url& agent, std::chrono::milliseconds timeout,
                 std::vector<PlannedA2aCall>& calls,
                 const std::function<void(std::size_t, std::size_t)>& progress, bool first_contact);

/// The live answer decoded and compared with the recorded one (replay::compareA2aReplies); an
/// answer that never came or came with a non-2xx status is a violation.
A2aEvalCall judgeA2aCall(const PlannedA2aCall& call);

}  // namespace agentvcr::services::detail
