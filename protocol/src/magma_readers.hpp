#pragma once

// Readers of the MAGMA inference models, shared by the request, response and coaching parsers
// (private to agentvcr_protocol). Each records its findings and returns the model only when
// the value produced none.

#include <optional>
#include <utility>

#include "agentvcr/protocol/magma.hpp"
#include "field_checks.hpp"

namespace agentvcr::protocol::magma::detail {

using protocol::detail::Findings;

std::optional<AgentInput> readAgentInput(const Json& value, const JsonPath& loc,
                                         Findings& findings);

std::optional<AgentDecision> readAgentDecision(const Json& value, const JsonPath& loc,
                                               Findings& findings,
                                               const ValidationOptions& options);

std::optional<AgentError> readAgentError(const Json& value, const JsonPath& loc,
                                         Findings& findings);

std::optional<AgentOutput> readAgentOutput(const Json& value, const JsonPath& loc,
                                           Findings& findings, const ValidationOptions& options);

/// Wraps a reader's result: the value only when nothing at all was found.
template <class T>
Parsed<T> toParsed(std::optional<T> value, Findings& findings) {
  Parsed<T> parsed;
  if (findings.empty() && value) {
    parsed.value = std::move(value);
  }
  parsed.findings = findings.take();
  return parsed;
}

}  // namespace agentvcr::protocol::magma::detail
