#pragma once

#include <vector>

#include <QWidget>

#include "agentvcr/replay/conversation_diff.hpp"

class QLabel;
class QTableView;

namespace agentvcr::viewer {

class DiffModel;
class TextPane;

/// Two conversations side by side: a summary of where they first diverge, the aligned steps
/// (changed rows amber, one-sided rows red or green), and for the selected row both steps in
/// full with the differing JSON paths.
class DiffWindow : public QWidget {
  Q_OBJECT

 public:
  DiffWindow(const QString& left_title, std::vector<replay::DiffStep> left,
             const QString& right_title, std::vector<replay::DiffStep> right,
             QWidget* parent = nullptr);

  DiffModel* model() const { return model_; }

  QTableView* table() const { return table_; }

  QLabel* summary() const { return summary_; }

  /// Shows row `row` in the lower panes.
  void showRow(int row);

 private:
  DiffModel* model_;
  QLabel* summary_;
  QTableView* table_;
  TextPane* left_pane_;
  TextPane* right_pane_;
};

}  // namespace agentvcr::viewer
