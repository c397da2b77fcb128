#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// The steps and A2A calls a search (free text over instructions, says, env feedback, prompts,
/// A2A questions, answers and errors; filters by tool, robot, status, error code, latency)
/// found, one row each.
class SearchModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  /// `Step` shows a step as the timeline numbers it in its conversation ("#3", its id in the
  /// tooltip), or "call N" for an A2A call.
  enum Column { Session, Conversation, Step, Field, Excerpt, ColumnCount };

  static constexpr int StepIdRole = Qt::UserRole + 1;
  static constexpr int ConversationIdRole = Qt::UserRole + 2;
  static constexpr int SessionIdRole = Qt::UserRole + 3;
  static constexpr int A2aCallIdRole = Qt::UserRole + 4;  ///< 0 for a step

  explicit SearchModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent = nullptr);

  /// Runs the query; on a store error the results are emptied and failed() is emitted.
  void search(const store::SearchQuery& query);
  void clear();

  const store::SearchHit& hit(int row) const { return hits_.at(static_cast<std::size_t>(row)); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 signals:
  void failed(const QString& message);

 private:
  std::shared_ptr<store::ArchiveReader> reader_;
  std::vector<store::SearchHit> hits_;
  /// Each hit's number in its conversation, as the timeline numbers it
  /// (ArchiveReader::timelineNumbers); 0 when there is none.
  std::vector<std::int64_t> numbers_;
};

}  // namespace agentvcr::viewer
