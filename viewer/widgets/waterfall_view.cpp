#include "widgets/waterfall_view.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include "charts/chart_scale.hpp"
#include "models/fault_style.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

constexpr int kLaneWidth = 6;
constexpr int kMaxLanes = 8;  ///< more branches share the last lanes' colours
constexpr int kIndent = 12;
constexpr double kPlotMargin = 12;
constexpr int kLegendHeight = 16;

struct SegmentStyle {
  WaterfallView::Segment segment;
  TimingPoint from;
  TimingPoint to;
  QColor colour;
  const char* name;
};

const std::array<SegmentStyle, 4>& segmentStyles() {
  static const std::array<SegmentStyle, 4> kStyles = {{
      {WaterfallView::Segment::CallerToProxy, TimingPoint::Started, TimingPoint::RequestEnded,
       QColor(150, 170, 195), "caller → proxy"},
      {WaterfallView::Segment::ProxyToAgent, TimingPoint::RequestEnded, TimingPoint::UpstreamSent,
       QColor(190, 190, 190), "proxy → agent"},
      {WaterfallView::Segment::Agent, TimingPoint::UpstreamSent, TimingPoint::FirstByte,
       QColor(59, 125, 216), "agent thinking"},
      {WaterfallView::Segment::AnswerBack, TimingPoint::FirstByte, TimingPoint::Ended,
       QColor(92, 184, 140), "answer back"},
  }};
  return kStyles;
}

const QColor kFailed(217, 83, 79);
const QColor kFaulted(142, 108, 200);
const QColor kInternal(240, 173, 78);

QColor laneColour(int branch) {
  static const std::array<QColor, kMaxLanes> kLanes = {
      QColor(120, 120, 120), QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),
      QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194)};
  return kLanes[static_cast<std::size_t>(std::min(branch, kMaxLanes - 1))];
}

}  // namespace

WaterfallView::WaterfallView(QWidget* parent) : QAbstractScrollArea(parent) {
  viewport()->setMouseTracking(true);
  viewport()->setBackgroundRole(QPalette::Base);
  verticalScrollBar()->setSingleStep(kRowHeight);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
}

void WaterfallView::setModel(WaterfallModel* model) {
  if (model_ != nullptr) {
    disconnect(model_, nullptr, this, nullptr);
  }
  model_ = model;
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    current_row_.reset();
    hover_row_ = -1;
    verticalScrollBar()->setValue(0);
    updateScrollBars();
    viewport()->update();
  });
  updateScrollBars();
  viewport()->update();
}

bool WaterfallView::setCurrent(WaterfallBar::Kind kind, std::int64_t id) {
  const int row = model_ != nullptr ? model_->rowOf(kind, id) : -1;
  if (row < 0) {
    current_row_.reset();
    viewport()->update();
    return false;
  }
  current_row_ = row;
  const int top = row * kRowHeight;
  const int visible = std::max(0, viewport()->height() - kAxisHeight);
  QScrollBar* bar = verticalScrollBar();
  if (top < bar->value() || top + kRowHeight > bar->value() + visible) {
    bar->setValue(std::max(0, top - visible / 2));
  }
  viewport()->update();
  return true;
}

void WaterfallView::setZoom(double zoom) {
  zoom_ = std::clamp(zoom, 1.0, 10000.0);
  updateScrollBars();
  viewport()->update();
}

double WaterfallView::plotWidth() const {
  return std::max(50.0, viewport()->width() - kLabelWidth - 2 * kPlotMargin) * zoom_;
}

double WaterfallView::nsPerPixel() const {
  const std::int64_t span = model_ != nullptr ? std::max<std::int64_t>(model_->span(), 1) : 1;
  return static_cast<double>(span) / plotWidth();
}

double WaterfallView::xOf(std::int64_t offset_ns) const {
  return kLabelWidth + kPlotMargin - horizontalScrollBar()->value() +
         static_cast<double>(offset_ns) / nsPerPixel();
}

int WaterfallView::rowTop(int row) const {
  return kAxisHeight + row * kRowHeight - verticalScrollBar()->value();
}

int WaterfallView::rowAt(const QPoint& point) const {
  if (model_ == nullptr || point.y() < kAxisHeight) {
    return -1;
  }
  const int row = (point.y() - kAxisHeight + verticalScrollBar()->value()) / kRowHeight;
  return row < model_->rowCount() ? row : -1;
}

QRectF WaterfallView::barRect(int row) const {
  if (model_ == nullptr || row < 0 || row >= model_->rowCount()) {
    return {};
  }
  const int top = rowTop(row);
  if (top + kRowHeight <= kAxisHeight || top >= viewport()->height()) {
    return {};
  }
  const WaterfallBar& bar = model_->bars()[static_cast<std::size_t>(row)];
  const double left = xOf(bar.start());
  const double right = std::max(xOf(bar.end()), left + 2);  // an instant still shows
  const double inset = bar.kind == WaterfallBar::Kind::InternalStep ? 6 : 4;
  return QRectF(QPointF(left, top + inset), QPointF(right, top + kRowHeight - inset));
}

QRectF WaterfallView::segmentRect(int row, Segment segment) const {
  const QRectF whole = barRect(row);
  if (whole.isEmpty()) {
    return {};
  }
  const WaterfallBar& bar = model_->bars()[static_cast<std::size_t>(row)];
  const SegmentStyle& style = segmentStyles()[static_cast<std::size_t>(segment)];
  const auto from = bar.point(style.from);
  const auto to = bar.point(style.to);
  if (!from || !to) {
    return {};
  }
  return QRectF(QPointF(xOf(*from), whole.top()), QPointF(xOf(*to), whole.bottom()));
}

void WaterfallView::updateScrollBars() {
  const int rows = model_ != nullptr ? model_->rowCount() : 0;
  const int visible = std::max(0, viewport()->height() - kAxisHeight);
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setRange(0, std::max(0, rows * kRowHeight - visible));
  const int overflow = static_cast<int>(std::ceil(plotWidth() / zoom_ * (zoom_ - 1)));
  horizontalScrollBar()->setPageStep(viewport()->width());
  horizontalScrollBar()->setRange(0, std::max(0, overflow));
}

void WaterfallView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBars();
}

void WaterfallView::paintEvent(QPaintEvent*) {
  QPainter painter(viewport());
  painter.fillRect(viewport()->rect(), palette().base());
  if (model_ == nullptr || model_->rowCount() == 0) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(viewport()->rect(), Qt::AlignCenter, tr("Select a conversation"));
    return;
  }
  const int first = std::max(0, verticalScrollBar()->value() / kRowHeight);
  const int last = std::min(model_->rowCount() - 1,
                            (verticalScrollBar()->value() + viewport()->height()) / kRowHeight);
  painter.save();
  painter.setClipRect(0, kAxisHeight, viewport()->width(), viewport()->height() - kAxisHeight);
  for (int row = first; row <= last; ++row) {
    paintRow(painter, row);
  }
  painter.restore();
  paintAxis(painter);
}

void WaterfallView::paintAxis(QPainter& painter) const {
  const QRect axis(0, 0, viewport()->width(), kAxisHeight);
  painter.fillRect(axis, palette().window());
  painter.setPen(palette().color(QPalette::Mid));
  painter.drawLine(axis.bottomLeft(), axis.bottomRight());

  // Ticks about every 100 pixels, labelled with the offset from the first request.
  const auto step = static_cast<std::int64_t>(niceStep(std::max(1.0, nsPerPixel() * 100)));
  const std::int64_t first_visible =
      static_cast<std::int64_t>(std::max(0.0, horizontalScrollBar()->value() * nsPerPixel()));
  painter.setPen(palette().color(QPalette::WindowText));
  for (std::int64_t at = first_visible / step * step; at <= model_->span() + step; at += step) {
    const double x = xOf(at);
    if (x > viewport()->width()) {
      break;
    }
    if (x < kLabelWidth) {
      continue;
    }
    painter.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, kAxisHeight));
    painter.drawText(QRectF(x + 3, kLegendHeight, 90, kAxisHeight - kLegendHeight - 4),
                     Qt::AlignBottom | Qt::AlignLeft,
                     at == 0 ? QStringLiteral("0") : QString::fromStdString(durationText(at)));
  }

  // The legend on a line of its own above the ticks: what each colour means.
  painter.fillRect(QRect(0, 0, viewport()->width(), kLegendHeight), palette().window());
  painter.fillRect(QRect(0, 0, kLabelWidth, kAxisHeight - 1), palette().window());
  QFont small = painter.font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  painter.save();
  painter.setFont(small);
  painter.setPen(palette().color(QPalette::WindowText));
  double x = 6;
  const auto swatch = [&](const QColor& colour, const QString& name) {
    painter.fillRect(QRectF(x, 4, 9, 9), colour);
    painter.drawText(QPointF(x + 12, 13), name);
    x += 12 + painter.fontMetrics().horizontalAdvance(name) + 10;
  };
  for (const auto& style : segmentStyles()) {
    swatch(style.colour, tr(style.name));
  }
  swatch(kInternal, tr("internal step"));
  swatch(kFailed, tr("failed"));
  swatch(kFaulted, tr("chaos"));
  painter.restore();
}

void WaterfallView::paintRow(QPainter& painter, int row) const {
  const WaterfallBar& bar = model_->bars()[static_cast<std::size_t>(row)];
  const int top = rowTop(row);
  const QRect band(0, top, viewport()->width(), kRowHeight);
  if (current_row_ == row) {
    painter.fillRect(band, palette().highlight().color().lighter(170));
  } else if (hover_row_ == row) {
    painter.fillRect(band, palette().alternateBase());
  }

  // The branch's lane, then the label indented by depth.
  const int lane = std::min(bar.branch, kMaxLanes - 1);
  painter.fillRect(QRect(4 + lane * kLaneWidth, top, kLaneWidth - 2, kRowHeight),
                   laneColour(bar.branch));
  const int label_left = 4 + kMaxLanes * kLaneWidth + static_cast<int>(bar.depth) * kIndent;
  const QRect label_box(label_left, top, kLabelWidth - label_left - 4, kRowHeight);
  painter.setPen(bar.health == WaterfallBar::Health::Failed
                     ? kFailed.darker(130)
                     : palette().color(bar.kind == WaterfallBar::Kind::InternalStep
                                           ? QPalette::PlaceholderText
                                           : QPalette::Text));
  painter.drawText(label_box, Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(QString::fromStdString(model_->label(row)),
                                                    Qt::ElideRight, label_box.width()));

  painter.save();
  painter.setClipRect(QRect(kLabelWidth, kAxisHeight, viewport()->width() - kLabelWidth,
                            viewport()->height() - kAxisHeight));
  const QRectF whole = barRect(row);
  if (bar.kind == WaterfallBar::Kind::InternalStep) {
    painter.fillRect(whole, bar.health == WaterfallBar::Health::Failed ? kFailed : kInternal);
  } else {
    // The parts whose two moments are known, each in its colour; a broken exchange (the agent
    // never answered) shows the parts it reached, the rest of the bar in the failure's colour.
    painter.fillRect(whole, bar.health == WaterfallBar::Health::Faulted ? kFaulted : kFailed);
    if (bar.health != WaterfallBar::Health::Faulted) {
      for (const auto& style : segmentStyles()) {
        const QRectF part = segmentRect(row, style.segment);
        if (part.isNull()) {
          continue;  // a moment of it unknown
        }
        const bool agent_failed =
            style.segment == Segment::Agent && bar.health == WaterfallBar::Health::Failed;
        painter.fillRect(part, agent_failed ? kFailed : style.colour);
      }
    }
    if (bar.health == WaterfallBar::Health::Faulted) {
      painter.setPen(faultBackground());
      painter.drawText(whole.adjusted(3, -3, 200, 3), Qt::AlignVCenter | Qt::AlignLeft,
                       faultText(bar.fault.value_or("")));
    }
  }
  painter.restore();
}

void WaterfallView::mousePressEvent(QMouseEvent* event) {
  const int row = rowAt(event->position().toPoint());
  if (row < 0 || event->button() != Qt::LeftButton) {
    QAbstractScrollArea::mousePressEvent(event);
    return;
  }
  current_row_ = row;
  viewport()->update();
  const WaterfallBar& bar = model_->bars()[static_cast<std::size_t>(row)];
  emit barClicked(static_cast<int>(bar.kind), bar.id);
}

void WaterfallView::mouseMoveEvent(QMouseEvent* event) {
  const int row = rowAt(event->position().toPoint());
  if (row != hover_row_) {
    hover_row_ = row;
    viewport()->update();
  }
  QAbstractScrollArea::mouseMoveEvent(event);
}

void WaterfallView::leaveEvent(QEvent* event) {
  hover_row_ = -1;
  viewport()->update();
  QAbstractScrollArea::leaveEvent(event);
}

void WaterfallView::wheelEvent(QWheelEvent* event) {
  if (!(event->modifiers() & Qt::ControlModifier)) {
    QAbstractScrollArea::wheelEvent(event);
    return;
  }
  // Zoom around the pointer: the moment under it stays under it.
  const double pointer_x = event->position().x();
  const double at_ns = (pointer_x - xOf(0)) * nsPerPixel();
  setZoom(zoom_ * (event->angleDelta().y() > 0 ? 1.25 : 0.8));
  horizontalScrollBar()->setValue(static_cast<int>(
      horizontalScrollBar()->value() + (xOf(static_cast<std::int64_t>(at_ns)) - pointer_x)));
  event->accept();
}

bool WaterfallView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && model_ != nullptr) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int row = rowAt(help->pos());
    if (row < 0) {
      QToolTip::hideText();
      return true;
    }
    const WaterfallBar& bar = model_->bars()[static_cast<std::size_t>(row)];
    QString text = QString::fromStdString(model_->detail(row));
    text += QStringLiteral("\n\nat +%1, took %2")
                .arg(QString::fromStdString(offsetMsText(bar.start())).mid(1),
                     QString::fromStdString(durationText(bar.end() - bar.start())));
    for (const auto& style : segmentStyles()) {
      const auto from = bar.point(style.from);
      const auto to = bar.point(style.to);
      if (from && to) {
        text += QStringLiteral("\n%1: %2")
                    .arg(tr(style.name), QString::fromStdString(durationText(*to - *from)));
      }
    }
    if (bar.fault) {
      text += "\n" + faultText(*bar.fault);
    }
    QToolTip::showText(help->globalPos(), text, viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace agentvcr::viewer
