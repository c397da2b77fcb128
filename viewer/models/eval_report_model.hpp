#pragma once

#include <QAbstractTableModel>

#include "agentvcr/replay/evaluation_report.hpp"

namespace agentvcr::viewer {

/// "93.3%": a match rate (0..1) as the viewer shows it, to one decimal as `agentvcr eval` prints.
QString matchRateText(double rate);

/// The recorded conversation's title, or "conversation <id>" when it has none.
QString conversationTitle(const replay::EvaluatedConversation& conversation);

/// The conversations of an evaluation report (replay::evaluationReport), one row each: title,
/// steps, matched steps, match rate, first divergent step and its first difference, and a Diff
/// column for the view's button. Rows that diverge are amber.
class EvalReportModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Title,
    Steps,
    Matched,
    MatchRate,
    FirstDivergentStep,
    FirstDifference,
    Diff,
    ColumnCount
  };

  explicit EvalReportModel(QObject* parent = nullptr);

  void setReport(replay::EvaluationReport report);

  const replay::EvaluationReport& report() const { return report_; }

  const replay::EvaluatedConversation& conversation(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  replay::EvaluationReport report_;
};

}  // namespace agentvcr::viewer
