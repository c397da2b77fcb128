#include "agentvcr/protocol/python_json.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace agentvcr::protocol {
namespace {

using Ordered = nlohmann::ordered_json;

// Expected strings below are what CPython 3 prints for the same values: kPythonDefaultStyle is
// json.dumps(value), the default style json.dumps(value, ensure_ascii=False,
// separators=(",", ":")).

constexpr PythonJsonStyle kCompact{};
constexpr PythonJsonStyle kSpacedRaw{.spaced = true, .ensure_ascii = false, .allow_nan = true};
constexpr PythonJsonStyle kCompactAscii{.ensure_ascii = true};

TEST(PythonJsonDumps, UsesPythonSeparatorsAndKeepsKeyOrder) {
  Ordered value = Ordered::object();
  value["zeta"] = 1;
  value["alpha"] = Ordered::array({1, "two", nullptr, true, false});
  value["mid"] = Ordered::object();
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle),
            R"({"zeta": 1, "alpha": [1, "two", null, true, false], "mid": {}})");
  EXPECT_EQ(pythonJsonDumps(value), R"({"zeta":1,"alpha":[1,"two",null,true,false],"mid":{}})");
}

TEST(PythonJsonDumps, SortsKeysOfUnorderedJson) {
  // nlohmann::json keeps members in byte order of their UTF-8 keys: Python's sort_keys=True.
  const nlohmann::json value = {
      {"b", 1}, {"\xc3\xa9", 3}, {"a", {{"d", 2}, {"c", nullptr}}}, {"Z", 0}};
  EXPECT_EQ(pythonJsonDumps(value), "{\"Z\":0,\"a\":{\"c\":null,\"d\":2},\"b\":1,\"\xc3\xa9\":3}");
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle),
            R"({"Z": 0, "a": {"c": null, "d": 2}, "b": 1, "\u00e9": 3})");
}

TEST(PythonJsonDumps, NestedContainers) {
  const Ordered value = Ordered::parse(R"([[], {}, [1, [2]], {"a": {"b": {"c": []}}}])");
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle),
            R"([[], {}, [1, [2]], {"a": {"b": {"c": []}}}])");
  EXPECT_EQ(pythonJsonDumps(value), R"([[],{},[1,[2]],{"a":{"b":{"c":[]}}}])");
}

TEST(PythonJsonDumps, EnsureAsciiEscapesNonAsciiAndAstralAsSurrogatePairs) {
  const Ordered value = {{"a", "\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"}};  // DEL, é, €, 😀
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle),
            R"({"a": "\u007f\u00e9\u20ac\ud83d\ude00"})");
  EXPECT_EQ(pythonJsonDumps(value, kCompactAscii), R"({"a":"\u007f\u00e9\u20ac\ud83d\ude00"})");
}

TEST(PythonJsonDumps, EnsureAsciiAtThePlaneBoundaries) {
  // U+FFFF, U+10000, U+10FFFF.
  const Ordered value = "\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf";
  EXPECT_EQ(pythonJsonDumps(value, kCompactAscii), R"("\uffff\ud800\udc00\udbff\udfff")");
}

TEST(PythonJsonDumps, WithoutEnsureAsciiWritesRawUtf8) {
  const Ordered value = {{"a", "\x7f\xc3\xa9\xf0\x9f\x98\x80"}};
  EXPECT_EQ(pythonJsonDumps(value, kSpacedRaw), "{\"a\": \"\x7f\xc3\xa9\xf0\x9f\x98\x80\"}");
  EXPECT_EQ(pythonJsonDumps(value), "{\"a\":\"\x7f\xc3\xa9\xf0\x9f\x98\x80\"}");
}

TEST(PythonJsonDumps, ShortEscapesAndControlCharacters) {
  const Ordered value = std::string("\"\\\n\t\b\f\r/\x01\x1f", 10) + std::string(1, '\0');
  const std::string expected = R"("\"\\\n\t\b\f\r/\u0001\u001f\u0000")";
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle), expected);
  EXPECT_EQ(pythonJsonDumps(value, kSpacedRaw), expected);
  EXPECT_EQ(pythonJsonDumps(value), expected);
}

TEST(PythonJsonDumps, EscapesKeysToo) {
  const Ordered value = {{"cl\xc3\xa9\n", 1}};
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle), R"({"cl\u00e9\n": 1})");
  EXPECT_EQ(pythonJsonDumps(value), "{\"cl\xc3\xa9\\n\":1}");
}

TEST(PythonJsonDumps, InvalidUtf8BecomesOneReplacementCharacterPerByte) {
  const Ordered value = std::string(
      "a\xff"
      "b");
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle), R"("a\ufffdb")");
  EXPECT_EQ(pythonJsonDumps(value),
            "\"a\xef\xbf\xbd"
            "b\"");
  // A truncated sequence, an overlong '/', an encoded surrogate.
  const Ordered bad = std::string("\xc3|\xc0\xaf|\xed\xa0\x80");
  EXPECT_EQ(pythonJsonDumps(bad, kCompactAscii), R"("\ufffd|\ufffd\ufffd|\ufffd\ufffd\ufffd")");
}

TEST(PythonJsonDumps, IntegersExact) {
  const Ordered value = Ordered::array(
      {0, -7, std::numeric_limits<std::int64_t>::min(), std::uint64_t{12345678901234567890u}});
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle),
            "[0, -7, -9223372036854775808, 12345678901234567890]");
}

TEST(PythonJsonDumps, FloatsLikePythonRepr) {
  const Ordered value = Ordered::array({1.0, 1e16, 1e15, 0.0001, 1e-05, 1.5e-7, 123456789.123, -0.0,
                                        2.5e+300, 1e22, 0.1, 100.0, 0.3333333333333333});
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle),
            "[1.0, 1e+16, 1000000000000000.0, 0.0001, 1e-05, 1.5e-07, 123456789.123, -0.0, "
            "2.5e+300, 1e+22, 0.1, 100.0, 0.3333333333333333]");
  EXPECT_EQ(pythonJsonDumps(value),
            "[1.0,1e+16,1000000000000000.0,0.0001,1e-05,1.5e-07,123456789.123,-0.0,"
            "2.5e+300,1e+22,0.1,100.0,0.3333333333333333]");
}

TEST(PythonJsonDumps, NonFiniteFollowsAllowNan) {
  const Ordered value = Ordered::array({std::nan(""), std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity()});
  EXPECT_EQ(pythonJsonDumps(value, kPythonDefaultStyle), "[NaN, Infinity, -Infinity]");
  EXPECT_EQ(pythonJsonDumps(value), "[null,null,null]");
}

TEST(PythonFloatRepr, EdgeCases) {
  EXPECT_EQ(pythonFloatRepr(5e-324), "5e-324");
  EXPECT_EQ(pythonFloatRepr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(pythonFloatRepr(-1.25), "-1.25");
  EXPECT_EQ(pythonFloatRepr(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(pythonFloatRepr(std::nan("")), "NaN");
  EXPECT_EQ(pythonFloatRepr(-std::numeric_limits<double>::infinity()), "-Infinity");
}

}  // namespace
}  // namespace agentvcr::protocol
