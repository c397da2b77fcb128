#include "charts/chart_widget.hpp"

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QImage>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QToolTip>

namespace agentvcr::viewer {
namespace {

constexpr qreal kPadding = 8;
/// The resolution SVG sizes are given at: a CSS pixel, so an SVG opens at the size shown.
constexpr int kSvgDpi = 96;
const QColor kTextColor(40, 40, 40);
const QColor kMutedColor(120, 120, 120);
const QColor kGridColor(225, 225, 225);
const QColor kAxisColor(150, 150, 150);

/// The title as a file name: "Agent latency" -> "agent-latency.png".
QString suggestedFileName(const QString& title, const QString& suffix) {
  QString name;
  for (const QChar c : title.toLower()) {
    if (c.isLetterOrNumber()) {
      name += c;
    } else if (!name.isEmpty() && !name.endsWith('-')) {
      name += '-';
    }
  }
  while (name.endsWith('-')) {
    name.chop(1);
  }
  return (name.isEmpty() ? QStringLiteral("chart") : name) + '.' + suffix;
}

}  // namespace

ChartWidget::ChartWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* png = new QAction(tr("Save as PNG…"), this);
  auto* svg = new QAction(tr("Save as SVG…"), this);
  connect(png, &QAction::triggered, this, [this] { askAndSave(QStringLiteral("png")); });
  connect(svg, &QAction::triggered, this, [this] { askAndSave(QStringLiteral("svg")); });
  addAction(png);
  addAction(svg);
}

void ChartWidget::paint(QPainter& painter, const QRectF& area) const {
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing);
  painter.fillRect(area, Qt::white);
  const QRectF body = bodyArea(area);
  const QRectF title_row(area.left() + kPadding, area.top(), area.width() - 2 * kPadding,
                         body.top() - area.top());
  painter.setFont(titleFont());
  painter.setPen(kTextColor);
  painter.drawText(
      title_row, Qt::AlignLeft | Qt::AlignVCenter,
      QFontMetricsF(titleFont()).elidedText(title(), Qt::ElideRight, title_row.width()));
  if (isEmpty()) {
    painter.setFont(labelFont());
    painter.setPen(kMutedColor);
    painter.drawText(body, Qt::AlignCenter, tr("no data"));
  } else {
    paintBody(painter, body);
  }
  painter.restore();
}

bool ChartWidget::save(const QString& path, QString* error) const {
  const auto fail = [error](const QString& why) {
    if (error != nullptr) {
      *error = why;
    }
    return false;
  };
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QLatin1String("png") && suffix != QLatin1String("svg")) {
    return fail(tr("%1: a chart is saved as .png or .svg").arg(path));
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    return fail(tr("%1: %2").arg(path, file.errorString()));
  }
  const QSize size = this->size().expandedTo(minimumSizeHint());
  const QRectF area(QPointF(0, 0), size);
  if (suffix == QLatin1String("png")) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    paint(painter, area);
    painter.end();
    if (!image.save(&file, "PNG")) {
      return fail(tr("%1: the PNG could not be written").arg(path));
    }
  } else {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(area);
    svg.setResolution(kSvgDpi);
    svg.setTitle(title());
    QPainter painter;
    if (!painter.begin(&svg)) {
      return fail(tr("%1: the SVG could not be written").arg(path));
    }
    paint(painter, area);
    painter.end();
  }
  if (!file.commit()) {
    return fail(tr("%1: %2").arg(path, file.errorString()));
  }
  return true;
}

QSize ChartWidget::sizeHint() const {
  return {480, 300};
}

QSize ChartWidget::minimumSizeHint() const {
  return {320, 200};
}

QFont ChartWidget::labelFont() {
  QFont font;
  font.setPixelSize(11);
  return font;
}

QFont ChartWidget::titleFont() {
  QFont font;
  font.setPixelSize(13);
  font.setBold(true);
  return font;
}

qreal ChartWidget::labelHeight() {
  return QFontMetricsF(labelFont()).height();
}

QColor ChartWidget::textColor() {
  return kTextColor;
}

QColor ChartWidget::mutedColor() {
  return kMutedColor;
}

AxisTicks ChartWidget::valueTicks(double max) {
  return niceTicks(0, max, std::clamp(static_cast<int>(std::floor(max)) + 1, 2, 6));
}

QString ChartWidget::tickText(double value, double step) {
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return QString::number(value, 'f', decimals);
}

QRectF ChartWidget::plotArea(const QRectF& body, const AxisTicks& y, qreal top_reserve) {
  const QFontMetricsF metrics(labelFont());
  qreal widest = 0;
  for (const double value : y.values) {
    widest = std::max(widest, metrics.horizontalAdvance(tickText(value, y.step)));
  }
  const qreal left = labelHeight() + widest + 2 * kPadding;
  const qreal bottom = 2 * labelHeight() + kPadding;
  return body.adjusted(left, top_reserve + kPadding, -2 * kPadding, -bottom);
}

qreal ChartWidget::yOf(const QRectF& plot, const AxisTicks& y, double value) {
  return plot.bottom() - (value - y.first) / (y.last - y.first) * plot.height();
}

void ChartWidget::paintAxes(QPainter& painter, const QRectF& body, const QRectF& plot,
                            const AxisTicks& y, const QString& x_label, const QString& y_label) {
  painter.save();
  painter.setFont(labelFont());
  const qreal label_height = labelHeight();
  for (const double value : y.values) {
    const qreal at = yOf(plot, y, value);
    painter.setPen(kGridColor);
    painter.drawLine(QPointF(plot.left(), at), QPointF(plot.right(), at));
    painter.setPen(kMutedColor);
    painter.drawText(
        QRectF(body.left(), at - label_height / 2, plot.left() - body.left() - 4, label_height),
        Qt::AlignRight | Qt::AlignVCenter, tickText(value, y.step));
  }
  painter.setPen(kAxisColor);
  painter.drawLine(plot.bottomLeft(), plot.bottomRight());
  painter.setPen(kTextColor);
  painter.drawText(QRectF(plot.left(), body.bottom() - label_height, plot.width(), label_height),
                   Qt::AlignCenter, x_label);
  // The value axis title reads bottom to top along the left edge.
  painter.translate(body.left(), plot.center().y());
  painter.rotate(-90);
  painter.drawText(QRectF(-plot.height() / 2, 0, plot.height(), label_height), Qt::AlignCenter,
                   y_label);
  painter.restore();
}

void ChartWidget::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  paint(painter, rect());
}

bool ChartWidget::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) {
    return QWidget::event(event);
  }
  const auto* help = static_cast<QHelpEvent*>(event);
  const QString text = isEmpty() ? QString() : toolTipAt(bodyArea(rect()), help->pos());
  if (text.isEmpty()) {
    QToolTip::hideText();
    event->ignore();
  } else {
    QToolTip::showText(help->globalPos(), text, this);
  }
  return true;
}

QRectF ChartWidget::bodyArea(const QRectF& area) {
  return area.adjusted(0, QFontMetricsF(titleFont()).height() + kPadding, 0, 0);
}

void ChartWidget::askAndSave(const QString& suffix) {
  const QString filter =
      suffix == QLatin1String("png") ? tr("PNG image (*.png)") : tr("SVG image (*.svg)");
  QString path = QFileDialog::getSaveFileName(this, tr("Save chart"),
                                              suggestedFileName(title(), suffix), filter);
  if (path.isEmpty()) {
    return;
  }
  if (QFileInfo(path).suffix().isEmpty()) {
    path += '.' + suffix;
  }
  QString error;
  if (!save(path, &error)) {
    QMessageBox::warning(this, tr("Save chart"), error);
  }
}

}  // namespace agentvcr::viewer
