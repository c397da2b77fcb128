#pragma once

#include <QWidget>

#include "agentvcr/replay/evaluation_report.hpp"

class QLabel;
class QTableView;

namespace agentvcr::viewer {

class EvalReportModel;

/// The report of an evaluation session: the overall figures (match rate, steps, matched steps,
/// contract violations, error candidates) above one row per re-asked conversation, each with a
/// Diff button that asks for the conversation against its recording (double-click or Enter on
/// a row does the same).
class EvalView : public QWidget {
  Q_OBJECT

 public:
  explicit EvalView(QWidget* parent = nullptr);

  void setReport(replay::EvaluationReport report);

  EvalReportModel* model() const { return model_; }

  QTableView* table() const { return table_; }

  /// The overall figures, one line.
  QLabel* figures() const { return figures_; }

  /// Emits diffRequested for the conversation of row `row`.
  void requestDiff(int row);

 signals:
  /// Open the recorded conversation (left) against the evaluation's conversation (right).
  void diffRequested(qint64 recorded_conversation_id, qint64 evaluated_conversation_id);

 private:
  EvalReportModel* model_;
  QLabel* title_;
  QLabel* figures_;
  QTableView* table_;
};

}  // namespace agentvcr::viewer
