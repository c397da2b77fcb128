#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <QBrush>
#include <QWidget>

#include "agentvcr/replay/text_diff.hpp"

class QLabel;

namespace agentvcr::viewer {

class TextPane;

/// Two texts side by side as a code review shows them, aligned by replay::sideBySide: line N of
/// the left pane faces line N of the right one. Lines that differ are marked across the pane's
/// width (a changed line amber on both sides, a line of one side only red on the left or green
/// on the right, facing a hatched filler line), and the panes scroll together. A line longer
/// than the pane is wide wraps, and the line facing it gets as many lines (blank ones after
/// it), so that the two panes stay in step; a block of a pane is always one row.
class SideBySideDiff : public QWidget {
  Q_OBJECT

 public:
  explicit SideBySideDiff(QWidget* parent = nullptr);

  /// The captions above the panes, e.g. "memory given" and "memory returned".
  void setTitles(const QString& left, const QString& right);
  /// Shows `before` on the left and `after` on the right (replay::diffLines, then sideBySide).
  void setLines(const std::vector<std::string>& before, const std::vector<std::string>& after);
  void clear();

  /// The aligned rows shown: row N is block N of both panes.
  const std::vector<replay::AlignedLine>& rows() const { return rows_; }

  /// Puts each pane's cursor on the row showing that line of its own text (0-based; nothing
  /// for an empty side) and scrolls both so that the upper of the two rows is at the top.
  void revealLines(std::optional<std::size_t> left_line, std::optional<std::size_t> right_line);

  /// The background of a line of a row of `kind`: none for Same, the diff table's colours
  /// (diffBackground) otherwise; `filler` is the blank line facing a one-sided row's line.
  static QBrush lineBackground(replay::RowKind kind, bool filler);

  TextPane* leftPane() const { return left_; }

  TextPane* rightPane() const { return right_; }

  /// Where lines wrap, in pixels: what the narrower pane shows of a line, at least
  /// kMinimumColumns digits.
  int wrapWidth() const;

  static constexpr int kMinimumColumns = 20;

 protected:
  /// Wraps the lines again when a pane changed width.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Writes the rows into both panes, wrapped at wrapWidth().
  void refill();
  /// The first line (what the scroll bars count) of row `row`.
  int firstLineOf(int row) const;

  /// The row showing line `line` of the left (`left` true) or right text; none without a line.
  std::optional<int> rowOf(bool left, std::optional<std::size_t> line) const;

  QLabel* left_title_;
  QLabel* right_title_;
  TextPane* left_;
  TextPane* right_;
  std::vector<replay::AlignedLine> rows_;
  int width_ = 0;  ///< what the panes are wrapped at
};

}  // namespace agentvcr::viewer
