#include "agentvcr/replay/text_diff.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::replay {

// Readable failures: "-text", "+text" or " text".
void PrintTo(const DiffLine& line, std::ostream* out) {
  *out << (line.op == LineOp::Same ? ' ' : line.op == LineOp::Removed ? '-' : '+') << line.text;
}

// "left 2 'x' | right 3 'y'", with "-" for a filler side.
void PrintTo(const AlignedLine& row, std::ostream* out) {
  const auto side = [out](const std::optional<NumberedLine>& line) {
    if (line) {
      *out << line->index << " '" << line->text << "'";
    } else {
      *out << "-";
    }
  };
  *out << "kind " << static_cast<int>(row.kind) << ": ";
  side(row.left);
  *out << " | ";
  side(row.right);
}

namespace {

using protocol::Json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

using Lines = std::vector<std::string>;

DiffLine same(std::string text) {
  return {LineOp::Same, std::move(text)};
}

DiffLine removed(std::string text) {
  return {LineOp::Removed, std::move(text)};
}

DiffLine added(std::string text) {
  return {LineOp::Added, std::move(text)};
}

Lines chars(const std::string& text) {
  Lines lines;
  for (const char ch : text) {
    lines.emplace_back(1, ch);
  }
  return lines;
}

/// Length of a longest common subsequence, by the textbook table.
std::size_t lcsLength(const Lines& a, const Lines& b) {
  std::vector<std::vector<std::size_t>> table(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = a.size(); i-- > 0;) {
    for (std::size_t j = b.size(); j-- > 0;) {
      table[i][j] =
          a[i] == b[j] ? table[i + 1][j + 1] + 1 : std::max(table[i + 1][j], table[i][j + 1]);
    }
  }
  return table[0][0];
}

/// Checks what every diff must be: both texts read back, minimal, removed before added.
void expectValidMinimalDiff(const Lines& before, const Lines& after,
                            const std::vector<DiffLine>& diff) {
  Lines read_before;
  Lines read_after;
  std::size_t same_count = 0;
  for (std::size_t i = 0; i < diff.size(); ++i) {
    const DiffLine& line = diff[i];
    if (line.op != LineOp::Added) {
      read_before.push_back(line.text);
    }
    if (line.op != LineOp::Removed) {
      read_after.push_back(line.text);
    }
    same_count += line.op == LineOp::Same ? 1 : 0;
    if (i > 0) {
      EXPECT_FALSE(diff[i - 1].op == LineOp::Added && line.op == LineOp::Removed)
          << "a removed line after an added one at " << i;
    }
  }
  EXPECT_EQ(read_before, before);
  EXPECT_EQ(read_after, after);
  EXPECT_EQ(same_count, lcsLength(before, after));
}

TEST(DiffLines, IdenticalTextsAreAllSame) {
  const Lines text = {"{", "  \"a\": 1", "}"};
  EXPECT_THAT(diffLines(text, text), ElementsAre(same("{"), same("  \"a\": 1"), same("}")));
}

TEST(DiffLines, EmptySides) {
  EXPECT_THAT(diffLines({}, {}), IsEmpty());
  EXPECT_THAT(diffLines({}, {"a", "b"}), ElementsAre(added("a"), added("b")));
  EXPECT_THAT(diffLines({"a", "b"}, {}), ElementsAre(removed("a"), removed("b")));
}

TEST(DiffLines, OneChangedLineIsRemovedThenAdded) {
  EXPECT_THAT(diffLines({"a", "b", "c"}, {"a", "x", "c"}),
              ElementsAre(same("a"), removed("b"), added("x"), same("c")));
}

TEST(DiffLines, InsertionsAndDeletionsKeepTheRestSame) {
  EXPECT_THAT(diffLines({"a", "c"}, {"a", "b", "c", "d"}),
              ElementsAre(same("a"), added("b"), same("c"), added("d")));
  EXPECT_THAT(diffLines({"x", "a", "b", "c"}, {"a", "c"}),
              ElementsAre(removed("x"), same("a"), removed("b"), same("c")));
}

TEST(DiffLines, LinesOnOneSideOnlyStayInPlace) {
  EXPECT_THAT(diffLines({"a", "u1", "b", "u2", "c"}, {"v1", "a", "b", "v2", "c", "v3"}),
              ElementsAre(added("v1"), same("a"), removed("u1"), same("b"), removed("u2"),
                          added("v2"), same("c"), added("v3")));
  EXPECT_THAT(diffLines({"a", "x", "b", "c"}, {"a", "b", "y", "c"}),
              ElementsAre(same("a"), removed("x"), same("b"), added("y"), same("c")));
}

TEST(DiffLines, AWholeReplacementListsEveryRemovedLineBeforeTheAddedOnes) {
  EXPECT_THAT(diffLines({"a", "b", "c"}, {"x", "y"}),
              ElementsAre(removed("a"), removed("b"), removed("c"), added("x"), added("y")));
}

TEST(DiffLines, MyersPaperExampleIsMinimal) {
  // ABCABBA -> CBABAC: the LCS has 4 elements, so 5 edits (Myers 1986, figure 1).
  const Lines before = chars("ABCABBA");
  const Lines after = chars("CBABAC");
  const std::vector<DiffLine> diff = diffLines(before, after);
  expectValidMinimalDiff(before, after, diff);
  EXPECT_EQ(std::count_if(diff.begin(), diff.end(),
                          [](const DiffLine& line) { return line.op != LineOp::Same; }),
            5);
}

TEST(DiffLines, ClassicExamplesAreMinimal) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ABCBDAB", "BDCABA"},   // CLRS: LCS length 4
      {"XMJYAUZ", "MZJAWXU"},  // Wikipedia: MJAU
      {"AGGTAB", "GXTXAYB"},   // GTAB
      {"abcabba", "abcabba"}, {"aaaa", "aa"}, {"abab", "baba"}, {"a", "b"},
  };
  for (const auto& [a, b] : cases) {
    SCOPED_TRACE(a + " -> " + b);
    expectValidMinimalDiff(chars(a), chars(b), diffLines(chars(a), chars(b)));
    expectValidMinimalDiff(chars(b), chars(a), diffLines(chars(b), chars(a)));
  }
  EXPECT_EQ(lcsLength(chars("ABCBDAB"), chars("BDCABA")), 4u);
  EXPECT_EQ(lcsLength(chars("XMJYAUZ"), chars("MZJAWXU")), 4u);
}

TEST(DiffLines, RandomTextsGiveValidMinimalDiffs) {
  std::mt19937 random(20240517);
  for (int round = 0; round < 400; ++round) {
    const int alphabet = 2 + round % 11;  // large alphabets: lines on one side only
    std::uniform_int_distribution<int> letter(0, alphabet - 1);
    std::uniform_int_distribution<int> length(0, 25);
    Lines before(static_cast<std::size_t>(length(random)));
    Lines after(static_cast<std::size_t>(length(random)));
    for (std::string& line : before) {
      line = std::string(1, static_cast<char>('a' + letter(random)));
    }
    for (std::string& line : after) {
      line = std::string(1, static_cast<char>('a' + letter(random)));
    }
    SCOPED_TRACE(::testing::Message() << "round " << round);
    expectValidMinimalDiff(before, after, diffLines(before, after));
  }
}

TEST(DiffLines, LongAlikeTextsAreFast) {
  // Two 50,000-line memories that differ in a few places: O((N+M)D), not a 2.5e9-cell table.
  Lines before;
  for (int i = 0; i < 50000; ++i) {
    before.push_back("    \"line " + std::to_string(i) + "\",");
  }
  Lines after = before;
  after[100] = "changed";
  after.erase(after.begin() + 25000);
  after.insert(after.begin() + 40000, "inserted");
  after.push_back("appended");
  const auto start = std::chrono::steady_clock::now();
  const std::vector<DiffLine> diff = diffLines(before, after);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::vector<DiffLine> edits;
  std::copy_if(diff.begin(), diff.end(), std::back_inserter(edits),
               [](const DiffLine& line) { return line.op != LineOp::Same; });
  EXPECT_THAT(edits, ElementsAre(removed(before[100]), added("changed"), removed(before[25000]),
                                 added("inserted"), added("appended")));
  EXPECT_EQ(diff.size(), 50000u + 3u);
}

TEST(DiffLines, CompletelyDifferentLongTextsStillFinish) {
  Lines before;
  Lines after;
  for (int i = 0; i < 3000; ++i) {
    before.push_back("a" + std::to_string(i));
    after.push_back("b" + std::to_string(i));
  }
  const std::vector<DiffLine> diff = diffLines(before, after);
  ASSERT_EQ(diff.size(), 6000u);
  EXPECT_EQ(diff[2999], removed("a2999"));
  EXPECT_EQ(diff[3000], added("b0"));
}

TEST(PrettyJsonLines, TwoSpaceIndentKeysSorted) {
  const Json value = Json::parse(R"({"b": [1, {}, [], "x\ny"], "a": {"z": null, "y": 1.5},
                                     "é": "ü"})");
  EXPECT_THAT(
      prettyJsonLines(value),
      ElementsAre("{", "  \"a\": {", "    \"y\": 1.5,", "    \"z\": null", "  },", "  \"b\": [",
                  "    1,", "    {},", "    [],", "    \"x\\ny\"", "  ],", "  \"é\": \"ü\"", "}"));
}

TEST(PrettyJsonLines, ScalarsAndEmptyContainersAreOneLine) {
  EXPECT_THAT(prettyJsonLines(Json(3)), ElementsAre("3"));
  EXPECT_THAT(prettyJsonLines(Json("text")), ElementsAre("\"text\""));
  EXPECT_THAT(prettyJsonLines(Json()), ElementsAre("null"));
  EXPECT_THAT(prettyJsonLines(Json::object()), ElementsAre("{}"));
  EXPECT_THAT(prettyJsonLines(Json::array()), ElementsAre("[]"));
}

TEST(PrettyJsonLines, InvalidUtf8IsReplacedNotThrown) {
  const Json value = {{"k", std::string("a\xff") + "b"}};
  EXPECT_THAT(prettyJsonLines(value), ElementsAre("{",
                                                  "  \"k\": \"a\xEF\xBF\xBD"
                                                  "b\"",
                                                  "}"));
}

TEST(DiffLines, AMemoryThatGrewByOneEntryShowsOnlyTheNewLines) {
  const Json before = Json::parse(R"({"history": [{"a": 1}]})");
  const Json after = Json::parse(R"({"history": [{"a": 1}, {"a": 2}]})");
  EXPECT_THAT(diffLines(prettyJsonLines(before), prettyJsonLines(after)),
              ElementsAre(same("{"), same("  \"history\": ["), same("    {"),
                          same("      \"a\": 1"), added("    },"), added("    {"),
                          added("      \"a\": 2"), same("    }"), same("  ]"), same("}")));
}

AlignedLine both(RowKind kind, std::size_t left, std::string left_text, std::size_t right,
                 std::string right_text) {
  return {kind, NumberedLine{left, std::move(left_text)},
          NumberedLine{right, std::move(right_text)}};
}

AlignedLine leftOnly(std::size_t left, std::string text) {
  return {RowKind::LeftOnly, NumberedLine{left, std::move(text)}, std::nullopt};
}

AlignedLine rightOnly(std::size_t right, std::string text) {
  return {RowKind::RightOnly, std::nullopt, NumberedLine{right, std::move(text)}};
}

TEST(SideBySide, SameLinesFaceEachOtherWithTheirOwnIndexes) {
  EXPECT_THAT(sideBySide({same("a"), same("b")}), ElementsAre(both(RowKind::Same, 0, "a", 0, "a"),
                                                              both(RowKind::Same, 1, "b", 1, "b")));
  EXPECT_THAT(sideBySide({}), IsEmpty());
}

TEST(SideBySide, RemovedLinesPairWithTheAddedOnesOfTheSameChange) {
  EXPECT_THAT(
      sideBySide(diffLines({"a", "b", "c"}, {"a", "x", "c"})),
      ElementsAre(both(RowKind::Same, 0, "a", 0, "a"), both(RowKind::Changed, 1, "b", 1, "x"),
                  both(RowKind::Same, 2, "c", 2, "c")));
}

TEST(SideBySide, TheLongerRunOfAChangeFacesFillers) {
  // Two lines replaced by three, then one line dropped: the third added line and the dropped
  // line face nothing, and the indexes keep counting each side's own lines.
  EXPECT_THAT(
      sideBySide({same("a"), removed("b"), removed("c"), added("x"), added("y"), added("z"),
                  same("d"), removed("e"), same("f")}),
      ElementsAre(both(RowKind::Same, 0, "a", 0, "a"), both(RowKind::Changed, 1, "b", 1, "x"),
                  both(RowKind::Changed, 2, "c", 2, "y"), rightOnly(3, "z"),
                  both(RowKind::Same, 3, "d", 4, "d"), leftOnly(4, "e"),
                  both(RowKind::Same, 5, "f", 5, "f")));
}

TEST(SideBySide, OneSidedTextsAreAllFillersOnTheOtherSide) {
  EXPECT_THAT(sideBySide(diffLines({}, {"a", "b"})),
              ElementsAre(rightOnly(0, "a"), rightOnly(1, "b")));
  EXPECT_THAT(sideBySide(diffLines({"a"}, {})), ElementsAre(leftOnly(0, "a")));
}

TEST(SideBySide, EachSideReadsBackAsItsTextAndRowsPairUp) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::string a;
    std::string b;
    for (int i = 0; i < 12; ++i) {
      a.push_back(static_cast<char>('a' + random() % 4));
      b.push_back(static_cast<char>('a' + random() % 4));
    }
    Lines left;
    Lines right;
    for (const AlignedLine& row : sideBySide(diffLines(chars(a), chars(b)))) {
      ASSERT_EQ(row.kind == RowKind::Same || row.kind == RowKind::Changed,
                row.left.has_value() && row.right.has_value());
      ASSERT_EQ(row.kind == RowKind::Same,
                row.left && row.right && row.left->text == row.right->text);
      if (row.left) {
        ASSERT_EQ(row.left->index, left.size());
        left.push_back(row.left->text);
      }
      if (row.right) {
        ASSERT_EQ(row.right->index, right.size());
        right.push_back(row.right->text);
      }
    }
    EXPECT_EQ(left, chars(a));
    EXPECT_EQ(right, chars(b));
  }
}

/// The line prettyJsonLines prints for `pointer`, found independently of prettyJsonLineOf.
std::string lineAt(const Json& value, const std::string& pointer) {
  return prettyJsonLines(value).at(prettyJsonLineOf(value, pointer));
}

TEST(PrettyJsonLineOf, MembersAndElementsLandOnTheirOwnLine) {
  const Json value = Json::parse(R"({"b": [1, {"k": [true]}, [], "x\ny"], "a": {"z": null,
                                     "y": {"deep": 1.5}}, "c": {}})");
  EXPECT_EQ(prettyJsonLineOf(value, ""), 0u);
  EXPECT_EQ(lineAt(value, "/a"), "  \"a\": {");
  EXPECT_EQ(lineAt(value, "/a/y/deep"), "      \"deep\": 1.5");
  EXPECT_EQ(lineAt(value, "/a/z"), "    \"z\": null");
  EXPECT_EQ(lineAt(value, "/b/0"), "    1,");
  EXPECT_EQ(lineAt(value, "/b/1/k/0"), "        true");
  EXPECT_EQ(lineAt(value, "/b/2"), "    [],");
  EXPECT_EQ(lineAt(value, "/b/3"), "    \"x\\ny\"");
  EXPECT_EQ(lineAt(value, "/c"), "  \"c\": {}");
}

TEST(PrettyJsonLineOf, KeysWithSlashOrTildeAreUnescaped) {
  const Json value = {{"a/b", 1}, {"m~n", {{"", 2}}}, {"~1", 3}};
  EXPECT_EQ(lineAt(value, "/a~1b"), "  \"a/b\": 1,");
  EXPECT_EQ(lineAt(value, "/m~0n/"), "    \"\": 2");
  EXPECT_EQ(lineAt(value, "/~01"), "  \"~1\": 3");
}

TEST(PrettyJsonLineOf, AMissingPathGivesItsNearestExistingAncestor) {
  const Json value = Json::parse(R"({"list": [{"x": 1}, {"y": 2}], "n": 5})");
  EXPECT_EQ(lineAt(value, "/list/1/gone"), "    {");
  EXPECT_EQ(lineAt(value, "/list/2"), "  \"list\": [");
  EXPECT_EQ(lineAt(value, "/list/-"), "  \"list\": [");
  EXPECT_EQ(lineAt(value, "/list/01"), "  \"list\": [");
  EXPECT_EQ(lineAt(value, "/n/deeper"), "  \"n\": 5");
  EXPECT_EQ(prettyJsonLineOf(value, "/missing"), 0u);
  EXPECT_EQ(lineAt(value, "/list/0/x~2"), "    {");  // a malformed escape stops the walk
  EXPECT_EQ(prettyJsonLineOf(value, "list"), 0u);    // not a pointer
  EXPECT_EQ(prettyJsonLineOf(Json(3), "/a"), 0u);
}

}  // namespace
}  // namespace agentvcr::replay
