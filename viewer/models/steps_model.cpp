#include "models/steps_model.hpp"

#include <unordered_map>

#include <QColor>

#include "models/fault_style.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

std::string decisionsText(const std::vector<store::CandidateRow>& candidates) {
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

std::string statusText(const std::vector<store::CandidateRow>& candidates) {
  std::string joined;
  for (const auto& candidate : candidates) {
    const std::string one = candidate.status == "error"
                                ? "error " + candidate.error_code.value_or("")
                                : candidate.status;
    joined += (joined.empty() ? "" : "\n") + one;
  }
  return joined;
}

bool anyError(const std::vector<store::CandidateRow>& candidates) {
  for (const auto& candidate : candidates) {
    if (candidate.status == "error") {
      return true;
    }
  }
  return false;
}

}  // namespace

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
  load(reader_->steps(conversation_id));
}

void StepsModel::setSteps(std::int64_t conversation_id, const std::vector<std::int64_t>& step_ids) {
  conversation_id_ = conversation_id;
  std::vector<store::StepRow> steps;
  for (std::int64_t id : step_ids) {
    if (auto step = reader_->step(id)) {
      steps.push_back(std::move(*step));
    }
  }
  load(std::move(steps));
}

void StepsModel::clear() {
  conversation_id_.reset();
  load({});
}

void StepsModel::load(std::vector<store::StepRow> steps) {
  beginResetModel();
  steps_.clear();
  steps_ = timelineOf(std::move(steps));
  // What reading the rows took is freed before the reset's listeners (the waterfall) build on
  // steps_: on a long conversation the two would otherwise add up.
  endResetModel();
}

std::vector<TimelineStep> StepsModel::timelineOf(std::vector<store::StepRow> steps) const {
  if (!conversation_id_ || steps.empty()) {
    return {};
  }
  // The exchanges in one query (a batch carries many steps), without their bodies.
  std::map<std::int64_t, std::shared_ptr<const store::ExchangeRow>> exchanges;
  for (auto& exchange : reader_->exchangesOfConversation(*conversation_id_)) {
    const std::int64_t id = exchange.id;
    exchanges.emplace(id, std::make_shared<const store::ExchangeRow>(std::move(exchange)));
  }
  std::vector<TimelineStep> timeline;
  timeline.reserve(steps.size());
  std::unordered_map<std::int64_t, std::size_t> row_of_step;
  for (auto& step : steps) {
    TimelineStep entry;
    if (auto found = exchanges.find(step.exchange_id); found != exchanges.end()) {
      entry.exchange = found->second;
    }
    row_of_step.emplace(step.id, timeline.size());
    entry.step = std::move(step);
    timeline.push_back(std::move(entry));
  }
  // The candidates in one query too: one per step cost most of the time to show a long
  // conversation. A branch keeps only its own steps' candidates.
  for (auto& candidate : reader_->candidatesOfConversation(*conversation_id_)) {
    if (auto row = row_of_step.find(candidate.step_id); row != row_of_step.end()) {
      timeline[row->second].candidates.push_back(std::move(candidate));
    }
  }
  return timeline;
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
                                    instructionSummary(step));
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
