#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/store/rows.hpp"
#include "models/steps_model.hpp"

namespace agentvcr::viewer {

/// The moments an exchange went through (docs/schema.md, Timing points), as offsets from the
/// start of the waterfall. A moment is empty when it never came or was never measured.
enum class TimingPoint { Started, RequestEnded, UpstreamSent, FirstByte, Ended, Count };

/// One row of the waterfall: a MAGMA step, an internal step of one of its candidates, or an
/// A2A call, placed on the conversation's time axis.
struct WaterfallBar {
  enum class Kind { Step, InternalStep, Call };
  /// Failed: an HTTP failure, an exchange that did not complete, or an error candidate.
  /// Faulted: chaos injected a fault into the exchange (its own colour, never the agent's red).
  enum class Health { Ok, Failed, Faulted };

  Kind kind = Kind::Step;
  std::int64_t id = 0;  ///< the step (also for its internal steps), or the A2A call
  std::int64_t exchange_id = 0;
  std::int64_t depth = 0;  ///< indentation: the step's depth, one more for an internal step
  int branch = 0;          ///< GEN branch: 0 for the trunk, then 1, 2... in tree order
  int step_row = -1;       ///< the timeline row (StepsModel) of the step, or -1 for a call
  /// An internal step's or a call's label, and what hovering a call shows (its question, answer
  /// and error). Empty for a step: its texts are the timeline's, read when its bar is in sight
  /// (WaterfallModel::label, detail), never for every step of a long conversation.
  std::string label;
  std::string detail;
  /// The exchange's moments for a step or a call; only Started and Ended for an internal step.
  std::array<std::optional<std::int64_t>, static_cast<std::size_t>(TimingPoint::Count)> at;
  Health health = Health::Ok;
  std::optional<std::string> fault;

  std::optional<std::int64_t> point(TimingPoint which) const {
    return at[static_cast<std::size_t>(which)];
  }

  std::int64_t start() const { return point(TimingPoint::Started).value_or(0); }

  /// The last moment known: the end, or the latest point reached before the exchange broke.
  std::int64_t end() const;
};

/// A conversation's waterfall, pure: the bars of its steps in tree order (each step's timed
/// internal steps right below it, laid end to end from the moment the agent got the request),
/// or of its A2A calls in recording order. Offsets count from the earliest exchange start.
/// `internal_steps` as ArchiveReader::timedInternalSteps gives them: by step, candidate index
/// and position.
std::vector<WaterfallBar> stepBars(const std::vector<TimelineStep>& steps,
                                   const std::vector<store::TimedInternalStep>& internal_steps);
std::vector<WaterfallBar> callBars(const std::vector<store::A2aCallRow>& calls,
                                   const std::vector<store::ExchangeRow>& exchanges);

/// The bars as a table (label, start, duration, the agent's part, health) for views other than
/// the picture, and the picture's source: WaterfallView paints bars() directly.
class WaterfallModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Label, Start, Duration, Agent, Health, ColumnCount };

  static constexpr int KindRole = Qt::UserRole + 1;  ///< int(WaterfallBar::Kind)
  static constexpr int IdRole = Qt::UserRole + 2;    ///< qlonglong: step or call id

  explicit WaterfallModel(QObject* parent = nullptr);

  /// `timeline`: the steps model the bars were made from (stepBars), whose texts a step's bar
  /// shows; it must show the same steps as long as the bars are set. None for calls' bars.
  void setBars(std::vector<WaterfallBar> bars, const StepsModel* timeline = nullptr);

  const std::vector<WaterfallBar>& bars() const { return bars_; }

  /// Offset of the last moment of any bar: the axis' length.
  std::int64_t span() const { return span_; }

  /// The row of the step's (or call's) own bar, or -1.
  int rowOf(WaterfallBar::Kind kind, std::int64_t id) const;

  /// What a bar's row shows: "#3 user: the instruction" for a step, or WaterfallBar::label.
  std::string label(int row) const;
  /// What hovering a bar shows first: a step's instruction and every candidate's decision, a
  /// call's question, answer and error, or an internal step's label.
  std::string detail(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<WaterfallBar> bars_;
  const StepsModel* timeline_ = nullptr;
  std::int64_t span_ = 0;
};

}  // namespace agentvcr::viewer
