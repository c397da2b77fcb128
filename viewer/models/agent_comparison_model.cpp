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
  // re-asked still has its row, with a blank cell there. A2A contexts come after.
  std::map<std::int64_t, Row> by_id;
  std::map<std::int64_t, Row> a2a_by_id;
  const std::size_t agents = comparison_.agents.size();
  auto place = [agents](Row& row, std::size_t agent, const QString& title, const Cell& cell) {
    if (row.agents.empty()) {
      row.title = title;
      row.asked = cell.asked;
      row.agents.resize(agents);
    }
    row.agents[agent] = cell;
  };
  for (std::size_t agent = 0; agent < agents; ++agent) {
    const replay::EvaluationReport& report = comparison_.agents[agent];
    for (const replay::EvaluatedConversation& conversation : report.conversations) {
      place(by_id[conversation.recorded_conversation_id], agent, conversationTitle(conversation),
            {conversation.matched, conversation.steps, conversation.first_divergent_step,
             conversation.first_difference, conversation.recorded_conversation_id,
             conversation.evaluated_conversation_id});
    }
    for (const replay::EvaluatedA2aContext& context : report.a2a_contexts) {
      Row& row = a2a_by_id[context.recorded_conversation_id];
      row.a2a = true;
      place(row, agent, a2aContextTitle(context),
            {context.matched, context.calls, context.first_divergent_message,
             context.first_difference, context.recorded_conversation_id,
             context.evaluated_conversation_id});
    }
  }
  for (auto* rows : {&by_id, &a2a_by_id}) {
    for (auto& entry : *rows) {
      rows_.push_back(std::move(entry.second));
    }
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
  const Cell* evaluated = cell(index(row, column));
  if (evaluated == nullptr || rows_[static_cast<std::size_t>(row)].a2a) {
    return std::nullopt;
  }
  return std::pair{evaluated->recorded_conversation_id, evaluated->evaluated_conversation_id};
}

const AgentComparisonModel::Cell* AgentComparisonModel::cell(const QModelIndex& index) const {
  const auto agent = agentOf(index.column());
  if (!index.isValid() || !agent || index.row() >= rowCount()) {
    return nullptr;
  }
  const std::optional<Cell>& found = rows_[static_cast<std::size_t>(index.row())].agents[*agent];
  return found ? &*found : nullptr;
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
    return index.column() == Title ? QVariant(row.title) : QVariant::fromValue<qint64>(row.asked);
  }
  const Cell* evaluated = cell(index);
  if (evaluated == nullptr) {
    return role == Qt::DisplayRole ? QVariant(QStringLiteral("-")) : QVariant();
  }
  switch (role) {
    case Qt::DisplayRole: {
      const QString matched = QStringLiteral("%1/%2").arg(evaluated->matched).arg(evaluated->asked);
      if (!evaluated->first_divergence) {
        return matched;
      }
      return (row.a2a ? tr("%1, first divergence message %2") : tr("%1, first divergence step %2"))
          .arg(matched)
          .arg(*evaluated->first_divergence);
    }
    case Qt::BackgroundRole:
      return evaluated->first_divergence ? QVariant(diffBackground(replay::RowKind::Changed))
                                         : QVariant();
    case Qt::ToolTipRole:
      return evaluated->first_divergence
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
