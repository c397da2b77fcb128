#pragma once

// MAGMA bodies exactly as FastAPI emits them (magma-protocol.md §5.2, §7, §8, §19 without line
// breaks), shared by the protocol unit tests that parse, validate and serialise them.

namespace agentvcr::protocol::test {

// §5.2: one completed candidate.
inline constexpr const char* kCompleted =
    R"([{"request_id":"demo","source_id":7,"candidate_index":0,"status":"completed","memory":{},"internal_steps":[],"output":{"say":"Hello!","tool_calls":[]},"error":null}])";

// §8: an error candidate.
inline constexpr const char* kErrorCandidate =
    R"([{"request_id":"demo","source_id":7,"candidate_index":0,"status":"error","memory":{},"internal_steps":[],"output":null,"error":{"code":"model_error","message":"The model returned invalid JSON.","component":"model"}}])";

// §19, Episode A startup: what full-history-agent advertises.
inline constexpr const char* kFullHistoryInfo =
    R"({"protocol_version":"2.0","agent_id":"full-history-agent","agent_version":"2.0.0","specialized_coaching":["failure","suboptimal","format"],"coaching_resume":true,"coaching_session_version":"1","coaching_unavailable_reason":null,"capabilities":{"inference":true,"coaching":true}})";

// §7: what gpt-agent advertises.
inline constexpr const char* kGptAgentInfo =
    R"({"protocol_version":"2.0","agent_id":"gpt-agent","agent_version":"0.3.1","specialized_coaching":[],"coaching_resume":false,"coaching_session_version":null,"coaching_unavailable_reason":"Coaching is not available in gpt-agent","capabilities":{"inference":true,"coaching":false}})";

}  // namespace agentvcr::protocol::test
