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

}  // namespace
}  // namespace agentvcr::replay
