#pragma once

#include <string>
#include <vector>

#include <QPlainTextEdit>

#include "agentvcr/replay/text_diff.hpp"

namespace agentvcr::viewer {

/// Read-only monospace text that wraps at the pane's width: prompts, raw outputs, JSON.
class TextPane : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit TextPane(QWidget* parent = nullptr);

  void setText(const std::string& text);
  /// Shows a line diff: removed lines on red, added lines on green, with -/+ markers.
  void setLineDiff(const std::vector<replay::DiffLine>& lines);
};

}  // namespace agentvcr::viewer
