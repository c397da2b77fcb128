// Replay's request memo answers byte for byte as replay without it. Two Replayers over one
// archive, the memo off in one and on in the other, both at the recorded pace, are asked the
// same requests in the same order; each reply (status, content type, headers, body, stream
// pieces, how long it is held back, and the hits and misses replay reports) must be the same.
// The requests: every request of the demo archive and of a generated archive of thousands of
// steps, sent again with fresh ids; their inputs batched otherwise; A2A calls with JSON-RPC ids of
// every type, batches, fresh messageIds, with and without --a2a-ignore-message-id; requests that
// differ beyond their ids (an `id` inside memory or tools, whitespace, key order, escaped names),
// which the memo must not take for repeats; live ids replay refuses (422); A2A calls in scopes,
// across rewinds, and calls of the HTTP+JSON binding, whose bodies are repeats only byte for
// byte; and, after a warm-up, A2A calls answered without a read of the archive. Then over
// loopback, `agentvcr replay` as its command line configures it, whose status route counts the
// memo's hits.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/replay_command.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_recording.hpp"
#include "generated_archive.hpp"
#include "outcome_text.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {
namespace {

using protocol::HttpRequest;
using protocol::Json;
using Ordered = nlohmann::ordered_json;

constexpr const char* kStatusPath = "/_agentvcr/replay";

replay::ReplayOptions withoutMemo(replay::ReplayOptions options) {
  options.memo_bytes = 0;
  return options;
}

/// At the recorded pace, so that each answer carries its recorded think time as its hold. A
/// Replayer only computes holds (the HTTP face waits them out), so this costs no time here.
replay::ReplayOptions pacedAsRecorded(replay::ReplayOptions options) {
  options.answer_pace = replay::kRecordedPace;
  options.stream_pace = replay::kRecordedPace;
  return options;
}

/// outcomeText() and how long the reply is held back before its first byte.
std::string heldOutcomeText(const replay::ReplayOutcome& outcome) {
  return outcomeText(outcome) + "\n[held " + std::to_string(outcome.reply.hold.count()) + " ns]";
}

/// Two replayers over one archive, the memo off in the first and on in the second, asked the
/// same requests in the same order.
class MemoPair {
 public:
  MemoPair(const std::string& db_path, const replay::ReplayOptions& options)
      : without_(db_path, withoutMemo(pacedAsRecorded(options))),
        with_(db_path, pacedAsRecorded(options)) {}

  /// Asks both; a test failure (the first few shown in full) unless they answer alike. Returns
  /// the memo's answer.
  protocol::HttpReply ask(const HttpRequest& request) {
    const replay::ReplayOutcome slow = without_.handle(request, &forward_);
    replay::ReplayOutcome fast = with_.handle(request, &forward_);
    const std::string expected = heldOutcomeText(slow);
    const std::string got = heldOutcomeText(fast);
    held_ += fast.reply.hold.count() > 0 ? 1 : 0;
    if (got != expected && ++mismatches_ <= 3) {
      ADD_FAILURE() << "the memo answered otherwise\nrequest: " << request.method << " "
                    << request.target << "\n"
                    << request.body << "\nwithout the memo:\n"
                    << expected << "\nwith the memo:\n"
                    << got;
    }
    return std::move(fast.reply);
  }

  /// No answer differed, and both replayers counted the same requests, hits and misses.
  void expectAllAlike() const {
    EXPECT_EQ(mismatches_, 0u);
    // Recorded answers were held back by their think times: the holds compared were not all 0.
    EXPECT_GT(held_, 0u);
    const replay::ReplayStats slow = without_.stats();
    const replay::ReplayStats fast = with_.stats();
    EXPECT_EQ(fast.requests, slow.requests);
    EXPECT_EQ(fast.hits, slow.hits);
    EXPECT_EQ(fast.misses, slow.misses);
    EXPECT_EQ(fast.forwarded, slow.forwarded);
    EXPECT_EQ(fast.invalid, slow.invalid);
  }

  /// What replay counted (the same with the memo as without, see expectAllAlike()).
  replay::ReplayStats stats() const { return with_.stats(); }

  /// Rewinds both (`target`: the rewind route, with its query), their replies unread: the
  /// status they answer with tells the memo's counters, which only one of them has.
  void rewind(const std::string& target) {
    without_.handle({"POST", target, {}, ""});
    with_.handle({"POST", target, {}, ""});
  }

  /// Readers the replayer with the memo took from its pool: its reads of the archive.
  std::uint64_t archiveReads() {
    const auto status = with_.handle({"GET", kStatusPath, {}, ""});
    return protocol::parseJson(status.reply.body).value->at("archive_reads").get<std::uint64_t>();
  }

  /// A counter of the memo of `route` ("responses" or "a2a") as the status route shows it.
  std::uint64_t memo(const std::string& route, const std::string& counter) {
    const auto status = with_.handle({"GET", kStatusPath, {}, ""});
    return protocol::parseJson(status.reply.body)
        .value->at("memo")
        .at(route)
        .at(counter)
        .get<std::uint64_t>();
  }

 private:
  /// Under --on-miss forward: an agent that is down.
  replay::Forwarder forward_ = [](const HttpRequest&, const replay::Reasked&) {
    return replay::ForwardReply{0, {}, "", "[proxy.upstream.refused] connection refused"};
  };
  replay::Replayer without_;
  replay::Replayer with_;
  std::size_t mismatches_ = 0;
  std::size_t held_ = 0;  ///< answers held back by a recorded think time
};

void replaceFirst(std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " in " << text;
  text.replace(at, from.size(), to);
}

/// A MAGMA request with blanks where its ids go, written in the style of the request it was
/// made from; fill() writes ids in (any text, what JSON refuses too).
class MagmaIdBlanks {
 public:
  explicit MagmaIdBlanks(const std::string& body) {
    Ordered request = *protocol::parseOrderedJson(body);
    request["request_id"] = "@request_id@";
    inputs_ = request["inputs"].size();
    for (std::size_t i = 0; i < inputs_; ++i) {
      request["inputs"][i]["id"] = "@id" + std::to_string(i) + "@";
    }
    text_ = protocol::pythonJsonDumps(request, protocol::detectPythonJsonStyle(body));
  }

  std::size_t inputs() const { return inputs_; }

  /// The request with `request_id`, and `input_id(i)` for the i-th input.
  std::string fill(const std::string& request_id,
                   const std::function<std::string(std::size_t)>& input_id) const {
    std::string text = text_;
    replaceFirst(text, "\"@request_id@\"", request_id);
    for (std::size_t i = 0; i < inputs_; ++i) {
      replaceFirst(text, "\"@id" + std::to_string(i) + "@\"", input_id(i));
    }
    return text;
  }

  /// The request with the n-th fresh ids: request_ids of the shapes callers mint (escapes
  /// included), input ids over the whole int64 range, distinct within a request.
  std::string fresh(int n) const {
    switch (n % 3) {
      case 0:
        return fill("\"live-" + std::to_string(n) + "\"",
                    [n](std::size_t i) { return std::to_string(7 * n + static_cast<int>(i)); });
      case 1:
        return fill("\"\\u00e9t\\u00e9-" + std::to_string(n) + "\"", [](std::size_t i) {
          return std::to_string(INT64_MAX - static_cast<std::int64_t>(i));
        });
      default:
        return fill(
            "\"d9c4d0b3f1a04e3c9a0e5b1c2f3a4b" + std::to_string(n % 100) + "\"",
            [](std::size_t i) { return std::to_string(INT64_MIN + static_cast<std::int64_t>(i)); });
    }
  }

 private:
  std::string text_;
  std::size_t inputs_ = 0;
};

HttpRequest magmaPost(std::string body) {
  return {"POST", "/v1/responses", {{"Content-Type", "application/json"}}, std::move(body)};
}

/// `body`, a JSON-RPC request or batch, with the ids written as given, by position in a batch
/// (nullopt leaves the member out); empty when it does not parse.
std::optional<std::string> withRpcIds(const std::string& body,
                                      const std::vector<std::optional<std::string>>& ids) {
  auto request = protocol::parseOrderedJson(body);
  if (!request) {
    return std::nullopt;
  }
  const bool batch = request->is_array();
  const std::size_t count = batch ? request->size() : 1;
  for (std::size_t i = 0; i < count; ++i) {
    Ordered& call = batch ? (*request)[i] : *request;
    if (ids[i % ids.size()]) {
      call["id"] = "@id" + std::to_string(i) + "@";
    } else {
      call.erase("id");
    }
  }
  std::string text = request->dump();
  for (std::size_t i = 0; i < count; ++i) {
    if (const auto& id = ids[i % ids.size()]) {
      replaceFirst(text, "\"@id" + std::to_string(i) + "@\"", *id);
    }
  }
  return text;
}

/// JSON-RPC ids of every type a caller may send, and some replay must refuse to splice (a
/// container, text that is not JSON); a batch takes them by position.
const std::vector<std::vector<std::optional<std::string>>> kRpcIds = {
    {"41"},
    {"\"live-41\""},
    {"null"},
    {"-3"},
    {"-0"},
    {"2.5"},
    {"1e2"},
    {"1.0"},
    {"true"},
    {"123456789012345678901234567890"},
    {"\"\\u0041\""},
    {std::nullopt},
    {"7", "\"seven\"", "null"},
    {"[1]"},
    {"{}"},
    {"01"},
    {"\"\\ud800\""},
};

/// `body` with each messageId at params.message (of each call of a batch) replaced.
std::string withMessageId(const std::string& body, const std::string& message_id) {
  Ordered request = *protocol::parseOrderedJson(body);
  auto replace = [&](Ordered& call) {
    if (call.contains("params") && call["params"].contains("message")) {
      call["params"]["message"]["messageId"] = message_id;
    }
  };
  if (request.is_array()) {
    for (Ordered& call : request) {
      replace(call);
    }
  } else {
    replace(request);
  }
  return request.dump();
}

/// The same text for MAGMA or A2A requests that differ in their ids only (and in their
/// messageIds, when `message_ids` is set).
std::string sameButIds(const HttpRequest& request, bool message_ids = false) {
  std::string body = request.body;
  if (request.target == "/v1/responses") {
    body = MagmaIdBlanks(body).fill("0", [](std::size_t) { return "0"; });
  } else if (auto ids_set = withRpcIds(body, {"0"})) {
    body = message_ids ? withMessageId(*ids_set, "m") : *ids_set;
  }
  return request.method + " " + request.target + "\n" + body;
}

// --- generated archives ---

/// A generated archive of `kSteps` MAGMA steps and the A2A calls, written once per test suite
/// (under ctest, once per test: each runs in a process of its own).
template <std::size_t kSteps>
class GeneratedArchiveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_ = std::make_unique<TempDir>();
    archive_ = std::make_unique<GeneratedArchive>(
        writeGeneratedArchive(dbPath(), {.magma_steps = kSteps, .seed = 7}));
  }

  static void TearDownTestSuite() {
    archive_.reset();
    temp_.reset();
  }

  static std::string dbPath() { return temp_->file("generated.sqlite"); }

  static const GeneratedArchive& archive() { return *archive_; }

 private:
  static inline std::unique_ptr<TempDir> temp_;
  static inline std::unique_ptr<GeneratedArchive> archive_;
};

using ThousandsOfStepsMemoTest = GeneratedArchiveTest<2000>;
using GeneratedArchiveMemoTest = GeneratedArchiveTest<160>;

TEST_F(ThousandsOfStepsMemoTest, EveryRequestSentAgainWithFreshIdsIsAnsweredAsWithoutTheMemo) {
  ASSERT_GE(archive().magma.size(), 800u);
  MemoPair pair(dbPath(), {});
  for (std::size_t i = 0; i < archive().magma.size(); ++i) {
    const HttpRequest& recorded = archive().magma[i];
    pair.ask(recorded);
    const MagmaIdBlanks blanks(recorded.body);
    for (int n = 0; n < 2; ++n) {
      pair.ask(magmaPost(blanks.fresh(static_cast<int>(2 * i) + n)));
    }
  }
  pair.expectAllAlike();
  EXPECT_EQ(pair.stats().misses, 0u);
  EXPECT_EQ(pair.stats().invalid, 0u);
  // Each request was seen at least twice with only its ids changed.
  EXPECT_GE(pair.memo("responses", "hits"), archive().magma.size());
}

TEST_F(GeneratedArchiveMemoTest, InputsBatchedOtherwiseAreAnsweredAsWithoutTheMemo) {
  // Four inputs a request, taken from consecutive recorded requests: answers recorded in
  // different styles meet in one reply.
  std::vector<Ordered> inputs;
  for (const HttpRequest& recorded : archive().magma) {
    const Ordered body = *protocol::parseOrderedJson(recorded.body);
    for (const Ordered& input : body["inputs"]) {
      inputs.push_back(input);
    }
  }
  MemoPair pair(dbPath(), {});
  for (std::size_t first = 0; first < inputs.size(); first += 4) {
    Ordered request = {{"request_id", "rebatched"}, {"inputs", Ordered::array()}};
    for (std::size_t i = first; i < std::min(first + 4, inputs.size()); ++i) {
      request["inputs"].push_back(inputs[i]);
    }
    const MagmaIdBlanks blanks(protocol::pythonJsonDumps(request, protocol::kPythonDefaultStyle));
    for (int n = 0; n < 2; ++n) {
      pair.ask(magmaPost(blanks.fresh(n)));
    }
  }
  pair.expectAllAlike();
  EXPECT_EQ(pair.stats().hits, 2 * inputs.size());
  EXPECT_GE(pair.memo("responses", "hits"), inputs.size() / 4);
}

/// What a caller may change in a recorded request besides its ids, each a request the memo has
/// not seen: replay decides by parsing it.
std::vector<std::string> changedBeyondIds(const std::string& body) {
  std::vector<std::string> changed;
  auto edited = [&](const std::function<void(Ordered&)>& edit) {
    Ordered request = *protocol::parseOrderedJson(body);
    edit(request);
    changed.push_back(protocol::pythonJsonDumps(request, protocol::detectPythonJsonStyle(body)));
  };
  // An `id` inside memory, tools or extra keys.
  edited([](Ordered& r) { r["inputs"][0]["memory"]["plan"]["inputs"][0]["id"] = 1; });
  edited([](Ordered& r) { r["inputs"][0]["memory"]["plan"]["id"] = "plan-other"; });
  edited([](Ordered& r) { r["inputs"][0]["tools"][0]["arguments"]["id"]["type"] = "int"; });
  edited([](Ordered& r) { r["inputs"][0]["extra_keys"]["trace"]["id"] = 99; });
  // Names of ids at depths where they are not the caller's.
  edited([](Ordered& r) { r["inputs"][0]["memory"]["request_id"] = "inner"; });
  // Key order.
  edited([](Ordered& r) {
    Ordered reordered = {{"inputs", r["inputs"]}, {"request_id", r["request_id"]}};
    r = std::move(reordered);
  });
  edited([](Ordered& r) {
    Ordered& input = r["inputs"][0];
    const Ordered id = input["id"];
    input.erase("id");
    input["id"] = id;
  });
  // Whitespace.
  changed.push_back(" " + body + "\n");
  changed.push_back(protocol::parseOrderedJson(body)->dump(2));
  // Escaped names: the same request to a parser, not to a byte scan.
  std::string escaped = body;
  replaceFirst(escaped, "\"request_id\"", "\"request\\u005fid\"");
  changed.push_back(escaped);
  escaped = body;
  replaceFirst(escaped, "\"inputs\"", "\"inp\\u0075ts\"");
  changed.push_back(escaped);
  escaped = body;
  replaceFirst(escaped, "{\"id\"", "{\"i\\u0064\"");
  changed.push_back(escaped);
  return changed;
}

TEST_F(GeneratedArchiveMemoTest, RequestsChangedBeyondTheirIdsMissTheMemoAndAreAnsweredAlike) {
  // Under each miss policy in turn, a request at a time.
  const replay::MissPolicy policies[] = {replay::MissPolicy::Error, replay::MissPolicy::Http,
                                         replay::MissPolicy::Forward};
  std::vector<std::unique_ptr<MemoPair>> pairs;
  for (const replay::MissPolicy policy : policies) {
    replay::ReplayOptions options;
    options.on_miss = policy;
    pairs.push_back(std::make_unique<MemoPair>(dbPath(), options));
  }
  std::set<std::string> seen;  // a request recorded twice would repeat its changed forms
  for (const HttpRequest& request : archive().magma) {
    if (seen.size() == 24 || !seen.insert(sameButIds(request)).second) {
      continue;
    }
    MemoPair& pair = *pairs[seen.size() % pairs.size()];
    SCOPED_TRACE(replay::missPolicyName(policies[seen.size() % pairs.size()]));
    pair.ask(request);
    for (const std::string& body : changedBeyondIds(request.body)) {
      const std::uint64_t hits = pair.memo("responses", "hits");
      pair.ask(magmaPost(body));
      EXPECT_EQ(pair.memo("responses", "hits"), hits) << "taken for a repeat: " << body;
    }
  }
  for (const auto& pair : pairs) {
    pair->expectAllAlike();
    EXPECT_GT(pair->stats().misses, 0u);
  }
}

TEST_F(GeneratedArchiveMemoTest, LiveIdsReplayRefusesGetTheSame422AsWithoutTheMemo) {
  MemoPair pair(dbPath(), {});
  // request_id, then the input ids, as written.
  const std::vector<std::pair<std::string, std::vector<std::string>>> refused = {
      {"\"\"", {"1"}},
      {"5", {"1"}},
      {"null", {"1"}},
      {"\"r\"", {"1", "1"}},
      {"\"r\"", {"1", "1.0"}},
      {"\"r\"", {"1.0"}},
      {"\"r\"", {"1e2"}},
      {"\"r\"", {"\"5\""}},
      {"\"r\"", {"true"}},
      {"\"r\"", {"null"}},
      {"\"r\"", {"9223372036854775808"}},
      {"\"r\"", {"-9223372036854775809"}},
      {"\"r\"", {"18446744073709551616"}},
      {"\"r\"", {"1e400"}},
      {"\"r\"", {"01"}},
      {"\"\\ud800\"", {"1"}},
  };
  std::size_t checked = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    // Remembered with valid ids first, so that the refused ones find it.
    const MagmaIdBlanks blanks(archive().magma[i].body);
    pair.ask(magmaPost(blanks.fresh(0)));
    for (const auto& [request_id, input_ids] : refused) {
      if (input_ids.size() > blanks.inputs()) {
        continue;  // a duplicate needs two inputs
      }
      const std::string body = blanks.fill(
          request_id, [&](std::size_t k) { return input_ids[std::min(k, input_ids.size() - 1)]; });
      EXPECT_EQ(pair.ask(magmaPost(body)).status, 422) << body;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200u);
  pair.expectAllAlike();
}

TEST_F(GeneratedArchiveMemoTest, AMemoThatMustForgetIsAnsweredAsWithoutTheMemo) {
  replay::ReplayOptions options;
  options.memo_bytes = 16 << 10;  // a few requests
  MemoPair pair(dbPath(), options);
  for (std::size_t i = 0; i < archive().magma.size(); ++i) {
    const MagmaIdBlanks blanks(archive().magma[i].body);
    for (int n = 0; n < 3; ++n) {
      pair.ask(magmaPost(blanks.fresh(n)));
    }
    if (i % 7 == 0) {  // one it may have forgotten
      pair.ask(magmaPost(MagmaIdBlanks(archive().magma[i / 2].body).fresh(5)));
    }
  }
  pair.expectAllAlike();
  EXPECT_GT(pair.memo("responses", "evictions"), 0u);
  EXPECT_GT(pair.memo("responses", "hits"), 0u);
  EXPECT_LE(pair.memo("responses", "bytes"), options.memo_bytes);
}

// --- A2A ---

TEST_F(GeneratedArchiveMemoTest, A2aCallsWithIdsOfEveryTypeAreAnsweredAsWithoutTheMemo) {
  for (const bool ignore_message_id : {false, true}) {
    SCOPED_TRACE(ignore_message_id ? "--a2a-ignore-message-id" : "message ids keyed");
    replay::ReplayOptions options;
    options.a2a_ignore_message_id = ignore_message_id;
    MemoPair pair(dbPath(), options);
    for (int round = 0; round < 2; ++round) {
      for (const HttpRequest& recorded : archive().a2a) {
        pair.ask(recorded);
        for (const auto& ids : kRpcIds) {
          if (auto body = withRpcIds(recorded.body, ids)) {
            pair.ask({recorded.method, recorded.target, recorded.headers, *body});
          }
        }
      }
    }
    pair.expectAllAlike();
    EXPECT_GE(pair.memo("a2a", "hits"), archive().a2a.size());
  }
}

TEST_F(GeneratedArchiveMemoTest, FreshMessageIdsAreRepeatsOnlyWhenTheKeyLeavesThemOut) {
  // Calls with a messageId, each once: two that differ in their ids and messageIds only would
  // be repeats of each other.
  std::vector<HttpRequest> sends;
  std::set<std::string> seen;
  for (const HttpRequest& recorded : archive().a2a) {
    if (recorded.body.find("\"messageId\"") != std::string::npos &&
        protocol::parseOrderedJson(recorded.body) &&
        seen.insert(sameButIds(recorded, /*message_ids=*/true)).second) {
      sends.push_back(recorded);
    }
  }
  ASSERT_GE(sends.size(), 5u);
  for (const bool ignore_message_id : {false, true}) {
    SCOPED_TRACE(ignore_message_id ? "--a2a-ignore-message-id" : "message ids keyed");
    replay::ReplayOptions options;
    options.a2a_ignore_message_id = ignore_message_id;
    MemoPair pair(dbPath(), options);
    std::size_t repeats = 0;
    for (const HttpRequest& recorded : sends) {
      pair.ask(recorded);
      for (int n = 0; n < 3; ++n) {
        const std::uint64_t hits = pair.memo("a2a", "hits");
        const std::string body = *withRpcIds(
            withMessageId(recorded.body, "live-m-" + std::to_string(n)), {std::to_string(50 + n)});
        pair.ask({recorded.method, recorded.target, recorded.headers, body});
        repeats += pair.memo("a2a", "hits") - hits;
      }
    }
    pair.expectAllAlike();
    // Keyed on messageIds, each fresh one makes a new call; left out, each is a repeat.
    EXPECT_EQ(repeats, ignore_message_id ? 3 * sends.size() : 0u);
  }
}

TEST_F(GeneratedArchiveMemoTest, A2aCallsChangedBeyondTheirIdsMissTheMemoAndAreAnsweredAlike) {
  MemoPair pair(dbPath(), {});
  std::set<std::string> seen;  // a call recorded twice would repeat its changed forms
  for (const HttpRequest& recorded : archive().a2a) {
    auto parsed = protocol::parseOrderedJson(recorded.body);
    if (!parsed || !parsed->is_object() || !parsed->contains("params") ||
        !seen.insert(sameButIds(recorded)).second) {
      continue;
    }
    pair.ask(recorded);
    std::vector<HttpRequest> changed;
    auto add = [&](std::string body, std::string target = kA2aEndpoint) {
      changed.push_back({recorded.method, std::move(target), recorded.headers, std::move(body)});
    };
    Ordered params_id = *parsed;
    params_id["params"]["id"] = "task-other";  // a task's id is data, not the caller's
    add(params_id.dump());
    if (parsed->at("params").contains("message")) {
      Ordered metadata = *parsed;
      metadata["params"]["message"]["metadata"]["id"] = "meta-other";
      add(metadata.dump());
    }
    Ordered reordered = {{"params", parsed->at("params")}};
    for (const auto& [name, value] : parsed->items()) {
      reordered[name] = value;
    }
    add(reordered.dump());
    add(parsed->dump(1));
    std::string escaped = recorded.body;
    replaceFirst(escaped, "\"id\"", "\"i\\u0064\"");
    add(escaped);
    add(recorded.body, std::string(kA2aEndpoint) + "?page=2");
    for (const HttpRequest& request : changed) {
      const std::uint64_t hits = pair.memo("a2a", "hits");
      pair.ask(request);
      EXPECT_EQ(pair.memo("a2a", "hits"), hits) << "taken for a repeat: " << request.body;
    }
  }
  pair.expectAllAlike();
}

/// `request` sent in `scope` (none when empty).
HttpRequest sentInScope(HttpRequest request, const std::string& scope) {
  if (!scope.empty()) {
    std::erase_if(request.headers, [](const protocol::HeaderField& header) {
      return protocol::equalsIgnoreCase(header.name, protocol::kScopeHeader);
    });
    request.headers.push_back({std::string(protocol::kScopeHeader), scope});
  }
  return request;
}

/// The n-th sending of a recorded A2A call with fresh ids: JSON-RPC ids of every type in turn
/// (as recorded when n is 0), or only those JSON takes when `parsable_only`; a call of the
/// HTTP+JSON binding names none and goes as recorded.
HttpRequest a2aSentAgain(const HttpRequest& recorded, std::size_t n, bool parsable_only = false) {
  if (n == 0 || recorded.target != kA2aEndpoint) {
    return recorded;
  }
  auto body = withRpcIds(recorded.body, kRpcIds[n % kRpcIds.size()]);
  if (!body || (parsable_only && !protocol::parseOrderedJson(*body))) {
    return recorded;
  }
  return {recorded.method, recorded.target, recorded.headers, *body};
}

/// Every A2A call of the generated archive but the agent card's GET (JSON-RPC, in scopes, of
/// the HTTP+JSON binding): each a recorded answer to replay.
std::vector<HttpRequest> recordedA2aCalls(const GeneratedArchive& archive) {
  std::vector<HttpRequest> calls;
  for (const auto* list : {&archive.a2a, &archive.a2a_scoped, &archive.a2a_rest}) {
    for (const HttpRequest& call : *list) {
      if (call.target != std::string(kA2aCardPath)) {
        calls.push_back(call);
      }
    }
  }
  return calls;
}

TEST_F(GeneratedArchiveMemoTest, A2aCallsInScopesAcrossRewindsAreAnsweredAsWithoutTheMemo) {
  MemoPair pair(dbPath(), {});
  const std::vector<HttpRequest> calls = recordedA2aCalls(archive());
  ASSERT_FALSE(archive().a2a_scoped.empty());
  ASSERT_FALSE(archive().a2a_rest.empty());
  // Each scope walks its own cursors (the unscoped caller the shared ones), calls repeated past
  // the end of what was recorded; rewinds of one scope, then of all, start them again.
  const std::vector<std::string> scopes = {"", "suite-a", "suite-b", "suite-c"};
  std::size_t n = 0;
  for (int round = 0; round < 3; ++round) {
    for (const std::string& scope : scopes) {
      for (const HttpRequest& call : calls) {
        for (int repeat = 0; repeat < 3; ++repeat) {
          pair.ask(sentInScope(a2aSentAgain(call, n++), scope));
        }
      }
      if (scope == "suite-a") {
        pair.rewind("/_agentvcr/replay/rewind?scope=suite-a");
        for (const HttpRequest& call : archive().a2a_scoped) {
          pair.ask(sentInScope(a2aSentAgain(call, n++), scope));
        }
      }
    }
    pair.rewind("/_agentvcr/replay/rewind");
  }
  pair.expectAllAlike();
  EXPECT_GE(pair.memo("a2a", "hits"), 2 * calls.size());
}

TEST_F(GeneratedArchiveMemoTest, RestCallsAreRepeatsOnlyWhenTheirBytesAreTheSame) {
  MemoPair pair(dbPath(), {});
  for (const HttpRequest& call : archive().a2a_rest) {
    pair.ask(call);
    const std::uint64_t hits = pair.memo("a2a", "hits");
    pair.ask(call);
    EXPECT_EQ(pair.memo("a2a", "hits"), hits + 1) << call.method << " " << call.target;
  }
  // A push config whose body differs in its `id` alone: the config's id, no call id to mask.
  for (const HttpRequest& call : archive().a2a_rest) {
    if (call.body.find("\"cfg-1\"") == std::string::npos) {
      continue;
    }
    std::string other = call.body;
    replaceFirst(other, "\"cfg-1\"", "\"cfg-3\"");
    const std::uint64_t hits = pair.memo("a2a", "hits");
    pair.ask({call.method, call.target, call.headers, other});
    EXPECT_EQ(pair.memo("a2a", "hits"), hits) << "taken for a repeat: " << other;
  }
  // The query is part of the call.
  pair.ask({"GET", "/tasks/task-r1?historyLength=3", archive().a2a_rest.front().headers, ""});
  pair.expectAllAlike();
  EXPECT_GT(pair.stats().misses, 0u);
}

TEST_F(GeneratedArchiveMemoTest, RepeatedA2aCallsAreAnsweredWithoutReadingTheArchive) {
  MemoPair pair(dbPath(), {});
  const std::vector<HttpRequest> calls = recordedA2aCalls(archive());
  std::size_t n = 0;
  for (const std::string scope : {"", "suite-a"}) {
    for (const HttpRequest& call : calls) {
      pair.ask(sentInScope(a2aSentAgain(call, n++, /*parsable_only=*/true), scope));
    }
  }
  pair.rewind("/_agentvcr/replay/rewind");
  // Every answer was read once; from here on, every call is a hit that reads nothing.
  const std::uint64_t reads = pair.archiveReads();
  const std::uint64_t hits = pair.stats().hits;
  for (int round = 0; round < 2; ++round) {
    for (const std::string scope : {"", "suite-a", "suite-b"}) {
      for (const HttpRequest& call : calls) {
        pair.ask(sentInScope(a2aSentAgain(call, n++, /*parsable_only=*/true), scope));
      }
    }
  }
  pair.expectAllAlike();
  EXPECT_EQ(pair.stats().misses, 0u);
  EXPECT_EQ(pair.stats().hits, hits + 6 * calls.size());
  EXPECT_EQ(pair.archiveReads(), reads);
}

// --- the demo archive ---

class DemoArchiveMemoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_ = std::make_unique<TempDir>();
    recordDemo(dbPath(), "demo");
    store::ArchiveReader reader(dbPath());
    requests_ = std::make_unique<std::vector<HttpRequest>>();
    for (const store::ExchangeRow& row : reader.exchanges(reader.sessions().at(0).id, 0, 10'000)) {
      const store::ExchangeRow exchange = *reader.exchange(row.id);
      requests_->push_back(
          {exchange.method, exchange.target, exchange.request_headers, exchange.request_body});
    }
  }

  static void TearDownTestSuite() {
    requests_.reset();
    temp_.reset();
  }

  static std::string dbPath() { return temp_->file("demo.sqlite"); }

  /// Every request recorded, in order: probes, then /v1/responses.
  static const std::vector<HttpRequest>& requests() { return *requests_; }

  /// The n-th sending of `recorded` with fresh ids (as recorded when n is 0).
  static HttpRequest sentAgain(const HttpRequest& recorded, int n) {
    if (n == 0 || recorded.target != "/v1/responses") {
      return recorded;
    }
    return {recorded.method, recorded.target, recorded.headers,
            MagmaIdBlanks(recorded.body).fresh(n)};
  }

 private:
  static inline std::unique_ptr<TempDir> temp_;
  static inline std::unique_ptr<std::vector<HttpRequest>> requests_;
};

TEST_F(DemoArchiveMemoTest, EveryRequestSentAgainWithFreshIdsIsAnsweredAsWithoutTheMemo) {
  ASSERT_GE(requests().size(), 10u);
  MemoPair pair(dbPath(), {});
  for (const HttpRequest& recorded : requests()) {
    for (int n = 0; n < 4; ++n) {
      pair.ask(sentAgain(recorded, n));
    }
  }
  pair.expectAllAlike();
  EXPECT_GT(pair.memo("responses", "hits"), 0u);
}

/// `agentvcr replay --db FILE --listen 127.0.0.1:0` and `extra`, as its command line configures
/// it, serving on a free port.
std::unique_ptr<services::ReplayService> startReplayCommand(const std::string& db_path,
                                                            const std::vector<std::string>& extra) {
  CLI::App app;
  cli::Invocation invocation;
  const auto replay = cli::registerReplay(app, invocation);
  std::vector<std::string> args = {"agentvcr",    "replay",           "--db", db_path, "--listen",
                                   "127.0.0.1:0", "--no-store-misses"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<const char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(arg.c_str());
  }
  app.parse(static_cast<int>(argv.size()), argv.data());
  EXPECT_TRUE(invocation.usage_error.empty()) << invocation.usage_error;
  auto service = std::make_unique<services::ReplayService>(replay.command->config);
  service->start();
  return service;
}

TEST_F(DemoArchiveMemoTest, AgentvcrReplayOverLoopbackCountsMemoHitsAndAnswersAsWithoutTheMemo) {
  auto with_memo = startReplayCommand(dbPath(), {"--memo-mib", "8"});
  auto without_memo = startReplayCommand(dbPath(), {"--no-memo"});
  net::HttpClient fast("127.0.0.1", with_memo->endpoint().port);
  net::HttpClient slow("127.0.0.1", without_memo->endpoint().port);
  for (const HttpRequest& recorded : requests()) {
    for (int n = 0; n < 3; ++n) {
      const HttpRequest request = sentAgain(recorded, n);
      const net::ClientResponse expected =
          slow.send(request.method, request.target, request.body, request.headers);
      const net::ClientResponse got =
          fast.send(request.method, request.target, request.body, request.headers);
      EXPECT_EQ(got.status, expected.status) << request.body;
      EXPECT_EQ(got.headers, expected.headers) << request.body;
      EXPECT_EQ(got.body, expected.body) << request.body;
    }
  }
  const Json status = *protocol::parseJson(fast.get(kStatusPath).body).value;
  const Json no_memo = *protocol::parseJson(slow.get(kStatusPath).body).value;
  EXPECT_GT(status["memo"]["responses"]["hits"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(status["memo"]["responses"]["budget_bytes"].get<std::uint64_t>(), 8u << 20);
  EXPECT_TRUE(no_memo["memo"].is_null());
  for (const char* counter : {"requests", "hits", "misses", "invalid"}) {
    EXPECT_EQ(status[counter], no_memo[counter]) << counter;
  }
  EXPECT_EQ(status["misses"], 0);
  with_memo->stop();
  without_memo->stop();
}

}  // namespace
}  // namespace agentvcr::testing
