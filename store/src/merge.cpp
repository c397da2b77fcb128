#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/step_links.hpp"
#include "agentvcr/store/transfer.hpp"
#include "session_copy.hpp"

namespace agentvcr::store {
namespace {

constexpr std::size_t kPage = 256;

/// Copies the exchanges of `session` in seq order; returns their ids in the input, in order.
std::vector<std::int64_t> copyExchanges(const ArchiveReader& input, std::int64_t session,
                                        Recorder& recorder) {
  std::vector<std::int64_t> ids;
  for (std::int64_t offset = 0;; offset += static_cast<std::int64_t>(kPage)) {
    // The page has no bodies: each exchange is read whole, one at a time, to bound memory.
    const std::vector<ExchangeRow> page = input.exchanges(session, offset, kPage);
    for (const ExchangeRow& listed : page) {
      std::optional<ExchangeRow> row = input.exchange(listed.id);
      if (!row) {
        continue;
      }
      std::vector<std::int64_t> times;
      for (const StreamEventRow& event : input.streamEvents(row->id)) {
        times.push_back(event.at_ns);
      }
      protocol::Exchange exchange = detail::exchangeFromRow(*row, times);
      detail::submitWaiting(recorder, exchange);
      ids.push_back(row->id);
    }
    if (page.size() < kPage) {
      break;
    }
  }
  return ids;
}

/// Input exchange id -> output exchange id, pairing both sessions' exchanges by seq (the
/// recorder writes them in submission order).
void mapExchanges(const ArchiveReader& output, std::int64_t new_session,
                  const std::vector<std::int64_t>& old_ids,
                  std::map<std::int64_t, std::int64_t>& exchange_map) {
  const std::vector<ExchangeRow> copied = output.exchanges(new_session, 0, ArchiveReader::kNoLimit);
  for (std::size_t i = 0; i < copied.size() && i < old_ids.size(); ++i) {
    exchange_map[old_ids[i]] = copied[i].id;
  }
}

/// The copy of input step `old_step`: same position in the copy of its exchange.
std::optional<std::int64_t> copiedStep(const ArchiveReader& input, const ArchiveReader& output,
                                       const std::map<std::int64_t, std::int64_t>& exchange_map,
                                       std::int64_t old_step) {
  const std::optional<StepRow> step = input.step(old_step);
  if (!step) {
    return std::nullopt;
  }
  const auto copied = exchange_map.find(step->exchange_id);
  if (copied == exchange_map.end()) {
    return std::nullopt;
  }
  for (const StepRow& candidate : output.stepsOfExchange(copied->second)) {
    if (candidate.position == step->position) {
      return candidate.id;
    }
  }
  return std::nullopt;
}

}  // namespace

CopyResult mergeArchive(const std::string& out_path, const std::string& in_path,
                        const MergeOptions& merge) {
  const RecorderOptions& options = merge.recorder;
  const ArchiveReader input(in_path, options.busy_timeout);
  detail::HeldSessions held(out_path, options.busy_timeout);
  CopyResult result;
  std::map<std::int64_t, std::int64_t> exchange_map;
  for (const SessionRow& session : input.sessions()) {
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
    const std::vector<std::int64_t> old_ids = copyExchanges(input, session.id, recorder);
    result.exchanges += old_ids.size();
    recorder.flush();
    // The Recorder created the file: only now can a reader open it.
    const ArchiveReader output(out_path, options.busy_timeout);
    mapExchanges(output, recorder.sessionId(), old_ids, exchange_map);
    std::vector<StepLink> links;
    for (const StepLink& link : input.stepLinksOfSession(session.id)) {
      auto step = copiedStep(input, output, exchange_map, link.step_id);
      auto recorded = copiedStep(input, output, exchange_map, link.recorded_step_id);
      if (step && recorded) {
        links.push_back({*step, *recorded});
      }
    }
    for (ReplayMissRow miss : input.replayMisses(session.id)) {
      if (miss.closest_step_id) {
        miss.closest_step_id = copiedStep(input, output, exchange_map, *miss.closest_step_id);
      }
      while (!recorder.tryRecordReplayMiss(miss)) {
        recorder.flush();
      }
      ++result.replay_misses;
    }
    recorder.close();
    writeStepLinks(out_path, links, options.busy_timeout);
    result.step_links += links.size();
  }
  return result;
}

}  // namespace agentvcr::store
