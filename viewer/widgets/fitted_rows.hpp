#pragma once

#include <vector>

#include <QObject>

class QTableView;

namespace agentvcr::viewer {

/// Keeps a table's rows as tall as their wrapped text, measuring only the rows in sight.
///
/// Qt's own ResizeToContents lays out the text of every cell of every row, and does it again on
/// each geometry change: for a conversation of a few hundred long steps that took most of the
/// time to show its last step. Here a row is measured once it comes into view, and again only
/// when a column's width or the row's data changes; so is the table's last screenful, which
/// sets how far the view scrolls. The table scrolls per row, so a row that grows above the
/// viewport moves nothing in sight, and the current row stays in sight when rows above it grow.
/// Measuring waits for the events being handled: the view's geometry is settled by then, and a
/// paint comes after it.
class FittedRows : public QObject {
  Q_OBJECT

 public:
  /// Takes over the row heights of `view`, whose model is already set; parented to the view.
  explicit FittedRows(QTableView* view);

  /// How many rows have their measured height.
  int measuredRows() const;

 protected:
  /// Measures what came into sight when the viewport was resized.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Every row is to be measured again (new rows, new column widths).
  void forgetAll();
  /// Fits what is in sight once the events being handled are.
  void scheduleFit();
  /// Measures the rows in sight and the last screenful, and keeps the current row in sight.
  void fitVisible();
  /// Measures the rows from the first in sight down to the viewport's bottom.
  void fitInSight();
  /// Measures `row` unless it is hidden or measured already; its height.
  int fit(int row);
  /// Whether the top of `row` is inside the viewport.
  bool inSight(int row) const;

  QTableView* view_;
  std::vector<bool> measured_;
  bool scheduled_ = false;
};

}  // namespace agentvcr::viewer
