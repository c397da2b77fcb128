#include "charts/chart_scale.hpp"

#include <algorithm>
#include <cmath>

namespace agentvcr::viewer {
namespace {

/// Slack for values that land on a multiple of a step only up to rounding (0.1 / 0.1 * 0.3).
constexpr double kRoundingSlack = 1e-9;

}  // namespace

double niceStep(double rough) {
  if (!(rough > 0) || !std::isfinite(rough)) {
    return 1;
  }
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  for (const double multiple : {1.0, 2.0, 5.0}) {
    if (multiple * magnitude >= rough * (1 - kRoundingSlack)) {
      return multiple * magnitude;
    }
  }
  return 10 * magnitude;
}

AxisTicks niceTicks(double lo, double hi, int max_ticks) {
  if (hi < lo) {
    std::swap(lo, hi);
  }
  if (hi == lo) {  // one value (or none): widen the axis so it still has a span to divide
    hi = lo + (lo == 0 ? 1 : std::abs(lo));
  }
  AxisTicks ticks;
  ticks.step = niceStep((hi - lo) / std::max(1, max_ticks - 1));
  // Ticks are computed as whole multiples of the step so that 0.1 * 3 prints as 0.3, not
  // 0.30000000000000004 accumulated from repeated additions.
  const auto first_index = static_cast<long long>(std::floor(lo / ticks.step + kRoundingSlack));
  const auto last_index = static_cast<long long>(std::ceil(hi / ticks.step - kRoundingSlack));
  for (long long i = first_index; i <= last_index; ++i) {
    ticks.values.push_back(static_cast<double>(i) * ticks.step);
  }
  ticks.first = ticks.values.front();
  ticks.last = ticks.values.back();
  return ticks;
}

Histogram binValues(const std::vector<double>& values, int target_bins, bool discrete) {
  Histogram histogram;
  if (values.empty()) {
    return histogram;
  }
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it;
  const double hi = *hi_it;
  const int bins = std::max(1, target_bins);
  // All values equal: a bin width on the scale of the value itself, so that one bar shows.
  const double rough = hi > lo ? (hi - lo) / bins : std::max(std::abs(lo), 1.0) / bins;
  histogram.bin_width = discrete ? std::max(1.0, std::round(niceStep(rough))) : niceStep(rough);
  histogram.bin_start = std::floor(lo / histogram.bin_width) * histogram.bin_width;
  if (discrete) {
    histogram.bin_start -= 0.5;
  }
  const auto count =
      static_cast<std::size_t>(std::floor((hi - histogram.bin_start) / histogram.bin_width)) + 1;
  histogram.counts.assign(count, 0);
  for (const double value : values) {
    const auto index =
        static_cast<std::size_t>(std::floor((value - histogram.bin_start) / histogram.bin_width));
    histogram.counts[std::min(index, count - 1)] += 1;
  }
  return histogram;
}

}  // namespace agentvcr::viewer
