#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/validation.hpp"

/// Error bodies shaped like the ones the reference FastAPI servers send (magma-protocol.md §8),
/// compact with raw UTF-8 and keys in FastAPI's order.
namespace agentvcr::protocol {

/// `{"detail":[{"type","loc":["body",...],"msg","input"}, ...]}` from validation findings.
std::string validationErrorBody(const std::vector<Finding>& findings);

/// `{"detail":[{"type":"json_invalid","loc":["body",OFFSET],"msg":"JSON decode error",
/// "input":{},"ctx":{"error":MESSAGE}}]}` for a body that is not JSON.
std::string jsonDecodeErrorBody(const JsonSyntaxError& error);

/// `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}` for
/// an empty body.
std::string missingBodyErrorBody();

/// `{"detail":"<message>"}`: an agent-specific refusal (full-history's own 422s, 503s).
std::string detailBody(std::string_view message);

}  // namespace agentvcr::protocol
