#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/replay/evaluation_report.hpp"

namespace agentvcr::viewer {

/// Several agents evaluated on the same recording (replay::compareEvaluations), one row per
/// recorded conversation (the union over the agents, by id) and one column per agent after the
/// title and the step count: "5/7, first divergence step 3" (amber, the first difference in
/// the tooltip) or "7/7", "-" when that agent did not re-ask the conversation. Then one row per
/// recorded A2A context, its calls counted as steps: "2/3, first divergence message 2".
class AgentComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Title, Steps, FirstAgent };

  explicit AgentComparisonModel(QObject* parent = nullptr);

  void setComparison(replay::EvaluationComparison comparison);

  const replay::EvaluationComparison& comparison() const { return comparison_; }

  /// The agent (index in comparison().agents) of a column; empty for Title and Steps.
  std::optional<std::size_t> agentOf(int column) const;

  /// The recorded conversation of `row` and the conversation agent `column` re-asked it in:
  /// what a diff of that cell opens. Empty for a column that is not an agent's, or an agent
  /// that did not re-ask it, or an A2A context's row (the diff window compares MAGMA steps).
  std::optional<std::pair<std::int64_t, std::int64_t>> diffPair(int row, int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  /// One agent's evaluation of one recorded conversation or A2A context.
  struct Cell {
    std::int64_t matched = 0;
    std::int64_t asked = 0;                        ///< steps, or A2A calls
    std::optional<std::int64_t> first_divergence;  ///< step, or A2A message number
    std::string first_difference;
    std::int64_t recorded_conversation_id = 0;
    std::int64_t evaluated_conversation_id = 0;
  };

  /// One recorded conversation or A2A context: each agent's evaluation of it, empty where it
  /// has none.
  struct Row {
    QString title;           ///< the first agent's: the same for every agent
    std::int64_t asked = 0;  ///< likewise
    bool a2a = false;
    std::vector<std::optional<Cell>> agents;
  };

  const Cell* cell(const QModelIndex& index) const;

  replay::EvaluationComparison comparison_;
  std::vector<Row> rows_;
};

}  // namespace agentvcr::viewer
