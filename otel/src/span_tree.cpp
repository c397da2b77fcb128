#include "agentvcr/otel/span_tree.hpp"

#include <map>
#include <tuple>

#include "agentvcr/net/url.hpp"
#include "agentvcr/otel/ids.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/identity.hpp"
#include "feed_rows.hpp"

namespace agentvcr::otel {
namespace {

using detail::FeedRows;

/// Appends attributes, leaving out the values a row does not have.
class AttributeList {
 public:
  explicit AttributeList(Attributes& out) : out_(out) {}

  AttributeList& add(std::string key, AttributeValue value) {
    out_.push_back({std::move(key), std::move(value)});
    return *this;
  }

  template <class T>
  AttributeList& add(std::string key, const std::optional<T>& value) {
    if (value) {
      add(std::move(key), AttributeValue(*value));
    }
    return *this;
  }

 private:
  Attributes& out_;
};

std::string joined(std::initializer_list<std::int64_t> positions) {
  std::string out;
  for (std::int64_t p : positions) {
    out += '/' + std::to_string(p);
  }
  return out;
}

/// The session's row: who recorded what, against which agent.
struct SessionFacts {
  std::string uuid;
  std::string agent = "agent";  ///< sessions.agent_id, or "agent" when the agent never said
  std::optional<std::string> agent_version;
  std::optional<net::Url> upstream;
  bool ended = false;
};

/// Where a span of an exchange hangs: the trace it is in and the span above the exchange's.
struct Placement {
  std::string trace_id;
  std::string root_span_id;  ///< empty: the exchange's span is the trace's root
  std::optional<std::int64_t> conversation;
  std::optional<std::string> conversation_id;
};

class TreeBuilder {
 public:
  TreeBuilder(const store::FeedBatch& batch, const SpanOptions& options)
      : options_(options),
        exchanges_(batch, "exchanges"),
        steps_(batch, "steps"),
        candidates_(batch, "candidates"),
        internal_(batch, "internal_steps"),
        calls_(batch, "a2a_calls"),
        conversations_(batch, "conversations") {
    readSession(FeedRows(batch, "sessions"), out_);
    for (std::size_t r = 0; r < conversations_.size(); ++r) {
      conversation_rows_[*conversations_.integer(r, "number")] = r;
    }
    for (std::size_t r = 0; r < candidates_.size(); ++r) {
      candidates_of_[{*candidates_.integer(r, "seq"), *candidates_.integer(r, "position")}]
          .push_back(r);
    }
    for (std::size_t r = 0; r < internal_.size(); ++r) {
      internal_of_[{*internal_.integer(r, "seq"), *internal_.integer(r, "input_position"),
                    *internal_.integer(r, "candidate_index")}]
          .push_back(r);
    }
  }

  BatchSpans build() {
    std::map<std::int64_t, std::vector<std::size_t>> steps_of;
    std::map<std::int64_t, std::vector<std::size_t>> calls_of;
    for (std::size_t r = 0; r < steps_.size(); ++r) {
      steps_of[*steps_.integer(r, "seq")].push_back(r);
    }
    for (std::size_t r = 0; r < calls_.size(); ++r) {
      calls_of[*calls_.integer(r, "seq")].push_back(r);
    }
    for (std::size_t e = 0; e < exchanges_.size(); ++e) {
      const std::int64_t seq = *exchanges_.integer(e, "seq");
      // The exchange appears in the trace of each conversation it carries inputs or calls of.
      std::map<std::optional<std::int64_t>,
               std::pair<std::vector<std::size_t>, std::vector<std::size_t>>>
          groups;
      for (std::size_t s : steps_of[seq]) {
        groups[steps_.integer(s, "conversation")].first.push_back(s);
      }
      for (std::size_t c : calls_of[seq]) {
        groups[calls_.integer(c, "conversation")].second.push_back(c);
      }
      if (groups.empty()) {
        groups[std::nullopt];
      }
      for (const auto& [conversation, rows] : groups) {
        if (!selected(conversation)) {
          continue;
        }
        const Placement place = placementOf(seq, conversation);
        const std::string exchange_span = exchangeSpan(e, place);
        for (std::size_t s : rows.first) {
          inputSpans(e, s, place, exchange_span);
        }
        for (std::size_t c : rows.second) {
          callSpan(e, c, place, exchange_span);
        }
      }
    }
    for (std::size_t r = 0; r < conversations_.size(); ++r) {
      if (selected(conversations_.integer(r, "number"))) {
        out_.roots.push_back(rootOf(r));
      }
    }
    return std::move(out_);
  }

 private:
  void readSession(const FeedRows& session, BatchSpans& out) {
    if (session.size() == 0) {
      return;
    }
    facts_.uuid = session.text(0, "uuid").value_or("");
    facts_.agent = session.text(0, "agent_id").value_or("agent");
    facts_.agent_version = session.text(0, "agent_version");
    if (auto upstream = session.text(0, "upstream")) {
      facts_.upstream = net::parseUrl(*upstream);
    }
    facts_.ended = session.integer(0, "ended_ns").has_value();
    out.session_uuid = facts_.uuid;
    out.session_ended = facts_.ended;
    AttributeList(out.resource)
        .add("service.name", std::string("agentvcr"))
        .add("service.version", std::string(store::agentvcrVersion()))
        .add("agentvcr.session.uuid", facts_.uuid)
        .add("agentvcr.session.name", session.text(0, "name"))
        .add("agentvcr.session.mode", session.text(0, "mode"))
        .add("agentvcr.session.node", session.text(0, "node"));
  }

  bool selected(const std::optional<std::int64_t>& conversation) const {
    if (!options_.conversations) {
      return true;
    }
    return conversation && options_.conversations->contains(*conversation);
  }

  std::optional<std::string> contextOf(std::int64_t conversation) const {
    const auto row = conversation_rows_.find(conversation);
    return row == conversation_rows_.end() ? std::nullopt
                                           : conversations_.text(row->second, "context_id");
  }

  Placement placementOf(std::int64_t seq, const std::optional<std::int64_t>& conversation) const {
    if (!conversation) {
      return {exchangeTraceId(facts_.uuid, seq), {}, std::nullopt, std::nullopt};
    }
    const std::string trace = conversationTraceId(facts_.uuid, *conversation);
    return {trace, spanId(trace, "conversation"), conversation,
            conversationId(facts_.uuid, *conversation, contextOf(*conversation))};
  }

  /// The agent's share of the exchange: from the request reaching it to the answer's end.
  std::pair<std::int64_t, std::int64_t> agentInterval(std::size_t e) const {
    const std::int64_t started = *exchanges_.integer(e, "started_ns");
    const std::int64_t ended = exchanges_.integer(e, "ended_ns").value_or(started);
    return {exchanges_.integer(e, "upstream_sent_ns").value_or(started), ended};
  }

  Span& add(const Placement& place, std::string path, std::string parent, std::string name,
            SpanKind kind, std::pair<std::int64_t, std::int64_t> interval) {
    Span& span = out_.spans.emplace_back();
    span.trace_id = place.trace_id;
    span.span_id = spanId(place.trace_id, path);
    span.parent_span_id = std::move(parent);
    span.name = std::move(name);
    span.kind = kind;
    span.start_ns = interval.first;
    span.end_ns = interval.second;
    return span;
  }

  std::string exchangeSpan(std::size_t e, const Placement& place) {
    const std::int64_t seq = *exchanges_.integer(e, "seq");
    const std::string method = exchanges_.text(e, "method").value_or("");
    // Without the query string, which may carry private data.
    const std::string path(protocol::pathOfTarget(exchanges_.text(e, "target").value_or("")));
    const std::int64_t started = *exchanges_.integer(e, "started_ns");
    Span& span =
        add(place, "exchange" + joined({seq}), place.root_span_id, method + " " + path,
            SpanKind::Server, {started, exchanges_.integer(e, "ended_ns").value_or(started)});
    AttributeList attributes(span.attributes);
    attributes.add("http.request.method", method).add("url.path", path);
    const std::int64_t status = exchanges_.integer(e, "status").value_or(0);
    if (status > 0) {
      attributes.add("http.response.status_code", status);
    }
    if (facts_.upstream) {
      attributes.add("server.address", facts_.upstream->host)
          .add("server.port", static_cast<std::int64_t>(facts_.upstream->port));
    }
    const std::string outcome = exchanges_.text(e, "outcome").value_or("complete");
    // Server spans follow HTTP's conventions: a 4xx is the caller's error, not the exchange's.
    if (outcome != "complete" || status >= 500) {
      span.error = true;
      span.status_message = exchanges_.text(e, "error").value_or("");
      attributes.add("error.type", outcome != "complete" ? outcome : std::to_string(status));
    }
    attributes.add("agentvcr.exchange.seq", seq)
        .add("agentvcr.outcome", outcome)
        .add("agentvcr.fault", exchanges_.text(e, "fault"))
        .add("agentvcr.protocol", exchanges_.text(e, "protocol"))
        .add("agentvcr.route", exchanges_.text(e, "route"));
    if (place.conversation_id) {
      attributes.add("gen_ai.conversation.id", *place.conversation_id);
    }
    return span.span_id;
  }

  void inputSpans(std::size_t e, std::size_t s, const Placement& place,
                  const std::string& exchange_span) {
    const std::int64_t seq = *steps_.integer(s, "seq");
    const std::int64_t position = *steps_.integer(s, "position");
    const auto candidates = candidates_of_.find({seq, position});
    if (candidates == candidates_of_.end()) {
      // A request whose answer did not validate: the input was asked, nothing was answered.
      Span& span = agentSpan(e, s, place, exchange_span, "input" + joined({seq, position}));
      span.error = true;
      span.status_message = "no valid answer recorded";
      AttributeList(span.attributes).add("error.type", std::string("invalid_response"));
      return;
    }
    for (std::size_t c : candidates->second) {
      const std::int64_t k = *candidates_.integer(c, "candidate_index");
      Span& span = agentSpan(e, s, place, exchange_span, "candidate" + joined({seq, position, k}));
      const std::string span_id = span.span_id;
      AttributeList attributes(span.attributes);
      attributes.add("agentvcr.candidate.index", k)
          .add("agentvcr.candidate.status", candidates_.text(c, "status"))
          .add("agentvcr.decision.kind", candidates_.text(c, "decision_kind"));
      if (candidates_.text(c, "status") == "error") {
        span.error = true;
        span.status_message = candidates_.text(c, "error_message").value_or("");
        attributes.add("error.type", candidates_.text(c, "error_code").value_or("error"))
            .add("agentvcr.error.component", candidates_.text(c, "error_component"));
      }
      if (options_.content) {
        attributes.add("agentvcr.say", candidates_.text(c, "say"));
      }
      // `span` may move from here on: more spans are appended.
      toolSpans(e, c, place, span_id, {seq, position, k});
      chatSpans(e, place, span_id, {seq, position, k});
    }
  }

  Span& agentSpan(std::size_t e, std::size_t s, const Placement& place,
                  const std::string& exchange_span, std::string path) {
    Span& span = add(place, std::move(path), exchange_span, "invoke_agent " + facts_.agent,
                     SpanKind::Client, agentInterval(e));
    AttributeList attributes(span.attributes);
    attributes.add("gen_ai.operation.name", std::string("invoke_agent"))
        .add("gen_ai.agent.name", facts_.agent)
        .add("gen_ai.agent.version", facts_.agent_version)
        .add("gen_ai.conversation.id", place.conversation_id)
        .add("agentvcr.step.position", steps_.integer(s, "position"))
        .add("agentvcr.step.source_id", steps_.integer(s, "source_id"))
        .add("agentvcr.step.depth", steps_.integer(s, "depth"))
        .add("agentvcr.instruction.type", steps_.text(s, "instruction_type"));
    if (options_.content) {
      attributes.add("agentvcr.instruction", steps_.text(s, "instruction_content"));
    }
    return span;
  }

  void toolSpans(std::size_t e, std::size_t c, const Placement& place, const std::string& parent,
                 std::tuple<std::int64_t, std::int64_t, std::int64_t> key) {
    const auto text = candidates_.text(c, "tool_calls");
    const auto calls = text ? protocol::parseJson(*text).value : std::nullopt;
    if (!calls || !calls->is_array()) {
      return;
    }
    const auto [seq, position, k] = key;
    std::int64_t index = 0;
    for (const protocol::Json& call : *calls) {
      const std::string name = call.value("name", "");
      Span& span = add(place, "tool" + joined({seq, position, k, index}), parent,
                       "execute_tool " + name, SpanKind::Internal, agentInterval(e));
      AttributeList attributes(span.attributes);
      attributes.add("gen_ai.operation.name", std::string("execute_tool"))
          .add("gen_ai.tool.name", name)
          .add("agentvcr.tool.index", index)
          .add("agentvcr.timing", std::string("inherited"));
      if (call.contains("id") && call["id"].is_string()) {
        attributes.add("gen_ai.tool.call.id", call["id"].get<std::string>());
      }
      if (call.contains("target_robot_name") && call["target_robot_name"].is_string()) {
        attributes.add("agentvcr.tool.robot", call["target_robot_name"].get<std::string>());
      }
      if (options_.content && call.contains("arguments")) {
        attributes.add("gen_ai.tool.call.arguments", call["arguments"].dump());
      }
      ++index;
    }
  }

  void chatSpans(std::size_t e, const Placement& place, const std::string& parent,
                 std::tuple<std::int64_t, std::int64_t, std::int64_t> key) {
    const auto rows = internal_of_.find(key);
    if (rows == internal_of_.end()) {
      return;
    }
    const auto [seq, position, k] = key;
    for (std::size_t i : rows->second) {
      const std::int64_t index = *internal_.integer(i, "position");
      const auto component = internal_.text(i, "component");
      const auto step_key = internal_.text(i, "step_key");
      Span& span = add(place, "internal" + joined({seq, position, k, index}), parent,
                       "chat " + component.value_or(step_key.value_or("step")), SpanKind::Internal,
                       agentInterval(e));
      AttributeList attributes(span.attributes);
      attributes.add("gen_ai.operation.name", std::string("chat"))
          .add("agentvcr.internal.position", index)
          .add("agentvcr.internal.step_key", step_key)
          .add("agentvcr.internal.component", component)
          .add("agentvcr.internal.origin", internal_.text(i, "origin"))
          .add("agentvcr.timing", std::string("inherited"));
      if (options_.content) {
        attributes.add("agentvcr.prompt", internal_.text(i, "full_prompt"))
            .add("agentvcr.output", internal_.text(i, "output_raw"));
      }
    }
  }

  void callSpan(std::size_t e, std::size_t c, const Placement& place,
                const std::string& exchange_span) {
    const std::int64_t seq = *calls_.integer(c, "seq");
    const std::int64_t position = *calls_.integer(c, "position");
    const auto method = calls_.text(c, "method");
    const std::int64_t started = *exchanges_.integer(e, "started_ns");
    Span& span =
        add(place, "a2a" + joined({seq, position}), exchange_span, method.value_or("a2a call"),
            SpanKind::Client, {started, exchanges_.integer(e, "ended_ns").value_or(started)});
    AttributeList attributes(span.attributes);
    attributes.add("a2a.method", method)
        .add("a2a.protocol.version", calls_.text(c, "wire_version"))
        .add("a2a.rpc.id", calls_.text(c, "rpc_id"))
        .add("a2a.task.id", calls_.text(c, "task_id"))
        .add("a2a.task.state", calls_.text(c, "task_state_norm"))
        .add("a2a.skill.id", calls_.text(c, "skill_id"))
        .add("a2a.message.id", calls_.text(c, "message_id"))
        .add("gen_ai.conversation.id", calls_.text(c, "context_id"))
        .add("agentvcr.a2a.position", position);
    if (const auto code = calls_.integer(c, "error_code")) {
      span.error = true;
      span.status_message = calls_.text(c, "error_message").value_or("");
      attributes.add("a2a.error.code", *code).add("error.type", std::to_string(*code));
    }
    if (options_.content) {
      attributes.add("agentvcr.a2a.request_text", calls_.text(c, "request_text"))
          .add("agentvcr.a2a.response_text", calls_.text(c, "response_text"));
    }
  }

  ConversationRoot rootOf(std::size_t r) const {
    const std::int64_t number = *conversations_.integer(r, "number");
    const auto context = conversations_.text(r, "context_id");
    const std::string id = conversationId(facts_.uuid, number, context);
    const auto title = conversations_.text(r, "title");
    ConversationRoot root;
    root.number = number;
    root.last_ns = conversations_.integer(r, "last_ns").value_or(0);
    Span& span = root.span;
    span.trace_id = conversationTraceId(facts_.uuid, number);
    span.span_id = spanId(span.trace_id, "conversation");
    span.name = "conversation " + (options_.content && title ? *title : id);
    span.kind = SpanKind::Internal;
    span.start_ns = conversations_.integer(r, "first_ns").value_or(root.last_ns);
    span.end_ns = root.last_ns;
    AttributeList attributes(span.attributes);
    attributes.add("gen_ai.conversation.id", id)
        .add("gen_ai.agent.name", facts_.agent)
        .add("agentvcr.conversation.number", number)
        .add("agentvcr.conversation.protocol", conversations_.text(r, "protocol"))
        .add("agentvcr.conversation.steps", conversations_.integer(r, "step_count"))
        .add("agentvcr.conversation.candidates", conversations_.integer(r, "candidate_count"))
        .add("agentvcr.conversation.error_candidates",
             conversations_.integer(r, "error_candidates"))
        .add("agentvcr.conversation.max_depth", conversations_.integer(r, "max_depth"))
        .add("agentvcr.conversation.ended_in", conversations_.text(r, "ended_in"));
    if (options_.content) {
      attributes.add("agentvcr.conversation.title", title);
    }
    return root;
  }

  const SpanOptions& options_;
  FeedRows exchanges_, steps_, candidates_, internal_, calls_, conversations_;
  SessionFacts facts_;
  std::map<std::int64_t, std::size_t> conversation_rows_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> candidates_of_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<std::size_t>>
      internal_of_;
  BatchSpans out_;
};

}  // namespace

std::string conversationId(const std::string& session_uuid, std::int64_t number,
                           const std::optional<std::string>& context_id) {
  return context_id ? *context_id : session_uuid + "/" + std::to_string(number);
}

BatchSpans buildSpans(const store::FeedBatch& batch, const SpanOptions& options) {
  return TreeBuilder(batch, options).build();
}

}  // namespace agentvcr::otel
