#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// What the timeline shows of an exchange: its timing points (docs/schema.md), whether it
/// failed, the fault chaos injected. A step keeps these few words rather than the whole row,
/// five times larger: a long conversation holds one per step.
struct TimelineExchange {
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> request_ended_ns;
  std::optional<std::int64_t> upstream_sent_ns;
  std::optional<std::int64_t> upstream_first_byte_ns;
  std::optional<std::int64_t> ended_ns;
  /// No HTTP status, a status of 400 or more, or an exchange that did not complete.
  bool failed = false;
  std::optional<std::string> fault;
};

TimelineExchange timelineExchange(const store::ExchangeRow& exchange);

/// One step of the timeline with what the panes need next to it.
struct TimelineStep {
  /// Its row without env_feedback (left null): decoded, an env step's feedback is a JSON tree
  /// of about a kilobyte, and a long conversation holds thousands. instruction_summary keeps
  /// what the timeline shows of it; the details read the step again (ArchiveReader::step).
  store::StepRow step;
  /// instructionSummary() of the step, made while its feedback was at hand.
  std::string instruction_summary;
  /// Its candidates by index: a view of the model's, valid while the model shows this timeline.
  std::span<const store::CandidateRow> candidates;
  /// Its exchange; empty when the archive lost it.
  std::optional<TimelineExchange> exchange;

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
  using ExchangesById = std::unordered_map<std::int64_t, TimelineExchange>;

  /// The exchanges of the conversation, in one query (a batch carries many steps).
  ExchangesById exchangesOf(std::int64_t conversation_id) const;
  /// Every step of the conversation with its exchange, without candidates (show() adds them).
  std::vector<TimelineStep> conversationTimeline(std::int64_t conversation_id) const;
  static TimelineStep timelineStep(store::StepRow step, const ExchangesById& exchanges);
  /// Shows `timeline` with the candidates of its steps.
  void show(std::vector<TimelineStep> timeline);

  std::shared_ptr<store::ArchiveReader> reader_;
  std::optional<std::int64_t> conversation_id_;
  std::vector<TimelineStep> steps_;
  /// The candidates of the conversation, by step id then index, in one vector the steps view
  /// slices of: one allocation where one per step cost as much as the rows.
  std::vector<store::CandidateRow> candidates_;
};

}  // namespace agentvcr::viewer
