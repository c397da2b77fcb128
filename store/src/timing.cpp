#include "agentvcr/store/timing.hpp"

namespace agentvcr::store {
namespace {

std::optional<std::int64_t> between(std::optional<std::int64_t> from,
                                    std::optional<std::int64_t> to) {
  if (!from || !to) {
    return std::nullopt;
  }
  return *to - *from;
}

}  // namespace

TimingSplit timingSplit(const ExchangeRow& exchange) {
  TimingSplit split;
  split.caller_to_proxy = between(exchange.started_ns, exchange.request_ended_ns);
  split.proxy_to_agent = between(exchange.request_ended_ns, exchange.upstream_sent_ns);
  split.agent = between(exchange.upstream_sent_ns, exchange.upstream_first_byte_ns);
  split.agent_body = between(exchange.upstream_first_byte_ns, exchange.upstream_last_byte_ns);
  split.relay = between(exchange.upstream_last_byte_ns, exchange.ended_ns);
  return split;
}

}  // namespace agentvcr::store
