#include "widgets/eval_view.hpp"

#include <functional>
#include <utility>

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include "models/eval_report_model.hpp"

namespace agentvcr::viewer {
namespace {

/// Paints a cell as a push button showing the cell's text, and calls `clicked` with the row
/// when the left button is released over it: one click per row, no widget per row.
class ButtonDelegate : public QStyledItemDelegate {
 public:
  ButtonDelegate(std::function<void(int row)> clicked, QObject* parent)
      : QStyledItemDelegate(parent), clicked_(std::move(clicked)) {}

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override {
    QStyleOptionButton button;
    button.rect = option.rect.adjusted(2, 2, -2, -2);
    button.text = index.data().toString();
    button.state = QStyle::State_Enabled | QStyle::State_Raised;
    const QStyle* style = option.widget ? option.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_PushButton, &button, painter, option.widget);
  }

  /// As wide as a push button with the cell's text, so that the column sized to its contents
  /// shows the whole button.
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyleOptionButton button;
    button.text = index.data().toString();
    const QStyle* style = option.widget ? option.widget->style() : QApplication::style();
    const QSize text = option.fontMetrics.size(Qt::TextShowMnemonic, button.text);
    return style->sizeFromContents(QStyle::CT_PushButton, &button, text, option.widget)
        .grownBy({2, 2, 2, 2});
  }

  bool editorEvent(QEvent* event, QAbstractItemModel* /*model*/, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override {
    if (event->type() != QEvent::MouseButtonRelease) {
      return false;
    }
    const auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() != Qt::LeftButton || !option.rect.contains(mouse->position().toPoint())) {
      return false;
    }
    clicked_(index.row());
    return true;
  }

 private:
  std::function<void(int row)> clicked_;
};

QString figuresText(const replay::EvaluationReport& report) {
  return QObject::tr(
             "Match rate: %1   Steps: %2   Matched: %3   Say normalised: %4   "
             "Contract violations: %5   Error candidates: %6")
      .arg(matchRateText(report.matchRate()))
      .arg(report.steps)
      .arg(report.matched)
      .arg(report.say_normalised)
      .arg(report.contract_violations)
      .arg(report.error_candidates);
}

}  // namespace

EvalView::EvalView(QWidget* parent)
    : QWidget(parent),
      model_(new EvalReportModel(this)),
      title_(new QLabel(this)),
      figures_(new QLabel(this)),
      table_(new QTableView(this)) {
  figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  figures_->setWordWrap(true);  // a narrow pane wraps the figures rather than cut them
  figures_->setToolTip(
      tr("Recomputed from the archive: output paths an --ignore-file left out at eval time are "
         "compared here."));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  // Each column as wide as its header and its cells, the first difference (elided, whole in
  // its tooltip) in what is left: every column and the Diff button in sight at once.
  QHeaderView* columns = table_->horizontalHeader();
  columns->setSectionResizeMode(QHeaderView::ResizeToContents);
  columns->setSectionResizeMode(EvalReportModel::FirstDifference, QHeaderView::Stretch);
  columns->setStretchLastSection(false);
  table_->setItemDelegateForColumn(EvalReportModel::Diff,
                                   new ButtonDelegate([this](int row) { requestDiff(row); }, this));
  connect(table_, &QAbstractItemView::activated, this,
          [this](const QModelIndex& index) { requestDiff(index.row()); });

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(figures_);
  layout->addWidget(table_, 1);
}

void EvalView::setReport(replay::EvaluationReport report) {
  title_->setText(tr("<b>Evaluation session %1</b>").arg(report.session_id));
  figures_->setText(figuresText(report));
  model_->setReport(std::move(report));
}

void EvalView::requestDiff(int row) {
  if (row < 0 || row >= model_->rowCount()) {
    return;
  }
  const replay::EvaluatedConversation& conversation = model_->conversation(row);
  emit diffRequested(conversation.recorded_conversation_id, conversation.evaluated_conversation_id);
}

}  // namespace agentvcr::viewer
