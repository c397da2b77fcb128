#pragma once

// The scheduling priority of a process's threads, read from /proc, by thread name.

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace agentvcr::testing {

/// The nice value of each thread of `process` ("self", or a pid), by thread name.
inline std::multimap<std::string, int> threadNicenessByName(const std::string& process = "self") {
  std::multimap<std::string, int> niceness;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + process + "/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    std::string stat;
    std::getline(std::ifstream(task.path() / "stat"), stat);
    // After "pid (comm) ", the nice value is the 17th field.
    const auto fields = stat.rfind(')');
    if (name.empty() || fields == std::string::npos) {
      continue;  // the thread ended while we looked
    }
    std::istringstream rest(stat.substr(fields + 2));
    std::string field;
    for (int i = 0; i < 16; ++i) {
      rest >> field;
    }
    int nice = 0;
    if (rest >> nice) {
      niceness.emplace(name, nice);
    }
  }
  return niceness;
}

}  // namespace agentvcr::testing
