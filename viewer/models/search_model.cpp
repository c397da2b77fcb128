#include "models/search_model.hpp"

#include <stdexcept>

namespace agentvcr::viewer {

SearchModel::SearchModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent)
    : QAbstractTableModel(parent), reader_(std::move(reader)) {}

void SearchModel::search(const store::SearchQuery& query) {
  std::vector<store::SearchHit> hits;
  std::vector<std::int64_t> numbers;
  QString error;
  try {
    hits = reader_->search(query);
    numbers = reader_->timelineNumbers(hits);
  } catch (const std::exception& e) {
    hits.clear();
    error = QString::fromStdString(e.what());
  }
  beginResetModel();
  hits_ = std::move(hits);
  numbers_ = std::move(numbers);
  endResetModel();
  if (!error.isEmpty()) {
    emit failed(error);
  }
}

void SearchModel::clear() {
  beginResetModel();
  hits_.clear();
  numbers_.clear();
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
  const std::int64_t number = numbers_.at(static_cast<std::size_t>(index.row()));
  switch (role) {
    case StepIdRole:
      return QVariant::fromValue<qlonglong>(h.step_id);
    case ConversationIdRole:
      return QVariant::fromValue<qlonglong>(h.conversation_id);
    case SessionIdRole:
      return QVariant::fromValue<qlonglong>(h.session_id);
    case A2aCallIdRole:
      return QVariant::fromValue<qlonglong>(h.a2a_call_id);
    case Qt::ToolTipRole:
      if (index.column() == Excerpt && h.repeated_by > 0) {
        return tr("first carried by this step; repeated by %n later step(s)", "",
                  static_cast<int>(h.repeated_by));
      }
      return index.column() == Step && h.a2a_call_id == 0
                 ? QVariant(tr("step %1 of conversation %2 (step id %3)")
                                .arg(number)
                                .arg(h.conversation_id)
                                .arg(h.step_id))
                 : QVariant();
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
      if (number > 0) {
        return QStringLiteral("#%1").arg(number);
      }
      return h.a2a_call_id != 0 ? tr("call id %1").arg(h.a2a_call_id)
                                : tr("step id %1").arg(h.step_id);
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
