#include "widgets/charts_dock.hpp"

#include <algorithm>
#include <exception>

#include <QGridLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QScrollArea>
#include <QStringList>
#include <QTimer>
#include <QVBoxLayout>

#include "charts/histogram_chart.hpp"
#include "charts/stacked_bar_chart.hpp"

namespace agentvcr::viewer {

ChartsDock::ChartsDock(QWidget* parent)
    : QWidget(parent),
      steps_due_(new QTimer(this)),
      status_(new QLabel(this)),
      grid_(new QGridLayout),
      latency_(new HistogramChart),
      outcomes_(new StackedBarChart),
      tool_calls_(new StackedBarChart),
      env_failures_(new StackedBarChart),
      match_rate_(new StackedBarChart),
      first_divergence_(new HistogramChart),
      charts_{latency_, outcomes_, tool_calls_, env_failures_, match_rate_, first_divergence_} {
  auto* content = new QWidget;
  content->setLayout(grid_);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setWidget(content);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(status_);
  layout->addWidget(scroll, 1);
  match_rate_->hide();
  first_divergence_->hide();
  arrangeCharts();

  steps_due_->setSingleShot(true);
  connect(steps_due_, &QTimer::timeout, this, &ChartsDock::refresh);
  setSessions(nullptr, {}, {});
}

void ChartsDock::setSessions(std::shared_ptr<store::ArchiveReader> reader, const QString& db_path,
                             std::vector<std::int64_t> session_ids) {
  steps_due_->stop();
  if (!reader) {
    session_ids.clear();
  }
  QStringList names;
  for (const std::int64_t id : session_ids) {
    names << QString::number(id);
  }
  sessions_text_ = names.isEmpty()     ? tr("No session chosen")
                   : names.size() == 1 ? tr("Session %1").arg(names.front())
                                       : tr("Sessions %1").arg(names.join(QStringLiteral(", ")));
  status_->setText(sessions_text_);
  source_.emplace(std::move(reader), db_path.toStdString(), std::move(session_ids));
  showCharts();
  refresh();
}

void ChartsDock::refresh() {
  if (!source_) {
    return;
  }
  try {
    if (source_->refresh()) {
      showCharts();
    }
    status_->setText(sessions_text_);
  } catch (const std::exception& error) {
    // The charts keep what they last showed; the next tick tries again.
    status_->setText(tr("The archive could not be read: %1").arg(error.what()));
    return;
  }
  if (const auto due = source_->stepsDueIn()) {
    steps_due_->start(*due);
  }
}

void ChartsDock::setEvaluationReport(std::optional<replay::EvaluationReport> report) {
  if (report) {
    match_rate_->setData(matchRatePerConversation(*report));
    first_divergence_->setData(viewer::firstDivergenceChart(*report));
  }
  match_rate_->setVisible(report.has_value());
  first_divergence_->setVisible(report.has_value());
}

void ChartsDock::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrangeCharts();
}

void ChartsDock::showCharts() {
  SessionCharts charts = source_->charts();
  latency_->setData(std::move(charts.latency));
  outcomes_->setData(std::move(charts.outcomes));
  tool_calls_->setData(std::move(charts.tool_calls));
  env_failures_->setData(std::move(charts.env_failures));
}

void ChartsDock::arrangeCharts() {
  // As many columns as fit charts at their preferred width.
  const int columns = std::max(1, width() / latency_->sizeHint().width());
  if (columns == columns_) {
    return;
  }
  columns_ = columns;
  for (ChartWidget* chart : charts_) {
    grid_->removeWidget(chart);
  }
  for (std::size_t i = 0; i < charts_.size(); ++i) {
    const int at = static_cast<int>(i);
    grid_->addWidget(charts_[i], at / columns, at % columns);
  }
}

}  // namespace agentvcr::viewer
