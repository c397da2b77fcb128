#include "models/waterfall_model.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "models/a2a_text.hpp"
#include "models/fault_style.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

constexpr std::size_t index(TimingPoint point) {
  return static_cast<std::size_t>(point);
}

/// The exchange's moments, absolute (ns since the epoch).
std::array<std::optional<std::int64_t>, index(TimingPoint::Count)> momentsOf(
    const TimelineExchange& exchange) {
  return {exchange.started_ns, exchange.request_ended_ns, exchange.upstream_sent_ns,
          exchange.upstream_first_byte_ns, exchange.ended_ns};
}

WaterfallBar::Health healthOf(const TimelineExchange& exchange, bool error_answer) {
  if (exchange.fault) {
    return WaterfallBar::Health::Faulted;
  }
  return exchange.failed || error_answer ? WaterfallBar::Health::Failed : WaterfallBar::Health::Ok;
}

/// Makes every moment an offset from the earliest start, and returns the latest offset.
std::int64_t rebase(std::vector<WaterfallBar>& bars) {
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& bar : bars) {
    if (const auto started = bar.point(TimingPoint::Started)) {
      origin = std::min(origin, *started);
    }
  }
  if (origin == std::numeric_limits<std::int64_t>::max()) {
    return 0;
  }
  for (auto& bar : bars) {
    for (auto& moment : bar.at) {
      if (moment) {
        *moment -= origin;
      }
    }
  }
  return origin;
}

/// GEN branches in tree order: a step continues its parent's branch, unless the parent step
/// forked (two or more of its candidates have continuations), in which case each forking
/// candidate opens a branch of its own.
std::vector<int> branchesOf(const std::vector<TimelineStep>& steps) {
  std::map<std::int64_t, std::size_t> row_of_step;
  for (std::size_t row = 0; row < steps.size(); ++row) {
    row_of_step.emplace(steps[row].step.id, row);
  }
  std::map<std::int64_t, int> branch_of_candidate;
  std::vector<int> branches(steps.size(), 0);
  int next_branch = 1;
  for (std::size_t row = 0; row < steps.size(); ++row) {
    const store::StepOutline& step = steps[row].step;
    const auto parent =
        step.parent_step_id ? row_of_step.find(*step.parent_step_id) : row_of_step.end();
    if (parent == row_of_step.end() || !step.parent_candidate_id) {
      continue;  // a root, or a branch shown without its parent: the trunk
    }
    if (steps[parent->second].step.forking_candidates < 2) {
      branches[row] = branches[parent->second];
      continue;
    }
    auto [known, fresh] = branch_of_candidate.emplace(*step.parent_candidate_id, next_branch);
    next_branch += fresh ? 1 : 0;
    branches[row] = known->second;
  }
  return branches;
}

std::string stepLabel(const TimelineStep& entry, const StepTexts& texts) {
  return "#" + std::to_string(entry.number) + (entry.step.env ? " env: " : " user: ") +
         oneLine(texts.instruction_summary, 80);
}

std::string internalStepLabel(const store::TimedInternalStep& internal) {
  return "[" + std::to_string(internal.candidate_index) + "] " +
         internal.component.value_or("step") + " " +
         internal.step_key.value_or(std::to_string(internal.position));
}

std::string stepDetail(const TimelineStep& entry, const StepTexts& texts) {
  std::string detail =
      (entry.step.env ? "env: " : "user: ") + oneLine(texts.instruction_content, 400);
  for (const auto& candidate : texts.candidates) {
    detail += "\n[" + std::to_string(candidate.candidate_index) + "] " +
              oneLine(decisionSummary(candidate), 400);
  }
  return detail;
}

std::string callLabel(std::size_t row, const store::A2aCallRow& call) {
  std::string label = "#" + std::to_string(row + 1) + " " + call.method.value_or("(no method)");
  if (const std::string state = callStateText(call); !state.empty()) {
    label += " → " + state;
  }
  return label;
}

std::string callDetail(const store::A2aCallRow& call) {
  std::string detail = call.method.value_or("(no method)");
  if (call.request_text) {
    detail += "\nasked: " + oneLine(*call.request_text, 400);
  }
  if (call.response_text) {
    detail += "\nanswered: " + oneLine(*call.response_text, 400);
  }
  if (const std::string error = callErrorText(call); !error.empty()) {
    detail += "\nerror: " + error;
  }
  return detail;
}

}  // namespace

std::int64_t WaterfallBar::end() const {
  for (std::size_t i = at.size(); i-- > 0;) {
    if (at[i]) {
      return *at[i];
    }
  }
  return 0;
}

std::vector<WaterfallBar> stepBars(const std::vector<TimelineStep>& steps,
                                   const std::vector<store::TimedInternalStep>& internal_steps) {
  std::unordered_map<std::int64_t, std::vector<const store::TimedInternalStep*>> timed_of_step;
  for (const auto& internal : internal_steps) {
    timed_of_step[internal.step_id].push_back(&internal);
  }
  const std::vector<int> branches = branchesOf(steps);

  std::vector<WaterfallBar> bars;
  bars.reserve(steps.size() + internal_steps.size());
  for (std::size_t row = 0; row < steps.size(); ++row) {
    const TimelineStep& entry = steps[row];
    const bool error_answer = entry.step.error_candidates > 0;
    WaterfallBar bar;
    bar.kind = WaterfallBar::Kind::Step;
    bar.id = entry.step.id;
    bar.exchange_id = entry.step.exchange_id;
    bar.depth = entry.step.depth;
    bar.branch = branches[row];
    bar.step_row = static_cast<int>(row);
    if (entry.exchange) {
      bar.at = momentsOf(*entry.exchange);
      bar.health = healthOf(*entry.exchange, error_answer);
      bar.fault = entry.exchange->fault;
    } else {
      bar.health = error_answer ? WaterfallBar::Health::Failed : bar.health;
    }
    const auto agent_start = bar.point(TimingPoint::UpstreamSent);
    bars.push_back(bar);

    // Each candidate's timed internal steps, end to end from when the agent got the request:
    // the entries are in execution order and say how long, not when.
    const auto timed = timed_of_step.find(entry.step.id);
    if (timed == timed_of_step.end() || !agent_start) {
      continue;
    }
    std::optional<std::int64_t> candidate;
    std::int64_t at = 0;
    for (const store::TimedInternalStep* internal : timed->second) {
      if (internal->candidate_id != candidate) {
        candidate = internal->candidate_id;
        at = *agent_start;
      }
      WaterfallBar nested;
      nested.kind = WaterfallBar::Kind::InternalStep;
      nested.id = entry.step.id;
      nested.exchange_id = entry.step.exchange_id;
      nested.depth = entry.step.depth + 1;
      nested.branch = bar.branch;
      nested.step_row = bar.step_row;
      nested.label = internalStepLabel(*internal);
      nested.at[index(TimingPoint::Started)] = at;
      at += internal->duration_ns;
      nested.at[index(TimingPoint::Ended)] = at;
      nested.health = internal->candidate_status == "error" ? WaterfallBar::Health::Failed
                                                            : WaterfallBar::Health::Ok;
      bars.push_back(std::move(nested));
    }
  }
  rebase(bars);
  return bars;
}

std::vector<WaterfallBar> callBars(const std::vector<store::A2aCallRow>& calls,
                                   const std::vector<store::ExchangeRow>& exchanges) {
  std::map<std::int64_t, TimelineExchange> exchange_of;
  for (const auto& exchange : exchanges) {
    exchange_of.emplace(exchange.id, timelineExchange(exchange));
  }
  std::vector<WaterfallBar> bars;
  bars.reserve(calls.size());
  for (std::size_t row = 0; row < calls.size(); ++row) {
    const store::A2aCallRow& call = calls[row];
    WaterfallBar bar;
    bar.kind = WaterfallBar::Kind::Call;
    bar.id = call.id;
    bar.exchange_id = call.exchange_id;
    bar.label = callLabel(row, call);
    bar.detail = callDetail(call);
    const bool error_answer = callFailed(call);
    if (const auto found = exchange_of.find(call.exchange_id); found != exchange_of.end()) {
      bar.at = momentsOf(found->second);
      bar.health = healthOf(found->second, error_answer);
    } else {
      bar.at[index(TimingPoint::Started)] = call.started_ns;
      bar.at[index(TimingPoint::Ended)] = call.ended_ns;
      bar.health = error_answer ? WaterfallBar::Health::Failed : bar.health;
    }
    bar.fault = call.fault;
    if (call.fault) {
      bar.health = WaterfallBar::Health::Faulted;
    }
    bars.push_back(std::move(bar));
  }
  rebase(bars);
  return bars;
}

WaterfallModel::WaterfallModel(QObject* parent) : QAbstractTableModel(parent) {}

void WaterfallModel::setBars(std::vector<WaterfallBar> bars, const StepsModel* timeline) {
  beginResetModel();
  bars_ = std::move(bars);
  timeline_ = timeline;
  span_ = 0;
  for (const auto& bar : bars_) {
    span_ = std::max(span_, bar.end());
  }
  endResetModel();
}

int WaterfallModel::rowOf(WaterfallBar::Kind kind, std::int64_t id) const {
  for (std::size_t row = 0; row < bars_.size(); ++row) {
    if (bars_[row].kind == kind && bars_[row].id == id) {
      return static_cast<int>(row);
    }
  }
  return -1;
}

std::string WaterfallModel::label(int row) const {
  const WaterfallBar& bar = bars_.at(static_cast<std::size_t>(row));
  if (bar.kind != WaterfallBar::Kind::Step || timeline_ == nullptr) {
    return bar.label;
  }
  return stepLabel(timeline_->at(bar.step_row), timeline_->texts(bar.step_row));
}

std::string WaterfallModel::detail(int row) const {
  const WaterfallBar& bar = bars_.at(static_cast<std::size_t>(row));
  if (bar.kind == WaterfallBar::Kind::Step && timeline_ != nullptr) {
    return stepDetail(timeline_->at(bar.step_row), timeline_->texts(bar.step_row));
  }
  return bar.detail.empty() ? bar.label : bar.detail;
}

int WaterfallModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(bars_.size());
}

int WaterfallModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant WaterfallModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) {
    return {};
  }
  const WaterfallBar& bar = bars_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case KindRole:
      return static_cast<int>(bar.kind);
    case IdRole:
      return QVariant::fromValue<qlonglong>(bar.id);
    case Qt::BackgroundRole:
      return bar.health == WaterfallBar::Health::Faulted ? QVariant(faultBackground()) : QVariant();
    case Qt::DisplayRole:
      break;
    default:
      return {};
  }
  const auto sent = bar.point(TimingPoint::UpstreamSent);
  const auto first_byte = bar.point(TimingPoint::FirstByte);
  switch (index.column()) {
    case Label:
      return QString(static_cast<int>(bar.depth) * 2, QChar(' ')) +
             QString::fromStdString(label(index.row()));
    case Start:
      return QString::fromStdString(offsetMsText(bar.start()));
    case Duration:
      return QString::fromStdString(durationText(bar.end() - bar.start()));
    case Agent:
      return sent && first_byte ? QString::fromStdString(durationText(*first_byte - *sent))
                                : QString();
    case Health:
      switch (bar.health) {
        case WaterfallBar::Health::Ok:
          return QStringLiteral("ok");
        case WaterfallBar::Health::Failed:
          return QStringLiteral("failed");
        case WaterfallBar::Health::Faulted:
          return faultText(bar.fault.value_or(""));
      }
      return {};
    default:
      return {};
  }
}

QVariant WaterfallModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {"Bar", "Start", "Duration", "Agent", "Health"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

}  // namespace agentvcr::viewer
