#pragma once

#include <vector>

#include "charts/chart_data.hpp"
#include "charts/chart_widget.hpp"

namespace agentvcr::viewer {

/// One bar per category with the series stacked on it (BarChartData), a legend of the series
/// above: counts per robot or tool, per time bucket, rates per conversation. When the
/// categories' labels do not fit under their bars, every few bars is labelled.
class StackedBarChart : public ChartWidget {
  Q_OBJECT

 public:
  explicit StackedBarChart(QWidget* parent = nullptr);

  void setData(BarChartData data);

  const BarChartData& data() const { return data_; }

  QString title() const override { return data_.title; }

  bool isEmpty() const override { return data_.empty(); }

 protected:
  void paintBody(QPainter& painter, const QRectF& body) const override;
  QString toolTipAt(const QRectF& body, const QPointF& pos) const override;

 private:
  /// Where everything goes in a body: the legend's swatches, the plot, its value axis, the
  /// width of one category.
  struct Layout {
    std::vector<QRectF> legend;  ///< one swatch per series; its name follows to the right
    QRectF plot;
    AxisTicks y;
    qreal band = 0;
  };

  Layout layout(const QRectF& body) const;
  /// The bar of category `index`, full height of the plot.
  static QRectF barColumn(const Layout& layout, int index);

  BarChartData data_;
};

}  // namespace agentvcr::viewer
