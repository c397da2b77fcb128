#include "agentvcr/metrics/process_metrics.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

namespace agentvcr::metrics {
namespace {

/// The fields of /proc/self/stat this reads, after the command name (proc(5)).
struct ProcessStat {
  double user_ticks = 0;
  double system_ticks = 0;
  double threads = 0;
  double start_ticks = 0;  ///< after boot
  double virtual_bytes = 0;
  double resident_pages = 0;
};

std::optional<ProcessStat> readProcessStat() {
  std::ifstream file("/proc/self/stat");
  std::string line;
  if (!std::getline(file, line)) {
    return std::nullopt;
  }
  // The command name is in parentheses and may hold spaces or parentheses: skip to the last ')'.
  const auto name_end = line.rfind(')');
  if (name_end == std::string::npos) {
    return std::nullopt;
  }
  std::istringstream fields(line.substr(name_end + 2));
  std::vector<std::string> values{std::istream_iterator<std::string>(fields),
                                  std::istream_iterator<std::string>()};
  // Numbered as in proc(5), where field 3 (`state`) is values[0].
  auto field = [&](std::size_t number) { return std::stod(values.at(number - 3)); };
  try {
    return ProcessStat{field(14), field(15), field(20), field(22), field(23), field(24)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Seconds since the epoch at which the machine booted (/proc/stat's `btime`).
std::optional<double> bootTime() {
  std::ifstream file("/proc/stat");
  std::string key;
  double value = 0;
  while (file >> key) {
    if (key == "btime" && file >> value) {
      return value;
    }
    file.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

std::optional<double> openDescriptors() {
  std::error_code ec;
  double count = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++count;
  }
  if (ec) {
    return std::nullopt;
  }
  return count - 1;  // the directory iterator's own descriptor
}

prometheus::MetricFamily single(std::string name, std::string help, prometheus::MetricType type,
                                double value) {
  prometheus::ClientMetric sample;
  if (type == prometheus::MetricType::Counter) {
    sample.counter.value = value;
  } else {
    sample.gauge.value = value;
  }
  return {std::move(name), std::move(help), type, {sample}};
}

}  // namespace

std::vector<prometheus::MetricFamily> collectProcessMetrics() {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  if (const auto stat = readProcessStat()) {
    const double ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
    families.push_back(single("process_cpu_seconds_total", "User and system CPU time spent",
                              MetricType::Counter,
                              (stat->user_ticks + stat->system_ticks) / ticks_per_second));
    families.push_back(single("process_resident_memory_bytes", "Resident memory size",
                              MetricType::Gauge, stat->resident_pages * page_bytes));
    families.push_back(single("process_virtual_memory_bytes", "Virtual memory size",
                              MetricType::Gauge, stat->virtual_bytes));
    families.push_back(
        single("process_threads", "Threads of the process", MetricType::Gauge, stat->threads));
    if (const auto boot = bootTime()) {
      families.push_back(single("process_start_time_seconds",
                                "Start time of the process since the Unix epoch", MetricType::Gauge,
                                *boot + stat->start_ticks / ticks_per_second));
    }
  }
  if (const auto open = openDescriptors()) {
    families.push_back(
        single("process_open_fds", "Open file descriptors", MetricType::Gauge, *open));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    families.push_back(single("process_max_fds", "Maximum number of open file descriptors",
                              MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  return families;
}

}  // namespace agentvcr::metrics
