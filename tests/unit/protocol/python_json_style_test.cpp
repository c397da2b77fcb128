// detectPythonJsonStyle() and parseOrderedJson(): what replay needs to write a recorded body
// back with a small change and otherwise the agent's own bytes.

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::protocol {
namespace {

struct Expected {
  bool spaced;
  bool ensure_ascii;
};

void expectStyle(const std::string& text, Expected expected) {
  SCOPED_TRACE(text);
  PythonJsonStyle style;
  ASSERT_NO_THROW(style = detectPythonJsonStyle(text));
  EXPECT_EQ(style.spaced, expected.spaced);
  EXPECT_EQ(style.ensure_ascii, expected.ensure_ascii);
  EXPECT_FALSE(style.allow_nan);
}

// A FastAPI answer: compact separators, raw UTF-8 ("café", "☕").
const std::string kFastApiBody =
    "[{\"request_id\":\"r-1\",\"source_id\":41,\"candidate_index\":0,\"status\":\"completed\","
    "\"memory\":{\"note\":\"caf\xc3\xa9 \xe2\x98\x95\",\"history\":[]},"
    "\"output\":{\"say\":\"ok\",\"tool_calls\":[]},\"error\":null}]";

// What json.dumps(value) writes by default: ", " and ": ", non-ASCII as \uXXXX escapes.
const std::string kPythonDefaultBody =
    R"({"request_id": "r-1", "inputs": [{"id": 0, "instruction": {"type": "user", )"
    R"("content": "caf\u00e9 \ud83d\ude00"}, "num_outputs": 2, )"
    R"("memory": {"z": 1.5, "a": [true, false, null], "line": "a\nb\t\u0001"}}]})";

TEST(DetectPythonJsonStyle, CompactFastApiBody) {
  expectStyle(kFastApiBody, {.spaced = false, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, PythonDefaultDumps) {
  expectStyle(kPythonDefaultBody, {.spaced = true, .ensure_ascii = true});
  expectStyle(R"({"a": "\u00e9"})", {.spaced = true, .ensure_ascii = true});
}

TEST(DetectPythonJsonStyle, CompactWithAsciiEscapes) {
  expectStyle(R"({"a":"caf\u00e9"})", {.spaced = false, .ensure_ascii = true});
}

TEST(DetectPythonJsonStyle, RawUtf8IsNotEnsureAscii) {
  expectStyle("{\"a\": \"caf\xc3\xa9\"}", {.spaced = true, .ensure_ascii = false});
  // Raw UTF-8 next to an escape: ensure_ascii would have escaped both.
  expectStyle("{\"a\": \"\\u00e9 \xc3\xa9\"}", {.spaced = true, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, PureAsciiWithoutEscapesIsNotEnsureAscii) {
  expectStyle(R"({"a": "plain", "b": [1, 2]})", {.spaced = true, .ensure_ascii = false});
  expectStyle(R"({"a":"plain"})", {.spaced = false, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, EscapesOfAsciiCharactersDoNotShowEnsureAscii) {
  // Control characters are escaped in both styles, and so is a quote or a backslash.
  expectStyle(R"({"a": "\u0001\n\"\\ \u001f \u0041"})", {.spaced = true, .ensure_ascii = false});
  // An escaped backslash followed by "u00e9" is no escape of é.
  expectStyle(R"({"a": "\\u00e9"})", {.spaced = true, .ensure_ascii = false});
  // DEL is the first character ensure_ascii escapes.
  expectStyle(R"({"a": "\u007f"})", {.spaced = true, .ensure_ascii = true});
  expectStyle(R"({"a": "\u007e"})", {.spaced = true, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, AnEscapedQuoteInTheFirstKeyDoesNotFoolSpacing) {
  // The key is `a": b`: a scan that stopped at the escaped quote would see `": ` after it.
  expectStyle(R"({"a\": b":1,"c":2})", {.spaced = false, .ensure_ascii = false});
  // The key is `x":y`: a scan that stopped at the escaped quote would see `":y`.
  expectStyle(R"({"x\":y": 1, "c": 2})", {.spaced = true, .ensure_ascii = false});
  // The key is `a\`: its last backslash is escaped, the quote after it ends the key.
  expectStyle(R"({"a\\": 1})", {.spaced = true, .ensure_ascii = false});
  expectStyle(R"({"a\\":1})", {.spaced = false, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, ABareArrayOfObjects) {
  expectStyle(R"([{"a": 1}])", {.spaced = true, .ensure_ascii = false});
  expectStyle(R"([{"a":1}])", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"([[1, 2], {"a": 1}])", {.spaced = true, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, TextsWithoutMembersGiveTheDefault) {
  expectStyle("", {.spaced = false, .ensure_ascii = false});
  expectStyle("{}", {.spaced = false, .ensure_ascii = false});
  expectStyle("[1, 2]", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"("text")", {.spaced = false, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, NeverThrowsOnTruncatedText) {
  // Not JSON, but a body to look at is not always complete.
  expectStyle(R"({"a\)", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"({"\)", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"({"a)", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"({"a")", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"({"a":)", {.spaced = false, .ensure_ascii = false});
  expectStyle(R"({"a": )", {.spaced = true, .ensure_ascii = false});
  expectStyle(R"({"a": "\u00)", {.spaced = true, .ensure_ascii = false});
  expectStyle(R"({"a": "\)", {.spaced = true, .ensure_ascii = false});
}

TEST(DetectPythonJsonStyle, WrittenBackTheWayItWasRead) {
  const std::vector<std::string> texts = {
      kFastApiBody,
      kPythonDefaultBody,
      // json.dumps(value, ensure_ascii=False)
      "{\"b\": \"\xc3\xa9\", \"a\": {\"y\": [1, 2.0, -3, 1e-05], \"x\": {}, \"w\": []}}",
      // json.dumps(value, separators=(",", ":"))
      R"({"z":"\u20ac","a":[{"k":null}],"n":-0.5})",
      R"([{"request_id": "r", "status": "error", "error": {"code": "x", "message": "\"q\""}}])",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    const std::optional<OrderedJson> parsed = parseOrderedJson(text);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(pythonJsonDumps(*parsed, detectPythonJsonStyle(text)), text);
  }
}

// --- parseOrderedJson ---

TEST(ParseOrderedJson, KeepsTheSendersMemberOrder) {
  const std::string text = R"({"zeta":1,"alpha":{"y":[{"b":1,"a":2}],"x":null},"mid":"m"})";
  const std::optional<OrderedJson> parsed = parseOrderedJson(text);
  ASSERT_TRUE(parsed.has_value());
  std::vector<std::string> keys;
  for (auto it = parsed->begin(); it != parsed->end(); ++it) {
    keys.push_back(it.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"zeta", "alpha", "mid"}));
  EXPECT_EQ((*parsed)["alpha"].begin().key(), "y");
  EXPECT_EQ((*parsed)["alpha"]["y"][0].begin().key(), "b");
  EXPECT_EQ(parsed->dump(), text);
}

TEST(ParseOrderedJson, ReadsScalarsAndArrays) {
  EXPECT_EQ(parseOrderedJson("[1, 2.5, \"x\", true, null]"),
            OrderedJson::parse("[1, 2.5, \"x\", true, null]"));
  EXPECT_EQ(parseOrderedJson("7"), OrderedJson(7));
  EXPECT_EQ(parseOrderedJson(" {} "), OrderedJson::object());
}

TEST(ParseOrderedJson, ADuplicatedKeyKeepsItsPlaceAndItsLastValue) {
  // As Python's json.loads: {"a": 3, "b": 2}.
  const std::optional<OrderedJson> parsed = parseOrderedJson(R"({"a":1,"b":2,"a":3})");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->dump(), R"({"a":3,"b":2})");
}

TEST(ParseOrderedJson, EmptyForInvalidJson) {
  for (const char* text : {"{\"a\":}", "{\"a\":1} x", "[1,]", "NaN", "[Infinity]", "1e400",
                           "{\"a\":1", "'a'", " ", "\"\\ud800\""}) {
    EXPECT_EQ(parseOrderedJson(text), std::nullopt) << text;
  }
  EXPECT_EQ(parseOrderedJson("\"\xff\""), std::nullopt);  // invalid UTF-8
}

TEST(ParseOrderedJson, EmptyForEmptyInput) {
  EXPECT_EQ(parseOrderedJson(""), std::nullopt);
  EXPECT_EQ(parseOrderedJson(std::string_view()), std::nullopt);
}

TEST(ParseOrderedJson, EmptyWhenNestedDeeperThanTheLimit) {
  EXPECT_TRUE(parseOrderedJson("[[[1]]]", 3).has_value());
  EXPECT_EQ(parseOrderedJson("[[[1]]]", 2), std::nullopt);
  EXPECT_EQ(parseOrderedJson(R"({"a":{"b":{}}})", 2), std::nullopt);
  EXPECT_TRUE(parseOrderedJson(R"({"a":{"b":{}}})", 3).has_value());

  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_TRUE(parseOrderedJson(nested(kDefaultMaxJsonDepth)).has_value());
  EXPECT_EQ(parseOrderedJson(nested(kDefaultMaxJsonDepth + 1)), std::nullopt);
  EXPECT_EQ(parseOrderedJson(nested(100000)), std::nullopt);
}

}  // namespace
}  // namespace agentvcr::protocol
