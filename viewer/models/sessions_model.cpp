#include "models/sessions_model.hpp"

#include "agentvcr/store/identity.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {

SessionsModel::SessionsModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent)
    : QAbstractTableModel(parent), reader_(std::move(reader)), sessions_(reader_->sessions()) {}

SessionsModel::SessionsModel(std::vector<store::SessionRow> sessions, QObject* parent)
    : QAbstractTableModel(parent), sessions_(std::move(sessions)) {}

int SessionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(sessions_.size());
}

int SessionsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SessionsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) {
    return {};
  }
  const store::SessionRow& s = session(index.row());
  if (role == SessionIdRole) {
    return QVariant::fromValue<qlonglong>(s.id);
  }
  if (role == Qt::TextAlignmentRole && index.column() >= Duration) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == Uuid) {
    QString tip = QString::fromStdString(s.uuid) + QStringLiteral("\nrecorded by agentvcr ") +
                  QString::fromStdString(s.recorder_version.value_or("(before 0.1)"));
    if (s.derived_from) {
      tip += QStringLiteral("\ncopied from session ") + QString::fromStdString(*s.derived_from);
    }
    return tip;
  }
  if (role == Qt::ToolTipRole && index.column() == Errors) {
    return QStringLiteral("%1 failed exchanges, %2 invalid exchanges, %3 error candidates")
        .arg(s.failed_exchange_count)
        .arg(s.invalid_exchange_count)
        .arg(s.error_candidate_count);
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (index.column()) {
    case Id:
      return QVariant::fromValue<qlonglong>(s.id);
    case Uuid:
      return QString::fromStdString(store::shortUuid(s.uuid));
    case Node:
      return QString::fromStdString(s.node);
    case Name:
      return QString::fromStdString(s.name);
    case Mode:
      return QString::fromStdString(s.mode);
    case Upstream:
      return QString::fromStdString(s.upstream);
    case Agent:
      return s.agent_id ? QString::fromStdString(*s.agent_id + " " + s.agent_version.value_or(""))
                        : QString();
    case Started:
      return QString::fromStdString(timestampText(s.started_ns));
    case Duration:
      return s.ended_ns ? QString::fromStdString(durationText(*s.ended_ns - s.started_ns))
                        : QString::fromUtf8(store::sessionStateName(s.state));
    case Exchanges:
      return QVariant::fromValue<qlonglong>(s.exchange_count);
    case Steps:
      return QVariant::fromValue<qlonglong>(s.step_count);
    case Conversations:
      return QVariant::fromValue<qlonglong>(s.conversation_count);
    case Errors:
      return QVariant::fromValue<qlonglong>(s.failed_exchange_count + s.invalid_exchange_count +
                                            s.error_candidate_count);
    default:
      return {};
  }
}

QVariant SessionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {
      "Id",      "Uuid",     "Node",      "Name",  "Mode",          "Upstream", "Agent",
      "Started", "Duration", "Exchanges", "Steps", "Conversations", "Errors"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

void SessionsModel::refresh() {
  if (!reader_) {
    return;
  }
  std::vector<store::SessionRow> now = reader_->sessions();
  const std::size_t known = std::min(now.size(), sessions_.size());
  for (std::size_t i = 0; i < known; ++i) {
    sessions_[i] = now[i];
  }
  if (known > 0) {
    emit dataChanged(index(0, 0), index(static_cast<int>(known) - 1, ColumnCount - 1));
  }
  if (now.size() > sessions_.size()) {
    beginInsertRows({}, static_cast<int>(sessions_.size()), static_cast<int>(now.size()) - 1);
    sessions_.insert(sessions_.end(), now.begin() + static_cast<std::ptrdiff_t>(known), now.end());
    endInsertRows();
  }
}

}  // namespace agentvcr::viewer
