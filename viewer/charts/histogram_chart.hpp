#pragma once

#include <vector>

#include "charts/chart_data.hpp"
#include "charts/chart_widget.hpp"

namespace agentvcr::viewer {

/// The bins of a HistogramData over a numeric x axis, with each marker (p50, p95, p99) a dashed
/// vertical line labelled above the plot; labels that would overlap take another row.
class HistogramChart : public ChartWidget {
  Q_OBJECT

 public:
  explicit HistogramChart(QWidget* parent = nullptr);

  void setData(HistogramData data);

  const HistogramData& data() const { return data_; }

  QString title() const override { return data_.title; }

  bool isEmpty() const override { return data_.bins.empty(); }

 protected:
  void paintBody(QPainter& painter, const QRectF& body) const override;
  QString toolTipAt(const QRectF& body, const QPointF& pos) const override;

 private:
  /// Where everything goes in a body: the plot, both axes, each marker's label row.
  struct Layout {
    QRectF plot;
    AxisTicks x;
    AxisTicks y;
    std::vector<int> marker_rows;  ///< 0 is the row just above the plot
  };

  Layout layout(const QRectF& body) const;
  static qreal xOf(const Layout& layout, double value);
  /// The span of a marker's label, to the right of its line unless that leaves the plot.
  static QRectF markerLabel(const Layout& layout, const ChartMarker& marker, int row);
  /// Bin `index` as the tooltip names it: "120 – 140", or for whole values "3" or "2–3".
  QString binText(std::size_t index) const;

  HistogramData data_;
};

}  // namespace agentvcr::viewer
