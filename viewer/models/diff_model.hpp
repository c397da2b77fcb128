#pragma once

#include <vector>

#include <QAbstractTableModel>
#include <QColor>

#include "agentvcr/replay/conversation_diff.hpp"

namespace agentvcr::viewer {

/// The background of a diff row (or line) of this kind, the same in every diff view: none for
/// Same (an invalid colour), amber for Changed, red for LeftOnly, green for RightOnly.
QColor diffBackground(replay::RowKind kind);

/// Two conversations side by side, steps aligned (replay::diffConversations): per row the left
/// step, the right step, and the JSON paths where they differ.
class DiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    LeftStep,
    LeftInstruction,
    LeftDecision,
    RightStep,
    RightInstruction,
    RightDecision,
    Differences,
    ColumnCount
  };

  static constexpr int KindRole = Qt::UserRole + 1;  ///< int(replay::RowKind)

  explicit DiffModel(QObject* parent = nullptr);

  void setConversations(std::vector<replay::DiffStep> left, std::vector<replay::DiffStep> right);

  const replay::ConversationDiff& diff() const { return diff_; }

  QString summary() const { return QString::fromStdString(diff_.summary); }

  const std::vector<replay::DiffStep>& leftSteps() const { return left_; }

  const std::vector<replay::DiffStep>& rightSteps() const { return right_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant sideData(const std::optional<std::size_t>& step,
                    const std::vector<replay::DiffStep>& steps, int field) const;

  std::vector<replay::DiffStep> left_;
  std::vector<replay::DiffStep> right_;
  replay::ConversationDiff diff_;
};

}  // namespace agentvcr::viewer
