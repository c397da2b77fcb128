#include "models/steps_model.hpp"

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

/// The timelineNumber() of each of `count` steps shown in their conversation's order.
std::vector<int> numbersInOrder(std::size_t count) {
  std::vector<int> numbers(count);
  for (std::size_t i = 0; i < count; ++i) {
    numbers[i] = timelineNumber(i);
  }
  return numbers;
}

}  // namespace

int timelineNumber(std::size_t position) {
  return static_cast<int>(position) + 1;
}

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
  std::vector<store::StepOutline> live = reader_->stepOutlines(conversation_id);
  const std::optional<store::ForkOrigin> fork = reader_->forkOrigin(conversation_id);
  if (!fork) {
    const std::vector<int> numbers = numbersInOrder(live.size());
    show(std::move(live), numbers);
    return;
  }
  std::unordered_map<std::int64_t, store::StepOutline> recorded;
  for (store::StepOutline& outline : reader_->stepOutlines(fork->reasked.conversation_id)) {
    recorded.emplace(outline.id, std::move(outline));
  }
  std::vector<store::StepOutline> outlines;
  for (const store::StepRow& step : fork->prefix) {
    if (auto found = recorded.find(step.id); found != recorded.end()) {
      outlines.push_back(found->second);
    }
  }
  const int fork_row = static_cast<int>(outlines.size());
  for (store::StepOutline& outline : live) {
    outline.depth += fork->reasked.depth;
    outlines.push_back(std::move(outline));
  }
  // The prefix and the live steps are one timeline, numbered from its first recorded step.
  const std::vector<int> numbers = numbersInOrder(outlines.size());
  show(std::move(outlines), numbers, fork->reasked.conversation_id, fork_row);
}

void StepsModel::setSteps(std::int64_t conversation_id, const std::vector<std::int64_t>& step_ids) {
  conversation_id_ = conversation_id;
  const std::vector<store::StepOutline> outlines = reader_->stepOutlines(conversation_id);
  std::unordered_map<std::int64_t, std::size_t> position_of;
  for (std::size_t i = 0; i < outlines.size(); ++i) {
    position_of.emplace(outlines[i].id, i);
  }
  std::vector<store::StepOutline> branch;
  std::vector<int> numbers;
  for (std::int64_t id : step_ids) {
    if (auto found = position_of.find(id); found != position_of.end()) {
      branch.push_back(outlines[found->second]);
      numbers.push_back(timelineNumber(found->second));
    }
  }
  show(std::move(branch), numbers);
}

void StepsModel::clear() {
  conversation_id_.reset();
  show({}, {});
}

StepsModel::ExchangesById StepsModel::exchangesOf(std::int64_t conversation_id) const {
  // One row at a time: only the timings are kept, never thousands of whole rows at once.
  ExchangesById exchanges;
  reader_->forEachExchangeOfConversation(conversation_id, [&](store::ExchangeRow&& exchange) {
    exchanges.emplace(exchange.id, timelineExchange(exchange));
  });
  return exchanges;
}

void StepsModel::show(std::vector<store::StepOutline> outlines, const std::vector<int>& numbers,
                      std::optional<std::int64_t> prefix_conversation,
                      std::optional<int> fork_row) {
  beginResetModel();
  steps_ = {};  // its room too: a short conversation after a long one
  fork_row_ = fork_row;
  texts_.clear();
  text_order_.clear();
  if (conversation_id_ && !outlines.empty()) {
    ExchangesById exchanges = exchangesOf(*conversation_id_);
    if (prefix_conversation) {
      exchanges.merge(exchangesOf(*prefix_conversation));
    }
    steps_.reserve(outlines.size());
    for (std::size_t i = 0; i < outlines.size(); ++i) {
      const store::StepOutline& outline = outlines[i];
      TimelineStep& entry = steps_.emplace_back();
      entry.step = outline;
      entry.number = numbers[i];
      if (auto found = exchanges.find(outline.exchange_id); found != exchanges.end()) {
        entry.exchange = found->second;
      }
    }
  }
  // The outlines and the exchanges' timings are gone by now, so the reset's listeners (the
  // waterfall) build their bars without adding to them.
  outlines = {};
  endResetModel();
}

const StepTexts& StepsModel::texts(int row) const {
  const std::int64_t id = at(row).step.id;
  if (auto found = texts_.find(id); found != texts_.end()) {
    return found->second;
  }
  if (texts_.size() >= kTextRows) {
    texts_.erase(text_order_.front());
    text_order_.pop_front();
  }
  StepTexts read;
  try {
    if (auto step = reader_->step(id)) {
      read.instruction_summary = instructionSummary(*step);
      read.instruction_content = std::move(step->instruction_content);
    }
    read.candidates = reader_->candidates(id);
  } catch (const std::exception& e) {
    unreadable_ = {};
    unreadable_.instruction_summary = std::string("(not readable: ") + e.what() + ")";
    return unreadable_;
  }
  text_order_.push_back(id);
  return texts_.emplace(id, std::move(read)).first->second;
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
  const store::StepOutline& step = entry.step;
  switch (role) {
    case StepIdRole:
      return QVariant::fromValue<qlonglong>(step.id);
    case EnvFailureRole:
      return step.env_failure;
    case DepthRole:
      return QVariant::fromValue<qlonglong>(step.depth);
    case FaultRole:
      return entry.fault() ? QString::fromStdString(*entry.fault()) : QString();
    case Qt::BackgroundRole:
      return entry.fault() ? QVariant(faultBackground()) : QVariant();
    case Qt::ForegroundRole:
      if (index.column() == Instruction && step.env_failure) {
        return QColor(Qt::darkRed);
      }
      if (index.column() == Status && step.error_candidates > 0) {
        return QColor(Qt::darkRed);
      }
      return {};
    case Qt::ToolTipRole:
      if (index.column() == Instruction) {
        return QString::fromStdString(texts(index.row()).instruction_content);
      }
      if (index.column() == Decision) {
        return QString::fromStdString(decisionsText(texts(index.row()).candidates));
      }
      if (index.column() == Number && fork_row_ == index.row()) {
        // Where the recorded prefix ends, the way to see both continuations.
        return tr(
            "Fork point: the live agent from here on. Right-click (or Ctrl+Shift+F) for "
            "the recording beside it.");
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
             QStringLiteral("%1").arg(entry.number);
    case Instruction:
      return QString::fromStdString((step.env ? "env: " : "user: ") +
                                    texts(index.row()).instruction_summary);
    case Decision:
      return QString::fromStdString(decisionsText(texts(index.row()).candidates));
    case Status: {
      const QString recorded = QString::fromStdString(statusText(texts(index.row()).candidates));
      if (const auto& fault = entry.fault()) {
        return recorded.isEmpty() ? faultText(*fault) : faultText(*fault) + "\n" + recorded;
      }
      return recorded;
    }
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
