#include "widgets/side_by_side_diff.hpp"

#include <algorithm>

#include <QGridLayout>
#include <QLabel>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

#include "models/diff_model.hpp"
#include "widgets/json_view.hpp"

namespace agentvcr::viewer {
namespace {

/// Writes one side of the rows into `pane`: one block per row, its line's text or an empty
/// filler, each block's background marking its kind.
void fill(TextPane& pane, const std::vector<replay::AlignedLine>& rows,
          std::optional<replay::NumberedLine> replay::AlignedLine::*side) {
  pane.clear();
  QTextCursor cursor(pane.document());
  cursor.beginEditBlock();
  bool first = true;
  for (const replay::AlignedLine& row : rows) {
    const std::optional<replay::NumberedLine>& line = row.*side;
    QTextBlockFormat format;
    const QBrush background = SideBySideDiff::lineBackground(row.kind, !line.has_value());
    if (background.style() != Qt::NoBrush) {
      format.setBackground(background);
    }
    if (first) {
      cursor.setBlockFormat(format);
    } else {
      cursor.insertBlock(format);
    }
    first = false;
    if (line) {
      cursor.insertText(QString::fromStdString(line->text));
    }
  }
  cursor.endEditBlock();
}

/// Moves the pane's cursor to the start of block `row`.
void placeCursor(TextPane& pane, int row) {
  QTextCursor cursor(pane.document()->findBlockByNumber(row));
  pane.setTextCursor(cursor);
}

}  // namespace

SideBySideDiff::SideBySideDiff(QWidget* parent)
    : QWidget(parent),
      left_title_(new QLabel(this)),
      right_title_(new QLabel(this)),
      left_(new TextPane(this)),
      right_(new TextPane(this)) {
  auto* layout = new QGridLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(left_title_, 0, 0);
  layout->addWidget(right_title_, 0, 1);
  layout->addWidget(left_, 1, 0);
  layout->addWidget(right_, 1, 1);
  left_title_->hide();
  right_title_->hide();
  for (TextPane* pane : {left_, right_}) {
    pane->setLineWrapMode(QPlainTextEdit::NoWrap);
  }
  // Same row count and no wrapping: equal scroll values show the same rows. Setting a value
  // a bar already has emits nothing, so the two connections do not loop.
  connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, right_->verticalScrollBar(),
          &QScrollBar::setValue);
  connect(right_->verticalScrollBar(), &QScrollBar::valueChanged, left_->verticalScrollBar(),
          &QScrollBar::setValue);
}

void SideBySideDiff::setTitles(const QString& left, const QString& right) {
  left_title_->setText(left);
  right_title_->setText(right);
  left_title_->setVisible(!left.isEmpty() || !right.isEmpty());
  right_title_->setVisible(left_title_->isVisible());
}

void SideBySideDiff::setLines(const std::vector<std::string>& before,
                              const std::vector<std::string>& after) {
  rows_ = replay::sideBySide(replay::diffLines(before, after));
  fill(*left_, rows_, &replay::AlignedLine::left);
  fill(*right_, rows_, &replay::AlignedLine::right);
  left_->moveCursor(QTextCursor::Start);
  right_->moveCursor(QTextCursor::Start);
}

void SideBySideDiff::clear() {
  rows_.clear();
  left_->clear();
  right_->clear();
}

std::optional<int> SideBySideDiff::rowOf(bool left, std::size_t line) const {
  const auto at = std::find_if(rows_.begin(), rows_.end(), [&](const replay::AlignedLine& row) {
    const auto& side = left ? row.left : row.right;
    return side && side->index == line;
  });
  if (at == rows_.end()) {
    return std::nullopt;
  }
  return static_cast<int>(at - rows_.begin());
}

void SideBySideDiff::revealLines(std::optional<std::size_t> left_line,
                                 std::optional<std::size_t> right_line) {
  const std::optional<int> left_row = left_line ? rowOf(true, *left_line) : std::nullopt;
  const std::optional<int> right_row = right_line ? rowOf(false, *right_line) : std::nullopt;
  if (left_row) {
    placeCursor(*left_, *left_row);
  }
  if (right_row) {
    placeCursor(*right_, *right_row);
  }
  if (left_row && right_row) {
    // Without wrapping, a QPlainTextEdit's scroll value is its first visible block.
    left_->verticalScrollBar()->setValue(std::min(*left_row, *right_row));
  } else if (left_row || right_row) {
    left_->verticalScrollBar()->setValue(left_row ? *left_row : *right_row);
  }
}

QBrush SideBySideDiff::lineBackground(replay::RowKind kind, bool filler) {
  if (filler) {
    return QBrush(QColor(200, 200, 200), Qt::BDiagPattern);
  }
  const QColor color = diffBackground(kind);
  return color.isValid() ? QBrush(color) : QBrush();
}

}  // namespace agentvcr::viewer
