#include "widgets/eval_view.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include "models/agent_comparison_model.hpp"
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
    if (index.data().toString().isEmpty()) {  // a row with nothing to open: no button
      QStyledItemDelegate::paint(painter, option, index);
      return;
    }
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
    if (event->type() != QEvent::MouseButtonRelease || index.data().toString().isEmpty()) {
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

/// The A2A calls' figures, worded as `agentvcr eval` prints its "A2A overall" line.
QString a2aFiguresText(const replay::EvaluationReport& report) {
  return QObject::tr(
             "A2A: %1/%2 calls match (%3, %4 only once text is normalised), %5 contract "
             "violations")
      .arg(report.a2a_matched)
      .arg(report.a2a_calls)
      .arg(matchRateText(report.a2aMatchRate()))
      .arg(report.a2a_text_normalised)
      .arg(report.a2a_contract_violations);
}

/// The MAGMA figures, and the A2A line below them when A2A calls were asked again.
QString figuresText(const replay::EvaluationReport& report) {
  QString text = QObject::tr(
                     "Match rate: %1   Steps: %2   Matched: %3   Say normalised: %4   "
                     "Contract violations: %5   Error candidates: %6")
                     .arg(matchRateText(report.matchRate()))
                     .arg(report.steps)
                     .arg(report.matched)
                     .arg(report.say_normalised)
                     .arg(report.contract_violations)
                     .arg(report.error_candidates);
  if (report.a2a_calls > 0) {
    text += QLatin1Char('\n') + a2aFiguresText(report);
  }
  return text;
}

/// One line per pair of agents, worded as the terminal prints an agreement: `what` they share,
/// counted in `unit`s.
void addAgreementLines(const std::vector<replay::PairAgreement>& agreement, const QString& prefix,
                       const QString& what, const QString& unit, QStringList& lines) {
  for (const replay::PairAgreement& pair : agreement) {
    const QString agents =
        prefix + QObject::tr("agents %1 and %2").arg(pair.first + 1).arg(pair.second + 1);
    const std::optional<double> rate = pair.rate();
    lines << (rate ? QObject::tr("%1: the same %2 at %3 of %4 %5s where either differs (%6)")
                         .arg(agents, what)
                         .arg(pair.agreeing_steps)
                         .arg(pair.differing_steps)
                         .arg(unit)
                         .arg(matchRateText(*rate))
                   : QObject::tr("%1: both match the recording at every %2").arg(agents, unit));
  }
}

/// One line per agent, then one per pair, worded as `agentvcr eval --agent A --agent B ...`
/// prints the agreement.
QString comparisonText(const replay::EvaluationComparison& comparison) {
  QStringList lines;
  for (std::size_t i = 0; i < comparison.agents.size(); ++i) {
    const replay::EvaluationReport& agent = comparison.agents[i];
    lines << QObject::tr(
                 "agent %1 (%2), session %3: match rate %4, %5/%6 steps match, %7 contract "
                 "violations, %8 error candidates")
                 .arg(i + 1)
                 .arg(QString::fromStdString(agent.agent))
                 .arg(agent.session_id)
                 .arg(matchRateText(agent.matchRate()))
                 .arg(agent.matched)
                 .arg(agent.steps)
                 .arg(agent.contract_violations)
                 .arg(agent.error_candidates);
  }
  addAgreementLines(comparison.agreement, QString(), QObject::tr("decisions"), QObject::tr("step"),
                    lines);
  const bool any_a2a =
      std::any_of(comparison.agents.begin(), comparison.agents.end(),
                  [](const replay::EvaluationReport& agent) { return agent.a2a_calls > 0; });
  if (any_a2a) {
    for (std::size_t i = 0; i < comparison.agents.size(); ++i) {
      lines << QObject::tr("agent %1 ").arg(i + 1) + a2aFiguresText(comparison.agents[i]);
    }
    addAgreementLines(comparison.a2a_agreement, QObject::tr("A2A: "), QObject::tr("answers"),
                      QObject::tr("call"), lines);
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace

EvalView::EvalView(QWidget* parent)
    : QWidget(parent),
      model_(new EvalReportModel(this)),
      comparison_model_(new AgentComparisonModel(this)),
      title_(new QLabel(this)),
      figures_(new QLabel(this)),
      tables_(new QStackedWidget(this)),
      table_(new QTableView(this)),
      comparison_table_(new QTableView(this)) {
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

  // A cell per agent and conversation: the cell, not the row, says whose conversation a diff
  // opens.
  comparison_table_->setModel(comparison_model_);
  comparison_table_->setSelectionBehavior(QAbstractItemView::SelectItems);
  comparison_table_->setSelectionMode(QAbstractItemView::SingleSelection);
  comparison_table_->verticalHeader()->hide();
  comparison_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  comparison_table_->horizontalHeader()->setStretchLastSection(true);
  connect(comparison_table_, &QAbstractItemView::activated, this,
          [this](const QModelIndex& index) { requestAgentDiff(index.row(), index.column()); });

  tables_->addWidget(table_);
  tables_->addWidget(comparison_table_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(figures_);
  layout->addWidget(tables_, 1);
}

void EvalView::setReport(replay::EvaluationReport report) {
  title_->setText(tr("<b>Evaluation session %1</b>").arg(report.session_id));
  figures_->setText(figuresText(report));
  model_->setReport(std::move(report));
  tables_->setCurrentWidget(table_);
}

void EvalView::setComparison(replay::EvaluationComparison comparison) {
  QStringList sessions;
  for (const replay::EvaluationReport& agent : comparison.agents) {
    sessions << QString::number(agent.session_id);
  }
  title_->setText(tr("<b>%1 agents compared: evaluation sessions %2</b>")
                      .arg(comparison.agents.size())
                      .arg(sessions.join(QStringLiteral(", "))));
  figures_->setText(comparisonText(comparison));
  comparison_model_->setComparison(std::move(comparison));
  tables_->setCurrentWidget(comparison_table_);
}

bool EvalView::showingComparison() const {
  return tables_->currentWidget() == comparison_table_;
}

void EvalView::requestDiff(int row) {
  if (row < 0 || row >= model_->rowCount() || model_->isA2a(row)) {
    return;  // an A2A context has no diff to open
  }
  const replay::EvaluatedConversation& conversation = model_->conversation(row);
  emit diffRequested(conversation.recorded_conversation_id, conversation.evaluated_conversation_id);
}

void EvalView::requestAgentDiff(int row, int column) {
  if (const auto pair = comparison_model_->diffPair(row, column)) {
    emit diffRequested(pair->first, pair->second);
  }
}

}  // namespace agentvcr::viewer
