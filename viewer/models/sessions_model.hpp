#pragma once

#include <memory>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// The sessions of an archive, one row each (there are few: all are loaded).
class SessionsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Id,
    Uuid,  ///< the short uuid; the tooltip has all of it, the version and any derivation
    Node,
    Name,
    Mode,
    Upstream,
    Agent,
    Started,
    Duration,
    Exchanges,
    Steps,
    Conversations,
    Errors,
    ColumnCount
  };

  static constexpr int SessionIdRole = Qt::UserRole + 1;

  explicit SessionsModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent = nullptr);
  /// Sessions read elsewhere (the fleet archive's list, where `id` is 0): refresh() keeps them.
  explicit SessionsModel(std::vector<store::SessionRow> sessions, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  const store::SessionRow& session(int row) const {
    return sessions_.at(static_cast<std::size_t>(row));
  }

  /// Reads the sessions again (a recorder may be writing): new sessions are appended as
  /// inserted rows, the others' counters change in place. Nothing without a reader.
  void refresh();

 private:
  std::shared_ptr<store::ArchiveReader> reader_;  ///< null for sessions read elsewhere
  std::vector<store::SessionRow> sessions_;
};

}  // namespace agentvcr::viewer
