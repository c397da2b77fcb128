#include "widgets/json_view.hpp"

#include <QFontDatabase>

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

}  // namespace agentvcr::viewer
