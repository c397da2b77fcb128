#include "models/agent_comparison_model.hpp"

#include <map>

#include "models/diff_model.hpp"
#include "models/eval_report_model.hpp"

namespace agentvcr::viewer {

AgentComparisonModel::AgentComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void AgentComparisonModel::setComparison(replay::EvaluationComparison comparison) {
  beginResetModel();
  comparison_ = std::move(comparison);
  rows_.clear();
  // By recorded conversation id, as each report lists its own: a conversation one agent never
  // re-asked still has its row, with a blank cell there.
  std::map<std::int64_t, Row> by_id;
  const std::size_t agents = comparison_.agents.size();
  for (std::size_t agent = 0; agent < agents; ++agent) {
    for (const replay::EvaluatedConversation& conversation :
         comparison_.agents[agent].conversations) {
      Row& row = by_id[conversation.recorded_conversation_id];
      if (row.first == nullptr) {
        row.first = &conversation;
        row.agents.resize(agents, nullptr);
      }
      row.agents[agent] = &conversation;
    }
  }
  for (auto& entry : by_id) {
    rows_.push_back(std::move(entry.second));
  }
  endResetModel();
}

std::optional<std::size_t> AgentComparisonModel::agentOf(int column) const {
  if (column < FirstAgent || column >= columnCount()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(column - FirstAgent);
}

std::optional<std::pair<std::int64_t, std::int64_t>> AgentComparisonModel::diffPair(
    int row, int column) const {
  const replay::EvaluatedConversation* evaluated = cell(index(row, column));
  if (evaluated == nullptr) {
    return std::nullopt;
  }
  return std::pair{evaluated->recorded_conversation_id, evaluated->evaluated_conversation_id};
}

const replay::EvaluatedConversation* AgentComparisonModel::cell(const QModelIndex& index) const {
  const auto agent = agentOf(index.column());
  if (!index.isValid() || !agent || index.row() >= rowCount()) {
    return nullptr;
  }
  return rows_[static_cast<std::size_t>(index.row())].agents[*agent];
}

int AgentComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int AgentComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : FirstAgent + static_cast<int>(comparison_.agents.size());
}

QVariant AgentComparisonModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Row& row = rows_[static_cast<std::size_t>(index.row())];
  if (index.column() == Title || index.column() == Steps) {
    if (role == Qt::TextAlignmentRole && index.column() == Steps) {
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
      return {};
    }
    return index.column() == Title ? QVariant(conversationTitle(*row.first))
                                   : QVariant::fromValue<qint64>(row.first->steps);
  }
  const replay::EvaluatedConversation* evaluated = cell(index);
  if (evaluated == nullptr) {
    return role == Qt::DisplayRole ? QVariant(QStringLiteral("-")) : QVariant();
  }
  switch (role) {
    case Qt::DisplayRole: {
      const QString matched = QStringLiteral("%1/%2").arg(evaluated->matched).arg(evaluated->steps);
      return evaluated->first_divergent_step ? tr("%1, first divergence step %2")
                                                   .arg(matched)
                                                   .arg(*evaluated->first_divergent_step)
                                             : matched;
    }
    case Qt::BackgroundRole:
      return evaluated->first_divergent_step ? QVariant(diffBackground(replay::RowKind::Changed))
                                             : QVariant();
    case Qt::ToolTipRole:
      return evaluated->first_divergent_step
                 ? QVariant(QString::fromStdString(evaluated->first_difference))
                 : QVariant();
    default:
      return {};
  }
}

QVariant AgentComparisonModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
    return {};
  }
  if (const auto agent = agentOf(section)) {
    const replay::EvaluationReport& report = comparison_.agents[*agent];
    return role == Qt::DisplayRole
               ? tr("agent %1 (%2)").arg(*agent + 1).arg(QString::fromStdString(report.agent))
               : tr("Evaluation session %1: double-click a cell for its diff with the recording")
                     .arg(report.session_id);
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
    case Title:
      return tr("Conversation");
    case Steps:
      return tr("Steps");
    default:
      return {};
  }
}

}  // namespace agentvcr::viewer
