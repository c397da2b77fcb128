#pragma once

#include <map>
#include <sstream>
#include <string>
#include <string_view>

namespace agentvcr::testing {

/// The samples of a Prometheus text exposition, keyed by the series as written
/// (`agentvcr_exchanges_total{route="health",status="200"}`); comments are left out. Header
/// only, for tests of any layer.
inline std::map<std::string, double> prometheusSamples(std::string_view text) {
  std::map<std::string, double> samples;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto space = line.rfind(' ');
    samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return samples;
}

/// The value of `series`, or -1 when the exposition has no such sample.
inline double prometheusSample(std::string_view text, const std::string& series) {
  const auto samples = prometheusSamples(text);
  const auto found = samples.find(series);
  return found == samples.end() ? -1 : found->second;
}

}  // namespace agentvcr::testing
