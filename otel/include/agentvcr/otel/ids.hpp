#pragma once

#include <cstdint>
#include <string>
#include <string_view>

/// Trace and span ids derived from what a recording is, never drawn at random: the same
/// archive exported twice, or from a copy, gives the same ids, so a collector that
/// deduplicates keeps one copy of each span.
namespace agentvcr::otel {

/// 32 lowercase hex digits: XXH3-128 of the session's uuid and the conversation's number.
std::string conversationTraceId(std::string_view session_uuid, std::int64_t conversation);

/// 32 lowercase hex digits: the trace of an exchange that belongs to no conversation (a health
/// probe, a request that did not validate), from the session's uuid and the exchange's `seq`.
std::string exchangeTraceId(std::string_view session_uuid, std::int64_t seq);

/// 16 lowercase hex digits: XXH3-64 of the trace id and `path`, the span's place in the trace
/// ("exchange/3", "candidate/3/0/1"...). A span in several traces gets one id in each.
std::string spanId(std::string_view trace_id, std::string_view path);

}  // namespace agentvcr::otel
