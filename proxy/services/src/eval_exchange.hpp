#pragma once

// The exchange an evaluation stores for each request it sends, MAGMA or A2A: what eval's client
// read, in the shape the recorder stores, so that the run's exchanges read as a recording does.

#include <string>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::services::detail {

/// The agent's answer and the timing points eval's client read, into `live`.
void takeAnswer(protocol::Exchange& live, net::ClientResponse response);

/// `live` got no answer: why, as the stored error the viewer's report recognises.
void takeNoAnswer(protocol::Exchange& live, const std::string& why);

}  // namespace agentvcr::services::detail
