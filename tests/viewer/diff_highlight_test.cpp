// The highlighted side-by-side diff, offscreen: exactly the differing lines of two JSON values
// are marked, one-sided lines face fillers, long lines wrap with both panes kept in step, a
// differing path's link brings both panes to it, and the step details' memory tab shows the
// same marking.

#include <QLabel>
#include <QScrollBar>
#include <QTableView>
#include <QTextBlock>
#include <QtTest>

#include "agentvcr/replay/text_diff.hpp"
#include "models/diff_model.hpp"
#include "models/steps_model.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/diff_window.hpp"
#include "widgets/json_view.hpp"
#include "widgets/side_by_side_diff.hpp"
#include "widgets/step_details.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using protocol::Json;
using viewer::SideBySideDiff;
using viewer::TextPane;

namespace {

/// How a line of one pane must look.
enum class Mark { Plain, Changed, Removed, Added, Filler };

/// The text of a pane's block without the breaks that wrap it: the line it shows.
QString lineOf(const QTextBlock& block) {
  return block.text().remove(QChar::LineSeparator);
}

/// Checks every block of `pane` against `marks`: Plain has no background, Changed, Removed and
/// Added the diff table's amber, red and green, a Filler a hatch and no text.
void expectMarks(const TextPane& pane, const std::vector<Mark>& marks) {
  QCOMPARE(pane.document()->blockCount(), static_cast<int>(marks.size()));
  for (int row = 0; row < static_cast<int>(marks.size()); ++row) {
    const QTextBlock block = pane.document()->findBlockByNumber(row);
    const QBrush background = block.blockFormat().background();
    const QString where = QStringLiteral("row %1 '%2'").arg(row).arg(block.text());
    switch (marks[static_cast<std::size_t>(row)]) {
      case Mark::Plain:
        QVERIFY2(background.style() == Qt::NoBrush, qPrintable(where));
        break;
      case Mark::Changed:
        QVERIFY2(background.color() == viewer::diffBackground(replay::RowKind::Changed),
                 qPrintable(where));
        break;
      case Mark::Removed:
        QVERIFY2(background.color() == viewer::diffBackground(replay::RowKind::LeftOnly),
                 qPrintable(where));
        break;
      case Mark::Added:
        QVERIFY2(background.color() == viewer::diffBackground(replay::RowKind::RightOnly),
                 qPrintable(where));
        break;
      case Mark::Filler:
        QVERIFY2(background.style() == Qt::BDiagPattern, qPrintable(where));
        QVERIFY2(lineOf(block).isEmpty(), qPrintable(where));
        break;
    }
    if (marks[static_cast<std::size_t>(row)] != Mark::Plain) {
      QVERIFY2(background.style() != Qt::NoBrush, qPrintable(where));
    }
  }
}

/// The texts of the pane's non-filler lines: what the pane shows of its side.
std::vector<std::string> shownLines(const TextPane& pane, const SideBySideDiff& diff, bool left) {
  std::vector<std::string> lines;
  for (std::size_t row = 0; row < diff.rows().size(); ++row) {
    const auto& side = left ? diff.rows()[row].left : diff.rows()[row].right;
    if (side) {
      lines.push_back(
          lineOf(pane.document()->findBlockByNumber(static_cast<int>(row))).toStdString());
    }
  }
  return lines;
}

/// Index of the first line of `lines` containing `part`.
std::size_t lineContaining(const std::vector<std::string>& lines, const std::string& part) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(part) != std::string::npos) {
      return i;
    }
  }
  return lines.size();
}

replay::DiffStep step(std::int64_t id, Json memory, const std::string& robot) {
  replay::DiffStep step;
  step.step_id = id;
  step.input = {{"instruction", {{"type", "user"}, {"content", "press sw1"}}},
                {"memory", std::move(memory)}};
  step.candidates =
      Json::array({{{"candidate_index", 0},
                    {"status", "completed"},
                    {"output",
                     {{"say", ""},
                      {"tool_calls", Json::array({{{"name", "press_button"},
                                                   {"target_robot_name", robot},
                                                   {"arguments", {{"id", "sw1"}}}}})}}}}});
  return step;
}

}  // namespace

class DiffHighlightTest : public QObject {
  Q_OBJECT

 private slots:

  void marksExactlyTheDifferingLinesAndAlignsFillers() {
    // before            after
    // {                 {
    //   "a": 1,           "a": 2,          changed
    //   "b": [            "b": [
    //     0,              (filler)         only left
    //     1,                1,
    //     2                 2,             changed
    //   (filler)            3              only right
    //   ],                ],
    //   "c": "same"       "c": "same",     changed
    //   (filler)          "d": true        only right
    // }                 }
    const Json before = Json::parse(R"({"a": 1, "b": [0, 1, 2], "c": "same"})");
    const Json after = Json::parse(R"({"a": 2, "b": [1, 2, 3], "c": "same", "d": true})");
    SideBySideDiff diff;
    diff.setLines(replay::prettyJsonLines(before), replay::prettyJsonLines(after));
    using enum Mark;
    expectMarks(*diff.leftPane(), {Plain, Changed, Plain, Removed, Plain, Changed, Filler, Plain,
                                   Changed, Filler, Plain});
    expectMarks(*diff.rightPane(), {Plain, Changed, Plain, Filler, Plain, Changed, Added, Plain,
                                    Changed, Added, Plain});
    QCOMPARE(diff.leftPane()->document()->findBlockByNumber(3).text(), QString("    0,"));
    QCOMPARE(diff.rightPane()->document()->findBlockByNumber(6).text(), QString("    3"));
    QCOMPARE(shownLines(*diff.leftPane(), diff, true), replay::prettyJsonLines(before));
    QCOMPARE(shownLines(*diff.rightPane(), diff, false), replay::prettyJsonLines(after));

    // Identical texts: nothing marked.
    diff.setLines(replay::prettyJsonLines(before), replay::prettyJsonLines(before));
    expectMarks(*diff.rightPane(), std::vector<Mark>(9, Plain));
  }

  void thePanesScrollTogether() {
    std::vector<std::string> lines;
    for (int i = 0; i < 400; ++i) {
      lines.push_back("line " + std::to_string(i));
    }
    SideBySideDiff diff;
    diff.resize(600, 300);
    diff.setLines(lines, {lines.begin() + 1, lines.end()});
    diff.show();
    QVERIFY(QTest::qWaitForWindowExposed(&diff));
    diff.leftPane()->verticalScrollBar()->setValue(120);
    QCOMPARE(diff.rightPane()->verticalScrollBar()->value(), 120);
    diff.rightPane()->verticalScrollBar()->setValue(42);
    QCOMPARE(diff.leftPane()->verticalScrollBar()->value(), 42);
  }

  void longLinesWrapAndBothPanesStayInStep() {
    // A memory holding a long sentence, and a long line only on the right: both wrap at the
    // pane's width, and the line facing each keeps the rows below level.
    const std::string sentence =
        "This is the position of existing objects: apple_0, banana_1 are in the right area, "
        "orange_2 is in the left area. Damaged objects: banana_1. Please move every damaged "
        "fruit to the mutual zone and report back when done, with the state of each arm.";
    const Json given = {{"history", {{{"author", "USER"}, {"content", sentence}}}}};
    Json returned = given;
    returned["history"].push_back({{"author", "AGENT"}, {"content", sentence + " Done."}});
    SideBySideDiff diff;
    diff.resize(700, 300);
    diff.show();
    QVERIFY(QTest::qWaitForWindowExposed(&diff));
    diff.setLines(replay::prettyJsonLines(given), replay::prettyJsonLines(returned));

    for (const TextPane* pane : {diff.leftPane(), diff.rightPane()}) {
      QCOMPARE(pane->horizontalScrollBar()->maximum(), 0);  // nothing runs off the pane
      QVERIFY(pane->document()->lineCount() > pane->document()->blockCount());  // it wrapped
    }
    QVERIFY(diff.wrapWidth() <
            diff.leftPane()->fontMetrics().horizontalAdvance(QString::fromStdString(sentence)));
    const QTextDocument& left = *diff.leftPane()->document();
    const QTextDocument& right = *diff.rightPane()->document();
    QCOMPARE(left.blockCount(), right.blockCount());
    for (int row = 0; row < left.blockCount(); ++row) {
      QCOMPARE(left.findBlockByNumber(row).firstLineNumber(),
               right.findBlockByNumber(row).firstLineNumber());
    }
    // Put back together, the wrapped lines are the lines.
    QCOMPARE(shownLines(*diff.leftPane(), diff, true), replay::prettyJsonLines(given));
    QCOMPARE(shownLines(*diff.rightPane(), diff, false), replay::prettyJsonLines(returned));

    // Wider, the lines wrap anew at the new width, still in step and still whole.
    const int narrow = diff.wrapWidth();
    const int narrow_lines = left.lineCount();
    diff.resize(1400, 300);
    QTRY_VERIFY(diff.wrapWidth() > narrow);
    QVERIFY(left.lineCount() < narrow_lines);
    QCOMPARE(left.lineCount(), right.lineCount());
    QCOMPARE(diff.leftPane()->horizontalScrollBar()->maximum(), 0);
    QCOMPARE(shownLines(*diff.rightPane(), diff, false), replay::prettyJsonLines(returned));
  }

  void aPathLinkBringsBothPanesToThatPath() {
    // Long memories, so that the path's line is far below the first screen.
    Json left_memory = {
        {"a_list", Json::array()}, {"k/v", "old"}, {"only_left", 1}, {"z_list", Json::array()}};
    for (int i = 0; i < 150; ++i) {
      left_memory["a_list"].push_back(i);
      left_memory["z_list"].push_back(i);
    }
    Json right_memory = left_memory;
    right_memory["k/v"] = "new";
    right_memory.erase("only_left");
    std::vector<replay::DiffStep> left = {step(1, left_memory, "panda")};
    std::vector<replay::DiffStep> right = {step(2, right_memory, "panda")};
    viewer::DiffWindow window("left", left, "right", right);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.table()->currentIndex().isValid());  // the first divergence is shown

    // The differing paths are links; each link's target is the path's index.
    const auto& differences = window.model()->diff().rows.at(0).differences;
    QCOMPARE(differences,
             (std::vector<std::string>{"/input/memory/k~1v", "/input/memory/only_left"}));
    QVERIFY(window.paths()->text().contains("<a href=\"0\">/input/memory/k~1v</a>"));
    QVERIFY(window.paths()->text().contains("<a href=\"1\">/input/memory/only_left</a>"));

    // Where each pane's side has the changed member.
    const SideBySideDiff& panes = *window.steps();
    const Json left_json = {
        {"candidates", left[0].candidates}, {"depth", 0}, {"input", left[0].input}};
    const Json right_json = {
        {"candidates", right[0].candidates}, {"depth", 0}, {"input", right[0].input}};
    const auto rowOf = [&panes](bool on_left, std::size_t line) {
      for (std::size_t row = 0; row < panes.rows().size(); ++row) {
        const auto& side = on_left ? panes.rows()[row].left : panes.rows()[row].right;
        if (side && side->index == line) {
          return static_cast<int>(row);
        }
      }
      return -1;
    };
    const int left_row =
        rowOf(true, lineContaining(replay::prettyJsonLines(left_json), "\"k/v\": \"old\""));
    const int right_row =
        rowOf(false, lineContaining(replay::prettyJsonLines(right_json), "\"k/v\": \"new\""));
    QVERIFY(left_row > 100);
    QVERIFY(right_row > 100);

    emit window.paths()->linkActivated(QStringLiteral("0"));
    QCOMPARE(panes.leftPane()->textCursor().blockNumber(), left_row);
    QCOMPARE(panes.rightPane()->textCursor().blockNumber(), right_row);
    // The scroll bars count lines: the upper row's first line is at the top of both panes.
    const int top_line = panes.leftPane()
                             ->document()
                             ->findBlockByNumber(std::min(left_row, right_row))
                             .firstLineNumber();
    QCOMPARE(panes.leftPane()->verticalScrollBar()->value(), top_line);
    QCOMPARE(panes.rightPane()->verticalScrollBar()->value(), top_line);

    // A path the right side lacks brings the right pane to its nearest parent there.
    emit window.paths()->linkActivated(QStringLiteral("1"));
    QVERIFY(panes.leftPane()->textCursor().block().text().contains("\"only_left\": 1"));
    QVERIFY(panes.rightPane()->textCursor().block().text().contains("\"memory\": {"));
  }

  void theMemoryTabMarksTheMemoryItReturned() {
    avt::TempDir temp;
    const std::string db = temp.file("demo.sqlite");
    avt::recordDemoInto(db, "demo");
    auto reader = std::make_shared<store::ArchiveReader>(db);
    viewer::StepsModel steps(reader);
    steps.setConversation(avt::conversationTitled(db, "Please press sw7"));
    QVERIFY(steps.rowCount() >= 2);
    const viewer::TimelineStep& entry = steps.at(1);
    const std::vector<store::CandidateRow> candidates = reader->candidates(entry.step.id);
    QVERIFY(!candidates.empty());

    viewer::StepDetails details;
    details.showStep(entry, reader);
    const SideBySideDiff& memory = *details.memory();
    // Each pane says what it shows, the right one too.
    for (const QString& caption :
         {QString("memory given"), QString("memory returned by candidate 0")}) {
      const auto labels = memory.findChildren<QLabel*>();
      const auto found = std::find_if(labels.begin(), labels.end(), [&](const QLabel* label) {
        return label->text() == caption;
      });
      QVERIFY2(found != labels.end() && !(*found)->isHidden(), qPrintable(caption));
    }
    const Json given = Json::parse(*reader->blob(reader->step(entry.step.id)->memory_hash));
    const Json returned = Json::parse(*reader->blob(candidates.front().memory_hash));
    QVERIFY(given != returned);
    QCOMPARE(shownLines(*memory.leftPane(), memory, true), replay::prettyJsonLines(given));
    QCOMPARE(shownLines(*memory.rightPane(), memory, false), replay::prettyJsonLines(returned));

    // Each row is marked by its kind, and something is marked.
    std::vector<Mark> left_marks;
    std::vector<Mark> right_marks;
    for (const replay::AlignedLine& row : memory.rows()) {
      switch (row.kind) {
        case replay::RowKind::Same:
          left_marks.push_back(Mark::Plain);
          right_marks.push_back(Mark::Plain);
          break;
        case replay::RowKind::Changed:
          left_marks.push_back(Mark::Changed);
          right_marks.push_back(Mark::Changed);
          break;
        case replay::RowKind::LeftOnly:
          left_marks.push_back(Mark::Removed);
          right_marks.push_back(Mark::Filler);
          break;
        case replay::RowKind::RightOnly:
          left_marks.push_back(Mark::Filler);
          right_marks.push_back(Mark::Added);
          break;
      }
    }
    QVERIFY(std::count(left_marks.begin(), left_marks.end(), Mark::Plain) <
            static_cast<std::ptrdiff_t>(left_marks.size()));
    expectMarks(*memory.leftPane(), left_marks);
    expectMarks(*memory.rightPane(), right_marks);

    details.clearStep();
    QCOMPARE(memory.leftPane()->toPlainText(), QString());
  }
};

AGENTVCR_VIEWER_TEST(DiffHighlightTest, "diff_highlight")

}  // namespace agentvcr

#include "diff_highlight_test.moc"
