#include "eval_exchange.hpp"

#include <utility>

#include "agentvcr/replay/live_answer.hpp"

namespace agentvcr::services::detail {

void takeAnswer(protocol::Exchange& live, net::ClientResponse response) {
  live.upstream_sent_ns = response.sent_ns;
  live.upstream_first_byte_ns = response.first_byte_ns;
  live.upstream_last_byte_ns = response.last_byte_ns;
  live.status = response.status;
  live.response_headers = std::move(response.headers);
  live.response_body = std::move(response.body);
  live.response_from_upstream = true;
  live.outcome = protocol::ExchangeOutcome::Complete;
}

void takeNoAnswer(protocol::Exchange& live, const std::string& why) {
  live.outcome = protocol::ExchangeOutcome::UpstreamError;
  live.error = std::string(replay::kNoAnswerErrorPrefix) + why;
}

}  // namespace agentvcr::services::detail
