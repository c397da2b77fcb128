// Tests of the caller-id scan (caller_ids.hpp): the exact spans findCallerIds() finds for MAGMA
// requests and JSON-RPC requests and batches, every case where it must refuse (nullopt), the
// masked form maskIds() builds from the spans, and the ids readMagmaCallerIds() and
// jsonRpcIdsOnly() read back from them.

#include "agentvcr/protocol/caller_ids.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "protocol_test_util.hpp"

namespace agentvcr::protocol {
namespace {

using test::json;
using namespace std::string_literals;
using namespace std::string_view_literals;

const char* fieldName(IdField field) {
  switch (field) {
    case IdField::RequestId:
      return "request_id";
    case IdField::InputId:
      return "input";
    case IdField::JsonRpcId:
      return "id";
    case IdField::MessageId:
      return "messageId";
  }
  return "?";
}

/// Each span as "field[element]=bytes", in the order given.
std::vector<std::string> describe(std::string_view text, const std::vector<IdSpan>& spans) {
  std::vector<std::string> out;
  for (const IdSpan& span : spans) {
    out.push_back(std::string(fieldName(span.field)) + "[" + std::to_string(span.element) +
                  "]=" + std::string(text.substr(span.begin, span.end - span.begin)));
  }
  return out;
}

using Described = std::vector<std::string>;

/// The described spans of `text`, or {"nullopt"} when the scan refuses it.
Described scan(std::string_view text, IdLayout layout = IdLayout::MagmaRequest) {
  auto spans = findCallerIds(text, layout);
  if (!spans) {
    return {"nullopt"};
  }
  return describe(text, *spans);
}

const Described kRefused = {"nullopt"};

/// A MAGMA request whose first input holds `input_body` after its id.
std::string magmaRequest(std::string_view input_body) {
  return R"({"request_id":"r-1","inputs":[{"id":7)" + std::string(input_body) + "}]}";
}

const Described kMagmaRequestIds = {"request_id[0]=\"r-1\"", "input[0]=7"};

// --- findCallerIds, MAGMA ---------------------------------------------------------------------

TEST(FindCallerIds, GivesTheExactBytesOfEachMagmaId) {
  const std::string text = R"({"request_id":"r-1","inputs":[{"id":7},{"id":-12}]})";
  auto spans = findCallerIds(text, IdLayout::MagmaRequest);
  ASSERT_TRUE(spans.has_value());
  const std::vector<IdSpan> expected = {
      {14, 19, IdField::RequestId, 0},
      {36, 37, IdField::InputId, 0},
      {45, 48, IdField::InputId, 1},
  };
  EXPECT_EQ(*spans, expected);
  EXPECT_EQ(describe(text, *spans),
            (Described{"request_id[0]=\"r-1\"", "input[0]=7", "input[1]=-12"}));
}

TEST(FindCallerIds, GivesSpansInTextOrderWhateverTheMemberOrder) {
  EXPECT_EQ(scan(R"({"inputs":[{"num_outputs":1,"id":3},{"id":4}],"request_id":"r"})"),
            (Described{"input[0]=3", "input[1]=4", "request_id[0]=\"r\""}));
}

TEST(FindCallerIds, IndexesInputIdsByTheirElementInInputs) {
  // The second element has no id and the third is not an object: indexes still count them.
  EXPECT_EQ(scan(R"({"request_id":"r","inputs":[{"id":10},{"num_outputs":1},5,{"id":40}]})"),
            (Described{"request_id[0]=\"r\"", "input[0]=10", "input[3]=40"}));
}

TEST(FindCallerIds, AcceptsARequestWithoutIds) {
  EXPECT_EQ(scan("{}"), Described{});
  EXPECT_EQ(scan(R"({"inputs":[]})"), Described{});
  EXPECT_EQ(scan(R"({"request_id":"r","inputs":[{},{"num_outputs":1}]})"),
            (Described{"request_id[0]=\"r\""}));
}

TEST(FindCallerIds, IdsInsideTheContentOfARequestAreNotSpans) {
  const std::string text =
      magmaRequest(R"(,"instruction":{"id":1,"request_id":"x"},)"
                   R"("memory":{"id":2,"history":[{"id":3,"inputs":[{"id":4}]}],"request_id":"y"},)"
                   R"("tools":[{"name":"t","id":5,"arguments":{"id":6}}],)"
                   R"("attributes":{"inputs":[{"id":8}]},"extra_keys":{"request_id":"z","id":9})");
  EXPECT_EQ(scan(text), kMagmaRequestIds);
  // `id` at the top level and `request_id` inside an input are not MAGMA ids either.
  EXPECT_EQ(scan(R"({"id":1,"request_id":"r","inputs":[{"request_id":"s","id":2}]})"),
            (Described{"request_id[0]=\"r\"", "input[0]=2"}));
}

TEST(FindCallerIds, TextThatSpellsAnIdInsideAStringIsNotASpan) {
  EXPECT_EQ(scan(magmaRequest(R"(,"content":"{\"id\":5,\"request_id\":\"q\"}")")),
            kMagmaRequestIds);
  EXPECT_EQ(scan(R"({"request_id":"\",\"inputs\":[{\"id\":1}]","inputs":[]})"),
            (Described{R"(request_id[0]="\",\"inputs\":[{\"id\":1}]")"}));
}

TEST(FindCallerIds, StringsEndOnlyAtAnUnescapedQuote) {
  EXPECT_EQ(scan(R"({"request_id":"a\"}","inputs":[]})"), (Described{R"(request_id[0]="a\"}")"}));
  EXPECT_EQ(scan(R"({"request_id":"a\\","inputs":[{"id":1}]})"),
            (Described{R"(request_id[0]="a\\")", "input[0]=1"}));
  EXPECT_EQ(scan(R"({"request_id":"\\\"\\","inputs":[]})"),
            (Described{R"(request_id[0]="\\\"\\")"}));
  EXPECT_EQ(scan(magmaRequest(R"(,"memory":{"a\"":"\\","b":"\"}]"})")), kMagmaRequestIds);
}

TEST(FindCallerIds, FindsIdsOfEveryScalarType) {
  // The scan checks structure only: what a number or literal spells is the parser's business.
  for (const std::string value :
       {R"("s")", R"("")", "12", "-4", "1.5e3", "-0", "true", "false", "null", "tru", "1.2.3"}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(scan(R"({"request_id":)" + value + R"(,"inputs":[{"id":)" + value + "}]}"),
              (Described{"request_id[0]=" + value, "input[0]=" + value}));
  }
}

TEST(FindCallerIds, RefusesIdsThatAreObjectsOrArrays) {
  for (const std::string value : {"{}", "[]", R"({"a":1})", "[1]", R"([{"id":1}])"}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(scan(R"({"request_id":)" + value + R"(,"inputs":[]})"), kRefused);
    EXPECT_EQ(scan(R"({"request_id":"r","inputs":[{"id":)" + value + "}]}"), kRefused);
  }
}

TEST(FindCallerIds, RefusesADuplicateMemberOnThePathToAnId) {
  EXPECT_EQ(scan(R"({"request_id":"a","inputs":[],"request_id":"b"})"), kRefused);
  EXPECT_EQ(scan(R"({"request_id":"a","inputs":[{"id":1}],"inputs":[]})"), kRefused);
  EXPECT_EQ(scan(R"({"request_id":"a","inputs":[{"id":1,"num_outputs":1,"id":2}]})"), kRefused);
  // Only the element that repeats the name is refused, not one id per element.
  EXPECT_EQ(scan(R"({"request_id":"a","inputs":[{"id":1},{"id":2}]})"),
            (Described{"request_id[0]=\"a\"", "input[0]=1", "input[1]=2"}));
}

TEST(FindCallerIds, AcceptsDuplicateMembersOffThePath) {
  EXPECT_EQ(scan(magmaRequest(R"(,"memory":{"id":1,"id":2},"memory":{})")), kMagmaRequestIds);
  EXPECT_EQ(scan(R"({"request_id":"r","other":1,"other":2,"inputs":[{"id":7}]})"),
            (Described{"request_id[0]=\"r\"", "input[0]=7"}));
}

TEST(FindCallerIds, RefusesAnEscapedMemberNameInAnObjectOnThePath) {
  EXPECT_EQ(scan(R"({"request\u005fid":"a","inputs":[]})"), kRefused);
  EXPECT_EQ(scan(R"({"request_id":"a","inp\u0075ts":[{"id":1}]})"), kRefused);
  EXPECT_EQ(scan(R"({"request_id":"a","inputs":[{"i\u0064":1}]})"), kRefused);
  // The scan does not decode names, so any escaped name where a path name could be is refused.
  EXPECT_EQ(scan(R"({"request_id":"a","n\u0061me":1,"inputs":[]})"), kRefused);
  EXPECT_EQ(scan(R"({"request_id":"a","inputs":[{"id":1,"me\u006dory":{}}]})"), kRefused);
}

TEST(FindCallerIds, AcceptsAnEscapedMemberNameOffThePath) {
  EXPECT_EQ(scan(magmaRequest(R"(,"memory":{"i\u0064":1,"request\u005fid":"x","\"":2})")),
            kMagmaRequestIds);
}

TEST(FindCallerIds, RefusesARawControlByteInAString) {
  for (const char byte : {'\0', '\x01', '\t', '\n', '\r', '\x1f'}) {
    SCOPED_TRACE(static_cast<int>(byte));
    const std::string raw(1, byte);
    EXPECT_EQ(scan(R"({"request_id":"a)" + raw + R"(","inputs":[]})"), kRefused);
    EXPECT_EQ(scan(magmaRequest(R"(,"memory":{"note":")" + raw + R"("})")), kRefused);
    EXPECT_EQ(scan(magmaRequest(R"(,"memory":{"no)" + raw + R"(te":1})")), kRefused);
  }
}

TEST(FindCallerIds, RefusesARawControlByteAfterABackslash) {
  // An escape never takes a raw control byte: the string still holds one.
  EXPECT_EQ(scan(std::string(R"({"request_id":"a\)") + '\x01' + R"(","inputs":[]})"), kRefused);
  EXPECT_EQ(scan(magmaRequest(std::string(R"(,"memory":{"note":"\)") + '\0' + R"("})")), kRefused);
}

TEST(FindCallerIds, LeavesOtherBytesInStringsToTheParser) {
  // DEL, UTF-8 and even invalid UTF-8 or unknown escapes: the parser judges those.
  EXPECT_EQ(scan(magmaRequest(",\"memory\":{\"caf\xc3\xa9\":\"\x7f\xff\\q\"}")), kMagmaRequestIds);
}

TEST(FindCallerIds, RefusesAByteOutsideStringsThatIsNotJsonStructure) {
  for (const std::string_view bad : {"@"sv, "#"sv, "'x'"sv, "/*c*/"sv, "\xc3\xa9"sv, "\0"sv, "\f"sv,
                                     "\v"sv, "x\"y\""sv, "()"sv}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(scan(magmaRequest(R"(,"memory":)" + std::string(bad))), kRefused);
  }
  // Between tokens too: JSON's whitespace is space, tab, line feed and carriage return only.
  EXPECT_EQ(scan("{\"request_id\":\f\"r\"}"), kRefused);
  EXPECT_EQ(scan("{\"request_id\":\"r\"\v}"), kRefused);
}

TEST(FindCallerIds, RefusesTrailingGarbage) {
  for (const std::string_view tail :
       {"x"sv, "{}"sv, ","sv, "}"sv, "]"sv, "\"\""sv, "0"sv, "\0"sv}) {
    SCOPED_TRACE(tail);
    EXPECT_EQ(scan(R"({"request_id":"r"})" + std::string(tail)), kRefused);
    EXPECT_EQ(scan(R"({"request_id":"r"} )" + std::string(tail)), kRefused);
  }
}

TEST(FindCallerIds, RefusesEveryTruncation) {
  const std::string text = magmaRequest(R"(,"memory":{"a":[1,true,null,"x\"y"],"b":{}})");
  ASSERT_EQ(scan(text), kMagmaRequestIds);
  for (std::size_t length = 0; length < text.size(); ++length) {
    SCOPED_TRACE(text.substr(0, length));
    EXPECT_EQ(scan(std::string_view(text).substr(0, length)), kRefused);
  }
}

TEST(FindCallerIds, RefusesMalformedStructure) {
  for (const std::string_view bad : {
           R"({"request_id":"r",})",                        // trailing comma in an object
           R"({"request_id":"r","inputs":[{"id":1},]})",    // trailing comma in an array
           R"({"request_id":"r","inputs":[{"id":1,}]})",    // trailing comma in an input
           R"({"request_id":"r","memory":[1,]})",           // trailing comma off the path
           R"({,"request_id":"r"})",                        // leading comma
           R"({"request_id":"r","inputs":[,{"id":1}]})",    // leading comma in an array
           R"({"request_id":"r" "inputs":[]})",             // missing comma
           R"({"request_id":"r","inputs":[{"id":1} {}]})",  // missing comma in an array
           R"({"request_id":"r","memory":[1 2]})",          // missing comma between scalars
           R"({"request_id""r"})",                          // missing colon
           R"({"request_id"::"r"})",                        // two colons
           R"({"request_id":})",                            // missing value
           R"({"request_id"})",                             // missing colon and value
           R"({request_id:"r"})",                           // unquoted name
           R"({1:"r"})",                                    // a name that is not a string
           R"({"request_id":"r","inputs":[}])",             // mismatched brackets
           R"({"request_id":"r","inputs":[{"id":1]}})",     // mismatched brackets in an input
           R"({"request_id":"r"]})",                        // a bracket closing nothing open
           R"({"request_id":"r","a":[}})",                  // a bracket closing the wrong thing
       }) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(scan(bad), kRefused);
  }
}

TEST(FindCallerIds, RefusesAMagmaRootThatIsNotAnObject) {
  for (const std::string_view bad :
       {"", " ", "[]", R"([{"request_id":"r"}])", R"("r")", "1", "null", "\xef\xbb\xbf{}"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(scan(bad), kRefused);
  }
}

TEST(FindCallerIds, AllowsWhitespaceAroundTheRootAndBetweenTokens) {
  const std::string text =
      " \t\r\n{ \"request_id\" :\n\"r-1\" , \"inputs\" : [ { \"id\"\t:\r7 } ] }\n\t ";
  EXPECT_EQ(scan(text), kMagmaRequestIds);
}

TEST(FindCallerIds, SurvivesHundredThousandNestingLevelsInContent) {
  constexpr std::size_t kDepth = 100'000;
  std::string arrays = std::string(kDepth, '[') + std::string(kDepth, ']');
  std::string objects;
  for (std::size_t i = 0; i < kDepth; ++i) {
    objects += R"({"id":)";
  }
  objects += "1" + std::string(kDepth, '}');
  const std::string text = R"({"request_id":"r-1","inputs":[{"memory":)" + arrays +
                           R"(,"id":7,"tools":)" + objects + R"(},{"id":8}]})";
  EXPECT_EQ(scan(text), (Described{"request_id[0]=\"r-1\"", "input[0]=7", "input[1]=8"}));
  // Still strict at that depth: one bracket too few is refused.
  EXPECT_EQ(scan(R"({"request_id":"r","memory":)" + arrays.substr(1) + "}"), kRefused);
}

// --- maskIds ----------------------------------------------------------------------------------

std::optional<std::string> masked(std::string_view text, IdLayout layout = IdLayout::MagmaRequest) {
  auto spans = findCallerIds(text, layout);
  if (!spans) {
    return std::nullopt;
  }
  return maskIds(text, *spans);
}

TEST(MaskIds, ReplacesEachSpanWithOneNulByte) {
  EXPECT_EQ(masked(R"({"request_id":"r-1","inputs":[{"id":7},{"num_outputs":2,"id":-12}]})"),
            "{\"request_id\":\0,\"inputs\":[{\"id\":\0},{\"num_outputs\":2,\"id\":\0}]}"s);
  EXPECT_EQ(masked(R"([{"id":"a"},{"id":null}])", IdLayout::JsonRpc), "[{\"id\":\0},{\"id\":\0}]"s);
}

TEST(MaskIds, LeavesATextWithoutSpansAsItIs) {
  EXPECT_EQ(maskIds(R"({"a":1})", {}), R"({"a":1})");
  EXPECT_EQ(masked(R"({"inputs":[{"memory":{"id":1}}]})"), R"({"inputs":[{"memory":{"id":1}}]})");
}

TEST(MaskIds, MasksOfRequestsThatDifferOnlyInIdsAreEqual) {
  const std::string body = R"(,"memory":{"id":5,"history":[]},"num_outputs":1)";
  const auto first = masked(R"({"request_id":"r-1","inputs":[{"id":1)" + body + "}]}");
  const auto second =
      masked(R"({"request_id":"another-run-id","inputs":[{"id":123456)" + body + "}]}");
  const auto third = masked(R"({"request_id":"r\u002d1","inputs":[{"id":-9)" + body + "}]}");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, third);
}

TEST(MaskIds, MasksOfRequestsThatDifferInContentDiffer) {
  const auto base = masked(R"({"request_id":"r","inputs":[{"id":1,"memory":{"id":5}}]})");
  ASSERT_TRUE(base.has_value());
  EXPECT_NE(base, masked(R"({"request_id":"r","inputs":[{"id":1,"memory":{"id":6}}]})"));
  EXPECT_NE(base, masked(R"({"request_id":"r","inputs":[{"id":1,"memory":{"id":"5"}}]})"));
  EXPECT_NE(base, masked(R"({"request_id":"r","inputs":[{"id":1,"memory":{"id":5}},{}]})"));
}

TEST(MaskIds, WhitespaceIsContent) {
  const auto compact = masked(R"({"request_id":"r","inputs":[{"id":1}]})");
  ASSERT_TRUE(compact.has_value());
  for (const std::string_view spaced : {
           R"({"request_id": "r","inputs":[{"id":1}]})",
           R"({"request_id":"r", "inputs":[{"id":1}]})",
           R"({"request_id":"r","inputs":[{"id": 1}]})",
           R"({"request_id":"r","inputs":[{"id":1 }]})",
           R"({"request_id" :"r","inputs":[{"id":1}]})",
           R"( {"request_id":"r","inputs":[{"id":1}]})",
           "{\"request_id\":\"r\",\"inputs\":[{\"id\":1}]}\n",
       }) {
    SCOPED_TRACE(spaced);
    const auto other = masked(spaced);
    ASSERT_TRUE(other.has_value());
    EXPECT_NE(compact, other);
  }
}

// --- findCallerIds, JSON-RPC ------------------------------------------------------------------

constexpr const char* kSend =
    R"({"jsonrpc":"2.0","id":"call-1","method":"message/send",)"
    R"("params":{"message":{"role":"user","messageId":"m-1","parts":[{"kind":"text","text":"hi"}]}}})";

TEST(FindCallerIds, FindsTheJsonRpcIdOfARequestObject) {
  EXPECT_EQ(scan(kSend, IdLayout::JsonRpc), (Described{"id[0]=\"call-1\""}));
  EXPECT_EQ(scan(R"({"jsonrpc":"2.0","method":"m"})", IdLayout::JsonRpc), Described{});
  EXPECT_EQ(scan(R"( {"id" : 5} )", IdLayout::JsonRpc), (Described{"id[0]=5"}));
}

TEST(FindCallerIds, FindsJsonRpcIdsOfEveryScalarType) {
  for (const std::string value : {R"("a\"b")", "0", "-1", "2.5", "true", "false", "null"}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(scan(R"({"id":)" + value + "}", IdLayout::JsonRpc), (Described{"id[0]=" + value}));
  }
  EXPECT_EQ(scan(R"({"id":{}})", IdLayout::JsonRpc), kRefused);
  EXPECT_EQ(scan(R"({"id":[1]})", IdLayout::JsonRpc), kRefused);
}

TEST(FindCallerIds, JsonRpcIdsInsideParamsOrResultsAreNotSpans) {
  EXPECT_EQ(
      scan(R"({"id":1,"params":{"id":2,"task":{"id":"t"}},"meta":[{"id":3}]})", IdLayout::JsonRpc),
      (Described{"id[0]=1"}));
}

TEST(FindCallerIds, FindsTheIdOfEachBatchElementByPosition) {
  EXPECT_EQ(scan(R"([{"id":1},{"jsonrpc":"2.0"},{"method":"m","id":"c"}])", IdLayout::JsonRpc),
            (Described{"id[0]=1", "id[2]=\"c\""}));
  EXPECT_EQ(scan("[]", IdLayout::JsonRpc), Described{});
  EXPECT_EQ(scan(" [ ] ", IdLayout::JsonRpc), Described{});
}

TEST(FindCallerIds, SkipsBatchElementsThatAreNotObjects) {
  // A batch is not nested: the object inside the array at 3 is content.
  const std::string batch =
      R"([1,"s",null,[{"id":5,"params":{"message":{"messageId":"m"}}}],{"id":2},[]])";
  EXPECT_EQ(scan(batch, IdLayout::JsonRpc), (Described{"id[4]=2"}));
  EXPECT_EQ(scan(batch, IdLayout::JsonRpcAndMessageId), (Described{"id[4]=2"}));
}

TEST(FindCallerIds, RefusesMalformedJsonRpc) {
  for (const std::string_view bad : {
           R"({"id":1,"id":2})",             // a duplicate id
           R"([{"id":1},{"id":2,"id":3}])",  // a duplicate id in a batch element
           R"({"i\u0064":1})",               // an escaped name on the path
           R"([{"i\u0064":1}])",             // an escaped name in a batch element
           R"({"id":1,"par\u0061ms":{}})",   // any escaped name in the request object
           R"([{"id":1},])",                 // trailing comma
           R"([{"id":1}] [])",               // trailing garbage
           R"([{"id":1})",                   // truncated
           R"("id")",                        // neither object nor array
           "7",
           "",
       }) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(scan(bad, IdLayout::JsonRpc), kRefused);
    EXPECT_EQ(scan(bad, IdLayout::JsonRpcAndMessageId), kRefused);
  }
}

TEST(FindCallerIds, FindsTheMessageIdOnlyWhenAskedTo) {
  EXPECT_EQ(scan(kSend, IdLayout::JsonRpc), (Described{"id[0]=\"call-1\""}));
  EXPECT_EQ(scan(kSend, IdLayout::JsonRpcAndMessageId),
            (Described{"id[0]=\"call-1\"", "messageId[0]=\"m-1\""}));
  EXPECT_EQ(scan(kSend, IdLayout::MagmaRequest), Described{});
}

TEST(FindCallerIds, FindsMessageIdsOfBatchElementsByPosition) {
  const std::string batch =
      R"([{"id":1,"params":{"message":{"messageId":"a"}}},{"params":{"message":{}}},)"
      R"({"params":{"message":{"messageId":"c"}},"id":3}])";
  EXPECT_EQ(scan(batch, IdLayout::JsonRpcAndMessageId),
            (Described{"id[0]=1", "messageId[0]=\"a\"", "messageId[2]=\"c\"", "id[2]=3"}));
  EXPECT_EQ(scan(batch, IdLayout::JsonRpc), (Described{"id[0]=1", "id[2]=3"}));
}

TEST(FindCallerIds, MessageIdsElsewhereAreNotSpans) {
  EXPECT_EQ(scan(R"({"messageId":"a","params":{"messageId":"b","message":{"metadata":)"
                 R"({"messageId":"c"},"parts":[{"messageId":"d"}]},"task":{"message":)"
                 R"({"messageId":"e"}}}})",
                 IdLayout::JsonRpcAndMessageId),
            Described{});
}

TEST(FindCallerIds, ChecksTheMessageIdPathOnlyWhenAskedTo) {
  for (const std::string_view text : {
           R"({"id":1,"params":{},"params":{"message":{"messageId":"m"}}})",
           R"({"id":1,"params":{"message":{},"message":{"messageId":"m"}}})",
           R"({"id":1,"params":{"message":{"messageId":"m","messageId":"n"}}})",
           R"({"id":1,"params":{"mess\u0061ge":{}}})",
           R"({"id":1,"params":{"message":{"message\u0049d":"m"}}})",
           R"({"id":1,"params":{"message":{"messageId":{"a":1}}}})",
           R"({"id":1,"params":{"message":{"messageId":["m"]}}})",
       }) {
    SCOPED_TRACE(text);
    EXPECT_EQ(scan(text, IdLayout::JsonRpcAndMessageId), kRefused);
    EXPECT_EQ(scan(text, IdLayout::JsonRpc), (Described{"id[0]=1"}));
  }
}

TEST(FindCallerIds, AllowsParamsAndMessageOfAnyShape) {
  EXPECT_EQ(
      scan(R"({"id":1,"params":[{"message":{"messageId":"m"}}]})", IdLayout::JsonRpcAndMessageId),
      (Described{"id[0]=1"}));
  EXPECT_EQ(scan(R"({"id":1,"params":{"message":"text"}})", IdLayout::JsonRpcAndMessageId),
            (Described{"id[0]=1"}));
  EXPECT_EQ(scan(R"({"id":1,"params":null})", IdLayout::JsonRpcAndMessageId),
            (Described{"id[0]=1"}));
}

// --- readMagmaCallerIds -----------------------------------------------------------------------

/// readMagmaCallerIds() of a text the scan accepts.
std::optional<MagmaCallerIds> readIds(std::string_view text) {
  auto spans = findCallerIds(text, IdLayout::MagmaRequest);
  EXPECT_TRUE(spans.has_value()) << text;
  if (!spans) {
    return std::nullopt;
  }
  return readMagmaCallerIds(text, *spans);
}

TEST(ReadMagmaCallerIds, DecodesTheRequestIdAndInputIdsInOrder) {
  auto ids = readIds(
      R"({"inputs":[{"id":3},{"id":-0},{"id":9223372036854775807},{"id":-9223372036854775808}],)"
      R"("request_id":"a\u0062\"\n"})");
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ(ids->request_id, "ab\"\n");
  EXPECT_EQ(ids->input_ids,
            (std::vector<std::int64_t>{3, 0, std::numeric_limits<std::int64_t>::max(),
                                       std::numeric_limits<std::int64_t>::min()}));
}

TEST(ReadMagmaCallerIds, AgreesWithTheParserOnEveryIdItReads) {
  for (const std::string_view text : {
           R"( { "request_id" : "r" , "inputs" : [ { "id" : 1 } , { "id" : 2 } ] } )",
           R"({"request_id":"\u00e9\ud83d\ude00\\","inputs":[{"id":5,"m":{"id":6,"id":7}}]})",
           R"({"m":{"request_id":"no","r\u0065quest_id":"no"},"request_id":"yes","inputs":[]})",
           R"({"inputs":[{"m":{"inputs":[{"id":1}]},"id":-1},{"id":1}],"request_id":"\"}"})",
       }) {
    SCOPED_TRACE(text);
    const Json parsed = json(text);
    auto ids = readIds(text);
    ASSERT_TRUE(ids.has_value());
    EXPECT_EQ(ids->request_id, parsed.at("request_id").get<std::string>());
    std::vector<std::int64_t> parsed_ids;
    for (const Json& input : parsed.at("inputs")) {
      parsed_ids.push_back(input.at("id").get<std::int64_t>());
    }
    EXPECT_EQ(ids->input_ids, parsed_ids);
  }
}

TEST(ReadMagmaCallerIds, AcceptsARequestWithoutInputIds) {
  auto ids = readIds(R"({"request_id":"r","inputs":[]})");
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ(ids->request_id, "r");
  EXPECT_TRUE(ids->input_ids.empty());
}

TEST(ReadMagmaCallerIds, RefusesARequestIdThatIsNotANonEmptyString) {
  for (const std::string value :
       {R"("")", "5", "null", "true", "1.5", R"("\x")", R"("\ud800")", "\"\xff\"", "nul"}) {
    SCOPED_TRACE(value);
    EXPECT_FALSE(readIds(R"({"request_id":)" + value + R"(,"inputs":[{"id":1}]})").has_value());
  }
}

TEST(ReadMagmaCallerIds, RefusesARequestWithoutRequestId) {
  EXPECT_FALSE(readIds(R"({"inputs":[{"id":1}]})").has_value());
}

TEST(ReadMagmaCallerIds, RefusesInputIdsThatAreNotInt64) {
  for (const std::string value :
       {"1.0", "1e2", "-0.0", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "1e400", R"("1")", "true", "null", "01", "+1", "1.2.3"}) {
    SCOPED_TRACE(value);
    EXPECT_FALSE(
        readIds(R"({"request_id":"r","inputs":[{"id":1},{"id":)" + value + "}]}").has_value());
  }
}

TEST(ReadMagmaCallerIds, RefusesDuplicateInputIds) {
  EXPECT_FALSE(readIds(R"({"request_id":"r","inputs":[{"id":1},{"id":2},{"id":1}]})").has_value());
  EXPECT_FALSE(readIds(R"({"request_id":"r","inputs":[{"id":0},{"id":-0}]})").has_value());
}

// --- jsonRpcIdsOnly ---------------------------------------------------------------------------

/// jsonRpcIdsOnly() of a text the scan accepts with `layout`.
std::optional<Json> idsOnly(std::string_view text, std::optional<std::size_t> batch_size,
                            IdLayout layout = IdLayout::JsonRpc) {
  auto spans = findCallerIds(text, layout);
  EXPECT_TRUE(spans.has_value()) << text;
  if (!spans) {
    return std::nullopt;
  }
  return jsonRpcIdsOnly(text, *spans, batch_size);
}

TEST(JsonRpcIdsOnly, KeepsOnlyTheIdOfARequestObject) {
  EXPECT_EQ(idsOnly(kSend, std::nullopt), json(R"({"id":"call-1"})"));
  EXPECT_EQ(idsOnly(R"({"id":"a\u0062","method":"m"})", std::nullopt), json(R"({"id":"ab"})"));
  EXPECT_EQ(idsOnly(R"({"id":-2.5})", std::nullopt), json(R"({"id":-2.5})"));
  EXPECT_EQ(idsOnly(R"({"id":null})", std::nullopt), json(R"({"id":null})"));
  EXPECT_EQ(idsOnly(R"({"method":"m"})", std::nullopt), json("{}"));
}

TEST(JsonRpcIdsOnly, LeavesTheMessageIdOut) {
  EXPECT_EQ(idsOnly(kSend, std::nullopt, IdLayout::JsonRpcAndMessageId),
            json(R"({"id":"call-1"})"));
}

TEST(JsonRpcIdsOnly, KeepsEachBatchElementsIdByPosition) {
  EXPECT_EQ(idsOnly(R"([{"id":1},{"method":"m"},"x",{"id":"c"}])", 4),
            json(R"([{"id":1},{},{},{"id":"c"}])"));
  EXPECT_EQ(idsOnly("[]", 0), json("[]"));
  EXPECT_EQ(idsOnly("[1,2]", 2), json("[{},{}]"));
}

TEST(JsonRpcIdsOnly, RefusesAValueThatDoesNotParse) {
  EXPECT_FALSE(idsOnly(R"({"id":tru})", std::nullopt).has_value());
  EXPECT_FALSE(idsOnly(R"({"id":"\q"})", std::nullopt).has_value());
  EXPECT_FALSE(idsOnly(R"([{"id":1},{"id":01}])", 2).has_value());
  EXPECT_FALSE(idsOnly(R"({"id":1,"params":{"message":{"messageId":"\ud800"}}})", std::nullopt,
                       IdLayout::JsonRpcAndMessageId)
                   .has_value());
}

TEST(JsonRpcIdsOnly, RefusesAnIdBeyondTheBatchSize) {
  EXPECT_FALSE(idsOnly(R"([{"id":1},{"id":2}])", 1).has_value());
}

}  // namespace
}  // namespace agentvcr::protocol
