#include "agentvcr/scripted/python_json.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace agentvcr::scripted {
namespace {

using Ordered = nlohmann::ordered_json;

// Expected strings below are what CPython 3 prints for the same values.

TEST(PythonJsonDumps, UsesPythonSeparatorsAndKeepsKeyOrder) {
  Ordered value = Ordered::object();
  value["zeta"] = 1;
  value["alpha"] = Ordered::array({1, "two", nullptr, true, false});
  value["mid"] = Ordered::object();
  EXPECT_EQ(pythonJsonDumps(value),
            R"({"zeta": 1, "alpha": [1, "two", null, true, false], "mid": {}})");
}

TEST(PythonJsonDumps, NestedContainers) {
  const Ordered value = Ordered::parse(R"([[], {}, [1, [2]], {"a": {"b": {"c": []}}}])");
  EXPECT_EQ(pythonJsonDumps(value), R"([[], {}, [1, [2]], {"a": {"b": {"c": []}}}])");
}

TEST(PythonJsonDumps, EnsureAsciiEscapesNonAsciiAndAstralAsSurrogatePairs) {
  const Ordered value = {{"a", "\x7f\xc3\xa9\xf0\x9f\x98\x80"}};  // DEL, é, 😀
  EXPECT_EQ(pythonJsonDumps(value), R"({"a": "\u007f\u00e9\ud83d\ude00"})");
}

TEST(PythonJsonDumps, WithoutEnsureAsciiWritesRawUtf8) {
  const Ordered value = {{"a", "\x7f\xc3\xa9\xf0\x9f\x98\x80"}};
  EXPECT_EQ(pythonJsonDumps(value, false), "{\"a\": \"\x7f\xc3\xa9\xf0\x9f\x98\x80\"}");
}

TEST(PythonJsonDumps, ShortEscapesAndControlCharacters) {
  const Ordered value = std::string("\"\\\n\t\b\f\r/\x01\x1f", 10) + std::string(1, '\0');
  EXPECT_EQ(pythonJsonDumps(value), R"("\"\\\n\t\b\f\r/\u0001\u001f\u0000")");
  EXPECT_EQ(pythonJsonDumps(value, false), R"("\"\\\n\t\b\f\r/\u0001\u001f\u0000")");
}

TEST(PythonJsonDumps, EscapesKeysToo) {
  const Ordered value = {{"cl\xc3\xa9", 1}};
  EXPECT_EQ(pythonJsonDumps(value), R"({"cl\u00e9": 1})");
}

TEST(PythonJsonDumps, InvalidUtf8BecomesReplacementCharacter) {
  const Ordered value = std::string(
      "a\xff"
      "b");
  EXPECT_EQ(pythonJsonDumps(value), R"("a\ufffdb")");
}

TEST(PythonJsonDumps, IntegersExact) {
  const Ordered value = Ordered::array(
      {0, -7, std::numeric_limits<std::int64_t>::min(), std::uint64_t{12345678901234567890u}});
  EXPECT_EQ(pythonJsonDumps(value), "[0, -7, -9223372036854775808, 12345678901234567890]");
}

TEST(PythonJsonDumps, FloatsLikePythonRepr) {
  const Ordered value = Ordered::array({1.0, 1e16, 1e15, 0.0001, 1e-05, 1.5e-7, 123456789.123, -0.0,
                                        2.5e+300, 1e22, 0.1, 100.0, 0.3333333333333333});
  EXPECT_EQ(pythonJsonDumps(value),
            "[1.0, 1e+16, 1000000000000000.0, 0.0001, 1e-05, 1.5e-07, 123456789.123, -0.0, "
            "2.5e+300, 1e+22, 0.1, 100.0, 0.3333333333333333]");
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
}  // namespace agentvcr::scripted
