#include "widgets/fitted_rows.hpp"

#include <algorithm>

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>

namespace agentvcr::viewer {

FittedRows::FittedRows(QTableView* view) : QObject(view), view_(view) {
  QHeaderView* rows = view_->verticalHeader();
  rows->setSectionResizeMode(QHeaderView::Fixed);
  // What a row not yet in sight takes: two lines, as most steps need.
  rows->setDefaultSectionSize(2 * view_->fontMetrics().lineSpacing() + 6);
  view_->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
  view_->viewport()->installEventFilter(this);

  QAbstractItemModel* model = view_->model();
  connect(model, &QAbstractItemModel::modelReset, this, [this] { forgetAll(); });
  connect(model, &QAbstractItemModel::layoutChanged, this, [this] { forgetAll(); });
  connect(model, &QAbstractItemModel::rowsInserted, this, [this] { forgetAll(); });
  connect(model, &QAbstractItemModel::rowsRemoved, this, [this] { forgetAll(); });
  connect(model, &QAbstractItemModel::dataChanged, this,
          [this](const QModelIndex& top_left, const QModelIndex& bottom_right) {
            const int last = std::min<int>(bottom_right.row(), int(measured_.size()) - 1);
            for (int row = std::max(0, top_left.row()); row <= last; ++row) {
              measured_[row] = false;
            }
            scheduleFit();
          });
  connect(view_->horizontalHeader(), &QHeaderView::sectionResized, this, [this] { forgetAll(); });
  connect(view_->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { scheduleFit(); });
  forgetAll();
}

int FittedRows::measuredRows() const {
  return int(std::count(measured_.begin(), measured_.end(), true));
}

bool FittedRows::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize) {
    scheduleFit();
  }
  return QObject::eventFilter(watched, event);
}

void FittedRows::forgetAll() {
  measured_.assign(std::size_t(view_->model()->rowCount()), false);
  scheduleFit();
}

void FittedRows::scheduleFit() {
  if (scheduled_) {
    return;
  }
  scheduled_ = true;
  QMetaObject::invokeMethod(
      this,
      [this] {
        scheduled_ = false;
        fitVisible();
      },
      Qt::QueuedConnection);
}

int FittedRows::fit(int row) {
  if (view_->isRowHidden(row)) {
    return 0;
  }
  if (!measured_[row]) {
    measured_[row] = true;
    // QTableView hides its override of this public QAbstractItemView member.
    const QAbstractItemView& view = *view_;
    QHeaderView& header = *view_->verticalHeader();
    // Within the header's bounds, as Qt's own ResizeToContents keeps it.
    header.resizeSection(row, std::clamp(view.sizeHintForRow(row), header.minimumSectionSize(),
                                         header.maximumSectionSize()));
  }
  return view_->rowHeight(row);
}

bool FittedRows::inSight(int row) const {
  const int top = view_->rowViewportPosition(row);
  return top >= 0 && top < view_->viewport()->height();
}

void FittedRows::fitInSight() {
  // Down from the first row in sight, each row measured before it is counted: a row that
  // grows leaves less room for those after it.
  const int rows = int(measured_.size());
  const int height = view_->viewport()->height();
  const int first = std::max(0, view_->rowAt(0));
  int y = view_->rowViewportPosition(first);
  for (int row = first; row < rows && y < height; ++row) {
    y += fit(row);
  }
}

void FittedRows::fitVisible() {
  const int rows = int(measured_.size());
  if (rows == 0 || rows != view_->model()->rowCount()) {
    return;  // a reset on its way calls forgetAll()
  }
  const int current = view_->currentIndex().row();
  const bool current_in_sight = current >= 0 && inSight(current);
  fitInSight();
  int y = 0;
  for (int row = rows - 1; row >= 0 && y < view_->viewport()->height(); --row) {
    y += fit(row);
  }
  // Rows that grew above the current one pushed it down: scroll back to it, and fit what that
  // brought into sight (rows that may grow in turn, hence a few rounds).
  constexpr int kRounds = 4;
  for (int round = 0; round < kRounds && current_in_sight && !inSight(current); ++round) {
    view_->scrollTo(view_->currentIndex());
    fitInSight();
  }
}

}  // namespace agentvcr::viewer
