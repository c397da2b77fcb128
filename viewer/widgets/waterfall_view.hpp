#pragma once

#include <cstdint>
#include <optional>

#include <QAbstractScrollArea>

#include "models/waterfall_model.hpp"

namespace agentvcr::viewer {

/// Where the time of a conversation went: one bar per step (or A2A call) on a shared time axis,
/// split at the exchange's timing points (caller → proxy, proxy → agent, the agent thinking,
/// the answer back), internal steps nested under their step, GEN branches in lanes of their
/// own colour. Failures are red, injected faults violet. Hovering shows the step's instruction
/// and decisions; a click emits barClicked().
///
/// Only the rows in sight are painted, from the model's bars, so a conversation of thousands of
/// steps scrolls as smoothly as one of ten. Ctrl+wheel zooms the time axis around the pointer.
class WaterfallView : public QAbstractScrollArea {
  Q_OBJECT

 public:
  /// The parts of a step's bar, in time order.
  enum class Segment { CallerToProxy, ProxyToAgent, Agent, AnswerBack };

  explicit WaterfallView(QWidget* parent = nullptr);

  void setModel(WaterfallModel* model);

  WaterfallModel* model() const { return model_; }

  /// Marks the bar of this step (or call) and scrolls it into sight; false when none shows it.
  bool setCurrent(WaterfallBar::Kind kind, std::int64_t id);

  std::optional<int> currentRow() const { return current_row_; }

  /// The row under a point of the viewport, or -1.
  int rowAt(const QPoint& viewport_point) const;
  /// The whole bar of a row in viewport coordinates (empty when the row is out of sight).
  QRectF barRect(int row) const;
  /// One part of a row's bar; empty when either of its moments is unknown.
  QRectF segmentRect(int row, Segment segment) const;
  /// The viewport x of an offset on the time axis.
  double xOf(std::int64_t offset_ns) const;

  /// 1 shows the whole conversation across the plot; 2 twice as wide, and so on.
  void setZoom(double zoom);

  double zoom() const { return zoom_; }

  static constexpr int kRowHeight = 20;
  static constexpr int kAxisHeight = 40;  ///< the legend's line, then the ticks
  static constexpr int kLabelWidth = 300;

 signals:
  void barClicked(int kind, qlonglong id);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  void updateScrollBars();
  double plotWidth() const;
  double nsPerPixel() const;
  int rowTop(int row) const;
  void paintAxis(QPainter& painter) const;
  void paintRow(QPainter& painter, int row) const;

  WaterfallModel* model_ = nullptr;
  std::optional<int> current_row_;
  int hover_row_ = -1;
  double zoom_ = 1.0;
};

}  // namespace agentvcr::viewer
