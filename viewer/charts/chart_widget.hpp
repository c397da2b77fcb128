#pragma once

#include <QColor>
#include <QFont>
#include <QString>
#include <QWidget>

#include "charts/chart_scale.hpp"

class QPainter;

namespace agentvcr::viewer {

/// A chart drawn with QPainter: a title above a plot, or "no data" when there is nothing to
/// plot. All of it is painted by paint(), so one code path draws the widget on screen, a PNG
/// and an SVG. Its context menu saves it as either (save()); hovering a bar shows its values.
class ChartWidget : public QWidget {
  Q_OBJECT

 public:
  explicit ChartWidget(QWidget* parent = nullptr);

  /// Paints the whole chart into `area` of any paint device.
  void paint(QPainter& painter, const QRectF& area) const;

  /// Writes the chart at its current size as a PNG or an SVG, chosen by the suffix of `path`
  /// (.png or .svg, any case), replacing the file only once all of it is written. False, and
  /// why in `error` when given, for another suffix or a file that cannot be written.
  bool save(const QString& path, QString* error = nullptr) const;

  virtual QString title() const = 0;
  /// True when there is nothing to plot: paint() then says "no data".
  virtual bool isEmpty() const = 0;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  /// Paints what is below the title into `body`; called only when the chart is not empty.
  virtual void paintBody(QPainter& painter, const QRectF& body) const = 0;
  /// What the tooltip says about point `pos` of a chart whose body was painted in `body`;
  /// empty for none.
  virtual QString toolTipAt(const QRectF& body, const QPointF& pos) const = 0;

  /// The fonts charts use, sized in pixels: PNG, SVG and screen then agree whatever their
  /// resolution.
  static QFont labelFont();
  static QFont titleFont();
  static qreal labelHeight();
  /// Text colours: titles and legends, and the quieter tick and category labels.
  static QColor textColor();
  static QColor mutedColor();

  /// Ticks of a value axis from 0 to `max`, never finer than whole units unless every value
  /// is below 1 (bars count things).
  static AxisTicks valueTicks(double max);
  /// A tick value with as many decimals as its step needs.
  static QString tickText(double value, double step);

  /// The plot inside `body`: room on the left for the value axis (its widest tick label and
  /// its title), below for one row of x labels and the x axis title, and `top_reserve` above
  /// (a legend, marker labels).
  static QRectF plotArea(const QRectF& body, const AxisTicks& y, qreal top_reserve);
  /// Where value `value` lies on the vertical axis `y` of `plot`.
  static qreal yOf(const QRectF& plot, const AxisTicks& y, double value);
  /// Horizontal grid lines and tick labels of the value axis, and both axis titles.
  static void paintAxes(QPainter& painter, const QRectF& body, const QRectF& plot,
                        const AxisTicks& y, const QString& x_label, const QString& y_label);

  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  static QRectF bodyArea(const QRectF& area);
  void askAndSave(const QString& suffix);
};

}  // namespace agentvcr::viewer
