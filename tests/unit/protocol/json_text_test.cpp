#include "agentvcr/protocol/json_text.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace agentvcr::protocol {
namespace {

TEST(ParseJson, AcceptsAnObject) {
  auto result = parseJson(R"({"a": [1, 2.5, "x", true, null]})");
  ASSERT_TRUE(result.value);
  EXPECT_EQ((*result.value)["a"][1].get<double>(), 2.5);
}

TEST(ParseJson, AcceptsScalarsAtTheTop) {
  EXPECT_TRUE(parseJson("7").value);
  EXPECT_TRUE(parseJson(" \"x\" ").value);
  EXPECT_TRUE(parseJson("null").value);
}

TEST(ParseJson, RejectsEmptyAndBlankInput) {
  EXPECT_FALSE(parseJson("").value);
  EXPECT_FALSE(parseJson("   \n").value);
}

TEST(ParseJson, RejectsNanAndInfinityLexemes) {
  for (const char* text : {"NaN", "Infinity", "-Infinity", R"({"a": NaN})", "[Infinity]",
                           R"({"memory": {"x": -Infinity}})"}) {
    auto result = parseJson(text);
    EXPECT_FALSE(result.value) << text;
    EXPECT_FALSE(result.error.message.empty()) << text;
  }
}

TEST(ParseJson, RejectsNumbersThatOverflowToInfinity) {
  EXPECT_FALSE(parseJson("1e400").value);
  EXPECT_FALSE(parseJson("[-1e400]").value);
}

TEST(ParseJson, RejectsTrailingGarbageAtItsOffset) {
  auto result = parseJson("{} x");
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 3U);
  EXPECT_FALSE(parseJson("{}{}").value);
  EXPECT_FALSE(parseJson("[1] ]").value);
}

TEST(ParseJson, ReportsTheOffsetOfASyntaxError) {
  auto result = parseJson("[1,]");
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 3U);
  EXPECT_NE(result.error.message.find("syntax error"), std::string::npos) << result.error.message;
  EXPECT_NE(result.error.message.rfind("[json.exception", 0), 0U) << "prefix stripped";
}

TEST(ParseJson, RejectsInvalidUtf8InStrings) {
  EXPECT_FALSE(parseJson("\"\xff\"").value);
  EXPECT_FALSE(parseJson("\"\xc0\xaf\"").value) << "overlong";
  EXPECT_FALSE(parseJson("\"\xed\xa0\x80\"").value) << "UTF-8 encoded surrogate";
  EXPECT_FALSE(parseJson("\"\xe2\x82\"").value) << "truncated sequence";
  EXPECT_FALSE(parseJson("{\"k\xff\": 1}").value) << "in a key";
  EXPECT_TRUE(parseJson("\"\xc3\xa9\xf0\x9f\x98\x80\"").value);
}

TEST(ParseJson, RejectsLoneSurrogateEscapes) {
  EXPECT_FALSE(parseJson(R"("\ud800")").value);
  EXPECT_FALSE(parseJson(R"("\ude00")").value);
  auto pair = parseJson(R"("\ud83d\ude00")");
  ASSERT_TRUE(pair.value);
  EXPECT_EQ(pair.value->get<std::string>(), "\xf0\x9f\x98\x80");
}

TEST(ParseJson, DuplicatedKeyKeepsTheLastValue) {
  auto result = parseJson(R"({"a": 1, "b": 2, "a": 3})");
  ASSERT_TRUE(result.value);
  EXPECT_EQ(*result.value, Json::parse(R"({"a": 3, "b": 2})"));

  auto replaced = parseJson(R"({"a": {"x": [1, 2]}, "a": "flat"})");
  ASSERT_TRUE(replaced.value);
  EXPECT_EQ((*replaced.value)["a"], "flat");

  auto nested = parseJson(R"({"a": 1, "a": {"y": 2, "y": 3}})");
  ASSERT_TRUE(nested.value);
  EXPECT_EQ((*nested.value)["a"]["y"], 3);
}

TEST(ParseJson, AcceptsNestingUpToTheLimit) {
  std::string text = std::string(512, '[') + std::string(512, ']');
  EXPECT_TRUE(parseJson(text).value);
}

TEST(ParseJson, RejectsNestingBeyondTheLimitAtTheOffendingBracket) {
  std::string text = std::string(513, '[') + std::string(513, ']');
  auto result = parseJson(text);
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 512U);
  EXPECT_NE(result.error.message.find("512"), std::string::npos);
}

TEST(ParseJson, CustomDepthLimit) {
  EXPECT_TRUE(parseJson(R"({"a": [1]})", 2).value);
  auto result = parseJson(R"({"a": [{"b": 1}]})", 2);
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 7U);
  EXPECT_TRUE(parseJson("1", 0).value);
  EXPECT_FALSE(parseJson("[]", 0).value);
}

TEST(ParseJson, DepthScanIgnoresBracketsInsideStrings) {
  auto result = parseJson(R"({"a": "[[[[\"[[", "b": [[{"c": 1}]]})", 3);
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 25U);
}

// Run under ASan: a naive recursive parser or DOM would overflow the stack here.
TEST(ParseJson, HundredThousandOpeningBracketsDoNotExhaustTheStack) {
  std::string text(100000, '[');
  auto result = parseJson(text);
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 512U);
}

TEST(ParseJson, HundredThousandNestedObjectsDoNotExhaustTheStack) {
  std::string text;
  for (int i = 0; i < 100000; ++i) {
    text += R"({"a":)";
  }
  text += "1";
  text += std::string(100000, '}');
  auto result = parseJson(text);
  ASSERT_FALSE(result.value);
  EXPECT_EQ(result.error.offset, 512U * 5U);
}

TEST(ParseJson, IntegersKeepTheirExactValue) {
  auto result = parseJson("[9223372036854775807, -9223372036854775808, 18446744073709551615]");
  ASSERT_TRUE(result.value);
  EXPECT_TRUE((*result.value)[0].is_number_integer());
  EXPECT_EQ((*result.value)[1].get<std::int64_t>(), INT64_MIN);
  EXPECT_EQ((*result.value)[2].get<std::uint64_t>(), UINT64_MAX);
}

// Documented: integers beyond the uint64 range become doubles (Python would keep them exact).
TEST(ParseJson, IntegersBeyondUint64BecomeDoubles) {
  auto result = parseJson("18446744073709551616");
  ASSERT_TRUE(result.value);
  EXPECT_TRUE(result.value->is_number_float());
}

TEST(ParseJson, AcceptsALeadingByteOrderMark) {
  // As Python's json.loads on bytes (what FastAPI does) and nlohmann do.
  EXPECT_TRUE(parseJson("\xef\xbb\xbf{}").value);
}

TEST(DumpCompact, WritesRawUtf8Compactly) {
  Json value = Json::parse(R"({"b": "\u00e9", "a": [1, 2]})");
  EXPECT_EQ(dumpCompact(value), "{\"a\":[1,2],\"b\":\"\xc3\xa9\"}");
}

TEST(DumpCompact, ReplacesInvalidUtf8InsteadOfThrowing) {
  Json value = std::string(
      "a\xff"
      "b");
  EXPECT_EQ(dumpCompact(value),
            "\"a\xef\xbf\xbd"
            "b\"");
}

/// `text` without the whitespace between its tokens: what indenting may change, and all it may.
std::string withoutWhitespaceOutsideStrings(std::string_view text) {
  std::string out;
  bool in_string = false;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (in_string) {
      out += c;
      if (c == '\\') {
        out += text[++at];
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out += c;
    }
  }
  return out;
}

TEST(IndentJson, PutsEachMemberOnALineInTheOrderSent) {
  EXPECT_EQ(indentJson(R"({"z":1,"a":[true,{"m":null,"b":"x"}],"e":{},"f":[ ]})"),
            "{\n"
            "  \"z\": 1,\n"
            "  \"a\": [\n"
            "    true,\n"
            "    {\n"
            "      \"m\": null,\n"
            "      \"b\": \"x\"\n"
            "    }\n"
            "  ],\n"
            "  \"e\": {},\n"
            "  \"f\": []\n"
            "}");
  EXPECT_EQ(indentJson("[1,2]", 4), "[\n    1,\n    2\n]");
  EXPECT_EQ(indentJson(" 7 "), "7");
}

TEST(IndentJson, ChangesOnlyTheWhitespaceBetweenTokens) {
  // Keys out of order and written twice, odd spacing, escapes (a quote, a backslash, a
  // surrogate pair, braces and commas inside strings), numbers no double holds, raw UTF-8.
  for (const std::string& wire : {
           std::string(R"({"zeta": 1, "alpha": 2, "alpha": 3})"),
           std::string("{ \"b\" :\t[ 1 ,2\r\n, 3 ] ,\n\n \"a\"  :  { }  }"),
           std::string(R"({"s": "say \"hi\" \\ {x}, [y]: \ud83d\ude00 \u00e9", "k": "é ✓"})"),
           std::string(R"([123456789012345678901234567890, -0.10000000000000000001, 1E+2, 1e-7])"),
           std::string(R"({"request_id":"r","inputs":[{"id":18446744073709551615,"memory":{}}]})"),
       }) {
    const auto indented = indentJson(wire);
    ASSERT_TRUE(indented) << wire;
    EXPECT_EQ(withoutWhitespaceOutsideStrings(*indented), withoutWhitespaceOutsideStrings(wire))
        << *indented;
    EXPECT_TRUE(parseJson(*indented).value) << *indented;
  }
  // The order is the sender's, not nlohmann's sorted one.
  const std::string unsorted = *indentJson(R"({"zeta": 1, "alpha": 2})");
  EXPECT_LT(unsorted.find("zeta"), unsorted.find("alpha"));
}

TEST(IndentJson, LeavesWhatIsNotJsonAlone) {
  EXPECT_FALSE(indentJson("<html>{</html>"));
  EXPECT_FALSE(indentJson(R"({"a": 1)"));
  EXPECT_FALSE(indentJson(""));
  EXPECT_FALSE(indentJson(R"({"a": "unterminated})"));
}

TEST(AppendJsonString, WritesWhatDumpCompactWritesForTheSameString) {
  const std::string samples[] = {
      "plain",
      "quote \" and backslash \\",
      "controls \b\f\n\r\t \x01 \x1f and DEL \x7f",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "bad \xff, overlong \xc0\xaf, surrogate \xed\xa0\x80",
      std::string("nul \0 inside", 13),
  };
  for (const std::string& text : samples) {
    std::string out = "prefix:";
    appendJsonString(out, text);
    EXPECT_EQ(out, "prefix:" + dumpCompact(Json(text))) << text;
  }
}

TEST(AppendJsonString, FindsTheOneByteThatNeedsCareWhereverItStandsInARun) {
  // Plain runs are looked at eight bytes at a time: put each ASCII byte, and a two-byte
  // sequence, at every place of runs that end inside, at and across word edges.
  std::vector<std::string> specials;
  for (int c = 0; c < 0x80; ++c) {
    specials.emplace_back(1, static_cast<char>(c));
  }
  specials.emplace_back("\xc3\xa9");
  for (std::size_t length = 1; length <= 19; ++length) {
    for (std::size_t at = 0; at < length; ++at) {
      for (const std::string& special : specials) {
        std::string text(length, 'a');
        text.replace(at, 1, special);
        std::string out;
        appendJsonString(out, text);
        ASSERT_EQ(out, dumpCompact(Json(text)))
            << "length " << length << ", byte " << static_cast<int>(special[0]) << " at " << at;
      }
    }
  }
}

TEST(AppendJsonString, ReplacesEachByteOfACutShortSequence) {
  std::string out;
  appendJsonString(out, "cut \xe2\x82!");
  EXPECT_EQ(out, "\"cut \xef\xbf\xbd\xef\xbf\xbd!\"");
}

}  // namespace
}  // namespace agentvcr::protocol
