#pragma once

#include <optional>
#include <vector>

#include <QWidget>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/conversation_diff.hpp"

class QLabel;
class QTableView;

namespace agentvcr::viewer {

class DiffModel;
class SideBySideDiff;

/// Two conversations side by side: a summary of where they first diverge, the aligned steps
/// (changed rows amber, one-sided rows red or green), and for the selected row both steps in
/// full as aligned JSON with the differing lines marked, above them the differing JSON paths
/// as links that bring both panes to that path.
class DiffWindow : public QWidget {
  Q_OBJECT

 public:
  DiffWindow(const QString& left_title, std::vector<replay::DiffStep> left,
             const QString& right_title, std::vector<replay::DiffStep> right,
             QWidget* parent = nullptr);

  DiffModel* model() const { return model_; }

  QTableView* table() const { return table_; }

  QLabel* summary() const { return summary_; }

  /// The selected row's differing paths, each a link whose target is its index in the row's
  /// DiffRow::differences.
  QLabel* paths() const { return paths_; }

  /// The selected row's steps, as {"candidates", "depth", "input"}: what the paths point into.
  SideBySideDiff* steps() const { return steps_; }

  /// Shows row `row` in the lower panes.
  void showRow(int row);

  /// Brings both panes to the line where JSON pointer `path` lives in each shown step (the
  /// nearest existing parent on a side that lacks it).
  void showPath(const std::string& path);

 private:
  DiffModel* model_;
  QLabel* summary_;
  QTableView* table_;
  QLabel* paths_;
  SideBySideDiff* steps_;
  int shown_row_ = -1;
  std::optional<protocol::Json> left_step_;  ///< the shown row's left step; empty: none
  std::optional<protocol::Json> right_step_;
};

}  // namespace agentvcr::viewer
