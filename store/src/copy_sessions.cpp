#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/step_links.hpp"
#include "agentvcr/store/transfer.hpp"
#include "decode.hpp"
#include "session_copy.hpp"

namespace agentvcr::store {
namespace {

/// The output archive's steps by key, read per session when first asked.
class StepFinder {
 public:
  StepFinder(std::string path, std::chrono::milliseconds busy_timeout)
      : path_(std::move(path)), busy_timeout_(busy_timeout) {}

  std::optional<std::int64_t> find(const StepKey& key) {
    const auto& steps = load(canonicalUuid(key.session_uuid));
    const auto found = steps.find({key.seq, key.position});
    return found == steps.end() ? std::nullopt : std::optional(found->second);
  }

 private:
  using Steps = std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>;

  /// The steps of the session `uuid` (in lower case) names, however the archive spells it.
  const Steps& load(const std::string& uuid) {
    auto known = sessions_.find(uuid);
    if (known != sessions_.end()) {
      return known->second;
    }
    Steps& steps = sessions_[uuid];
    const ArchiveReader reader(path_, busy_timeout_);
    for (const SessionRow& session : reader.sessions()) {
      if (canonicalUuid(session.uuid) != uuid) {
        continue;
      }
      for (const ExchangeRow& exchange : reader.exchanges(session.id, 0, ArchiveReader::kNoLimit)) {
        for (const StepRow& step : reader.stepsOfExchange(exchange.id)) {
          steps[{exchange.seq, step.position}] = step.id;
        }
      }
    }
    return steps;
  }

  std::string path_;
  std::chrono::milliseconds busy_timeout_;
  std::map<std::string, Steps> sessions_;
};

}  // namespace

protocol::Headers storedHeaders(const std::string& text) {
  return detail::headersFromJson(text);
}

CopyResult copySessions(SessionSource& source, const std::string& out_path,
                        const MergeOptions& merge) {
  const RecorderOptions& options = merge.recorder;
  detail::HeldSessions held(out_path, options.busy_timeout);
  CopyResult result;
  // With --as-new a copied session gets a new uuid: keys naming the old one follow it.
  std::map<std::string, std::string> renamed;
  for (const SessionRow& session : source.sessions()) {
    if (!merge.as_new && held.holds(session.uuid)) {
      result.already_held.push_back({session.uuid, session.name});
      continue;
    }
    if (!merge.as_new) {
      held.add(session.uuid);
    }
    Recorder recorder(out_path, detail::sessionInfoOf(session, merge.as_new), options);
    result.session_ids.push_back(recorder.sessionId());
    if (session.agent_health || session.agent_info) {
      recorder.recordAgentIdentity(session.agent_health.value_or(""),
                                   session.agent_info.value_or(""));
    }
    source.exchanges(session, [&](const ExchangeRow& row, const std::vector<std::int64_t>& times) {
      protocol::Exchange exchange = detail::exchangeFromRow(row, times);
      // Links and misses name steps by seq: the copy keeps each one, gaps included (a fleet
      // archive's session lacks what it quarantined).
      exchange.recorded_seq = row.seq;
      detail::submitWaiting(recorder, exchange);
      ++result.exchanges;
    });
    recorder.flush();
    if (merge.as_new) {
      // The Recorder created the file: only now can a reader open it.
      const ArchiveReader output(out_path, options.busy_timeout);
      renamed[session.uuid] = output.session(recorder.sessionId())->uuid;
    }
    auto inOutput = [&](StepKey key) {
      if (auto name = renamed.find(key.session_uuid); name != renamed.end()) {
        key.session_uuid = name->second;
      }
      return key;
    };
    StepFinder steps(out_path, options.busy_timeout);
    for (CopiedMiss copied : source.replayMisses(session)) {
      copied.miss.closest_step_id =
          copied.closest ? steps.find(inOutput(*copied.closest)) : std::nullopt;
      while (!recorder.tryRecordReplayMiss(copied.miss)) {
        recorder.flush();
      }
      ++result.replay_misses;
    }
    recorder.close();
    std::vector<StepLink> links;
    for (const CopiedLink& link : source.stepLinks(session)) {
      auto step = steps.find(inOutput(link.step));
      auto recorded = steps.find(inOutput(link.recorded));
      if (step && recorded) {
        links.push_back({*step, *recorded});
      }
    }
    writeStepLinks(out_path, links, options.busy_timeout);
    result.step_links += links.size();
  }
  return result;
}

}  // namespace agentvcr::store
