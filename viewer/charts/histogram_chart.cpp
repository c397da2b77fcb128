#include "charts/histogram_chart.hpp"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QPainter>

namespace agentvcr::viewer {
namespace {

/// About one x tick per this many pixels, so that their labels do not collide.
constexpr qreal kPixelsPerXTick = 70;
constexpr qreal kMarkerLabelGap = 3;

}  // namespace

HistogramChart::HistogramChart(QWidget* parent) : ChartWidget(parent) {}

void HistogramChart::setData(HistogramData data) {
  data_ = std::move(data);
  update();
}

HistogramChart::Layout HistogramChart::layout(const QRectF& body) const {
  Layout layout;
  const Histogram& bins = data_.bins;
  layout.y = valueTicks(*std::max_element(bins.counts.begin(), bins.counts.end()));
  // The marker rows only move the plot's top: its width, which places the labels, is known
  // before them.
  layout.plot = plotArea(body, layout.y, 0);
  const double end = bins.bin_start + static_cast<double>(bins.counts.size()) * bins.bin_width;
  int max_ticks = std::max(2, static_cast<int>(layout.plot.width() / kPixelsPerXTick));
  if (data_.discrete) {  // whole-number ticks only
    max_ticks = std::min(max_ticks, static_cast<int>(end - bins.bin_start) + 1);
  }
  layout.x = niceTicks(bins.bin_start, end, max_ticks);
  // Each label takes the lowest row where it overlaps no label already placed.
  std::vector<QRectF> placed;
  int rows = 0;
  for (const ChartMarker& marker : data_.markers) {
    int row = 0;
    while (std::any_of(placed.begin(), placed.end(), [&](const QRectF& other) {
      return markerLabel(layout, marker, row).intersects(other);
    })) {
      ++row;
    }
    placed.push_back(markerLabel(layout, marker, row));
    layout.marker_rows.push_back(row);
    rows = std::max(rows, row + 1);
  }
  layout.plot = plotArea(body, layout.y, rows * labelHeight());
  return layout;
}

qreal HistogramChart::xOf(const Layout& layout, double value) {
  return layout.plot.left() +
         (value - layout.x.first) / (layout.x.last - layout.x.first) * layout.plot.width();
}

QRectF HistogramChart::markerLabel(const Layout& layout, const ChartMarker& marker, int row) {
  const qreal width = QFontMetricsF(labelFont()).horizontalAdvance(marker.label);
  const qreal at = xOf(layout, marker.value);
  const qreal left = at + kMarkerLabelGap + width <= layout.plot.right()
                         ? at + kMarkerLabelGap
                         : at - kMarkerLabelGap - width;
  const qreal height = labelHeight();
  return {left, layout.plot.top() - (row + 1) * height, width, height};
}

void HistogramChart::paintBody(QPainter& painter, const QRectF& body) const {
  const Layout layout = this->layout(body);
  const Histogram& bins = data_.bins;
  paintAxes(painter, body, layout.plot, layout.y, data_.x_label, data_.y_label);
  painter.save();
  painter.setFont(labelFont());
  for (std::size_t i = 0; i < bins.counts.size(); ++i) {
    const double from = bins.bin_start + static_cast<double>(i) * bins.bin_width;
    const qreal left = xOf(layout, from);
    const qreal right = xOf(layout, from + bins.bin_width);
    const qreal top = yOf(layout.plot, layout.y, bins.counts[i]);
    // A pixel apart, so neighbouring bins read as separate bars.
    painter.fillRect(
        QRectF(left + 0.5, top, std::max<qreal>(1, right - left - 1), layout.plot.bottom() - top),
        data_.color);
  }
  painter.setPen(mutedColor());
  const qreal label_height = labelHeight();
  for (const double tick : layout.x.values) {
    const qreal at = xOf(layout, tick);
    painter.drawLine(QPointF(at, layout.plot.bottom()), QPointF(at, layout.plot.bottom() + 3));
    painter.drawText(
        QRectF(at - kPixelsPerXTick / 2, layout.plot.bottom() + 2, kPixelsPerXTick, label_height),
        Qt::AlignHCenter | Qt::AlignTop, tickText(tick, layout.x.step));
  }
  for (std::size_t m = 0; m < data_.markers.size(); ++m) {
    const ChartMarker& marker = data_.markers[m];
    const qreal at = xOf(layout, marker.value);
    const QRectF label = markerLabel(layout, marker, layout.marker_rows[m]);
    painter.setPen(QPen(marker.color, 1.5, Qt::DashLine));
    painter.drawLine(QPointF(at, label.bottom()), QPointF(at, layout.plot.bottom()));
    painter.setPen(marker.color);
    painter.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, marker.label);
  }
  painter.restore();
}

QString HistogramChart::binText(std::size_t index) const {
  const Histogram& bins = data_.bins;
  const double from = bins.bin_start + static_cast<double>(index) * bins.bin_width;
  const double to = from + bins.bin_width;
  if (!data_.discrete) {
    return QStringLiteral("%1 – %2").arg(tickText(from, bins.bin_width),
                                         tickText(to, bins.bin_width));
  }
  const auto first = static_cast<long long>(std::ceil(from));
  const auto last = static_cast<long long>(std::floor(to));
  return first == last ? QString::number(first) : QStringLiteral("%1–%2").arg(first).arg(last);
}

QString HistogramChart::toolTipAt(const QRectF& body, const QPointF& pos) const {
  const Layout layout = this->layout(body);
  if (!layout.plot.contains(pos)) {
    return {};
  }
  const Histogram& bins = data_.bins;
  const double value = layout.x.first + (pos.x() - layout.plot.left()) / layout.plot.width() *
                                            (layout.x.last - layout.x.first);
  const double index = std::floor((value - bins.bin_start) / bins.bin_width);
  if (index < 0 || index >= static_cast<double>(bins.counts.size())) {
    return {};
  }
  const auto at = static_cast<std::size_t>(index);
  return QStringLiteral("%1: %2 %3").arg(binText(at)).arg(bins.counts[at]).arg(data_.y_label);
}

}  // namespace agentvcr::viewer
