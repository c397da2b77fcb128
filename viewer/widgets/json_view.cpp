#include "widgets/json_view.hpp"

#include <QFontDatabase>
#include <QTextBlock>
#include <QTextCursor>

namespace agentvcr::viewer {

TextPane::TextPane(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::WidgetWidth);
  setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
}

void TextPane::setText(const std::string& text) {
  setPlainText(QString::fromStdString(text));
}

void TextPane::setLineDiff(const std::vector<replay::DiffLine>& lines) {
  clear();
  QTextCursor cursor(document());
  QTextCharFormat same;
  QTextCharFormat removed;
  removed.setBackground(QColor(248, 215, 218));
  QTextCharFormat added;
  added.setBackground(QColor(212, 237, 218));
  bool first = true;
  for (const replay::DiffLine& line : lines) {
    if (!first) {
      cursor.insertBlock();
    }
    first = false;
    switch (line.op) {
      case replay::LineOp::Same:
        cursor.insertText("  " + QString::fromStdString(line.text), same);
        break;
      case replay::LineOp::Removed:
        cursor.insertText("- " + QString::fromStdString(line.text), removed);
        break;
      case replay::LineOp::Added:
        cursor.insertText("+ " + QString::fromStdString(line.text), added);
        break;
    }
  }
  moveCursor(QTextCursor::Start);
}

}  // namespace agentvcr::viewer
