// The HTTP message helpers every in-process peer shares: header lookup as HTTP compares names,
// and agentvcr's own error body.

#include "agentvcr/protocol/http_message.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace agentvcr::protocol {
namespace {

TEST(HttpMessageTest, EqualsIgnoreCaseFoldsAsciiLettersOnly) {
  EXPECT_TRUE(equalsIgnoreCase("Content-Type", "content-TYPE"));
  EXPECT_TRUE(equalsIgnoreCase("", ""));
  EXPECT_FALSE(equalsIgnoreCase("Content-Type", "Content-Typ"));
  EXPECT_FALSE(equalsIgnoreCase("host", "hosts"));
  EXPECT_FALSE(equalsIgnoreCase("a-b", "a_b"));
  EXPECT_FALSE(equalsIgnoreCase("\xc3\xa9", "\xc3\x89"));  // é and É: not ASCII, not folded
  EXPECT_FALSE(equalsIgnoreCase("@", "`"));  // 0x40 and 0x60 differ by the case bit only
}

TEST(HttpMessageTest, FindHeaderGivesTheFirstMatchWhateverItsCase) {
  const Headers headers = {
      {"X-Trace", "1"}, {"content-type", "text/plain"}, {"Content-Type", "application/json"}};
  const HeaderField* found = findHeader(headers, "CONTENT-TYPE");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &headers[1]);
  EXPECT_EQ(findHeader(headers, "Content-Length"), nullptr);
  EXPECT_EQ(findHeader({}, "Host"), nullptr);
}

TEST(HttpMessageTest, HeaderValueIsEmptyWhenTheHeaderIsMissing) {
  const Headers headers = {{"Retry-After", "40"}, {"X-Empty", ""}};
  EXPECT_EQ(headerValue(headers, "retry-after"), "40");
  EXPECT_EQ(headerValue(headers, "x-empty"), "");
  EXPECT_EQ(headerValue(headers, "Location"), "");
}

TEST(HttpMessageTest, ErrorBodyCarriesTheMessageAndAStableId) {
  const std::string body = errorBody("replay.archive", "the \"archive\" could not be read");
  const auto parsed = nlohmann::ordered_json::parse(body);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed.begin().key(), "detail");
  EXPECT_EQ(parsed["detail"], "the \"archive\" could not be read");
  EXPECT_EQ(parsed["agentvcr_error"], "replay.archive");
}

TEST(HttpMessageTest, ErrorBodyStaysJsonWhenTheMessageIsNotUtf8) {
  const std::string body = errorBody("proxy.upstream.refused", std::string("bad \xff byte"));
  EXPECT_EQ(nlohmann::json::parse(body)["detail"], "bad \xef\xbf\xbd byte");
}

}  // namespace
}  // namespace agentvcr::protocol
