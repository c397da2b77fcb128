#pragma once

// Reading an archive's spans the way the exporters do: every session through the change feed.

#include <string>
#include <vector>

#include "agentvcr/otel/span_tree.hpp"
#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::otel::testing {

/// Every span of every session of the archive at `path`, conversation roots last.
inline std::vector<Span> allSpans(const std::string& path, const SpanOptions& options = {},
                                  std::size_t batch_exchanges = 500) {
  store::ChangeFeed feed(path);
  std::vector<Span> spans;
  std::vector<Span> roots;
  for (const store::FeedSession& session : feed.sessions()) {
    store::FeedPosition at;
    for (;;) {
      const store::FeedBatch batch =
          feed.next(session, at, store::FeedLimits{.exchanges = batch_exchanges});
      BatchSpans built = buildSpans(batch, options);
      spans.insert(spans.end(), built.spans.begin(), built.spans.end());
      for (ConversationRoot& root : built.roots) {
        std::erase_if(roots, [&](const Span& s) { return s.span_id == root.span.span_id; });
        roots.push_back(std::move(root.span));
      }
      at = batch.end;
      if (batch.caught_up || batch.exchanges == 0) {
        break;
      }
    }
  }
  spans.insert(spans.end(), roots.begin(), roots.end());
  return spans;
}

}  // namespace agentvcr::otel::testing
