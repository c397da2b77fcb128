#pragma once

// How archive values read in one line or one block of text: the words the viewer's models
// and panes show. Plain std::string in, std::string out (UTF-8), so it is tested without Qt.

#include <cstdint>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/store/rows.hpp"

namespace agentvcr::viewer {

/// A decoded env payload as lines: one per robot outcome ("✓ panda press_button: ok" or
/// "✗ panda press_button: No such button"), then the other `infos` lines, then `error` and
/// `failure_reason`. Empty for a payload with nothing decoded.
struct EnvLine {
  std::string text;
  bool failure = false;
};

std::vector<EnvLine> envLines(const protocol::Json& env_feedback);

/// The instruction in one line: the user's text, or the env outcomes joined with " · ".
std::string instructionSummary(const store::StepRow& step);

/// One candidate's decision in one line: `say "text"`, `panda.press_button(id="sw1")` (several
/// calls joined with "; "), `error invalid_output: message`, or `(empty)`.
std::string decisionSummary(const store::CandidateRow& candidate);

/// Tool calls of a candidate (its JSON array text) as `robot.tool(k=v, ...)` each.
std::vector<std::string> toolCallTexts(const std::string& tool_calls_json);

/// Robots named in an attributes object (`known_robots`), joined with ", ".
std::string robotsText(const protocol::Json& attributes);

/// "850 µs", "12.3 ms", "4.21 s", "3 min 12 s"; empty for a negative span.
std::string durationText(std::int64_t nanoseconds);

/// "2026-11-30 07:54:02" (UTC) from nanoseconds since the epoch.
std::string timestampText(std::int64_t nanoseconds);

/// "07:54:02.123" (UTC, to the millisecond) from nanoseconds since the epoch: calls of one
/// conversation are seconds apart, the date would only repeat.
std::string clockText(std::int64_t nanoseconds);

/// A span in milliseconds with one decimal, "+300.0 ms": stream events compare at a glance
/// when every offset has the same unit.
std::string offsetMsText(std::int64_t nanoseconds);

/// Whitespace runs folded to one space, cut to `max_chars` code points with "…"; the same
/// helper as `agentvcr eval`'s report.
using protocol::oneLine;

/// The raw HTTP exchange as one block: request line, headers and pretty-printed body, then the
/// response, then the timings (what the details' HTTP tab shows for a step or an A2A call).
std::string exchangeText(const store::ExchangeRow& exchange);

/// JSON text indented by 2 spaces, its bytes otherwise as sent (protocol::indentJson: members in
/// their order, numbers and escapes as spelled), or the text as is when it is not JSON.
std::string prettyJson(const std::string& text);

}  // namespace agentvcr::viewer
