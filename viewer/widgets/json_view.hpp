#pragma once

#include <string>

#include <QPlainTextEdit>

namespace agentvcr::viewer {

/// Read-only monospace text that wraps at the pane's width: prompts, raw outputs, JSON.
class TextPane : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit TextPane(QWidget* parent = nullptr);

  void setText(const std::string& text);
};

}  // namespace agentvcr::viewer
