#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agentvcr/otel/span.hpp"
#include "agentvcr/store/change_feed.hpp"

/// A recording as traces (docs/observability.md, "OpenTelemetry traces"): one trace per
/// conversation, MAGMA or A2A, with a span per exchange, per input and candidate, per tool call,
/// per internal step and per A2A call. Built from change feed batches, without I/O.
namespace agentvcr::otel {

struct SpanOptions {
  /// Prompts, raw outputs, instructions, say texts, tool arguments, A2A texts and conversation
  /// titles go in as attributes only when asked: they may hold private data.
  bool content = false;
  /// Only the traces of these conversations (numbers, as the feed gives them); every trace when
  /// absent, those of exchanges outside any conversation included.
  std::optional<std::set<std::int64_t>> conversations;
};

/// A conversation's root span as the batch's `conversations` row gives it now: the row changes
/// as the conversation goes on, so a live exporter sends it once the conversation is idle.
struct ConversationRoot {
  std::int64_t number = 0;
  std::int64_t last_ns = 0;  ///< when its latest exchange ended
  Span span;
};

/// What one feed batch gives.
struct BatchSpans {
  std::string session_uuid;
  bool session_ended = false;
  Attributes resource;                  ///< the session's: service.name, agentvcr.session.*
  std::vector<Span> spans;              ///< everything but the conversations' root spans
  std::vector<ConversationRoot> roots;  ///< the conversations the batch touched
};

/// The spans of `batch`. Ids derive from the session's uuid and the rows' positions (ids.hpp).
BatchSpans buildSpans(const store::FeedBatch& batch, const SpanOptions& options);

/// The gen_ai.conversation.id of a conversation: an A2A conversation's contextId, else
/// "{session uuid}/{number}" (MAGMA has no conversation id on the wire).
std::string conversationId(const std::string& session_uuid, std::int64_t number,
                           const std::optional<std::string>& context_id);

}  // namespace agentvcr::otel
