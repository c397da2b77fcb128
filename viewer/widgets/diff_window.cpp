#include "widgets/diff_window.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "agentvcr/replay/text_diff.hpp"
#include "models/diff_model.hpp"
#include "widgets/side_by_side_diff.hpp"

namespace agentvcr::viewer {
namespace {

/// The JSON a row's differences point into (replay::DiffRow::differences).
protocol::Json stepJson(const replay::DiffStep& step) {
  return {{"candidates", step.candidates}, {"depth", step.depth}, {"input", step.input}};
}

std::optional<protocol::Json> stepJsonAt(const std::optional<std::size_t>& index,
                                         const std::vector<replay::DiffStep>& steps) {
  return index ? std::optional(stepJson(steps.at(*index))) : std::nullopt;
}

std::vector<std::string> linesOf(const std::optional<protocol::Json>& step) {
  return step ? replay::prettyJsonLines(*step) : std::vector<std::string>{};
}

/// "differs at: <a>/input/memory/x</a> · <a>...</a>", each link's target the path's index.
QString pathLinks(const replay::DiffRow& row) {
  switch (row.kind) {
    case replay::RowKind::Same:
      return QObject::tr("identical");
    case replay::RowKind::LeftOnly:
      return QObject::tr("(no step on the right)");
    case replay::RowKind::RightOnly:
      return QObject::tr("(no step on the left)");
    case replay::RowKind::Changed:
      break;
  }
  QStringList links;
  for (std::size_t i = 0; i < row.differences.size(); ++i) {
    links << QStringLiteral("<a href=\"%1\">%2</a>")
                 .arg(i)
                 .arg(QString::fromStdString(row.differences[i]).toHtmlEscaped());
  }
  if (row.differences_truncated) {
    links << QStringLiteral("…");
  }
  return QObject::tr("differs at: %1").arg(links.join(QStringLiteral(" · ")));
}

}  // namespace

DiffWindow::DiffWindow(const QString& left_title, std::vector<replay::DiffStep> left,
                       const QString& right_title, std::vector<replay::DiffStep> right,
                       QWidget* parent)
    : QWidget(parent, Qt::Window),
      model_(new DiffModel(this)),
      summary_(new QLabel(this)),
      table_(new QTableView(this)),
      paths_(new QLabel(this)),
      steps_(new SideBySideDiff(this)) {
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
  paths_->setWordWrap(true);
  paths_->setTextFormat(Qt::RichText);
  paths_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);

  auto* lower = new QWidget(this);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  lower_layout->addWidget(paths_);
  lower_layout->addWidget(steps_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(lower);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("<b>%1</b> (left) ↔ <b>%2</b> (right)")
                                   .arg(left_title.toHtmlEscaped(), right_title.toHtmlEscaped()),
                               this));
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { showRow(current.row()); });
  connect(paths_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (shown_row_ < 0) {
      return;
    }
    const auto& differences =
        model_->diff().rows.at(static_cast<std::size_t>(shown_row_)).differences;
    const auto index = static_cast<std::size_t>(link.toULongLong());
    if (index < differences.size()) {
      showPath(differences[index]);
    }
  });
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
  shown_row_ = row;
  const replay::DiffRow& diff_row = model_->diff().rows.at(static_cast<std::size_t>(row));
  left_step_ = stepJsonAt(diff_row.left, model_->leftSteps());
  right_step_ = stepJsonAt(diff_row.right, model_->rightSteps());
  paths_->setText(pathLinks(diff_row));
  steps_->setLines(linesOf(left_step_), linesOf(right_step_));
}

void DiffWindow::showPath(const std::string& path) {
  const auto lineIn = [&path](const std::optional<protocol::Json>& step) {
    return step ? std::optional(replay::prettyJsonLineOf(*step, path)) : std::nullopt;
  };
  steps_->revealLines(lineIn(left_step_), lineIn(right_step_));
}

}  // namespace agentvcr::viewer
