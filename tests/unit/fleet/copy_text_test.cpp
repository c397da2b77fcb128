// How rows travel to PostgreSQL (fleet/src/copy_text.hpp) and how URIs appear in messages
// (redactedUri): pure functions, no server.

#include "copy_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/fleet/pg_connection.hpp"

namespace agentvcr::fleet {
namespace {

using detail::appendCopyField;
using detail::copyText;
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

TEST(CopyText, RowsAreTabSeparatedLines) {
  store::FeedTable t{"x",
                     {"a", "b"},
                     {{std::int64_t{1}, std::string("one")}, {std::int64_t{2}, std::monostate{}}}};
  EXPECT_EQ(copyText(t), "1\tone\n2\t\\N\n");
}

TEST(CopyText, TextPostgresCannotHoldBecomesReplacementCharacters) {
  EXPECT_EQ(storableText("plain é ✓ 😀"), "plain é ✓ 😀");
  EXPECT_EQ(storableText(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(storableText("\xC3"), "\xEF\xBF\xBD");                                  // cut short
  EXPECT_EQ(storableText("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  EXPECT_EQ(storableText("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(field(std::string("\xFF\t")), "\xEF\xBF\xBD\\t");
}

TEST(RedactedUri, PasswordsNeverShow) {
  EXPECT_EQ(redactedUri("postgresql://ship:s3cret@db.example:5432/fleet?sslmode=verify-full"),
            "postgresql://ship:***@db.example:5432/fleet?sslmode=verify-full");
  EXPECT_EQ(redactedUri("postgres://ship:p%40ss@db/fleet"), "postgres://ship:***@db/fleet");
  EXPECT_EQ(redactedUri("postgresql://ship@db/fleet?password=s3cret&sslmode=require"),
            "postgresql://ship@db/fleet?password=***&sslmode=require");
  EXPECT_EQ(redactedUri("host=db user=ship password=s3cret dbname=fleet"),
            "host=db user=ship password=*** dbname=fleet");
  EXPECT_EQ(redactedUri("host=db password='s3 cret' dbname=fleet"),
            "host=db password=*** dbname=fleet");
  EXPECT_EQ(redactedUri("postgresql://ship@db/fleet"), "postgresql://ship@db/fleet");
  EXPECT_EQ(redactedUri("service=fleet"), "service=fleet");
}

TEST(RedactedUri, KnowsAPostgresUriFromAFile) {
  EXPECT_TRUE(isPostgresUri("postgresql://db/fleet"));
  EXPECT_TRUE(isPostgresUri("postgres://db/fleet"));
  EXPECT_FALSE(isPostgresUri("agentvcr.sqlite"));
  EXPECT_FALSE(isPostgresUri("/tmp/postgresql://x"));
}

}  // namespace
}  // namespace agentvcr::fleet
