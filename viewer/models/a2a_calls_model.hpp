#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QAbstractTableModel>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// The timeline of an A2A conversation (one contextId): a row per JSON-RPC call in recording
/// order, with when it started, method, wire version (flagged when the agent refused it, see
/// wireWarning()), state in one vocabulary for both versions, latency, the user's text and the
/// answer's text, error, skill and task. Failed calls read in red. A fork's context
/// (`replay --fork-at`) starts with the recorded calls before its fork point, once, and its
/// first live call is marked (store::ArchiveReader::a2aForkOrigin).
class A2aCallsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  /// The texts come early: in a narrow pane they are what one reads first; ids come last.
  enum Column {
    Time,
    Method,
    Wire,
    State,
    Latency,
    Question,
    Answer,
    Error,
    Skill,
    Task,
    ColumnCount
  };

  static constexpr int CallIdRole = Qt::UserRole + 1;
  static constexpr int FailedRole = Qt::UserRole + 2;   ///< bool: callFailed()
  static constexpr int WireV10Role = Qt::UserRole + 3;  ///< bool: a v1.0 binding call

  explicit A2aCallsModel(std::shared_ptr<store::ArchiveReader> reader, QObject* parent = nullptr);

  void setConversation(std::int64_t conversation_id);
  void clear();

  std::optional<std::int64_t> conversation() const { return conversation_id_; }

  const store::A2aCallRow& at(int row) const { return calls_.at(static_cast<std::size_t>(row)); }

  const std::vector<store::A2aCallRow>& calls() const { return calls_; }

  /// The first live row of a fork's context, below its recorded prefix; empty otherwise.
  std::optional<int> forkRow() const { return fork_row_; }

  /// The row of a call, or -1.
  int rowOfCall(std::int64_t call_id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant displayText(const store::A2aCallRow& call, int column) const;
  QVariant toolTip(const store::A2aCallRow& call, int column) const;

  std::shared_ptr<store::ArchiveReader> reader_;
  std::optional<std::int64_t> conversation_id_;
  std::vector<store::A2aCallRow> calls_;
  std::optional<int> fork_row_;
};

}  // namespace agentvcr::viewer
