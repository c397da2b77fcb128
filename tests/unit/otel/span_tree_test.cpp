// The span tree of archives store::Recorder writes: one trace per conversation, the exchange,
// candidate, tool-call and internal-step spans under its root, A2A calls, content only when
// asked, and ids that depend on the recording alone.

#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "otel_test_support.hpp"
#include "store_test_support.hpp"

namespace agentvcr::otel {
namespace {

using store::testing::a2aSend;
using store::testing::a2aTask;
using store::testing::callOutput;
using store::testing::errorOutput;
using store::testing::httpExchange;
using store::testing::input;
using store::testing::magmaExchange;
using store::testing::memoryOf;
using store::testing::request;
using store::testing::sayOutput;
using store::testing::submit;
using store::testing::TempDir;
using store::testing::testOptions;
using store::testing::testSession;
using testing::allSpans;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = protocol::Json;

std::string text(const Span& span, const std::string& key) {
  const AttributeValue* v = span.attribute(key);
  return v != nullptr && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v)
                                                                 : "<none>";
}

std::int64_t integer(const Span& span, const std::string& key) {
  const AttributeValue* v = span.attribute(key);
  return v != nullptr && std::holds_alternative<std::int64_t>(*v) ? std::get<std::int64_t>(*v) : -1;
}

std::vector<const Span*> named(const std::vector<Span>& spans, const std::string& prefix) {
  std::vector<const Span*> out;
  for (const Span& s : spans) {
    if (s.name.starts_with(prefix)) {
      out.push_back(&s);
    }
  }
  return out;
}

class SpanTreeTest : public ::testing::Test {
 protected:
  /// Conversation A: a tool call, then an env step answered by a say and an error candidate.
  /// Conversation B starts in the same request as A's second step.
  static std::vector<protocol::Exchange> magmaTraffic() {
    auto first = magmaExchange(
        request("r1", {input(1, "user", "press the secret switch", memoryOf("a", 0))}),
        Json::array({callOutput("r1", 1, 0, memoryOf("a", 2), "sw1")}));
    auto second = magmaExchange(request("r2", {input(1, "env", "pressed", memoryOf("a", 2), 2),
                                               input(2, "user", "hello there", memoryOf("b", 0))}),
                                Json::array({sayOutput("r2", 1, 0, memoryOf("a", 4), "done"),
                                             errorOutput("r2", 1, 1, memoryOf("a", 3)),
                                             sayOutput("r2", 2, 0, memoryOf("b", 2), "hi")}));
    return {first, second};
  }

  void record(const std::string& path, std::vector<protocol::Exchange> exchanges) {
    store::Recorder recorder(path, testSession(), testOptions());
    for (auto& ex : exchanges) {
      submit(recorder, std::move(ex));
    }
    recorder.flush();
  }

  TempDir dir_;
  std::string path_ = dir_.file("otel.sqlite");
};

TEST_F(SpanTreeTest, OneTracePerConversationWithEverySpanUnderItsRoot) {
  record(path_, magmaTraffic());
  const std::vector<Span> spans = allSpans(path_);
  const auto conversations = store::ArchiveReader(path_).counts().conversations;
  ASSERT_EQ(conversations, 2);

  std::set<std::string> traces;
  std::map<std::string, const Span*> by_id;  // trace + span: a span id is unique in its trace
  for (const Span& s : spans) {
    traces.insert(s.trace_id);
    EXPECT_TRUE(by_id.emplace(s.trace_id + s.span_id, &s).second) << "duplicate " << s.name;
    EXPECT_EQ(s.trace_id.size(), 32u);
    EXPECT_EQ(s.span_id.size(), 16u);
  }
  EXPECT_EQ(traces.size(), static_cast<std::size_t>(conversations));
  const auto roots = named(spans, "conversation ");
  ASSERT_EQ(roots.size(), 2u);
  for (const Span& s : spans) {
    if (s.parent_span_id.empty()) {
      EXPECT_TRUE(s.name.starts_with("conversation ")) << s.name;
    } else {
      EXPECT_TRUE(by_id.contains(s.trace_id + s.parent_span_id)) << s.name << " has no parent";
    }
  }

  // The second request carries inputs of both conversations: its span is in both traces.
  const auto exchanges = named(spans, "POST /v1/responses");
  ASSERT_EQ(exchanges.size(), 3u);
  std::map<std::int64_t, std::set<std::string>> traces_of_seq;
  for (const Span* e : exchanges) {
    traces_of_seq[integer(*e, "agentvcr.exchange.seq")].insert(e->trace_id);
    EXPECT_EQ(e->kind, SpanKind::Server);
    EXPECT_EQ(text(*e, "http.request.method"), "POST");
    EXPECT_EQ(text(*e, "url.path"), "/v1/responses");
    EXPECT_EQ(integer(*e, "http.response.status_code"), 200);
    EXPECT_EQ(text(*e, "server.address"), "127.0.0.1");
    EXPECT_EQ(integer(*e, "server.port"), 8000);
    EXPECT_EQ(text(*e, "agentvcr.outcome"), "complete");
    EXPECT_FALSE(e->error);
  }
  EXPECT_EQ(traces_of_seq[0].size(), 1u);
  EXPECT_EQ(traces_of_seq[1].size(), 2u);

  EXPECT_EQ(named(spans, "invoke_agent agent").size(), 4u);  // the agent never said its name
  const auto tools = named(spans, "execute_tool ");
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0]->name, "execute_tool press_button");
  EXPECT_EQ(text(*tools[0], "gen_ai.operation.name"), "execute_tool");
  EXPECT_EQ(text(*tools[0], "gen_ai.tool.name"), "press_button");
  EXPECT_EQ(text(*tools[0], "agentvcr.tool.robot"), "panda");
  EXPECT_EQ(named(spans, "chat commander").size(), 3u);  // the error candidate has none
}

TEST_F(SpanTreeTest, CandidatesCarryTheirStepAndErrors) {
  record(path_, magmaTraffic());
  const std::vector<Span> spans = allSpans(path_);
  const Span* error = nullptr;
  for (const Span* s : named(spans, "invoke_agent ")) {
    EXPECT_EQ(text(*s, "gen_ai.operation.name"), "invoke_agent");
    EXPECT_EQ(s->kind, SpanKind::Client);
    EXPECT_NE(text(*s, "gen_ai.conversation.id"), "<none>");
    EXPECT_GE(integer(*s, "agentvcr.step.source_id"), 1);
    if (integer(*s, "agentvcr.candidate.index") == 1) {
      error = s;
    }
  }
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->error);
  EXPECT_EQ(error->status_message, "Model parser rejected its raw response");
  EXPECT_EQ(text(*error, "error.type"), "invalid_output");
  EXPECT_EQ(text(*error, "agentvcr.instruction.type"), "env");
  EXPECT_EQ(text(*error, "agentvcr.candidate.status"), "error");
}

TEST_F(SpanTreeTest, ToolCallsAndInternalStepsInheritTheirCandidatesInterval) {
  auto traffic = magmaTraffic();
  const std::int64_t sent = traffic[0].upstream_sent_ns;
  const std::int64_t ended = traffic[0].ended_ns;
  record(path_, std::move(traffic));
  const std::vector<Span> spans = allSpans(path_);
  for (const Span& s : spans) {
    if (s.name.starts_with("execute_tool ") ||
        (s.name.starts_with("chat ") && integer(s, "agentvcr.internal.position") == 0 &&
         s.start_ns == sent)) {
      EXPECT_EQ(s.start_ns, sent) << s.name;
      EXPECT_EQ(s.end_ns, ended) << s.name;
      EXPECT_EQ(text(s, "agentvcr.timing"), "inherited") << s.name;
    }
  }
  for (const Span* chat : named(spans, "chat ")) {
    EXPECT_EQ(text(*chat, "agentvcr.timing"), "inherited");
    EXPECT_EQ(text(*chat, "gen_ai.operation.name"), "chat");
    EXPECT_EQ(text(*chat, "agentvcr.internal.component"), "commander");
    EXPECT_EQ(text(*chat, "agentvcr.internal.origin"), "model");
    EXPECT_EQ(text(*chat, "agentvcr.internal.step_key"), "step-0");
  }
  for (const Span* root : named(spans, "conversation ")) {
    EXPECT_LE(root->start_ns, root->end_ns);
    EXPECT_EQ(text(*root, "agentvcr.conversation.protocol"), "magma");
  }
}

TEST_F(SpanTreeTest, ContentOnlyWhenAsked) {
  record(path_, magmaTraffic());
  auto everything = [](const std::vector<Span>& spans) {
    std::string all;
    for (const Span& s : spans) {
      all += s.name + "\n";
      for (const Attribute& a : s.attributes) {
        all +=
            a.key + "=" +
            (std::holds_alternative<std::string>(a.value) ? std::get<std::string>(a.value) : "") +
            "\n";
      }
    }
    return all;
  };
  const std::string without = everything(allSpans(path_));
  for (const char* secret : {"user: prompt", "<tool_call>", "press the secret switch",
                             "agentvcr.prompt", "agentvcr.say", "\"id\":\"sw1\""}) {
    EXPECT_THAT(without, Not(HasSubstr(secret)));
  }
  SpanOptions options;
  options.content = true;
  const std::string with = everything(allSpans(path_, options));
  EXPECT_THAT(with, HasSubstr("agentvcr.prompt=user: prompt\nassistant:"));
  EXPECT_THAT(with, HasSubstr("agentvcr.output=<tool_call>sw1</tool_call>"));
  EXPECT_THAT(with, HasSubstr("agentvcr.instruction=press the secret switch"));
  EXPECT_THAT(with, HasSubstr("conversation press the secret switch"));
  EXPECT_THAT(with, HasSubstr("gen_ai.tool.call.arguments={\"id\":\"sw1\"}"));
}

TEST_F(SpanTreeTest, IdsAreTheSameEveryTimeAndDifferPerSession) {
  record(path_, magmaTraffic());
  const std::string other = dir_.file("other.sqlite");
  record(other, magmaTraffic());
  auto ids = [](const std::vector<Span>& spans) {
    std::vector<std::string> out;
    for (const Span& s : spans) {
      out.push_back(s.trace_id + "/" + s.span_id + "/" + s.parent_span_id);
    }
    return out;
  };
  const auto first = ids(allSpans(path_));
  EXPECT_EQ(first, ids(allSpans(path_)));
  EXPECT_EQ(first, ids(allSpans(path_, {}, 1)));  // batches of one exchange: the same spans
  const auto second = ids(allSpans(other));
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_NE(first[i].substr(0, 32), second[i].substr(0, 32));
  }
  for (const std::string& id : first) {
    EXPECT_NE(id.substr(0, 32), std::string(32, '0'));
  }
}

TEST_F(SpanTreeTest, ConversationSelectionKeepsOnlyItsTraces) {
  record(path_, magmaTraffic());
  SpanOptions options;
  options.conversations = std::set<std::int64_t>{2};
  const auto spans = allSpans(path_, options);
  std::set<std::string> traces;
  for (const Span& s : spans) {
    traces.insert(s.trace_id);
  }
  EXPECT_EQ(traces.size(), 1u);
  EXPECT_EQ(named(spans, "conversation ").size(), 1u);
  EXPECT_EQ(named(spans, "invoke_agent ").size(), 1u);
}

TEST_F(SpanTreeTest, ExchangesOutsideConversationsAreTracesOfTheirOwn) {
  auto failed = httpExchange("GET", "/health?probe=1", "", 502, "");
  failed.outcome = protocol::ExchangeOutcome::UpstreamError;
  failed.error = "[proxy.upstream.refused] connection refused";
  record(path_, {httpExchange("GET", "/v1/info", "", 200, "{}"), failed});
  const auto spans = allSpans(path_);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_NE(spans[0].trace_id, spans[1].trace_id);
  EXPECT_TRUE(spans[1].parent_span_id.empty());
  EXPECT_EQ(spans[1].name, "GET /health");
  EXPECT_TRUE(spans[1].error);
  EXPECT_EQ(text(spans[1], "error.type"), "upstream_error");
  EXPECT_EQ(spans[1].status_message, "[proxy.upstream.refused] connection refused");
}

TEST_F(SpanTreeTest, A2aCallsAreSpansInTheTraceOfTheirContext) {
  record(path_,
         {httpExchange("POST", "/api/v1/a2a", a2aSend(1, "m-1", "What is grace?"), 200,
                       a2aTask(1, "t-1", "c-1", "completed", "A gift.")),
          httpExchange(
              "POST", "/api/v1/a2a", a2aSend(2, "m-2", "more", "c-1"), 200,
              R"({"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found"}})"),
          httpExchange("POST", "/api/v1/a2a", a2aSend(3, "m-3", "other"), 200,
                       a2aTask(3, "t-3", "c-2", "failed", ""))});
  const auto spans = allSpans(path_);
  const auto calls = named(spans, "message/send");
  ASSERT_EQ(calls.size(), 3u);
  const Span& first = *calls[0];
  EXPECT_EQ(text(first, "a2a.method"), "message/send");
  EXPECT_EQ(text(first, "a2a.task.id"), "t-1");
  EXPECT_EQ(text(first, "a2a.task.state"), "completed");
  EXPECT_EQ(text(first, "a2a.protocol.version"), "0.3");
  EXPECT_EQ(text(first, "a2a.rpc.id"), "1");
  EXPECT_EQ(text(first, "gen_ai.conversation.id"), "c-1");
  EXPECT_EQ(calls[1]->trace_id, first.trace_id);
  EXPECT_NE(calls[2]->trace_id, first.trace_id);
  EXPECT_TRUE(calls[1]->error);
  EXPECT_EQ(integer(*calls[1], "a2a.error.code"), -32001);
  EXPECT_EQ(text(*calls[1], "error.type"), "-32001");
  for (const Span* call : calls) {
    const auto parent = std::find_if(spans.begin(), spans.end(), [&](const Span& s) {
      return s.trace_id == call->trace_id && s.span_id == call->parent_span_id;
    });
    ASSERT_NE(parent, spans.end());
    EXPECT_EQ(parent->name, "POST /api/v1/a2a");
  }
  const auto roots = named(spans, "conversation ");
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0]->name, "conversation c-1");
  EXPECT_EQ(text(*roots[0], "agentvcr.conversation.protocol"), "a2a");
  EXPECT_THAT(text(first, "agentvcr.a2a.request_text"), "<none>");
}

TEST_F(SpanTreeTest, ResourceNamesTheService) {
  record(path_, magmaTraffic());
  store::ChangeFeed feed(path_);
  const auto session = feed.sessions().at(0);
  const BatchSpans built =
      buildSpans(feed.next(session, {}, store::FeedLimits{.exchanges = 10}), {});
  std::map<std::string, std::string> resource;
  for (const Attribute& a : built.resource) {
    resource[a.key] = std::get<std::string>(a.value);
  }
  EXPECT_EQ(resource["service.name"], "agentvcr");
  EXPECT_EQ(resource["service.version"], store::agentvcrVersion());
  EXPECT_EQ(resource["agentvcr.session.uuid"], session.uuid);
  EXPECT_EQ(resource["agentvcr.session.name"], "test-session");
  EXPECT_EQ(resource["agentvcr.session.mode"], "record");
}

}  // namespace
}  // namespace agentvcr::otel
