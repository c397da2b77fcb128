#pragma once

#include <QAbstractTableModel>

#include "agentvcr/replay/evaluation_report.hpp"

namespace agentvcr::viewer {

/// "93.3%": a match rate (0..1) as the viewer shows it, to one decimal as `agentvcr eval` prints.
QString matchRateText(double rate);

/// The recorded conversation's title, or "conversation <id>" when it has none.
QString conversationTitle(const replay::EvaluatedConversation& conversation);

/// "A2A ctx-What": the row title of an A2A context, "A2A conversation <id>" when it has no
/// contextId.
QString a2aContextTitle(const replay::EvaluatedA2aContext& context);

/// The conversations of an evaluation report (replay::evaluationReport), one row each: title,
/// steps, matched steps, match rate, first divergent step and its first difference, and a Diff
/// column for the view's button; then its A2A contexts, one row each, their calls as steps and
/// their first divergent message ("message 2"), with no Diff. Rows that diverge are amber.
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

  /// Whether `row` is an A2A context's (below the conversations).
  bool isA2a(int row) const;
  /// The conversation of a row that is not an A2A context's.
  const replay::EvaluatedConversation& conversation(int row) const;
  /// The context of an A2A row.
  const replay::EvaluatedA2aContext& a2aContext(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant a2aData(const replay::EvaluatedA2aContext& context, int column, int role) const;

  replay::EvaluationReport report_;
};

}  // namespace agentvcr::viewer
