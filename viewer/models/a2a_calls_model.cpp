#include "models/a2a_calls_model.hpp"

#include <iterator>

#include <QColor>

#include "models/a2a_text.hpp"
#include "models/fault_style.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

QString optionalText(const std::optional<std::string>& value) {
  return value ? QString::fromStdString(*value) : QString();
}

}  // namespace

A2aCallsModel::A2aCallsModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent)
    : QAbstractTableModel(parent), reader_(std::move(reader)) {}

void A2aCallsModel::setConversation(std::int64_t conversation_id) {
  beginResetModel();
  conversation_id_ = conversation_id;
  calls_ = reader_->a2aCalls(conversation_id);
  fork_row_.reset();
  if (std::optional<store::A2aForkOrigin> fork = reader_->a2aForkOrigin(conversation_id)) {
    // The recorded calls before the fork point and the live ones are one timeline, as
    // `agentvcr show` prints it.
    fork_row_ = static_cast<int>(fork->prefix.size());
    calls_.insert(calls_.begin(), std::make_move_iterator(fork->prefix.begin()),
                  std::make_move_iterator(fork->prefix.end()));
  }
  endResetModel();
}

void A2aCallsModel::clear() {
  beginResetModel();
  conversation_id_.reset();
  calls_.clear();
  fork_row_.reset();
  endResetModel();
}

int A2aCallsModel::rowOfCall(std::int64_t call_id) const {
  for (std::size_t i = 0; i < calls_.size(); ++i) {
    if (calls_[i].id == call_id) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int A2aCallsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(calls_.size());
}

int A2aCallsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant A2aCallsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) {
    return {};
  }
  const store::A2aCallRow& call = at(index.row());
  const int column = index.column();
  switch (role) {
    case CallIdRole:
      return QVariant::fromValue<qlonglong>(call.id);
    case FailedRole:
      return callFailed(call);
    case WireV10Role:
      return isV10Call(call);
    case Qt::ForegroundRole:
      if ((column == State || column == Error) && callFailed(call)) {
        return QColor(Qt::darkRed);
      }
      return {};
    case Qt::BackgroundRole:
      if (call.fault) {
        return faultBackground();
      }
      // Amber, like a warning sign: the agent refused the version (a v1.0 caller of a v0.3
      // agent is the usual misconfiguration); an answered v1.0 call is as plain as a v0.3 one.
      if (column == Wire && !wireWarning(call).empty()) {
        return QColor(255, 214, 102);
      }
      return {};
    case Qt::ToolTipRole:
      if (column == Time && fork_row_ == index.row()) {
        return tr("Fork at call %1: the live agent from here on; the calls above are the "
                  "recording's.")
            .arg(*fork_row_ + 1);
      }
      return toolTip(call, column);
    case Qt::DisplayRole:
      if (column == Time && fork_row_ == index.row()) {
        // Where the recording ends must show without hovering: the rows look alike otherwise.
        return tr("fork at call %1 ▶ %2")
            .arg(*fork_row_ + 1)
            .arg(displayText(call, column).toString());
      }
      return displayText(call, column);
    default:
      return {};
  }
}

QVariant A2aCallsModel::displayText(const store::A2aCallRow& call, int column) const {
  switch (column) {
    case Time:
      return QString::fromStdString(clockText(call.started_ns));
    case Method:
      return call.method ? QString::fromStdString(*call.method) : QStringLiteral("(no method)");
    case Wire:
      return wireWarning(call).empty() ? QString::fromStdString(call.wire_version)
                                       : QString::fromStdString(call.wire_version + " ⚠");
    case Skill:
      return optionalText(call.skill_id);
    case Task:
      return optionalText(call.task_id);
    case State:
      return QString::fromStdString(callStateText(call));
    case Latency:
      return call.ended_ns ? QString::fromStdString(durationText(*call.ended_ns - call.started_ns))
                           : QString();
    case Error:
      return call.fault ? faultText(*call.fault) : QString::fromStdString(callErrorText(call));
    case Question:
      return call.request_text ? QString::fromStdString(oneLine(*call.request_text)) : QString();
    case Answer:
      return call.response_text ? QString::fromStdString(oneLine(*call.response_text)) : QString();
    default:
      return {};
  }
}

QVariant A2aCallsModel::toolTip(const store::A2aCallRow& call, int column) const {
  switch (column) {
    case Time:
      return QString::fromStdString(timestampText(call.started_ns) + " UTC");
    case Method:
      return call.stream_event_count > 0
                 ? QStringLiteral("answered as a stream of %1 events").arg(call.stream_event_count)
                 : QVariant();
    case Wire:
      if (const std::string warning = wireWarning(call); !warning.empty()) {
        return QString::fromStdString(warning);
      }
      return QString::fromStdString("A2A v" + call.wire_version + " wire");
    case State:
      // The column reads in one vocabulary; this is how the agent spelled it.
      return call.task_state ? QString::fromStdString("sent as " + *call.task_state) : QVariant();
    case Error:
      return optionalText(call.error_message);
    case Question:
      return optionalText(call.request_text);
    case Answer:
      return optionalText(call.response_text);
    case Task:
      return optionalText(call.task_id);
    default:
      return {};
  }
}

QVariant A2aCallsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {"Time",     "Method", "Wire",  "State", "Latency",
                                       "Question", "Answer", "Error", "Skill", "Task"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

}  // namespace agentvcr::viewer
