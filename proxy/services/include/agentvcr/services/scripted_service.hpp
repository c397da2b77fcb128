#pragma once

#include <memory>
#include <string>

#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/sim/magma/scripted_agent.hpp"

namespace agentvcr::services {

/// The HTTP routes of the scripted MAGMA agent: GET /health, GET /v1/info and
/// POST /v1/responses; anything else gets FastAPI's 404 or 405 body.
proxy::LocalHandler scriptedAgentRoutes(std::shared_ptr<const sim::magma::ScriptedAgent> agent);

/// Loads a script file into an agent. Throws std::runtime_error naming the file and the fault.
std::shared_ptr<const sim::magma::ScriptedAgent> loadScriptedAgent(const std::string& path);

/// The whole content of a file. Throws std::runtime_error when it cannot be read.
std::string readTextFile(const std::string& path);

}  // namespace agentvcr::services
