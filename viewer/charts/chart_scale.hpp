#pragma once

// The arithmetic of chart axes and bins, without painting: round tick steps (1, 2 or 5 times a
// power of ten) and equal-width histogram bins.

#include <vector>

#include "charts/chart_data.hpp"

namespace agentvcr::viewer {

/// The smallest step of the form {1, 2, 5} × 10^k that is at least `rough` (> 0).
double niceStep(double rough);

/// Ticks of an axis that covers [lo, hi]: the first at or below lo, the last at or above hi,
/// a niceStep() apart, at most about `max_ticks` of them (at least 2).
struct AxisTicks {
  double first = 0;
  double last = 1;
  double step = 1;
  std::vector<double> values;  ///< first, first + step, ..., last
};

AxisTicks niceTicks(double lo, double hi, int max_ticks);

/// `values` counted in about `target_bins` bins of a niceStep() width, the first bin starting at
/// a multiple of the width at or below the smallest value. With `discrete` the values are whole
/// numbers: the width is a whole number and each bin is centred on whole numbers (width 1: bin
/// k - 0.5 to k + 0.5 holds k). Empty for no values.
Histogram binValues(const std::vector<double>& values, int target_bins, bool discrete = false);

}  // namespace agentvcr::viewer
