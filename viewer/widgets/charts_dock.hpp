#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QString>
#include <QWidget>

#include "agentvcr/replay/evaluation_report.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "models/session_charts.hpp"

class QGridLayout;
class QLabel;
class QTimer;

namespace agentvcr::viewer {

class ChartWidget;
class HistogramChart;
class StackedBarChart;

/// The charts of the chosen sessions in a scrollable grid (as many columns as fit): agent
/// latency, outcomes over time, tool calls per robot, env failures per tool; and, for an
/// evaluation, the match rate per conversation and the first divergent step. Each chart saves
/// itself as PNG or SVG from its context menu.
class ChartsDock : public QWidget {
  Q_OBJECT

 public:
  explicit ChartsDock(QWidget* parent = nullptr);

  /// Charts `session_ids` of the archive at `db_path`, which `reader` reads; none when the
  /// list is empty.
  void setSessions(std::shared_ptr<store::ArchiveReader> reader, const QString& db_path,
                   std::vector<std::int64_t> session_ids);
  /// Reads what the archive gained since the last look (the live tick): the new exchanges, and
  /// the steps' charts when their spacing allows (SessionChartsSource); those it defers are
  /// read by a timer of its own, so they show even once the archive stops growing.
  void refresh();
  /// Shows the evaluation's two charts for `report`, or hides them.
  void setEvaluationReport(std::optional<replay::EvaluationReport> report);

  HistogramChart* latencyChart() const { return latency_; }

  StackedBarChart* outcomesChart() const { return outcomes_; }

  StackedBarChart* toolCallsChart() const { return tool_calls_; }

  StackedBarChart* envFailuresChart() const { return env_failures_; }

  StackedBarChart* matchRateChart() const { return match_rate_; }

  HistogramChart* firstDivergenceChart() const { return first_divergence_; }

  /// The sessions shown, or why the archive could not be read.
  QLabel* statusLabel() const { return status_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void showCharts();
  void arrangeCharts();

  std::optional<SessionChartsSource> source_;
  QString sessions_text_;  ///< what the status says while the archive reads well
  QTimer* steps_due_;
  QLabel* status_;
  QGridLayout* grid_;
  int columns_ = 0;
  HistogramChart* latency_;
  StackedBarChart* outcomes_;
  StackedBarChart* tool_calls_;
  StackedBarChart* env_failures_;
  StackedBarChart* match_rate_;
  HistogramChart* first_divergence_;
  std::vector<ChartWidget*> charts_;  ///< in grid order
};

}  // namespace agentvcr::viewer
