#pragma once

#include <QWidget>

#include "agentvcr/replay/evaluation_report.hpp"

class QLabel;
class QStackedWidget;
class QTableView;

namespace agentvcr::viewer {

class AgentComparisonModel;
class EvalReportModel;

/// The report of an evaluation session: the overall figures (match rate, steps, matched steps,
/// contract violations, error candidates) above one row per re-asked conversation, each with a
/// Diff button that asks for the conversation against its recording (double-click or Enter on
/// a row does the same). Or several evaluation sessions compared, one agent each: a line of
/// figures per agent and one per pair of agents, above one row per recorded conversation and
/// one column per agent, whose cells ask for that agent's conversation against the recording.
class EvalView : public QWidget {
  Q_OBJECT

 public:
  explicit EvalView(QWidget* parent = nullptr);

  void setReport(replay::EvaluationReport report);
  /// Shows the agents compared instead of one report.
  void setComparison(replay::EvaluationComparison comparison);

  /// True while the view shows a comparison (setComparison), false for one report.
  bool showingComparison() const;

  EvalReportModel* model() const { return model_; }

  QTableView* table() const { return table_; }

  AgentComparisonModel* comparisonModel() const { return comparison_model_; }

  QTableView* comparisonTable() const { return comparison_table_; }

  /// The overall figures: one line for a report; for a comparison, one per agent, then one per
  /// pair of agents. When A2A calls were asked again, their lines follow: one for a report; one
  /// per agent and one per pair for a comparison.
  QLabel* figures() const { return figures_; }

  /// Emits diffRequested for the conversation of row `row`; nothing for an A2A context's row.
  void requestDiff(int row);
  /// Emits diffRequested for the conversation of row `row` as the agent of `column` of the
  /// comparison re-asked it; nothing for a cell that is not an agent's.
  void requestAgentDiff(int row, int column);

 signals:
  /// Open the recorded conversation (left) against the evaluation's conversation (right).
  void diffRequested(qint64 recorded_conversation_id, qint64 evaluated_conversation_id);

 private:
  EvalReportModel* model_;
  AgentComparisonModel* comparison_model_;
  QLabel* title_;
  QLabel* figures_;
  QStackedWidget* tables_;  ///< table_ or comparison_table_
  QTableView* table_;
  QTableView* comparison_table_;
};

}  // namespace agentvcr::viewer
