#include "responses_replayer.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "agentvcr/protocol/caller_ids.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/fastapi_errors.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/replay/noise.hpp"
#include "replies.hpp"

namespace agentvcr::replay::detail {

using protocol::Json;
using protocol::OrderedJson;
namespace magma = protocol::magma;

/// What one live input gets: its recorded step, then the outputs it will answer with: recorded
/// ones (from `answer`, or a forwarded live answer) or, for a miss, error candidates.
struct ResponsesReplayer::Slot {
  std::uint64_t key = 0;
  std::optional<RecordedStep> step;
  std::shared_ptr<const RecordedAnswer> answer;  ///< where `recorded` points into
  std::vector<const StampedOutput*> recorded;
  std::vector<OrderedJson> made;  ///< error candidates, already stamped
  bool missed = false;
  /// Recorded at depth --fork-at or deeper: asked of the live agent although it hit.
  bool forked = false;
  std::string shortfall;  ///< why a matched step still cannot answer
};

/// What replay matches and stamps of a request: its ids, and each input's key and candidate
/// count. Made by parsing the request, or from the memo and the ids found in its bytes.
struct ResponsesReplayer::KeyedRequest {
  std::string request_id;
  std::vector<std::int64_t> input_ids;
  std::vector<MemoInput> inputs;
};

namespace {

struct LoadedStep {
  std::uint64_t key = 0;
  RecordedStep step;
  InputFeatures features;
  std::string scope;  ///< the scope it was recorded in, empty for none
};

/// An error candidate in the reference agents' field order, keeping the input memory as the
/// contract asks of error candidates (magma-protocol.md §8).
OrderedJson missCandidate(const std::string& request_id, const magma::AgentInput& input,
                          std::int64_t candidate_index, const std::string& message) {
  OrderedJson error;
  error["code"] = "replay_miss";
  error["message"] = message;
  error["component"] = "agentvcr-replay";
  OrderedJson output;
  output["request_id"] = request_id;
  output["source_id"] = input.id;
  output["candidate_index"] = candidate_index;
  output["status"] = "error";
  output["memory"] = input.memory;
  output["internal_steps"] = OrderedJson::array();
  output["output"] = nullptr;
  output["error"] = std::move(error);
  return output;
}

std::optional<protocol::HttpReply> invalidRequest(const std::string& body,
                                                  std::optional<magma::AgentRequest>& request) {
  if (body.empty()) {
    return jsonReply(422, protocol::missingBodyErrorBody());
  }
  auto parsed = protocol::parseJson(body);
  if (!parsed.value) {
    return jsonReply(422, protocol::jsonDecodeErrorBody(parsed.error));
  }
  auto validated = magma::parseAgentRequest(*parsed.value);
  if (!validated.ok()) {
    return jsonReply(422, protocol::validationErrorBody(validated.findings));
  }
  request = std::move(validated.value);
  return std::nullopt;
}

}  // namespace

ResponsesReplayer::ResponsesReplayer(ReaderPool& readers, const ReplayOptions& options)
    : readers_(readers), options_(options), answers_(readers) {
  std::vector<LoadedStep> loaded;
  readers_.with([&](const store::ArchiveReader& reader) {
    reader.forEachReplayStep(options_.selection, [&](const store::ReplayStepRef& ref) {
      if (ref.exchange_status != 0) {  // 0: the caller never got an answer to replay
        loaded.push_back(
            LoadedStep{ref.replay_key, recordedStepOf(ref), featuresOf(ref), ref.scope});
      }
    });
    if (!options_.key_rules.ignoresNothing()) {
      // The stored key covers the whole input: key each recorded input again without the
      // ignored parts.
      for (LoadedStep& entry : loaded) {
        if (auto input = reader.inputJson(entry.step.step_id)) {
          entry.key = options_.key_rules.keyOf(*input);
        }
      }
    }
  });
  for (const LoadedStep& entry : loaded) {
    index_.add(entry.key, entry.step, entry.features, entry.scope);
  }
  if (options_.memo_bytes > 0) {
    memo_ = std::make_unique<Memo>(options_.memo_bytes);
  }
}

std::optional<MemoStats> ResponsesReplayer::memoStats() const {
  if (!memo_) {
    return std::nullopt;
  }
  return memo_->stats();
}

std::optional<ResponsesReplayer::KeyedRequest> ResponsesReplayer::remembered(std::string_view body,
                                                                             std::string& masked) {
  auto spans = protocol::findCallerIds(body, protocol::IdLayout::MagmaRequest);
  if (!spans) {
    return std::nullopt;
  }
  masked = protocol::maskIds(body, *spans);
  auto inputs = memo_->find(masked);
  if (!inputs) {
    return std::nullopt;
  }
  // The masked bytes are those of a request that passed validation: only the live ids can
  // still fail it.
  auto ids = protocol::readMagmaCallerIds(body, *spans);
  if (!ids || ids->input_ids.size() != (*inputs)->size()) {
    return std::nullopt;
  }
  KeyedRequest keyed{std::move(ids->request_id), std::move(ids->input_ids), {}};
  keyed.inputs = **inputs;
  return keyed;
}

ReplayOutcome ResponsesReplayer::respond(const protocol::HttpRequest& request,
                                         const Forwarder* forward, std::string_view scope) {
  ReplayOutcome outcome;
  std::string masked;  // the memo's key for this request, once the scan found its ids
  std::optional<KeyedRequest> keyed;
  if (memo_) {
    keyed = remembered(request.body, masked);
  }
  std::optional<magma::AgentRequest> parsed;
  if (!keyed) {
    if (auto invalid = invalidRequest(request.body, parsed)) {
      outcome.reply = std::move(*invalid);
      return outcome;
    }
    keyed.emplace();
    keyed->request_id = parsed->request_id;
    for (const magma::AgentInput& input : parsed->inputs) {
      keyed->input_ids.push_back(input.id);
      keyed->inputs.push_back(MemoInput{options_.key_rules.keyOf(input), input.num_outputs});
    }
    if (!masked.empty()) {
      memo_->insert(std::move(masked),
                    std::make_shared<const std::vector<MemoInput>>(keyed->inputs),
                    keyed->inputs.size() * sizeof(MemoInput));
    }
  }
  const std::string& request_id = keyed->request_id;
  std::vector<Slot> slots(keyed->inputs.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    slots[i].key = keyed->inputs[i].key;
  }
  {
    // One lock for the whole request: its inputs take their recorded steps together, so the
    // same sequence of requests always meets the same cursors.
    std::lock_guard<std::mutex> lock(index_mutex_);
    for (Slot& slot : slots) {
      slot.step = index_.take(slot.key, scope);
    }
  }

  for (std::size_t i = 0; i < slots.size(); ++i) {
    Slot& slot = slots[i];
    if (!slot.step) {
      slot.missed = true;
      continue;
    }
    if (options_.on_miss == MissPolicy::Forward && forward != nullptr && options_.fork_at &&
        slot.step->depth >= *options_.fork_at) {
      slot.forked = true;
      ++outcome.forked;
      continue;
    }
    ++outcome.hits;
    if (!slot.step->answered) {
      continue;
    }
    slot.answer = answers_.of(slot.step->exchange_id);
    if (slot.answer) {
      slot.recorded = slot.answer->outputsOf(slot.step->source_id);
    }
    const auto wanted = static_cast<std::size_t>(keyed->inputs[i].num_outputs);
    if (slot.recorded.size() < wanted) {
      --outcome.hits;
      slot.missed = true;
      slot.shortfall = "input: step " + std::to_string(slot.step->step_id) + " was answered with " +
                       std::to_string(slot.recorded.size()) + " candidates and " +
                       std::to_string(wanted) + " are asked for";
      slot.answer = nullptr;
      slot.recorded.clear();
      continue;
    }
    slot.recorded.resize(wanted);
  }
  // A reply made of several recorded exchanges' answers comes when the slowest of them came.
  std::int64_t think_ns = 0;
  for (const Slot& slot : slots) {
    if (slot.step && !slot.missed && !slot.forked) {
      think_ns = std::max(think_ns, slot.step->think_ns);
    }
  }
  const auto hold = paced(std::chrono::nanoseconds(think_ns), options_.answer_pace);

  bool any_miss = false;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].missed) {
      if (!parsed) {
        // A remembered request that misses: the miss report and policy need it whole. It
        // parses (the memo holds only requests that did).
        invalidRequest(request.body, parsed);
      }
      any_miss = true;
      outcome.misses.push_back(
          reportMiss(parsed->inputs[i], i, request_id,
                     slots[i].shortfall.empty() ? "input" : slots[i].shortfall));
    }
  }
  // A recorded failure (an HTTP error, an answer that broke the contract) is replayed as it
  // was, for the whole request: that is what the caller saw.
  for (const Slot& slot : slots) {
    if (slot.step && !slot.forked && !slot.step->answered) {
      auto recorded = readers_.with([&](const store::ArchiveReader& reader) {
        return reader.recordedResponse(slot.step->exchange_id);
      });
      if (recorded) {
        outcome.reply = recordedReply(*recorded);
        outcome.reply.hold = hold;
        return outcome;
      }
    }
  }

  if (any_miss || outcome.forked > 0) {
    if (!parsed) {
      invalidRequest(request.body, parsed);  // a remembered request that forks: as for a miss
    }
    if (auto whole = answerMisses(request, *parsed, slots, outcome, forward)) {
      outcome.reply = std::move(*whole);
      return outcome;
    }
  }

  // Written the way the recorded agent wrote it: its spacing and escaping, its headers.
  protocol::PythonJsonStyle style;
  protocol::Headers headers;
  for (const Slot& slot : slots) {
    if (slot.answer) {
      style = slot.answer->style;
      headers = replayableHeaders(slot.answer->headers, /*body_rewritten=*/true);
      break;
    }
  }
  outcome.reply = jsonReply(200, writeOutputs(slots, *keyed, style));
  outcome.reply.headers = std::move(headers);
  outcome.reply.hold = hold;
  return outcome;
}

std::string ResponsesReplayer::writeOutputs(const std::vector<Slot>& slots,
                                            const KeyedRequest& keyed,
                                            protocol::PythonJsonStyle style) {
  const std::string& request_id = keyed.request_id;
  const std::string request_id_json = protocol::pythonJsonDumps(OrderedJson(request_id), style);
  const std::string_view separator = style.spaced ? ", " : ",";
  std::string body = "[";
  auto separate = [&] {
    if (body.size() > 1) {
      body += separator;
    }
  };
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Slot& slot = slots[i];
    for (const StampedOutput* output : slot.recorded) {
      separate();
      if (slot.answer->style == style) {
        output->appendTo(body, request_id_json, keyed.input_ids[i]);
      } else {
        // Another recorded exchange, written in another style: write it in this one.
        std::string own;
        output->appendTo(own,
                         protocol::pythonJsonDumps(OrderedJson(request_id), slot.answer->style),
                         keyed.input_ids[i]);
        body += protocol::pythonJsonDumps(*protocol::parseOrderedJson(own), style);
      }
    }
    for (const OrderedJson& output : slot.made) {
      separate();
      body += protocol::pythonJsonDumps(output, style);
    }
  }
  body += ']';
  return body;
}

MissReport ResponsesReplayer::reportMiss(const magma::AgentInput& input, std::size_t position,
                                         const std::string& request_id, std::string_view what) {
  MissReport report;
  report.route = "responses";
  report.request_id = request_id;
  report.position = static_cast<std::int64_t>(position);
  report.source_id = input.id;
  report.replay_key = options_.key_rules.keyOf(input);
  report.input = options_.key_rules.keyedContent(magma::toJson(input));
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    report.closest_step_id = index_.closest(featuresOf(input));
  }
  protocol::Json closest_input;  // keyed as report.input is
  if (report.closest_step_id) {
    auto recorded = readers_.with([&](const store::ArchiveReader& reader) {
      return reader.inputJson(*report.closest_step_id);
    });
    if (recorded) {
      closest_input = options_.key_rules.keyedContent(std::move(*recorded));
      report.differences =
          differingPaths(report.input, closest_input, options_.max_difference_paths);
    }
  }
  std::optional<std::string> closest;
  if (report.closest_step_id) {
    closest = "step " + std::to_string(*report.closest_step_id);
  }
  // A miss caused only by clocks or ids says which --ignore would have hit.
  report.reason = missReason(what, closest, report.differences) +
                  volatileOnlyHint(report.input, closest_input, report.differences);
  return report;
}

std::optional<protocol::HttpReply> ResponsesReplayer::answerMisses(
    const protocol::HttpRequest& request, const magma::AgentRequest& parsed,
    std::vector<Slot>& slots, ReplayOutcome& outcome, const Forwarder* forward) {
  const MissPolicy policy = options_.on_miss == MissPolicy::Forward && forward == nullptr
                                ? MissPolicy::Http
                                : options_.on_miss;
  if (policy == MissPolicy::Http) {
    std::string message = outcome.misses.front().reason;
    if (outcome.misses.size() > 1) {
      message += " (and " + std::to_string(outcome.misses.size() - 1) + " more inputs)";
    }
    return agentvcrError(503, "replay.miss", message);
  }
  if (policy == MissPolicy::Error) {
    std::size_t reported = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (!slots[i].missed) {
        continue;
      }
      const magma::AgentInput& input = parsed.inputs[i];
      for (std::int64_t k = 0; k < input.num_outputs; ++k) {
        slots[i].made.push_back(
            missCandidate(parsed.request_id, input, k, outcome.misses[reported].reason));
      }
      ++reported;
    }
    return std::nullopt;
  }

  // Forward: ask the live agent only the missed and forked inputs, as the caller wrote them.
  auto original = protocol::parseOrderedJson(request.body);
  OrderedJson missed_inputs = OrderedJson::array();
  magma::AgentRequest forwarded{parsed.request_id, {}};
  Reasked reasked;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].missed || slots[i].forked) {
      missed_inputs.push_back((*original)["inputs"][i]);
      forwarded.inputs.push_back(parsed.inputs[i]);
      reasked.steps.push_back(slots[i].forked ? slots[i].step : std::nullopt);
    }
  }
  (*original)["inputs"] = std::move(missed_inputs);
  protocol::HttpRequest live = request;
  live.body = protocol::pythonJsonDumps(*original, protocol::detectPythonJsonStyle(request.body));
  ForwardReply answer = (*forward)(live, reasked);
  outcome.forwarded = true;
  if (answer.status == 0) {
    return agentvcrError(502, "replay.forward", answer.error);
  }
  auto json = protocol::parseJson(answer.body);
  const bool usable = answer.status >= 200 && answer.status < 300 && json.value &&
                      magma::parseAgentResponse(*json.value, &forwarded).ok();
  if (!usable) {
    // The live agent's own refusal or broken answer is the answer.
    return recordedReply(store::RecordedResponse{answer.status, answer.headers, answer.body});
  }
  auto live_answer = RecordedAnswer::parse(answer.body, answer.headers);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].missed || slots[i].forked) {
      slots[i].recorded = live_answer->outputsOf(parsed.inputs[i].id);
      slots[i].answer = live_answer;
    }
  }
  return std::nullopt;
}

}  // namespace agentvcr::replay::detail
