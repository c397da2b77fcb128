#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QAbstractItemModel>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

/// The conversations of one session as a tree: a row per conversation, fetched a page at a
/// time as the view scrolls (canFetchMore/fetchMore), and below a GEN conversation one row
/// per branch (each path from the root to a leaf step: a candidate with its own
/// continuation). Branches are read when the row is expanded. MAGMA conversations (threaded
/// steps) and A2A conversations (calls sharing a contextId) share the list, told apart by the
/// Protocol column; for an A2A one, Steps counts calls and Outcome is the last task state.
class ConversationsModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column { Title, Protocol, Robots, Steps, Outcome, Duration, ColumnCount };

  static constexpr int ConversationIdRole = Qt::UserRole + 1;
  static constexpr int PageSize = 200;

  explicit ConversationsModel(std::shared_ptr<store::ArchiveReader> reader,
                              QObject* parent = nullptr);

  /// Shows the conversations of `session_id` (none until set), starting with the first page.
  void setSession(std::int64_t session_id);

  std::optional<std::int64_t> session() const { return session_id_; }

  /// The conversation a row (or one of its branch rows) belongs to.
  std::int64_t conversationId(const QModelIndex& index) const;
  /// True when the row is an A2A conversation (its timeline is calls, not steps).
  bool isA2a(const QModelIndex& index) const;
  /// For a branch row, its steps from the root to the leaf; empty for a conversation row.
  std::vector<std::int64_t> branchSteps(const QModelIndex& index) const;
  /// The row of a conversation already fetched, or an invalid index.
  QModelIndex indexOfConversation(std::int64_t conversation_id) const;

  /// Reads the loaded conversations again and lets fetchMore() find new ones (live view).
  void refresh();

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  bool hasChildren(const QModelIndex& parent = {}) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Branch {
    std::vector<std::int64_t> step_ids;  ///< root first
    int leaf_number = 0;                 ///< timelineNumber() of the last step
    std::string outcome;
  };

  struct Node {
    store::ConversationRow row;
    bool branches_loaded = false;
    std::vector<Branch> branches;               ///< only when the conversation forks
    mutable std::optional<std::string> robots;  ///< read on first display
    mutable std::optional<bool> forks;          ///< forks(), read on first ask
  };

  const Node& nodeOf(const QModelIndex& index) const;
  bool mayFork(const Node& node) const;
  /// Whether the conversation has two branches or more (the row unfolds), from its steps'
  /// outlines before the branches are read: an arrow only where there is something below.
  bool forks(const Node& node) const;
  void loadBranches(Node& node);
  const std::string& robotsOf(const Node& node) const;
  QVariant conversationData(const Node& node, int column, int role) const;
  QVariant branchData(const Branch& branch, std::size_t number, int column, int role) const;

  std::shared_ptr<store::ArchiveReader> reader_;
  std::optional<std::int64_t> session_id_;
  std::vector<Node> nodes_;
  bool exhausted_ = true;
};

}  // namespace agentvcr::viewer
