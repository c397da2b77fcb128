#include "agentvcr/net/url.hpp"

#include <gtest/gtest.h>

namespace agentvcr::net {
namespace {

TEST(ParseUrl, HttpWithPortAndBasePath) {
  auto url = parseUrl("http://127.0.0.1:8000/agent/");
  ASSERT_TRUE(url);
  EXPECT_FALSE(url->tls);
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, 8000);
  EXPECT_EQ(url->base_path, "/agent");
  EXPECT_EQ(url->authority(), "127.0.0.1:8000");
  EXPECT_EQ(url->toString(), "http://127.0.0.1:8000/agent");
}

TEST(ParseUrl, HttpsDefaultsTo443AndOmitsItFromHost) {
  auto url = parseUrl("https://www.example.org");
  ASSERT_TRUE(url);
  EXPECT_TRUE(url->tls);
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->base_path, "");
  EXPECT_EQ(url->authority(), "www.example.org");
}

TEST(ParseUrl, Ipv6Literal) {
  auto url = parseUrl("http://[::1]:9000");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, 9000);
  EXPECT_EQ(url->authority(), "[::1]:9000");
}

TEST(ParseUrl, RejectsWhatCannotBeAnUpstream) {
  EXPECT_FALSE(parseUrl("ftp://host"));
  EXPECT_FALSE(parseUrl("http://"));
  EXPECT_FALSE(parseUrl("http://host:99999"));
  EXPECT_FALSE(parseUrl("http://host:0"));
  EXPECT_FALSE(parseUrl("http://host:abc"));
  EXPECT_FALSE(parseUrl("http://host/path?query=1"));
  EXPECT_FALSE(parseUrl("127.0.0.1:8000"));
}

TEST(ParseHostPort, AcceptsPortZeroAndIpv6) {
  auto any = parseHostPort("127.0.0.1:0");
  ASSERT_TRUE(any);
  EXPECT_EQ(any->port, 0);
  auto v6 = parseHostPort("[::1]:8080");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 8080);
}

TEST(ParseHostPort, RejectsMissingPartsAndBareIpv6) {
  EXPECT_FALSE(parseHostPort("127.0.0.1"));
  EXPECT_FALSE(parseHostPort(":8080"));
  EXPECT_FALSE(parseHostPort("::1:8080"));
  EXPECT_FALSE(parseHostPort("host:65536"));
}

TEST(HostPort, PrintsIpv6HostsInBrackets) {
  EXPECT_EQ((HostPort{"127.0.0.1", 8080}).toString(), "127.0.0.1:8080");
  EXPECT_EQ((HostPort{"::1", 8080}).toString(), "[::1]:8080");
  EXPECT_EQ((HostPort{"::1", 8080}).httpUrl(), "http://[::1]:8080");
  EXPECT_EQ(parseHostPort(HostPort{"::1", 9}.toString())->host, "::1");
}

}  // namespace
}  // namespace agentvcr::net
