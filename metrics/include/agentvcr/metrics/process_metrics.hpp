#pragma once

#include <vector>

#include <prometheus/metric_family.h>

namespace agentvcr::metrics {

/// The process's own figures under the names every Prometheus client uses: CPU seconds,
/// resident and virtual memory, start time, open and maximum file descriptors, and threads.
/// Read from /proc/self at each call; a figure that cannot be read is left out.
std::vector<prometheus::MetricFamily> collectProcessMetrics();

}  // namespace agentvcr::metrics
