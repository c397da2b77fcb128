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

/// The output archive's steps and A2A calls by key, read per session when first asked. A step
/// and a call share the shape of their key (an exchange's seq, a position in its request), and
/// an exchange holds steps or calls, never both.
class RowFinder {
 public:
  RowFinder(std::string path, std::chrono::milliseconds busy_timeout)
      : path_(std::move(path)), busy_timeout_(busy_timeout) {}

  std::optional<std::int64_t> step(const StepKey& key) { return find(load(key).steps, key); }

  std::optional<std::int64_t> call(const StepKey& key) { return find(load(key).calls, key); }

 private:
  using Ids = std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>;

  struct Session {
    Ids steps;
    Ids calls;
  };

  static std::optional<std::int64_t> find(const Ids& ids, const StepKey& key) {
    const auto found = ids.find({key.seq, key.position});
    return found == ids.end() ? std::nullopt : std::optional(found->second);
  }

  /// The rows of the session the key's uuid names, however the archive spells it.
  const Session& load(const StepKey& key) {
    const std::string uuid = canonicalUuid(key.session_uuid);
    auto known = sessions_.find(uuid);
    if (known != sessions_.end()) {
      return known->second;
    }
    Session& rows = sessions_[uuid];
    const ArchiveReader reader(path_, busy_timeout_);
    for (const SessionRow& session : reader.sessions()) {
      if (canonicalUuid(session.uuid) != uuid) {
        continue;
      }
      for (const ExchangeRow& exchange : reader.exchanges(session.id, 0, ArchiveReader::kNoLimit)) {
        for (const StepRow& step : reader.stepsOfExchange(exchange.id)) {
          rows.steps[{exchange.seq, step.position}] = step.id;
        }
        for (const A2aCallRow& call : reader.a2aCallsOfExchange(exchange.id)) {
          rows.calls[{exchange.seq, call.position}] = call.id;
        }
      }
    }
    return rows;
  }

  std::string path_;
  std::chrono::milliseconds busy_timeout_;
  std::map<std::string, Session> sessions_;
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
    RowFinder rows(out_path, options.busy_timeout);
    for (CopiedMiss copied : source.replayMisses(session)) {
      copied.miss.closest_step_id =
          copied.closest ? rows.step(inOutput(*copied.closest)) : std::nullopt;
      while (!recorder.tryRecordReplayMiss(copied.miss)) {
        recorder.flush();
      }
      ++result.replay_misses;
    }
    recorder.close();
    std::vector<StepLink> step_links;
    std::vector<CallLink> call_links;
    for (const CopiedLink& link : source.links(session)) {
      if (link.kind == LinkKind::Step) {
        auto step = rows.step(inOutput(link.step));
        auto recorded = rows.step(inOutput(link.recorded));
        if (step && recorded) {
          step_links.push_back({*step, *recorded});
        }
      } else {
        auto call = rows.call(inOutput(link.step));
        auto recorded = rows.call(inOutput(link.recorded));
        if (call && recorded) {
          call_links.push_back({*call, *recorded});
        }
      }
    }
    writeStepLinks(out_path, step_links, options.busy_timeout);
    writeCallLinks(out_path, call_links, options.busy_timeout);
    result.links += step_links.size() + call_links.size();
  }
  return result;
}

}  // namespace agentvcr::store
