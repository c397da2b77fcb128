// FittedRows: a table's rows as tall as their wrapped text, measured as they come into sight,
// however many there are, and measured again when a column's width or a row's data changes.

#include "widgets/fitted_rows.hpp"

#include <algorithm>
#include <memory>

#include <QAbstractItemView>
#include <QHeaderView>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTableView>
#include <QtTest>

#include "viewer_test_main.hpp"

namespace agentvcr {
namespace {

/// Row `row`'s text: every third row long enough to wrap over several lines.
QString textOf(int row) {
  QString text = QString("step %1: ").arg(row);
  if (row % 3 == 0) {
    for (int word = 0; word < 40; ++word) {
      text += QString("word%1 ").arg(word);
    }
  }
  return text;
}

class FittedRowsTest : public QObject {
  Q_OBJECT

  static constexpr int kRows = 2000;

  /// The height Qt's own ResizeToContents gives row `row`.
  static int contentHeight(const QTableView& view, int row) {
    const QAbstractItemView& base = view;
    const QHeaderView& header = *view.verticalHeader();
    return std::clamp(base.sizeHintForRow(row), header.minimumSectionSize(),
                      header.maximumSectionSize());
  }

  /// The rows from the first in sight to the viewport's bottom.
  static QList<int> rowsInSight(const QTableView& view) {
    QList<int> rows;
    const int first = view.rowAt(0);
    int y = first >= 0 ? view.rowViewportPosition(first) : 0;
    for (int row = first;
         row >= 0 && row < view.model()->rowCount() && y < view.viewport()->height(); ++row) {
      rows << row;
      y += view.rowHeight(row);
    }
    return rows;
  }

  /// Fails unless every row in sight is exactly as tall as its text.
  static void expectFitted(const QTableView& view) {
    const QList<int> rows = rowsInSight(view);
    QVERIFY(!rows.isEmpty());
    for (int row : rows) {
      QCOMPARE(view.rowHeight(row), contentHeight(view, row));
    }
  }

  // Made for each test, not with the object: listing the tests (-functions) makes no widget.
  std::unique_ptr<QStandardItemModel> model_;
  std::unique_ptr<QTableView> view_;
  viewer::FittedRows* fitted_ = nullptr;  ///< a child of view_

 private slots:

  void init() {
    model_ = std::make_unique<QStandardItemModel>(kRows, 1);
    view_ = std::make_unique<QTableView>();
    for (int row = 0; row < kRows; ++row) {
      model_->setItem(row, 0, new QStandardItem(textOf(row)));
    }
    view_->setWordWrap(true);
    view_->setModel(model_.get());
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->resize(400, 300);
    fitted_ = new viewer::FittedRows(view_.get());
    view_->show();
    QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
    // The view sets its scroll range from the rows' heights on a timer of its own.
    QTest::qWait(1);
  }

  void rowsInSightAreAsTallAsTheirTextAndNoOtherIsMeasured() {
    expectFitted(*view_);
    // A long row wraps: without fitting it would be two lines tall.
    QVERIFY(view_->rowHeight(0) > view_->rowHeight(1));
    QVERIFY2(fitted_->measuredRows() < 50, qPrintable(QString::number(fitted_->measuredRows())));
  }

  void theLastRowsAreFittedOnceScrolledTo() {
    view_->scrollToBottom();
    QCoreApplication::processEvents();
    expectFitted(*view_);
    QVERIFY(rowsInSight(*view_).contains(kRows - 1));
    QVERIFY(fitted_->measuredRows() < 100);
  }

  void aNarrowerColumnMakesTheRowsInSightTallerAgain() {
    const int before = view_->rowHeight(0);
    view_->resize(250, 300);
    QCoreApplication::processEvents();
    expectFitted(*view_);
    QVERIFY2(view_->rowHeight(0) > before,
             qPrintable(QString("%1 <= %2").arg(view_->rowHeight(0)).arg(before)));
  }

  void aRowWhoseTextChangesIsMeasuredAgain() {
    const int before = view_->rowHeight(1);
    model_->item(1, 0)->setText(textOf(0) + textOf(0));
    QCoreApplication::processEvents();
    expectFitted(*view_);
    QVERIFY(view_->rowHeight(1) > before);
  }

  void theCurrentRowStaysInSightWhenRowsAboveItGrow() {
    const QModelIndex target = model_->index(1500, 0);
    view_->setCurrentIndex(target);
    view_->scrollTo(target, QAbstractItemView::PositionAtBottom);
    QCoreApplication::processEvents();
    QVERIFY(rowsInSight(*view_).contains(1500));
    // Narrower, the rows above it wrap over more lines.
    view_->resize(200, 300);
    QCoreApplication::processEvents();
    expectFitted(*view_);
    QVERIFY(rowsInSight(*view_).contains(1500));
  }

  void aResetModelIsFittedAgain() {
    model_->clear();
    model_->setRowCount(10);
    model_->setColumnCount(1);
    for (int row = 0; row < 10; ++row) {
      model_->setItem(row, 0, new QStandardItem(textOf(3 * row)));
    }
    QCoreApplication::processEvents();
    expectFitted(*view_);
  }

  void cleanup() {
    view_.reset();
    model_.reset();
    fitted_ = nullptr;
  }
};

}  // namespace

AGENTVCR_VIEWER_TEST(FittedRowsTest, "fitted_rows")

}  // namespace agentvcr

#include "fitted_rows_test.moc"
