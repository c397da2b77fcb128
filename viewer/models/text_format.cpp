#include "models/text_format.hpp"

#include <ctime>
#include <iomanip>
#include <sstream>

#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::viewer {
namespace {

using protocol::Json;

std::string stringOr(const Json& value, const char* key) {
  auto found = value.find(key);
  return found != value.end() && found->is_string() ? found->get<std::string>() : std::string{};
}

/// A JSON value as a person writes an argument: strings quoted, the rest compact.
std::string argumentText(const Json& value) {
  return protocol::pythonJsonDumps(value);
}

std::string headersText(const protocol::Headers& headers) {
  std::string text;
  for (const auto& header : headers) {
    text += header.name + ": " + header.value + "\n";
  }
  return text;
}

}  // namespace

std::vector<EnvLine> envLines(const Json& env_feedback) {
  std::vector<EnvLine> lines;
  if (!env_feedback.is_object()) {
    return lines;
  }
  if (auto outcomes = env_feedback.find("outcomes"); outcomes != env_feedback.end()) {
    for (const Json& outcome : *outcomes) {
      const bool succeeded = outcome.value("succeeded", false);
      lines.push_back({std::string(succeeded ? "✓ " : "✗ ") + stringOr(outcome, "robot") + " " +
                           stringOr(outcome, "tool") + ": " + stringOr(outcome, "message"),
                       !succeeded});
    }
  }
  if (auto others = env_feedback.find("other_lines"); others != env_feedback.end()) {
    for (const Json& line : *others) {
      if (line.is_string()) {
        lines.push_back({line.get<std::string>(), false});
      }
    }
  }
  for (const char* key : {"error", "failure_reason"}) {
    const std::string text = stringOr(env_feedback, key);
    if (!text.empty()) {
      lines.push_back({std::string(key) + ": " + text, true});
    }
  }
  return lines;
}

std::string instructionSummary(const store::StepRow& step) {
  if (step.instruction_type != "env") {
    return oneLine(step.instruction_content);
  }
  std::string joined;
  for (const EnvLine& line : envLines(step.env_feedback)) {
    joined += (joined.empty() ? "" : " · ") + line.text;
  }
  return oneLine(joined.empty() ? step.instruction_content : joined);
}

std::vector<std::string> toolCallTexts(const std::string& tool_calls_json) {
  std::vector<std::string> texts;
  auto parsed = protocol::parseJson(tool_calls_json);
  if (!parsed.value || !parsed.value->is_array()) {
    return texts;
  }
  for (const Json& call : *parsed.value) {
    std::string text = stringOr(call, "target_robot_name") + "." + stringOr(call, "name") + "(";
    if (auto arguments = call.find("arguments");
        arguments != call.end() && arguments->is_object()) {
      bool first = true;
      for (const auto& [name, value] : arguments->items()) {
        text += (first ? "" : ", ") + name + "=" + argumentText(value);
        first = false;
      }
    }
    texts.push_back(text + ")");
  }
  return texts;
}

std::string decisionSummary(const store::CandidateRow& candidate) {
  if (candidate.status == "error") {
    return oneLine("error " + candidate.error_code.value_or("?") + ": " +
                   candidate.error_message.value_or(""));
  }
  std::string text;
  if (candidate.say && !candidate.say->empty()) {
    text = "say \"" + *candidate.say + "\"";
  }
  for (const std::string& call : toolCallTexts(candidate.tool_calls.value_or("[]"))) {
    text += (text.empty() ? "" : "; ") + call;
  }
  return text.empty() ? "(empty)" : oneLine(text);
}

std::string robotsText(const Json& attributes) {
  std::string text;
  if (auto robots = attributes.find("known_robots");
      robots != attributes.end() && robots->is_array()) {
    for (const Json& robot : *robots) {
      if (robot.is_string()) {
        text += (text.empty() ? "" : ", ") + robot.get<std::string>();
      }
    }
  }
  return text;
}

std::string durationText(std::int64_t nanoseconds) {
  if (nanoseconds < 0) {
    return {};
  }
  std::ostringstream out;
  out << std::fixed;
  if (nanoseconds < 1'000'000) {
    out << nanoseconds / 1000 << " µs";
  } else if (nanoseconds < 1'000'000'000) {
    out << std::setprecision(1) << static_cast<double>(nanoseconds) / 1e6 << " ms";
  } else if (nanoseconds < 60'000'000'000) {
    out << std::setprecision(2) << static_cast<double>(nanoseconds) / 1e9 << " s";
  } else {
    const std::int64_t seconds = nanoseconds / 1'000'000'000;
    out << seconds / 60 << " min " << seconds % 60 << " s";
  }
  return out.str();
}

std::string timestampText(std::int64_t nanoseconds) {
  const std::time_t seconds = static_cast<std::time_t>(nanoseconds / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::ostringstream out;
  out << std::put_time(&utc, "%Y-%m-%d %H:%M:%S");
  return out.str();
}

std::string clockText(std::int64_t nanoseconds) {
  const std::time_t seconds = static_cast<std::time_t>(nanoseconds / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::ostringstream out;
  out << std::put_time(&utc, "%H:%M:%S") << '.' << std::setw(3) << std::setfill('0')
      << (nanoseconds / 1'000'000) % 1000;
  return out.str();
}

std::string offsetMsText(std::int64_t nanoseconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << (nanoseconds < 0 ? "" : "+")
      << static_cast<double>(nanoseconds) / 1e6 << " ms";
  return out.str();
}

std::string exchangeText(const store::ExchangeRow& exchange) {
  std::ostringstream out;
  out << exchange.method << " " << exchange.target << " HTTP/" << exchange.http_version / 10 << "."
      << exchange.http_version % 10 << "\n"
      << headersText(exchange.request_headers) << "\n"
      << prettyJson(exchange.request_body) << "\n\n"
      << "── response " << exchange.status << " (" << exchange.outcome << ")\n"
      << headersText(exchange.response_headers) << "\n"
      << prettyJson(exchange.response_body) << "\n\n"
      << "── timings\nstarted " << timestampText(exchange.started_ns) << " UTC\n";
  if (exchange.upstream_first_byte_ns) {
    out << "first response byte after "
        << durationText(*exchange.upstream_first_byte_ns - exchange.started_ns) << "\n";
  }
  if (exchange.ended_ns) {
    out << "ended after " << durationText(*exchange.ended_ns - exchange.started_ns) << "\n";
  }
  if (exchange.error) {
    out << "error: " << *exchange.error << "\n";
  }
  return out.str();
}

std::string prettyJson(const std::string& text) {
  return protocol::indentJson(text).value_or(text);
}

}  // namespace agentvcr::viewer
