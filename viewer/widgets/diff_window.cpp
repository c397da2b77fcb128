#include "widgets/diff_window.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/diff_model.hpp"
#include "widgets/json_view.hpp"

namespace agentvcr::viewer {
namespace {

std::string stepText(const replay::DiffStep& step, const std::vector<std::string>& differences) {
  std::string text;
  if (!differences.empty()) {
    text += "differs at:\n";
    for (const auto& path : differences) {
      text += "  " + path + "\n";
    }
    text += "\n";
  }
  protocol::Json whole = {{"input", step.input}, {"candidates", step.candidates}};
  return text + whole.dump(2, ' ', false, protocol::Json::error_handler_t::replace);
}

}  // namespace

DiffWindow::DiffWindow(const QString& left_title, std::vector<replay::DiffStep> left,
                       const QString& right_title, std::vector<replay::DiffStep> right,
                       QWidget* parent)
    : QWidget(parent, Qt::Window),
      model_(new DiffModel(this)),
      summary_(new QLabel(this)),
      table_(new QTableView(this)),
      left_pane_(new TextPane(this)),
      right_pane_(new TextPane(this)) {
  setWindowTitle(tr("Diff: %1 ↔ %2").arg(left_title, right_title));
  model_->setConversations(std::move(left), std::move(right));
  summary_->setText(model_->summary());
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setWordWrap(true);
  for (int column : {DiffModel::LeftInstruction, DiffModel::LeftDecision,
                     DiffModel::RightInstruction, DiffModel::RightDecision}) {
    table_->setColumnWidth(column, 230);
  }

  auto* panes = new QSplitter(Qt::Horizontal, this);
  panes->addWidget(left_pane_);
  panes->addWidget(right_pane_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(panes);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("<b>%1</b> (left) ↔ <b>%2</b> (right)")
                                   .arg(left_title.toHtmlEscaped(), right_title.toHtmlEscaped()),
                               this));
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { showRow(current.row()); });
  const auto& first = model_->diff().first_divergence;
  if (first) {
    table_->selectRow(static_cast<int>(*first));
  }
  resize(1200, 800);
}

void DiffWindow::showRow(int row) {
  if (row < 0 || row >= model_->rowCount()) {
    return;
  }
  const replay::DiffRow& diff_row = model_->diff().rows.at(static_cast<std::size_t>(row));
  const auto& left = model_->leftSteps();
  const auto& right = model_->rightSteps();
  left_pane_->setText(diff_row.left ? stepText(left.at(*diff_row.left), diff_row.differences)
                                    : std::string("(no step on the left)"));
  right_pane_->setText(diff_row.right ? stepText(right.at(*diff_row.right), diff_row.differences)
                                      : std::string("(no step on the right)"));
}

}  // namespace agentvcr::viewer
