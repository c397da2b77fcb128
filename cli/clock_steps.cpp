#include "agentvcr/cli/clock_steps.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>

#include "agentvcr/protocol/http_message.hpp"

namespace agentvcr::cli {
namespace {

/// `text` as a whole decimal integer (a leading '-' allowed), or nothing.
std::optional<std::int64_t> wholeInteger(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::vector<ClockStep> parseClockSteps(std::string_view text) {
  std::vector<ClockStep> steps;
  if (text.empty()) {
    return steps;
  }
  for (;;) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t colon = item.find(':');
    const std::optional<std::int64_t> after =
        colon == std::string_view::npos ? std::nullopt : wholeInteger(item.substr(0, colon));
    const std::optional<std::int64_t> by =
        colon == std::string_view::npos ? std::nullopt : wholeInteger(item.substr(colon + 1));
    if (!after || !by || *after < 0) {
      throw std::invalid_argument(std::string(kClockStepsVariable) + ": '" + std::string(item) +
                                  "' is not AFTER_MS:STEP_MS (AFTER_MS at least 0)");
    }
    if (!steps.empty() && steps.back().after.count() > *after) {
      throw std::invalid_argument(std::string(kClockStepsVariable) + ": '" + std::string(item) +
                                  "' comes before the step ahead of it");
    }
    steps.push_back({std::chrono::milliseconds(*after), std::chrono::milliseconds(*by)});
    if (comma == std::string_view::npos) {
      return steps;
    }
    text = text.substr(comma + 1);
  }
}

std::function<std::int64_t()> steppedClock(std::vector<ClockStep> steps) {
  const auto made = std::chrono::steady_clock::now();
  return [made, steps = std::move(steps)] {
    const auto since = std::chrono::steady_clock::now() - made;
    std::int64_t offset_ns = 0;
    for (const ClockStep& step : steps) {
      if (since < step.after) {
        break;
      }
      offset_ns += std::chrono::nanoseconds(step.by).count();
    }
    return protocol::nowNs() + offset_ns;
  };
}

}  // namespace agentvcr::cli
