#include "agentvcr/protocol/canonical.hpp"

#include <gtest/gtest.h>

#include "protocol_test_util.hpp"

namespace agentvcr::protocol {
namespace {

using test::json;

std::string canon(std::string_view text) {
  return canonicalJson(json(text));
}

TEST(CanonicalJson, SortsKeysAtEveryLevel) {
  EXPECT_EQ(canon(R"({"b": 1, "a": {"d": 2, "c": [{"f": 1, "e": 2}]}})"),
            R"({"a":{"c":[{"e":2,"f":1}],"d":2},"b":1})");
}

TEST(CanonicalJson, SortsKeysByUtf8Bytes) {
  // Byte order of UTF-8 is code-point order: "Z" < "a" < "é" < "😀".
  EXPECT_EQ(canon("{\"\xf0\x9f\x98\x80\": 4, \"\xc3\xa9\": 3, \"a\": 2, \"Z\": 1}"),
            "{\"Z\":1,\"a\":2,\"\xc3\xa9\":3,\"\xf0\x9f\x98\x80\":4}");
}

TEST(CanonicalJson, IgnoresSpacing) {
  EXPECT_EQ(canon("{ \"a\" :\n[ 1 ,\t2 ] }"), canon(R"({"a":[1,2]})"));
  EXPECT_EQ(canon(R"({"a": [1, 2]})"), R"({"a":[1,2]})");
}

TEST(CanonicalJson, KeepsIntegersAndFloatsDistinct) {
  EXPECT_EQ(canon("1"), "1");
  EXPECT_EQ(canon("1.0"), "1.0");
  EXPECT_NE(canonicalHash(json("1")), canonicalHash(json("1.0")));
}

TEST(CanonicalJson, WritesNumbersAsPythonDoes) {
  // Expected text produced by json.dumps(json.loads(doc), sort_keys=True,
  // separators=(",", ":"), ensure_ascii=False) with CPython 3.11.
  EXPECT_EQ(canon("[0.1, 1e300, 1e16, 1e15, 1e-5, 0.0001, 1.5e-7, 123456789.125, 5e-324, "
                  "1.7976931348623157e308, -2.5e-10, 100, 1e2, -0, 18446744073709551615, "
                  "-9223372036854775808]"),
            "[0.1,1e+300,1e+16,1000000000000000.0,1e-05,0.0001,1.5e-07,123456789.125,5e-324,"
            "1.7976931348623157e+308,-2.5e-10,100,100.0,0,18446744073709551615,"
            "-9223372036854775808]");
}

TEST(CanonicalJson, NegativeZero) {
  EXPECT_EQ(canon("-0"), "0");       // an integer: Python loads it as 0
  EXPECT_EQ(canon("-0.0"), "-0.0");  // a float keeps its sign
  EXPECT_EQ(canon("0.0"), "0.0");
}

TEST(CanonicalJson, ExponentFormsOfTheSameValueAgree) {
  EXPECT_EQ(canon("1e2"), canon("100.0"));
  EXPECT_EQ(canon("1E2"), canon("1.00e+2"));
  EXPECT_EQ(canon("0.5"), canon("5e-1"));
}

TEST(CanonicalJson, DecodesEscapes) {
  EXPECT_EQ(canon(R"("\u00e9")"), canon("\"\xc3\xa9\""));
  EXPECT_EQ(canon(R"("\u00e9")"), "\"\xc3\xa9\"");
  EXPECT_EQ(canon(R"("a\/b")"), R"("a/b")");
  EXPECT_EQ(canon(R"("\ud83d\ude00")"), "\"\xf0\x9f\x98\x80\"");
  EXPECT_EQ(canon(R"({"\u0061": 1})"), R"({"a":1})");
}

TEST(CanonicalJson, EscapesOnlyWhatJsonRequires) {
  EXPECT_EQ(canon(R"("q\" b\\ n\n t\t r\r f\f b\b")"), R"("q\" b\\ n\n t\t r\r f\f b\b")");
  EXPECT_EQ(canon(R"("\u0001\u001f")"), R"("\u0001\u001f")");
  EXPECT_EQ(canon(R"("\u007f<>&'")"), "\"\x7f<>&'\"");
}

TEST(CanonicalJson, MatchesPythonOnAMixedDocument) {
  EXPECT_EQ(canon(R"({"b": 1, "a": {"d": [1, 2.0, -0.0], "c": null}, "A": true, "\u00e9": )"
                  R"("\u00e9", "z": "\/\ud83d\ude00\u0001\n\t\"\\"})"),
            "{\"A\":true,\"a\":{\"c\":null,\"d\":[1,2.0,-0.0]},\"b\":1,"
            "\"z\":\"/\xf0\x9f\x98\x80\\u0001\\n\\t\\\"\\\\\",\"\xc3\xa9\":\"\xc3\xa9\"}");
}

TEST(CanonicalJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  Json value = {{"k", std::string("a\xff\xc3")}};
  EXPECT_EQ(canonicalJson(value), "{\"k\":\"a\xef\xbf\xbd\xef\xbf\xbd\"}");
}

TEST(CanonicalJson, EmptyContainersAndScalars) {
  EXPECT_EQ(canon("{}"), "{}");
  EXPECT_EQ(canon("[]"), "[]");
  EXPECT_EQ(canon("[true, false, null]"), "[true,false,null]");
}

TEST(StableHash, IsXxh3WithSeedZero) {
  // Reference values of XXH3_64bits (xxHash 0.8).
  EXPECT_EQ(stableHash(""), 0x2D06800538D394C2ULL);
  EXPECT_EQ(stableHash("a"), stableHash(std::string("a")));
  EXPECT_NE(stableHash("a"), stableHash("b"));
}

TEST(CanonicalHash, EqualForEquivalentSpellings) {
  EXPECT_EQ(canonicalHash(json(R"({"a": "\u00e9", "b": [1e2]})")),
            canonicalHash(json("{\"b\":[100.0],\"a\":\"\xc3\xa9\"}")));
  EXPECT_EQ(canonicalHash(json(R"({"a":1})")), stableHash(R"({"a":1})"));
}

TEST(HashHex, SixteenLowercaseDigits) {
  EXPECT_EQ(hashHex(0), "0000000000000000");
  EXPECT_EQ(hashHex(0x1ULL), "0000000000000001");
  EXPECT_EQ(hashHex(0x2D06800538D394C2ULL), "2d06800538d394c2");
  EXPECT_EQ(hashHex(UINT64_MAX), "ffffffffffffffff");
}

}  // namespace
}  // namespace agentvcr::protocol
