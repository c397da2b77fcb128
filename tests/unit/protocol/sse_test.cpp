#include "agentvcr/protocol/sse.hpp"

#include <gtest/gtest.h>

namespace agentvcr::protocol {
namespace {

TEST(EventStream, SplitsEventsOnBlankLinesAndJoinsDataLines) {
  std::string body = "data: {\"a\":1}\n\nevent: error\nid: 7\ndata: one\ndata: two\n\n";
  auto events = parseEventStream(body);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_EQ(events[0].event, "");
  EXPECT_EQ(events[0].end, std::string("data: {\"a\":1}\n\n").size());
  EXPECT_EQ(events[1].event, "error");
  EXPECT_EQ(events[1].id, "7");
  EXPECT_EQ(events[1].data, "one\ntwo");
  EXPECT_EQ(events[1].end, body.size());
}

TEST(EventStream, AcceptsCrLfAndCrLineEndsCommentsAndNoSpaceAfterColon) {
  auto events = parseEventStream(": keep-alive\r\ndata:x\r\n\r\ndata: y\r\rdata\n\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].data, "x");
  EXPECT_EQ(events[1].data, "y");
  EXPECT_EQ(events[2].data, "");  // a bare "data" field is an empty data line
}

TEST(EventStream, LeavesOutACutLastEventAndEventsWithoutData) {
  auto events = parseEventStream("event: ping\n\ndata: whole\n\ndata: cut");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "whole");
  EXPECT_TRUE(parseEventStream("").empty());
  EXPECT_TRUE(parseEventStream("data: no blank line\n").empty());
}

TEST(EventStream, RecognisesTheContentType) {
  EXPECT_TRUE(isEventStreamType("text/event-stream"));
  EXPECT_TRUE(isEventStreamType("Text/Event-Stream; charset=utf-8"));
  EXPECT_FALSE(isEventStreamType("application/json"));
  EXPECT_FALSE(isEventStreamType("text/event"));
}

}  // namespace
}  // namespace agentvcr::protocol
