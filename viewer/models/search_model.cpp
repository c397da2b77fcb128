#include "models/search_model.hpp"

#include <stdexcept>

namespace agentvcr::viewer {

SearchModel::SearchModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent)
    : QAbstractTableModel(parent), reader_(std::move(reader)) {}

void SearchModel::search(const store::SearchQuery& query) {
  std::vector<store::SearchHit> hits;
  QString error;
  try {
    hits = reader_->search(query);
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  beginResetModel();
  hits_ = std::move(hits);
  endResetModel();
  if (!error.isEmpty()) {
    emit failed(error);
  }
}

void SearchModel::clear() {
  beginResetModel();
  hits_.clear();
  endResetModel();
}

int SearchModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(hits_.size());
}

int SearchModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SearchModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) {
    return {};
  }
  const store::SearchHit& h = hit(index.row());
  switch (role) {
    case StepIdRole:
      return QVariant::fromValue<qlonglong>(h.step_id);
    case ConversationIdRole:
      return QVariant::fromValue<qlonglong>(h.conversation_id);
    case SessionIdRole:
      return QVariant::fromValue<qlonglong>(h.session_id);
    case A2aCallIdRole:
      return QVariant::fromValue<qlonglong>(h.a2a_call_id);
    case Qt::DisplayRole:
      break;
    default:
      return {};
  }
  switch (index.column()) {
    case Session:
      return QVariant::fromValue<qlonglong>(h.session_id);
    case Conversation:
      return h.conversation_id != 0 ? QVariant::fromValue<qlonglong>(h.conversation_id)
                                    : QVariant();
    case Step:
      return h.a2a_call_id != 0 ? QVariant(tr("call %1").arg(h.a2a_call_id))
                                : QVariant::fromValue<qlonglong>(h.step_id);
    case Field:
      return QString::fromStdString(h.field);
    case Excerpt:
      return QString::fromStdString(h.snippet).simplified();
    default:
      return {};
  }
}

QVariant SearchModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {"Session", "Conversation", "Step", "Field", "Excerpt"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

}  // namespace agentvcr::viewer
