#include "models/eval_report_model.hpp"

#include "models/diff_model.hpp"

namespace agentvcr::viewer {

QString matchRateText(double rate) {
  return QStringLiteral("%1%").arg(rate * 100, 0, 'f', 1);
}

QString conversationTitle(const replay::EvaluatedConversation& conversation) {
  return conversation.title.empty()
             ? EvalReportModel::tr("conversation %1").arg(conversation.recorded_conversation_id)
             : QString::fromStdString(conversation.title);
}

QString a2aContextTitle(const replay::EvaluatedA2aContext& context) {
  return context.context_id.empty()
             ? EvalReportModel::tr("A2A conversation %1").arg(context.recorded_conversation_id)
             : EvalReportModel::tr("A2A %1").arg(QString::fromStdString(context.context_id));
}

EvalReportModel::EvalReportModel(QObject* parent) : QAbstractTableModel(parent) {}

void EvalReportModel::setReport(replay::EvaluationReport report) {
  beginResetModel();
  report_ = std::move(report);
  endResetModel();
}

bool EvalReportModel::isA2a(int row) const {
  return row >= static_cast<int>(report_.conversations.size());
}

const replay::EvaluatedConversation& EvalReportModel::conversation(int row) const {
  return report_.conversations.at(static_cast<std::size_t>(row));
}

const replay::EvaluatedA2aContext& EvalReportModel::a2aContext(int row) const {
  return report_.a2a_contexts.at(static_cast<std::size_t>(row) - report_.conversations.size());
}

int EvalReportModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid()
             ? 0
             : static_cast<int>(report_.conversations.size() + report_.a2a_contexts.size());
}

int EvalReportModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant EvalReportModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  if (isA2a(index.row())) {
    return a2aData(a2aContext(index.row()), index.column(), role);
  }
  const replay::EvaluatedConversation& row = conversation(index.row());
  if (role == Qt::BackgroundRole) {
    return row.first_divergent_step ? QVariant(diffBackground(replay::RowKind::Changed))
                                    : QVariant();
  }
  if (role == Qt::TextAlignmentRole && index.column() >= Steps &&
      index.column() <= FirstDivergentStep) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == FirstDifference) {
    return QString::fromStdString(row.first_difference);
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (index.column()) {
    case Title:
      return conversationTitle(row);
    case Steps:
      return QVariant::fromValue<qint64>(row.steps);
    case Matched:
      return QVariant::fromValue<qint64>(row.matched);
    case MatchRate:
      return matchRateText(row.matchRate());
    case FirstDivergentStep:
      return row.first_divergent_step ? QVariant::fromValue<qint64>(*row.first_divergent_step)
                                      : QVariant(QStringLiteral("-"));
    case FirstDifference:
      return QString::fromStdString(row.first_difference);
    case Diff:
      return tr("Diff");
    default:
      return {};
  }
}

QVariant EvalReportModel::a2aData(const replay::EvaluatedA2aContext& context, int column,
                                  int role) const {
  if (role == Qt::BackgroundRole) {
    return context.first_divergent_message ? QVariant(diffBackground(replay::RowKind::Changed))
                                           : QVariant();
  }
  if (role == Qt::TextAlignmentRole && column >= Steps && column <= FirstDivergentStep) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && column == FirstDifference) {
    return QString::fromStdString(context.first_difference);
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (column) {
    case Title:
      return a2aContextTitle(context);
    case Steps:
      return QVariant::fromValue<qint64>(context.calls);
    case Matched:
      return QVariant::fromValue<qint64>(context.matched);
    case MatchRate:
      return matchRateText(context.matchRate());
    case FirstDivergentStep:
      // A message, numbered among the recorded context's calls: not a step number.
      return context.first_divergent_message
                 ? tr("message %1").arg(*context.first_divergent_message)
                 : QStringLiteral("-");
    case FirstDifference:
      return QString::fromStdString(context.first_difference);
    default:
      return {};  // no Diff: the diff window compares MAGMA steps
  }
}

QVariant EvalReportModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
    case Title:
      return tr("Conversation");
    case Steps:
      return tr("Steps");
    case Matched:
      return tr("Matched");
    case MatchRate:
      return tr("Match rate");
    case FirstDivergentStep:
      return tr("First divergent step");
    case FirstDifference:
      return tr("First difference");
    case Diff:
      return tr("Diff");
    default:
      return {};
  }
}

}  // namespace agentvcr::viewer
