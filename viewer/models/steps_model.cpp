#include "models/steps_model.hpp"

#include <algorithm>

#include <QColor>

#include "models/fault_style.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

std::string decisionsText(std::span<const store::CandidateRow> candidates) {
  if (candidates.empty()) {
    return "(no answer recorded)";
  }
  if (candidates.size() == 1) {
    return decisionSummary(candidates.front());
  }
  std::string joined;
  for (const auto& candidate : candidates) {
    joined += (joined.empty() ? "" : "\n") +
              ("[" + std::to_string(candidate.candidate_index) + "] " + decisionSummary(candidate));
  }
  return joined;
}

std::string statusText(std::span<const store::CandidateRow> candidates) {
  std::string joined;
  for (const auto& candidate : candidates) {
    const std::string one = candidate.status == "error"
                                ? "error " + candidate.error_code.value_or("")
                                : candidate.status;
    joined += (joined.empty() ? "" : "\n") + one;
  }
  return joined;
}

bool anyError(std::span<const store::CandidateRow> candidates) {
  for (const auto& candidate : candidates) {
    if (candidate.status == "error") {
      return true;
    }
  }
  return false;
}

}  // namespace

TimelineExchange timelineExchange(const store::ExchangeRow& exchange) {
  TimelineExchange summary;
  summary.started_ns = exchange.started_ns;
  summary.request_ended_ns = exchange.request_ended_ns;
  summary.upstream_sent_ns = exchange.upstream_sent_ns;
  summary.upstream_first_byte_ns = exchange.upstream_first_byte_ns;
  summary.ended_ns = exchange.ended_ns;
  summary.failed = exchange.status == 0 || exchange.status >= 400 ||
                   exchange.outcome != protocol::outcomeName(protocol::ExchangeOutcome::Complete);
  summary.fault = exchange.fault;
  return summary;
}

std::optional<std::int64_t> TimelineStep::latencyNs() const {
  if (!exchange || !exchange->ended_ns) {
    return std::nullopt;
  }
  return *exchange->ended_ns - exchange->started_ns;
}

const std::optional<std::string>& TimelineStep::fault() const {
  static const std::optional<std::string> kNone;
  return exchange ? exchange->fault : kNone;
}

StepsModel::StepsModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent)
    : QAbstractTableModel(parent), reader_(std::move(reader)) {}

void StepsModel::setConversation(std::int64_t conversation_id) {
  conversation_id_ = conversation_id;
  show(conversationTimeline(conversation_id));
}

void StepsModel::setSteps(std::int64_t conversation_id, const std::vector<std::int64_t>& step_ids) {
  conversation_id_ = conversation_id;
  const ExchangesById exchanges = exchangesOf(conversation_id);
  std::vector<TimelineStep> timeline;
  for (std::int64_t id : step_ids) {
    if (auto step = reader_->step(id)) {
      timeline.push_back(timelineStep(std::move(*step), exchanges));
    }
  }
  show(std::move(timeline));
}

void StepsModel::clear() {
  conversation_id_.reset();
  show({});
}

StepsModel::ExchangesById StepsModel::exchangesOf(std::int64_t conversation_id) const {
  ExchangesById exchanges;
  for (const store::ExchangeRow& exchange : reader_->exchangesOfConversation(conversation_id)) {
    exchanges.emplace(exchange.id, timelineExchange(exchange));
  }
  return exchanges;
}

std::vector<TimelineStep> StepsModel::conversationTimeline(std::int64_t conversation_id) const {
  // The exchanges before the steps: only their timings are kept, so their large rows are gone
  // before the steps take their room.
  const ExchangesById exchanges = exchangesOf(conversation_id);
  std::vector<TimelineStep> timeline;
  if (const auto conversation = reader_->conversation(conversation_id)) {
    timeline.reserve(static_cast<std::size_t>(conversation->step_count));
  }
  // One step at a time: each one's feedback is decoded, summarised and dropped before the next.
  reader_->forEachStep(conversation_id, [&](store::StepRow&& step) {
    timeline.push_back(timelineStep(std::move(step), exchanges));
  });
  return timeline;
}

TimelineStep StepsModel::timelineStep(store::StepRow step, const ExchangesById& exchanges) {
  TimelineStep entry;
  if (auto found = exchanges.find(step.exchange_id); found != exchanges.end()) {
    entry.exchange = found->second;
  }
  entry.instruction_summary = instructionSummary(step);
  step.env_feedback = nullptr;  // see TimelineStep::step
  entry.step = std::move(step);
  return entry;
}

void StepsModel::show(std::vector<TimelineStep> timeline) {
  beginResetModel();
  steps_ = std::move(timeline);
  candidates_.clear();
  // The candidates in one query too: one per step cost most of the time to show a long
  // conversation. A branch shows only its own steps' candidates.
  if (conversation_id_ && !steps_.empty()) {
    candidates_ = reader_->candidatesOfConversation(*conversation_id_);
    const auto by_step = [](const store::CandidateRow& candidate) { return candidate.step_id; };
    for (TimelineStep& entry : steps_) {
      entry.candidates = std::ranges::equal_range(candidates_, entry.step.id, {}, by_step);
    }
  }
  // The exchange rows and the decoded feedbacks are gone by now, so the reset's listeners (the
  // waterfall) build their own rows without adding to them.
  endResetModel();
}

int StepsModel::rowOfStep(std::int64_t step_id) const {
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].step.id == step_id) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int StepsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(steps_.size());
}

int StepsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant StepsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) {
    return {};
  }
  const TimelineStep& entry = at(index.row());
  const store::StepRow& step = entry.step;
  const bool env_failure = step.env_failure.value_or(false);
  switch (role) {
    case StepIdRole:
      return QVariant::fromValue<qlonglong>(step.id);
    case EnvFailureRole:
      return env_failure;
    case DepthRole:
      return QVariant::fromValue<qlonglong>(step.depth);
    case FaultRole:
      return entry.fault() ? QString::fromStdString(*entry.fault()) : QString();
    case Qt::BackgroundRole:
      return entry.fault() ? QVariant(faultBackground()) : QVariant();
    case Qt::ForegroundRole:
      if (index.column() == Instruction && env_failure) {
        return QColor(Qt::darkRed);
      }
      if (index.column() == Status && anyError(entry.candidates)) {
        return QColor(Qt::darkRed);
      }
      return {};
    case Qt::ToolTipRole:
      if (index.column() == Instruction) {
        return QString::fromStdString(step.instruction_content);
      }
      if (index.column() == Decision) {
        return QString::fromStdString(decisionsText(entry.candidates));
      }
      return {};
    case Qt::DisplayRole:
      break;
    default:
      return {};
  }
  switch (index.column()) {
    case Number:
      // Depth shows as indentation: a GEN fork's continuations sit under their parent.
      return QString(static_cast<int>(step.depth) * 2, QChar(' ')) +
             QStringLiteral("%1").arg(index.row() + 1);
    case Instruction:
      return QString::fromStdString((step.instruction_type == "env" ? "env: " : "user: ") +
                                    entry.instruction_summary);
    case Decision:
      return QString::fromStdString(decisionsText(entry.candidates));
    case Status:
      if (const auto& fault = entry.fault()) {
        const QString recorded = QString::fromStdString(statusText(entry.candidates));
        return recorded.isEmpty() ? faultText(*fault) : faultText(*fault) + "\n" + recorded;
      }
      return QString::fromStdString(statusText(entry.candidates));
    case Latency:
      if (const auto latency = entry.latencyNs()) {
        return QString::fromStdString(durationText(*latency));
      }
      return QString();
    default:
      return {};
  }
}

QVariant StepsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {"#", "Instruction", "Decision", "Status", "Latency"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

}  // namespace agentvcr::viewer
