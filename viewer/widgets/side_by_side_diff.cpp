#include "widgets/side_by_side_diff.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <QEvent>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHash>
#include <QLabel>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

#include "models/diff_model.hpp"
#include "widgets/json_view.hpp"

namespace agentvcr::viewer {
namespace {

/// Character widths in one font, each measured once: wrapping measures every character of a
/// long line, and shaping each one anew took most of the time to show a step whose memory holds
/// a long history.
class Advances {
 public:
  explicit Advances(const QFontMetrics& metrics) : metrics_(metrics) { ascii_.fill(-1); }

  /// The width of the character at `at` of `line`, `length` UTF-16 units long.
  int of(const QString& line, qsizetype at, qsizetype length) {
    const char16_t c = line.at(at).unicode();
    if (length == 1 && c < ascii_.size()) {
      int& known = ascii_[c];
      if (known < 0) {
        known = metrics_.horizontalAdvance(line.mid(at, 1));
      }
      return known;
    }
    const QString character = line.mid(at, length);
    auto known = others_.constFind(character);
    if (known == others_.constEnd()) {
      known = others_.insert(character, metrics_.horizontalAdvance(character));
    }
    return *known;
  }

 private:
  const QFontMetrics& metrics_;
  std::array<int, 128> ascii_;
  QHash<QString, int> others_;
};

/// `line` cut into pieces no wider than `width` pixels, a piece ending after its last space
/// where that keeps it at least half as wide: the pieces put together are the line again.
/// Measured character by character, so that a font without a fixed pitch (what a system
/// without a monospace font falls back to) and wide characters wrap as well.
QStringList wrapPieces(const QString& line, Advances& advances, int width) {
  QStringList pieces;
  qsizetype begin = 0;
  qsizetype space = -1;  ///< the last space of the piece being measured
  int used = 0;
  int used_at_space = 0;
  for (qsizetype at = 0; at < line.size();) {
    const qsizetype length = line.at(at).isHighSurrogate() && at + 1 < line.size() ? 2 : 1;
    const int advance = advances.of(line, at, length);
    if (used + advance > width && at > begin) {
      const bool at_space = space >= begin && used_at_space * 2 >= width;
      const qsizetype end = at_space ? space + 1 : at;
      pieces << line.mid(begin, end - begin);
      used = at_space ? used - used_at_space : 0;
      begin = end;
      space = -1;
    }
    used += advance;
    if (line.at(at) == QLatin1Char(' ')) {
      space = at;
      used_at_space = used;
    }
    at += length;
  }
  pieces << line.mid(begin);
  return pieces;
}

/// The pieces of one side of a row: none for a filler.
QStringList sidePieces(const std::optional<replay::NumberedLine>& line, Advances& advances,
                       int width) {
  return line ? wrapPieces(QString::fromStdString(line->text), advances, width) : QStringList();
}

/// A row's line on each side, cut into pieces.
struct WrappedRow {
  QStringList left;
  QStringList right;
};

/// Every row wrapped at `width` pixels of `metrics`, once for both panes.
std::vector<WrappedRow> wrapRows(const std::vector<replay::AlignedLine>& rows,
                                 const QFontMetrics& metrics, int width) {
  Advances advances(metrics);
  std::vector<WrappedRow> wrapped;
  wrapped.reserve(rows.size());
  for (const replay::AlignedLine& row : rows) {
    wrapped.push_back(
        {sidePieces(row.left, advances, width), sidePieces(row.right, advances, width)});
  }
  return wrapped;
}

/// Writes one side of the rows into `pane`: one block per row, its line's pieces, or an empty
/// filler, each as many lines tall as the taller side of its row (line separators) so that the
/// two panes stay in step line for line; each block's background marks its kind. The text goes
/// in at once and only the rows that differ get a format: most rows of a long memory are the
/// same on both sides, and inserting each block on its own took a third of the time to show a
/// step.
void fill(TextPane& pane, const std::vector<replay::AlignedLine>& rows,
          const std::vector<WrappedRow>& wrapped, bool left) {
  QStringList blocks;
  blocks.reserve(static_cast<qsizetype>(rows.size()));
  for (const WrappedRow& row : wrapped) {
    const QStringList& mine = left ? row.left : row.right;
    const QStringList& theirs = left ? row.right : row.left;
    const auto lines = std::max<qsizetype>({mine.size(), theirs.size(), 1});
    blocks << mine.join(QChar::LineSeparator) +
                  QString(lines - std::max<qsizetype>(mine.size(), 1), QChar::LineSeparator);
  }
  pane.setPlainText(blocks.join(QLatin1Char('\n')));
  QTextCursor cursor(pane.document());
  cursor.beginEditBlock();
  QTextBlock block = pane.document()->begin();
  for (const replay::AlignedLine& row : rows) {
    const bool filler = !(left ? row.left : row.right).has_value();
    const QBrush background = SideBySideDiff::lineBackground(row.kind, filler);
    if (background.style() != Qt::NoBrush) {
      QTextBlockFormat format;
      format.setBackground(background);
      QTextCursor(block).setBlockFormat(format);
    }
    block = block.next();
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
    // The panes wrap lines themselves (fill), the same on both sides; both bars always there,
    // so that both panes stay as wide as each other.
    pane->setLineWrapMode(QPlainTextEdit::NoWrap);
    pane->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    pane->viewport()->installEventFilter(this);
  }
  // Every row as many lines tall on both sides: equal scroll values show the same rows.
  // Setting a value a bar already has emits nothing, so the two connections do not loop.
  connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, right_->verticalScrollBar(),
          &QScrollBar::setValue);
  connect(right_->verticalScrollBar(), &QScrollBar::valueChanged, left_->verticalScrollBar(),
          &QScrollBar::setValue);
}

void SideBySideDiff::setTitles(const QString& left, const QString& right) {
  left_title_->setText(left);
  right_title_->setText(right);
  // Not isVisible(): that is false for any pane whose window has not shown yet.
  const bool titled = !left.isEmpty() || !right.isEmpty();
  left_title_->setVisible(titled);
  right_title_->setVisible(titled);
}

void SideBySideDiff::setLines(const std::vector<std::string>& before,
                              const std::vector<std::string>& after) {
  rows_ = replay::sideBySide(replay::diffLines(before, after));
  refill();
  left_->moveCursor(QTextCursor::Start);
  right_->moveCursor(QTextCursor::Start);
}

int SideBySideDiff::wrapWidth() const {
  const int viewport = std::min(left_->viewport()->width(), right_->viewport()->width());
  // What a line may take: the viewport but for the cursor and the document's margins, which
  // the horizontal scroll bar counts twice (once in the document's width, once on its own).
  const int margins = 4 * static_cast<int>(std::ceil(left_->document()->documentMargin())) +
                      left_->cursorWidth() + 2;
  const int minimum = kMinimumColumns * left_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  return std::max(minimum, viewport - margins);
}

void SideBySideDiff::refill() {
  width_ = wrapWidth();
  const std::vector<WrappedRow> wrapped = wrapRows(rows_, left_->fontMetrics(), width_);
  fill(*left_, rows_, wrapped, true);
  fill(*right_, rows_, wrapped, false);
}

bool SideBySideDiff::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize && !rows_.empty() && wrapWidth() != width_) {
    // Wrapped anew at the new width, the same rows in sight and the cursors on their rows.
    const int top = left_->cursorForPosition(QPoint(0, 0)).blockNumber();
    const int left_row = left_->textCursor().blockNumber();
    const int right_row = right_->textCursor().blockNumber();
    refill();
    placeCursor(*left_, left_row);
    placeCursor(*right_, right_row);
    left_->verticalScrollBar()->setValue(firstLineOf(top));
  }
  return QWidget::eventFilter(watched, event);
}

int SideBySideDiff::firstLineOf(int row) const {
  return left_->document()->findBlockByNumber(row).firstLineNumber();
}

void SideBySideDiff::clear() {
  rows_.clear();
  left_->clear();
  right_->clear();
}

std::optional<int> SideBySideDiff::rowOf(bool left, std::optional<std::size_t> line) const {
  if (!line) {
    return std::nullopt;
  }
  const auto at = std::find_if(rows_.begin(), rows_.end(), [&](const replay::AlignedLine& row) {
    const auto& side = left ? row.left : row.right;
    return side && side->index == *line;
  });
  if (at == rows_.end()) {
    return std::nullopt;
  }
  return static_cast<int>(at - rows_.begin());
}

void SideBySideDiff::revealLines(std::optional<std::size_t> left_line,
                                 std::optional<std::size_t> right_line) {
  const std::optional<int> left_row = rowOf(true, left_line);
  const std::optional<int> right_row = rowOf(false, right_line);
  if (left_row) {
    placeCursor(*left_, *left_row);
  }
  if (right_row) {
    placeCursor(*right_, *right_row);
  }
  // A QPlainTextEdit's scroll value counts lines: a row's first line is the same on both sides.
  if (left_row && right_row) {
    left_->verticalScrollBar()->setValue(firstLineOf(std::min(*left_row, *right_row)));
  } else if (left_row || right_row) {
    left_->verticalScrollBar()->setValue(firstLineOf(left_row ? *left_row : *right_row));
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
