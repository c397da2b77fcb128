#pragma once

// What a chart shows, apart from how it is painted: plain values the viewer's models compute
// and the tests check, and the chart widgets only draw.

#include <cstddef>
#include <vector>

#include <QColor>
#include <QString>
#include <QStringList>

namespace agentvcr::viewer {

/// One named series: a value per category (bar charts) or per bin (histograms).
struct ChartSeries {
  QString name;
  QColor color;
  std::vector<double> values;
};

/// A labelled vertical line at an x value of a histogram ("p95" at 120 ms).
struct ChartMarker {
  QString label;
  double value = 0;
  QColor color;
};

/// Bars over categories (robots, tools, time buckets, conversations), one bar per category with
/// the series stacked on it in order, the first at the bottom.
struct BarChartData {
  QString title;
  QString x_label;
  QString y_label;
  QStringList categories;
  std::vector<ChartSeries> series;  ///< each holds one value per category

  /// The height of the stacked bar of category `index`.
  double total(std::size_t index) const {
    double sum = 0;
    for (const ChartSeries& s : series) {
      sum += index < s.values.size() ? s.values[index] : 0;
    }
    return sum;
  }

  bool empty() const { return categories.isEmpty() || series.empty(); }
};

/// Counts of values in equal bins [bin_start + i * bin_width, bin_start + (i + 1) * bin_width).
struct Histogram {
  double bin_start = 0;
  double bin_width = 1;
  std::vector<double> counts;

  bool empty() const { return counts.empty(); }
};

/// A histogram with its labels and markers.
struct HistogramData {
  QString title;
  QString x_label;
  QString y_label;
  Histogram bins;
  /// True when the values are whole numbers (steps): bins are centred on them and read as
  /// "steps 2–3" rather than as a span.
  bool discrete = false;
  QColor color;
  std::vector<ChartMarker> markers;
};

/// The colour of the `index`-th series of a chart whose series have no colour of their own
/// (tools, robots): distinct hues, then repeating.
inline QColor seriesColor(std::size_t index) {
  static const QColor kPalette[] = {
      QColor(66, 133, 204),  QColor(230, 140, 50), QColor(80, 170, 100),  QColor(200, 80, 80),
      QColor(140, 110, 190), QColor(150, 110, 80), QColor(220, 120, 180), QColor(120, 120, 120),
      QColor(180, 180, 60),  QColor(70, 180, 190)};
  return kPalette[index % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

}  // namespace agentvcr::viewer
