#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/step_links.hpp"
#include "agentvcr/store/transfer.hpp"

namespace agentvcr::store {
namespace {

constexpr std::size_t kPage = 256;

/// The sessions of an archive file, for copySessions().
class ArchiveSource : public SessionSource {
 public:
  ArchiveSource(const std::string& path, std::chrono::milliseconds busy_timeout)
      : input_(path, busy_timeout) {}

  std::vector<SessionRow> sessions() override { return input_.sessions(); }

  void exchanges(const SessionRow& session,
                 const std::function<void(const ExchangeRow&, const std::vector<std::int64_t>&)>&
                     each) override {
    for (std::int64_t offset = 0;; offset += static_cast<std::int64_t>(kPage)) {
      // The page has no bodies: each exchange is read whole, one at a time, to bound memory.
      const std::vector<ExchangeRow> page = input_.exchanges(session.id, offset, kPage);
      for (const ExchangeRow& listed : page) {
        if (std::optional<ExchangeRow> row = input_.exchange(listed.id)) {
          std::vector<std::int64_t> times;
          for (const StreamEventRow& event : input_.streamEvents(row->id)) {
            times.push_back(event.at_ns);
          }
          each(*row, times);
        }
      }
      if (page.size() < kPage) {
        break;
      }
    }
  }

  std::vector<CopiedLink> links(const SessionRow& session) override {
    std::vector<CopiedLink> links;
    for (const StepLink& link : input_.stepLinksOfSession(session.id)) {
      auto step = keyOf(link.step_id);
      auto recorded = keyOf(link.recorded_step_id);
      if (step && recorded) {
        links.push_back({*step, *recorded, LinkKind::Step});
      }
    }
    for (const CallLink& link : input_.callLinksOfSession(session.id)) {
      auto call = keyOfCall(link.call_id);
      auto recorded = keyOfCall(link.recorded_call_id);
      if (call && recorded) {
        links.push_back({*call, *recorded, LinkKind::Call});
      }
    }
    return links;
  }

  std::vector<CopiedMiss> replayMisses(const SessionRow& session) override {
    std::vector<CopiedMiss> misses;
    for (const ReplayMissRow& miss : input_.replayMisses(session.id)) {
      misses.push_back({miss, miss.closest_step_id ? keyOf(*miss.closest_step_id) : std::nullopt});
    }
    return misses;
  }

 private:
  std::optional<StepKey> keyOf(std::int64_t step_id) {
    const std::optional<StepRow> step = input_.step(step_id);
    if (!step) {
      return std::nullopt;
    }
    return keyAt(step->session_id, step->exchange_id, step->position);
  }

  std::optional<StepKey> keyOfCall(std::int64_t call_id) {
    const std::optional<A2aCallRow> call = input_.a2aCall(call_id);
    if (!call) {
      return std::nullopt;
    }
    return keyAt(call->session_id, call->exchange_id, call->position);
  }

  /// The key of the row at `position` of exchange `exchange_id` of session `session_id`.
  std::optional<StepKey> keyAt(std::int64_t session_id, std::int64_t exchange_id,
                               std::int64_t position) {
    const std::optional<ExchangeRow> exchange = input_.exchange(exchange_id);
    if (!exchange) {
      return std::nullopt;
    }
    auto uuid = uuids_.find(session_id);
    if (uuid == uuids_.end()) {
      const std::optional<SessionRow> owner = input_.session(session_id);
      uuid = uuids_.emplace(session_id, owner ? owner->uuid : std::string()).first;
    }
    return StepKey{uuid->second, exchange->seq, position};
  }

  ArchiveReader input_;
  std::map<std::int64_t, std::string> uuids_;  // session id -> uuid
};

}  // namespace

CopyResult mergeArchive(const std::string& out_path, const std::string& in_path,
                        const MergeOptions& merge) {
  ArchiveSource source(in_path, merge.recorder.busy_timeout);
  return copySessions(source, out_path, merge);
}

}  // namespace agentvcr::store
