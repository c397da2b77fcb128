#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::protocol {

const char* outcomeName(ExchangeOutcome outcome) {
  switch (outcome) {
    case ExchangeOutcome::Complete:
      return "complete";
    case ExchangeOutcome::UpstreamError:
      return "upstream_error";
    case ExchangeOutcome::UpstreamTimeout:
      return "upstream_timeout";
    case ExchangeOutcome::RequestRejected:
      return "request_rejected";
    case ExchangeOutcome::ClientAborted:
      return "client_aborted";
    case ExchangeOutcome::Injected:
      return "injected";
  }
  return "unknown";
}

std::optional<ExchangeOutcome> outcomeFromName(std::string_view name) {
  for (auto outcome : {ExchangeOutcome::Complete, ExchangeOutcome::UpstreamError,
                       ExchangeOutcome::UpstreamTimeout, ExchangeOutcome::RequestRejected,
                       ExchangeOutcome::ClientAborted, ExchangeOutcome::Injected}) {
    if (name == outcomeName(outcome)) {
      return outcome;
    }
  }
  return std::nullopt;
}

}  // namespace agentvcr::protocol
