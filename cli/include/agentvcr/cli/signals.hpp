#pragma once

namespace agentvcr::cli {

/// Blocks the calling thread until SIGINT or SIGTERM arrives; returns the signal number.
int waitForStopSignal();

}  // namespace agentvcr::cli
