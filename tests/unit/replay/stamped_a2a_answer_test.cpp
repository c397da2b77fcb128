// StampedRpcResponse writes a recorded JSON-RPC answer with the live call's ids, byte for byte
// as a2a::restampIds() does, every other byte the agent's; and given only the ids the memo reads
// of a request (protocol::jsonRpcIdsOnly()), as given the whole request.

#include "agentvcr/replay/stamped_a2a_answer.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/caller_ids.hpp"
#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

struct RpcRestampCase {
  const char* response;
  const char* recorded_request;
  const char* live_request;
};

/// Recorded answers, the requests they answered and live requests: single calls with ids of
/// every type, batches answered out of order, ids recorded twice or equal as numbers only
/// (1 and 1.0), live batches shorter than the recorded one, shapes that are not restamped.
const std::vector<RpcRestampCase> kRpcRestampCases = {
    {R"({"jsonrpc":"2.0","id":1,"result":{"id":"task-1","kind":"task"}})",
     R"({"jsonrpc":"2.0","id":1,"method":"message/send"})",
     R"({"jsonrpc":"2.0","id":"live","method":"message/send"})"},
    {R"({ "result" : {"text":"\u00e9t\u00e9 \ud83d\udd34 \"q\""}, "id" : null, "jsonrpc":"2.0" })",
     R"({"id":null})", R"({"id":2.5})"},
    {R"({"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"x"}})", R"({"id":7})",
     R"({"method":"no id"})"},
    {R"({"jsonrpc":"2.0","id":7,"result":1})", R"({"id":7})", R"({"id":[1,{"a":null}]})"},
    {R"({"jsonrpc":"2.0","id":7,"result":1})", R"({"id":7})", R"([{"id":1},{"id":2}])"},
    {R"({"jsonrpc":"2.0","result":1})", R"({"id":7})", R"({"id":8})"},
    {R"([{"id":"seven","result":2},{"id":6,"result":1},"odd",{"result":3}])",
     R"([{"id":6},{"id":"seven"}])", R"([{"id":60},{"id":"SEVEN"}])"},
    {R"([{"id":1.0,"result":"a"},{"id":1,"result":"b"},{"id":2,"result":"c"}])",
     R"([{"id":1},{"id":1},{"id":2}])", R"([{"id":"x"},{"id":"y"},{"id":"z"}])"},
    {R"([{"id":1,"result":"a"},{"id":2,"result":"b"},{"id":3,"result":"c"}])",
     R"([{"id":1},{"id":2},{"id":3}])", R"([{"id":10}])"},
    {R"([{"id":1,"result":"a"},{"id":2,"result":"b"}])", R"([{"id":1},{"id":2}])", R"({"id":10})"},
    {R"([{"id":1,"result":"a"}])", R"({"id":1})", R"([{"id":10}])"},
    {R"([{"id":1,"result":"a"},{"id":2,"result":"b"}])", R"([{"id":1},{}])",
     R"([{"id":10},{"id":20}])"},
    {R"([{"id":null,"result":"a"}])", R"([{"method":"no id"}])", R"([{"id":10}])"},
    {R"([])", R"([])", R"([])"},
    {R"({"id":1,"id":2,"result":"duplicate"})", R"({"id":1})", R"({"id":3})"},
    {R"({"result":{"id":1},"id":1})", R"({"id":1})", R"({"id":-0})"},
    {R"("just text")", R"({"id":1})", R"({"id":2})"},
    {R"({"id":1,"result":12345678901234567890123,"x":1e400})", R"({"id":1})",
     R"({"id":123456789012345678901234567890})"},
};

std::string stampedRpcText(const RpcRestampCase& test, const Json& live) {
  std::string out;
  StampedRpcResponse::of(test.response, *protocol::parseJson(test.recorded_request).value)
      ->appendTo(out, live);
  return out;
}

TEST(StampedRpcResponse, WritesWhatRestampingTheParsedAnswerGives) {
  for (const RpcRestampCase& test : kRpcRestampCases) {
    if (!protocol::parseOrderedJson(test.response)) {
      continue;  // restampIds() leaves it alone, and replay never stamps it
    }
    const Json recorded = *protocol::parseJson(test.recorded_request).value;
    const Json live = *protocol::parseJson(test.live_request).value;
    EXPECT_EQ(stampedRpcText(test, live), *protocol::a2a::restampIds(test.response, recorded, live))
        << test.response << "\nlive: " << test.live_request;
  }
}

TEST(StampedRpcResponse, NeedsOnlyTheIdsTheMemoReadsOfTheLiveRequest) {
  for (const RpcRestampCase& test : kRpcRestampCases) {
    const std::string live_text = test.live_request;
    auto spans = protocol::findCallerIds(live_text, protocol::IdLayout::JsonRpc);
    if (!spans || !protocol::parseOrderedJson(test.response)) {
      continue;  // an id the scan does not vouch for: the memo never stands in for it
    }
    const Json live = *protocol::parseJson(live_text).value;
    auto ids_only = protocol::jsonRpcIdsOnly(
        live_text, *spans, live.is_array() ? std::optional(live.size()) : std::nullopt);
    ASSERT_TRUE(ids_only) << live_text;
    EXPECT_EQ(stampedRpcText(test, *ids_only), stampedRpcText(test, live)) << live_text;
  }
}

TEST(StampedRpcResponse, AnsweredTwiceWritesEachCallersIds) {
  const RpcRestampCase test = kRpcRestampCases.front();
  const StampedRpcResponse response =
      *StampedRpcResponse::of(test.response, *protocol::parseJson(test.recorded_request).value);
  std::string first;
  std::string second;
  response.appendTo(first, Json{{"id", 1}});
  response.appendTo(second, Json{{"id", "two"}});
  EXPECT_EQ(first, R"({"jsonrpc":"2.0","id":1,"result":{"id":"task-1","kind":"task"}})");
  EXPECT_EQ(second, R"({"jsonrpc":"2.0","id":"two","result":{"id":"task-1","kind":"task"}})");
}

TEST(StampedRpcResponse, KeepsTheAgentsBytesAndContinuesEachLineOfAnEventsData) {
  const std::string data = "{\"jsonrpc\": \"2.0\",\n \"id\": 1,\n \"result\": {\"n\": 1.10}}";
  std::string out;
  StampedRpcResponse::of(data, Json::parse(R"({"id":1})"), "data: ")
      ->appendTo(out, Json{{"id", "live"}});
  EXPECT_EQ(out,
            "{\"jsonrpc\": \"2.0\",\ndata:  \"id\": \"live\",\ndata:  \"result\": {\"n\": 1.10}}");
  EXPECT_FALSE(StampedRpcResponse::of("<html>", Json()));
}

}  // namespace
}  // namespace agentvcr::replay
