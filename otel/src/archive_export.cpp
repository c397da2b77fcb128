#include "agentvcr/otel/archive_export.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::otel {
namespace {

/// The feed numbers conversations by their rank in their session; `ls` shows their ids. The
/// numbers of the conversations `ids`, by session id.
std::map<std::int64_t, std::set<std::int64_t>> numbersOf(const store::ArchiveReader& archive,
                                                         const std::vector<std::int64_t>& ids) {
  std::map<std::int64_t, std::set<std::int64_t>> numbers;
  for (std::int64_t id : ids) {
    const auto conversation = archive.conversation(id);
    if (!conversation) {
      throw std::runtime_error("[otel.export] no conversation " + std::to_string(id));
    }
    const auto all = archive.conversations(conversation->session_id);
    const auto at =
        std::find_if(all.begin(), all.end(), [id](const auto& c) { return c.id == id; });
    numbers[conversation->session_id].insert(at - all.begin() + 1);
  }
  return numbers;
}

}  // namespace

ExportCounts exportArchive(const ArchiveExportOptions& options,
                           const std::function<bool(const Payload&)>& emit) {
  if (!std::filesystem::exists(options.db_path)) {
    throw std::runtime_error("[otel.export] no archive at " + options.db_path);
  }
  store::ChangeFeed feed(options.db_path);  // first: it migrates an older archive
  const store::ArchiveReader archive(options.db_path);
  for (std::int64_t id : options.sessions) {
    if (!archive.session(id)) {
      throw std::runtime_error("[otel.export] no session " + std::to_string(id));
    }
  }
  const auto conversations = numbersOf(archive, options.conversations);

  ExportCounts counts;
  std::set<std::string> traces;
  auto send = [&](const Attributes& resource, const std::vector<Span>& spans) {
    for (const Payload& payload : encodePayloads(resource, spans, options.limits)) {
      if (!emit(payload)) {
        return false;
      }
      counts.spans += payload.spans;
      ++counts.payloads;
    }
    for (const Span& span : spans) {
      traces.insert(span.trace_id);
    }
    return true;
  };
  // As the other formats select: the union of the sessions and the conversations named.
  const bool everything = options.sessions.empty() && options.conversations.empty();
  for (const store::FeedSession& session : feed.sessions()) {
    const bool named = std::find(options.sessions.begin(), options.sessions.end(), session.id) !=
                       options.sessions.end();
    SpanOptions span_options;
    span_options.content = options.content;
    if (!everything && !named) {
      const auto selected = conversations.find(session.id);
      if (selected == conversations.end()) {
        continue;
      }
      span_options.conversations = selected->second;
    }
    // A conversation's root is sent once, as its last batch left it.
    std::map<std::int64_t, Span> roots;
    Attributes resource;
    store::FeedPosition at;
    for (;;) {
      const store::FeedBatch batch =
          feed.next(session, at, store::FeedLimits{.exchanges = options.batch_exchanges});
      BatchSpans spans = buildSpans(batch, span_options);
      resource = spans.resource;
      for (ConversationRoot& root : spans.roots) {
        roots[root.number] = std::move(root.span);
      }
      if (!send(resource, spans.spans)) {
        counts.traces = traces.size();
        return counts;
      }
      at = batch.end;
      if (batch.caught_up || batch.waiting_for_index || batch.exchanges == 0) {
        break;
      }
    }
    std::vector<Span> root_spans;
    for (auto& [number, span] : roots) {
      root_spans.push_back(std::move(span));
    }
    if (!send(resource, root_spans)) {
      break;
    }
  }
  counts.traces = traces.size();
  return counts;
}

}  // namespace agentvcr::otel
