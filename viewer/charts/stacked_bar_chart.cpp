#include "charts/stacked_bar_chart.hpp"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QPainter>

namespace agentvcr::viewer {
namespace {

constexpr qreal kSwatch = 10;
constexpr qreal kLegendGap = 14;
/// The part of a category's width its bar takes; the rest separates neighbours.
constexpr qreal kBarShare = 0.7;
constexpr qreal kLabelGap = 6;

}  // namespace

StackedBarChart::StackedBarChart(QWidget* parent) : ChartWidget(parent) {}

void StackedBarChart::setData(BarChartData data) {
  data_ = std::move(data);
  update();
}

StackedBarChart::Layout StackedBarChart::layout(const QRectF& body) const {
  Layout layout;
  const QFontMetricsF metrics(labelFont());
  const qreal row_height = labelHeight() + 2;
  // The legend flows left to right in rows as wide as the body.
  qreal x = body.left() + kLegendGap;
  qreal y = body.top();
  for (const ChartSeries& series : data_.series) {
    const qreal width = kSwatch + 4 + metrics.horizontalAdvance(series.name);
    if (x + width > body.right() && x > body.left() + kLegendGap) {
      x = body.left() + kLegendGap;
      y += row_height;
    }
    layout.legend.emplace_back(x, y + (row_height - kSwatch) / 2, kSwatch, kSwatch);
    x += width + kLegendGap;
  }
  const qreal legend_height = data_.series.empty() ? 0 : y + row_height - body.top();
  double max_total = 0;
  for (int i = 0; i < data_.categories.size(); ++i) {
    max_total = std::max(max_total, data_.total(static_cast<std::size_t>(i)));
  }
  layout.y = valueTicks(max_total);
  layout.plot = plotArea(body, layout.y, legend_height);
  layout.band = layout.plot.width() / std::max<qsizetype>(1, data_.categories.size());
  return layout;
}

QRectF StackedBarChart::barColumn(const Layout& layout, int index) {
  const qreal width = std::max<qreal>(1, layout.band * kBarShare);
  const qreal centre = layout.plot.left() + (index + 0.5) * layout.band;
  return {centre - width / 2, layout.plot.top(), width, layout.plot.height()};
}

void StackedBarChart::paintBody(QPainter& painter, const QRectF& body) const {
  const Layout layout = this->layout(body);
  paintAxes(painter, body, layout.plot, layout.y, data_.x_label, data_.y_label);
  painter.save();
  painter.setFont(labelFont());
  for (std::size_t s = 0; s < data_.series.size(); ++s) {
    const QRectF& swatch = layout.legend[s];
    painter.fillRect(swatch, data_.series[s].color);
    painter.setPen(textColor());
    painter.drawText(QPointF(swatch.right() + 4, swatch.bottom()), data_.series[s].name);
  }
  painter.setPen(Qt::NoPen);
  for (int i = 0; i < data_.categories.size(); ++i) {
    const QRectF column = barColumn(layout, i);
    double base = 0;
    for (const ChartSeries& series : data_.series) {
      const double value = static_cast<std::size_t>(i) < series.values.size()
                               ? series.values[static_cast<std::size_t>(i)]
                               : 0;
      if (value <= 0) {
        continue;
      }
      const qreal top = yOf(layout.plot, layout.y, base + value);
      const qreal bottom = yOf(layout.plot, layout.y, base);
      painter.fillRect(QRectF(column.left(), top, column.width(), bottom - top), series.color);
      base += value;
    }
  }
  // Label every `stride`-th category, so that the widest label fits in the room it gets.
  const QFontMetricsF metrics(labelFont());
  qreal widest = 0;
  for (const QString& category : data_.categories) {
    widest = std::max(widest, metrics.horizontalAdvance(category));
  }
  const int stride = std::max(
      1, static_cast<int>(std::ceil((widest + kLabelGap) / std::max<qreal>(1, layout.band))));
  const qreal room = stride * layout.band - kLabelGap;
  painter.setPen(mutedColor());
  qreal drawn_until = body.left() - kLabelGap;
  for (int i = 0; i < data_.categories.size(); i += stride) {
    const QString label = metrics.elidedText(data_.categories[i], Qt::ElideRight, room);
    const qreal width = metrics.horizontalAdvance(label);
    // Centred under its bar, but kept inside the body: the last label may be wider than its bar.
    const qreal centre = layout.plot.left() + (i + 0.5) * layout.band;
    const qreal left = std::max(body.left(), std::min(centre - width / 2, body.right() - width));
    if (left < drawn_until + kLabelGap) {
      continue;  // pushed back inside, it would touch the label before it
    }
    painter.drawText(QPointF(left, layout.plot.bottom() + 2 + metrics.ascent()), label);
    drawn_until = left + width;
  }
  painter.restore();
}

QString StackedBarChart::toolTipAt(const QRectF& body, const QPointF& pos) const {
  const Layout layout = this->layout(body);
  if (!layout.plot.contains(pos)) {
    return {};
  }
  const int index = static_cast<int>((pos.x() - layout.plot.left()) / layout.band);
  if (index < 0 || index >= data_.categories.size() || !barColumn(layout, index).contains(pos)) {
    return {};
  }
  const auto at = static_cast<std::size_t>(index);
  QStringList lines{data_.categories[index]};
  for (const ChartSeries& series : data_.series) {
    if (at < series.values.size() && series.values[at] != 0) {
      lines << QStringLiteral("%1: %2").arg(series.name).arg(series.values[at]);
    }
  }
  if (data_.series.size() > 1) {
    lines << tr("total: %1").arg(data_.total(at));
  }
  return lines.join('\n');
}

}  // namespace agentvcr::viewer
