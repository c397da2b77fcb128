// How rows travel to PostgreSQL (fleet/src/copy_text.hpp) and how escaped values come back
// (escaped_values.hpp): pure functions, no server.

#include "copy_text.hpp"

#include <gtest/gtest.h>

#include "agentvcr/protocol/canonical.hpp"
#include "escaped_values.hpp"

namespace agentvcr::fleet {
namespace {

using detail::appendCopyField;
using detail::copyText;
using detail::EscapedValues;
using detail::storableJson;
using detail::storableText;

std::string field(const store::FeedValue& value) {
  std::string out;
  appendCopyField(out, value);
  return out;
}

TEST(CopyText, NullNumbersTextAndBytesEachInTheirForm) {
  EXPECT_EQ(field(std::monostate{}), "\\N");
  EXPECT_EQ(field(std::int64_t{-9223372036854775807 - 1}), "-9223372036854775808");
  EXPECT_EQ(field(2.5), "2.5");
  EXPECT_EQ(field(std::string("a\\b\tc\nd\re")), "a\\\\b\\tc\\nd\\re");
  EXPECT_EQ(field(store::FeedBytes{std::string("\x00\xff\x10", 3)}), "\\\\x00ff10");
  EXPECT_EQ(field(store::FeedBytes{}), "\\\\x");
  EXPECT_EQ(field(std::string()), "");
}

TEST(CopyText, RowsAreTabSeparatedLinesWithTheirEscapesLast) {
  store::FeedTable links{
      "step_links",
      {"a", "b"},
      {{std::int64_t{1}, std::string("one")}, {std::int64_t{2}, std::monostate{}}}};
  EXPECT_EQ(copyText(links), "1\tone\n2\t\\N\n") << "step_links has no text to escape";
  store::FeedTable exchanges{
      "exchanges", {"seq", "target"}, {{std::int64_t{1}, std::string("/a")}}};
  EXPECT_EQ(copyText(exchanges), "1\t/a\t\\N\n") << "nothing escaped: the escaped field is NULL";
  EXPECT_EQ(copyText(exchanges, {.field = "7", .json_again = false}), "1\t/a\t\\N\t7\n");
}

TEST(CopyText, TextPostgresCannotHoldIsStoredReadableAndEscapedExactly) {
  const std::string raw("GET /\0\xFF", 7);
  store::FeedTable exchanges{"exchanges", {"seq", "target"}, {{std::int64_t{1}, raw}}};
  EXPECT_EQ(copyText(exchanges), "1\tGET /\xEF\xBF\xBD\xEF\xBF\xBD\t{\"target\":\"" +
                                     protocol::hexEncode(raw) + "\"}\n");
  // What pull reads back: the exact bytes, whatever PostgreSQL's text column says.
  const EscapedValues escaped(std::string("{\"target\":\"" + protocol::hexEncode(raw) + "\"}"));
  EXPECT_EQ(escaped.exact("target", std::string_view("GET /\xEF\xBF\xBD\xEF\xBF\xBD")), raw);
  EXPECT_EQ(escaped.exact("error", std::string_view("kept")), "kept");
  EXPECT_EQ(EscapedValues(std::nullopt).exact("target", std::string_view("as stored")),
            "as stored");
  EXPECT_EQ(escaped.exact("target", std::optional<std::string>()), raw);
}

TEST(CopyText, EscapesThatAreNotTheShippersAreAnError) {
  EXPECT_THROW(EscapedValues(std::string("{\"target\":\"zz\"}")), std::runtime_error);
  EXPECT_THROW(EscapedValues(std::string("[1]")), std::runtime_error);
  EXPECT_THROW(EscapedValues(std::string("{\"target\":3}")), std::runtime_error);
}

TEST(CopyText, TextPostgresCannotHoldBecomesReplacementCharacters) {
  EXPECT_EQ(storableText("plain é ✓ 😀"), "plain é ✓ 😀");
  EXPECT_EQ(storableText(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(storableText("\xC3"), "\xEF\xBF\xBD");                                  // cut short
  EXPECT_EQ(storableText("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  EXPECT_EQ(storableText("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

TEST(CopyText, JsonbGetsEscapesItAcceptsAndTheExactTextIsKept) {
  EXPECT_EQ(storableJson(R"({"a":"x\u0000y"})"), R"({"a":"x\ufffdy"})");
  EXPECT_EQ(storableJson(R"({"a":"\ud800"})"), R"({"a":"\ufffd"})") << "a lone high surrogate";
  EXPECT_EQ(storableJson(R"({"a":"\udc00x"})"), R"({"a":"\ufffdx"})") << "a lone low surrogate";
  EXPECT_EQ(storableJson(R"({"a":"\ud83d\ude00"})"), R"({"a":"\ud83d\ude00"})") << "a pair";
  EXPECT_EQ(storableJson(R"({"\\u0000":"\\"})"), R"({"\\u0000":"\\"})") << "escaped backslashes";
  EXPECT_EQ(storableJson(R"([1, -2.5e3, 0.0001, 1e-5])"), R"([1, -2.5e3, 0.0001, 1e-5])");
  EXPECT_EQ(storableJson("[1e200000]"), std::nullopt) << "beyond numeric";
  EXPECT_EQ(storableJson("[1e-20000]"), std::nullopt) << "too many digits after the point";
  EXPECT_EQ(storableJson("[0e999999]"), "[0e999999]") << "zero fits at a large exponent";
  EXPECT_EQ(storableJson("[0e-20000]"), std::nullopt) << "but its digits after the point count";
  EXPECT_FALSE(storableJson("[0." + std::string(16384, '0') + "]")) << "16384 digits after it";
  EXPECT_TRUE(storableJson("[0." + std::string(16383, '0') + "]")) << "16383 fit";
  EXPECT_EQ(storableJson("[0e1073741823]"), std::nullopt) << "an exponent numeric does not read";
  EXPECT_EQ(storableJson("[0.001e131074]"), "[0.001e131074]") << "131072 digits before the point";
  EXPECT_EQ(storableJson("[0.001e131075]"), std::nullopt);

  const std::string nul_json = R"({"obs":"a\u0000b"})";
  store::FeedTable steps{
      "steps", {"input_position", "env_feedback"}, {{std::int64_t{0}, nul_json}}};
  EXPECT_EQ(copyText(steps), "0\t{\"obs\":\"a\\\\ufffdb\"}\t{\"env_feedback\":\"" +
                                 protocol::hexEncode(nul_json) + "\"}\n");
  store::FeedTable huge{
      "steps", {"input_position", "env_feedback"}, {{std::int64_t{0}, std::string("[1e200000]")}}};
  EXPECT_EQ(copyText(huge),
            "0\t\\N\t{\"env_feedback\":\"" + protocol::hexEncode("[1e200000]") + "\"}\n")
      << "no jsonb holds it: NULL there, the exact text in escaped";
}

TEST(CopyText, ABlobNoJsonbHoldsKeepsItsTextExactlyWithoutADoc) {
  store::FeedTable blobs{"blobs", {"hash", "text"}, {{std::int64_t{1}, std::string("[1e200000]")}}};
  EXPECT_EQ(copyText(blobs, {.field = {}, .json_again = true}), "1\t[1e200000]\t\\N\t\\N\n")
      << "its text column is text: it holds the JSON as it is, and nothing needs escaping";
  store::FeedTable odd{
      "blobs", {"hash", "text"}, {{std::int64_t{2}, std::string("[0e-20000,\"\xFF\"]")}}};
  EXPECT_EQ(copyText(odd, {.field = {}, .json_again = true}),
            "2\t[0e-20000,\"\xEF\xBF\xBD\"]\t{\"text\":\"" +
                protocol::hexEncode("[0e-20000,\"\xFF\"]") + "\"}\t\\N\n")
      << "what text refuses is escaped as in any text column";
}

TEST(CopyText, ABlobCopiedStraightInCarriesItsTextAgainAsItsDoc) {
  const std::string nul_json = R"({"a":"\u0000"})";
  store::FeedTable blobs{"blobs",
                         {"hash", "text"},
                         {{std::int64_t{1}, std::string(R"({"a":"b\tc"})")},
                          {std::int64_t{2}, nul_json},
                          {std::int64_t{3}, std::monostate{}}}};
  EXPECT_EQ(copyText(blobs, {.field = {}, .json_again = true}),
            "1\t{\"a\":\"b\\\\tc\"}\t\\N\t{\"a\":\"b\\\\tc\"}\n"
            "2\t{\"a\":\"\\\\ufffd\"}\t{\"text\":\"" +
                protocol::hexEncode(nul_json) +
                "\"}\t{\"a\":\"\\\\ufffd\"}\n"
                "3\t\\N\t\\N\t\\N\n")
      << "the doc is the stored text, escapes and all; a missing text is a missing doc";
}

}  // namespace
}  // namespace agentvcr::fleet
