#include "models/conversations_model.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <QColor>

#include "agentvcr/protocol/json_text.hpp"
#include "models/steps_model.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

/// internalId of a conversation row; a branch row stores its conversation's row + 1.
constexpr quintptr kTopLevel = 0;

bool isA2aRow(const store::ConversationRow& row) {
  return row.protocol == "a2a";
}

/// Errors on the way, or a last state that is a failure (A2A tasks end `failed`, `rejected`;
/// the store records them in the normal vocabulary whatever the wire version).
bool endedBadly(const store::ConversationRow& row) {
  const std::string ended = row.ended_in.value_or("");
  return row.error_candidates > 0 || ended == "error" || ended == "failed" || ended == "rejected";
}

std::string outcomeText(const store::ConversationRow& row) {
  std::string outcome = row.ended_in.value_or("");
  if (isA2aRow(row)) {
    // error_candidates counts the calls answered with a JSON-RPC error.
    if (row.error_candidates > 0) {
      outcome += (outcome.empty() ? "" : " · ") + std::to_string(row.error_candidates) +
                 " call error" + (row.error_candidates > 1 ? "s" : "");
    }
    return outcome;
  }
  if (row.error_candidates > 0) {
    outcome += (outcome.empty() ? "" : " · ") + std::to_string(row.error_candidates) +
               " error candidate" + (row.error_candidates > 1 ? "s" : "");
  }
  if (row.env_failures > 0) {
    outcome += (outcome.empty() ? "" : " · ") + std::to_string(row.env_failures) + " env failure" +
               (row.env_failures > 1 ? "s" : "");
  }
  return outcome;
}

}  // namespace

ConversationsModel::ConversationsModel(std::shared_ptr<store::ArchiveReader> reader,
                                       QObject* parent)
    : QAbstractItemModel(parent), reader_(std::move(reader)) {}

void ConversationsModel::setSession(std::int64_t session_id) {
  beginResetModel();
  session_id_ = session_id;
  nodes_.clear();
  // The first page comes with the reset: a view shows it at once, later pages as it scrolls.
  auto page = reader_->conversations(session_id, 0, PageSize);
  exhausted_ = page.size() < static_cast<std::size_t>(PageSize);
  for (auto& row : page) {
    nodes_.push_back(Node{std::move(row), false, {}, std::nullopt, std::nullopt});
  }
  endResetModel();
}

const ConversationsModel::Node& ConversationsModel::nodeOf(const QModelIndex& index) const {
  const std::size_t row = index.internalId() == kTopLevel
                              ? static_cast<std::size_t>(index.row())
                              : static_cast<std::size_t>(index.internalId() - 1);
  return nodes_.at(row);
}

std::int64_t ConversationsModel::conversationId(const QModelIndex& index) const {
  return index.isValid() ? nodeOf(index).row.id : 0;
}

bool ConversationsModel::isA2a(const QModelIndex& index) const {
  return index.isValid() && isA2aRow(nodeOf(index).row);
}

std::vector<std::int64_t> ConversationsModel::branchSteps(const QModelIndex& index) const {
  if (!index.isValid() || index.internalId() == kTopLevel) {
    return {};
  }
  const Node& node = nodes_.at(static_cast<std::size_t>(index.internalId() - 1));
  return node.branches.at(static_cast<std::size_t>(index.row())).step_ids;
}

QModelIndex ConversationsModel::indexOfConversation(std::int64_t conversation_id) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].row.id == conversation_id) {
      return index(static_cast<int>(i), 0);
    }
  }
  return {};
}

void ConversationsModel::refresh() {
  if (!session_id_) {
    return;
  }
  for (std::size_t start = 0; start < nodes_.size(); start += PageSize) {
    const std::int64_t after = start == 0 ? 0 : nodes_[start - 1].row.id;
    auto page = reader_->conversations(*session_id_, after, PageSize);
    for (std::size_t i = 0; i < page.size() && start + i < nodes_.size(); ++i) {
      if (nodes_[start + i].row.id == page[i].id) {
        nodes_[start + i].row = page[i];
        nodes_[start + i].forks.reset();  // it may have forked since
      }
    }
  }
  if (!nodes_.empty()) {
    emit dataChanged(index(0, 0), index(static_cast<int>(nodes_.size()) - 1, ColumnCount - 1));
  }
  exhausted_ = false;
}

QModelIndex ConversationsModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) {
    return {};
  }
  if (!parent.isValid()) {
    return row < static_cast<int>(nodes_.size()) ? createIndex(row, column, kTopLevel)
                                                 : QModelIndex();
  }
  if (parent.internalId() != kTopLevel) {
    return {};  // branches have no children
  }
  const Node& node = nodes_.at(static_cast<std::size_t>(parent.row()));
  if (row >= static_cast<int>(node.branches.size())) {
    return {};
  }
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex ConversationsModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kTopLevel) {
    return {};
  }
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int ConversationsModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) {
    return static_cast<int>(nodes_.size());
  }
  if (parent.internalId() != kTopLevel || parent.column() != 0) {
    return 0;
  }
  return static_cast<int>(nodes_.at(static_cast<std::size_t>(parent.row())).branches.size());
}

int ConversationsModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

bool ConversationsModel::mayFork(const Node& node) const {
  // More candidates than steps: some input asked for several, each may continue on its own.
  return node.row.candidate_count > node.row.step_count;
}

bool ConversationsModel::forks(const Node& node) const {
  if (node.branches_loaded) {
    return !node.branches.empty();
  }
  if (!mayFork(node)) {
    return false;
  }
  if (!node.forks) {
    // Several candidates do not make a fork: only steps continuing two of them do. A leaf is
    // a step no other step continues; two leaves are two branches.
    std::set<std::int64_t> parents;
    std::size_t steps = 0;
    try {
      for (const store::StepOutline& step : reader_->stepOutlines(node.row.id)) {
        ++steps;
        if (step.parent_step_id) {
          parents.insert(*step.parent_step_id);
        }
      }
    } catch (const std::exception&) {
      return true;  // unreadable now: let expanding the row read it again and say
    }
    node.forks = steps - parents.size() > 1;
  }
  return *node.forks;
}

bool ConversationsModel::hasChildren(const QModelIndex& parent) const {
  if (!parent.isValid()) {
    return !nodes_.empty() || !exhausted_;
  }
  if (parent.internalId() != kTopLevel || parent.column() != 0) {
    return false;
  }
  return forks(nodes_.at(static_cast<std::size_t>(parent.row())));
}

bool ConversationsModel::canFetchMore(const QModelIndex& parent) const {
  if (!parent.isValid()) {
    return session_id_.has_value() && !exhausted_;
  }
  if (parent.internalId() != kTopLevel) {
    return false;
  }
  const Node& node = nodes_.at(static_cast<std::size_t>(parent.row()));
  return !node.branches_loaded && forks(node);
}

void ConversationsModel::fetchMore(const QModelIndex& parent) {
  if (!canFetchMore(parent)) {
    return;
  }
  if (parent.isValid()) {
    Node& node = nodes_.at(static_cast<std::size_t>(parent.row()));
    Node loaded = node;
    loadBranches(loaded);
    if (!loaded.branches.empty()) {
      beginInsertRows(parent, 0, static_cast<int>(loaded.branches.size()) - 1);
      node = std::move(loaded);
      endInsertRows();
    } else {
      node = std::move(loaded);
    }
    return;
  }
  const std::int64_t after = nodes_.empty() ? 0 : nodes_.back().row.id;
  auto page = reader_->conversations(*session_id_, after, PageSize);
  exhausted_ = page.size() < static_cast<std::size_t>(PageSize);
  if (page.empty()) {
    return;
  }
  beginInsertRows({}, static_cast<int>(nodes_.size()),
                  static_cast<int>(nodes_.size() + page.size()) - 1);
  for (auto& row : page) {
    nodes_.push_back(Node{std::move(row), false, {}, std::nullopt, std::nullopt});
  }
  endInsertRows();
}

void ConversationsModel::loadBranches(Node& node) {
  node.branches_loaded = true;
  const auto steps = reader_->steps(node.row.id);
  std::map<std::int64_t, const store::StepRow*> by_id;
  std::map<std::int64_t, int> children;
  for (const auto& step : steps) {
    by_id[step.id] = &step;
    if (step.parent_step_id) {
      ++children[*step.parent_step_id];
    }
  }
  std::vector<Branch> branches;
  for (std::size_t position = 0; position < steps.size(); ++position) {
    const store::StepRow& step = steps[position];
    if (children.count(step.id) != 0) {
      continue;  // not a leaf
    }
    Branch branch;
    branch.leaf_number = timelineNumber(position);
    for (const store::StepRow* at = &step; at != nullptr;) {
      branch.step_ids.push_back(at->id);
      auto parent = at->parent_step_id ? by_id.find(*at->parent_step_id) : by_id.end();
      at = parent == by_id.end() ? nullptr : parent->second;
    }
    std::reverse(branch.step_ids.begin(), branch.step_ids.end());
    auto candidates = reader_->candidates(step.id);
    if (!candidates.empty()) {
      branch.outcome = candidates.front().status == "error"
                           ? "error " + candidates.front().error_code.value_or("")
                           : candidates.front().decision_kind.value_or("");
    }
    branches.push_back(std::move(branch));
  }
  if (branches.size() > 1) {
    node.branches = std::move(branches);
  }
}

const std::string& ConversationsModel::robotsOf(const Node& node) const {
  if (!node.robots) {
    std::string robots;
    if (node.row.root_step_id) {
      if (auto root = reader_->step(*node.row.root_step_id)) {
        if (auto attributes = reader_->blob(root->attributes_hash)) {
          if (auto parsed = protocol::parseJson(*attributes); parsed.value) {
            robots = robotsText(*parsed.value);
          }
        }
      }
    }
    node.robots = std::move(robots);
  }
  return *node.robots;
}

QVariant ConversationsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) {
    return {};
  }
  if (index.internalId() == kTopLevel) {
    return conversationData(nodes_.at(static_cast<std::size_t>(index.row())), index.column(), role);
  }
  const Node& node = nodes_.at(static_cast<std::size_t>(index.internalId() - 1));
  if (role == ConversationIdRole) {
    return QVariant::fromValue<qlonglong>(node.row.id);
  }
  return branchData(node.branches.at(static_cast<std::size_t>(index.row())),
                    static_cast<std::size_t>(index.row()), index.column(), role);
}

QVariant ConversationsModel::conversationData(const Node& node, int column, int role) const {
  const store::ConversationRow& row = node.row;
  if (role == ConversationIdRole) {
    return QVariant::fromValue<qlonglong>(row.id);
  }
  if (role == Qt::ToolTipRole && column == Title && isA2aRow(row)) {
    return QStringLiteral("A2A conversation %1: context %2, %3 calls, %4 with a JSON-RPC error")
        .arg(row.id)
        .arg(QString::fromStdString(row.context_id.value_or("?")))
        .arg(row.step_count)
        .arg(row.error_candidates);
  }
  if (role == Qt::ToolTipRole && column == Title) {
    return QStringLiteral("conversation %1: %2 steps, %3 candidates, depth %4")
        .arg(row.id)
        .arg(row.step_count)
        .arg(row.candidate_count)
        .arg(row.max_depth);
  }
  if (role == Qt::ForegroundRole && column == Outcome && endedBadly(row)) {
    return QColor(Qt::darkRed);
  }
  if (role == Qt::BackgroundRole && column == Protocol && isA2aRow(row)) {
    return QColor(207, 226, 255);  // a light blue tag: A2A rows stand out among MAGMA ones
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (column) {
    case Title:
      return QString::fromStdString(
          row.title.value_or(isA2aRow(row) ? "(no user text)" : "(no user instruction)"));
    case Protocol:
      return isA2aRow(row) ? QStringLiteral("A2A") : QStringLiteral("MAGMA");
    case Robots:
      return isA2aRow(row) ? QString() : QString::fromStdString(robotsOf(node));
    case Steps:
      return QVariant::fromValue<qlonglong>(row.step_count);
    case Outcome:
      return QString::fromStdString(outcomeText(row));
    case Duration:
      return row.first_ns && row.last_ns
                 ? QString::fromStdString(durationText(*row.last_ns - *row.first_ns))
                 : QString();
    default:
      return {};
  }
}

QVariant ConversationsModel::branchData(const Branch& branch, std::size_t number, int column,
                                        int role) const {
  if (role != Qt::DisplayRole) {
    return {};
  }
  switch (column) {
    case Title:
      return QStringLiteral("branch %1 → #%2").arg(number + 1).arg(branch.leaf_number);
    case Steps:
      return QVariant::fromValue<qlonglong>(static_cast<qlonglong>(branch.step_ids.size()));
    case Outcome:
      return QString::fromStdString(branch.outcome);
    default:
      return {};
  }
}

QVariant ConversationsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) {
    return {};
  }
  if (role == Qt::ToolTipRole && section == Steps) {
    return QStringLiteral("MAGMA steps, or the calls of an A2A conversation");
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {"Conversation", "Protocol", "Robots",
                                       "Steps",        "Outcome",  "Duration"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

}  // namespace agentvcr::viewer
