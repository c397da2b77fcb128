#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
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

/// The number the timeline gives the step at `position` of its conversation's steps in tree
/// order (ArchiveReader::stepOutlines), from 1. Every place that names a step to a person (the
/// timeline's # column, the waterfall, a branch, a search hit) uses it, never the step's id:
/// step 3 is "#3" wherever it shows, also in a branch that leaves steps out.
int timelineNumber(std::size_t position);

/// One step of the timeline: what listing it and laying out its bar need, a few words. A long
/// conversation holds one per step, so its texts are read only for the rows in sight
/// (StepsModel::texts).
struct TimelineStep {
  store::StepOutline step;
  /// Its exchange; empty when the archive lost it.
  std::optional<TimelineExchange> exchange;
  /// timelineNumber() of the step in its whole conversation.
  int number = 0;

  /// Request start to response end; empty when the exchange never ended.
  std::optional<std::int64_t> latencyNs() const;
  /// The fault chaos injected into its exchange.
  const std::optional<std::string>& fault() const;
};

/// What the timeline and the waterfall show of a step in sight, read from the archive.
struct StepTexts {
  std::string instruction_summary;  ///< instructionSummary() of the step
  std::string instruction_content;
  std::vector<store::CandidateRow> candidates;  ///< by index
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

  /// Every step of the conversation. A fork's live conversation (`replay --fork-at`) starts
  /// with the recorded prefix it continues, once, then its live steps at their depth in the
  /// whole episode (store::ArchiveReader::forkOrigin).
  void setConversation(std::int64_t conversation_id);
  /// Only these steps, in this order (a branch).
  void setSteps(std::int64_t conversation_id, const std::vector<std::int64_t>& step_ids);
  void clear();

  std::optional<std::int64_t> conversation() const { return conversation_id_; }

  /// The first live row of a fork's conversation, below its recorded prefix; empty otherwise.
  std::optional<int> forkRow() const { return fork_row_; }

  const TimelineStep& at(int row) const { return steps_.at(static_cast<std::size_t>(row)); }

  const std::vector<TimelineStep>& steps() const { return steps_; }

  /// The texts of a row, read on first use and kept for the last kTextRows rows read: a
  /// screen of the table or the waterfall, or the rows the table measures (at most 500), never
  /// the whole of a long conversation. Valid until the next call. Views ask for them while
  /// painting, where nothing may throw: a row whose texts cannot be read (the archive changed
  /// or went away under the viewer) says so in its instruction, and is read again next time.
  const StepTexts& texts(int row) const;

  /// The row of a step, or -1.
  int rowOfStep(std::int64_t step_id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  using ExchangesById = std::unordered_map<std::int64_t, TimelineExchange>;

  static constexpr std::size_t kTextRows = 512;

  /// The exchanges of the conversation, in one query (a batch carries many steps).
  ExchangesById exchangesOf(std::int64_t conversation_id) const;
  /// Shows these steps of the conversation with their exchanges (and those of the recorded
  /// conversation a fork's prefix comes from, `prefix_conversation`, above `fork_row`);
  /// `numbers[i]` is the timelineNumber() of outlines[i].
  void show(std::vector<store::StepOutline> outlines, const std::vector<int>& numbers,
            std::optional<std::int64_t> prefix_conversation = std::nullopt,
            std::optional<int> fork_row = std::nullopt);

  std::shared_ptr<store::ArchiveReader> reader_;
  std::optional<std::int64_t> conversation_id_;
  std::optional<int> fork_row_;
  std::vector<TimelineStep> steps_;
  /// texts() by step id, and the ids in the order they were read (the oldest goes first).
  mutable std::unordered_map<std::int64_t, StepTexts> texts_;
  mutable std::deque<std::int64_t> text_order_;
  mutable StepTexts unreadable_;  ///< what texts() gives for a row it could not read
};

}  // namespace agentvcr::viewer
