#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// One step of the timeline with what the panes need next to it.
struct TimelineStep {
  store::StepRow step;
  std::vector<store::CandidateRow> candidates;
  /// Its exchange without headers and bodies: timing points, status, outcome, fault. Shared by
  /// the steps of one batch; null when the archive lost it.
  std::shared_ptr<const store::ExchangeRow> exchange;

  /// Request start to response end; empty when the exchange never ended.
  std::optional<std::int64_t> latencyNs() const;
  /// The fault chaos injected into its exchange.
  const std::optional<std::string>& fault() const;
};

/// The step timeline of one conversation (tree order, GEN branches indented by depth) or of
/// one branch (root to leaf): instruction, decision, status, latency.
class StepsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Number, Instruction, Decision, Status, Latency, ColumnCount };

  static constexpr int StepIdRole = Qt::UserRole + 1;
  static constexpr int EnvFailureRole = Qt::UserRole + 2;  ///< bool: env feedback reports a failure
  static constexpr int DepthRole = Qt::UserRole + 3;
  static constexpr int FaultRole = Qt::UserRole + 4;  ///< QString: the injected fault, or empty

  explicit StepsModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent = nullptr);

  void setConversation(std::int64_t conversation_id);
  /// Only these steps, in this order (a branch).
  void setSteps(std::int64_t conversation_id, const std::vector<std::int64_t>& step_ids);
  void clear();

  std::optional<std::int64_t> conversation() const { return conversation_id_; }

  const TimelineStep& at(int row) const { return steps_.at(static_cast<std::size_t>(row)); }

  const std::vector<TimelineStep>& steps() const { return steps_; }

  /// The row of a step, or -1.
  int rowOfStep(std::int64_t step_id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  void load(std::vector<store::StepRow> steps);
  /// The steps with their exchanges and candidates, read in one query each.
  std::vector<TimelineStep> timelineOf(std::vector<store::StepRow> steps) const;

  std::shared_ptr<store::ArchiveReader> reader_;
  std::optional<std::int64_t> conversation_id_;
  std::vector<TimelineStep> steps_;
};

}  // namespace agentvcr::viewer
