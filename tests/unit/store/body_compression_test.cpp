// Bodies in the archive (schema v7): compressed with zstd when that pays, verbatim otherwise,
// and always read back byte for byte at their wire size. MAGMA bodies as segments of one stream
// per route (schema v16), and memories compressed too (schema v9); bodies an older recorder
// compressed against a dictionary still read back. Checked through the Recorder and the
// ArchiveReader, with raw SQL probes for what is actually on disk.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using ::testing::HasSubstr;
using testing::httpExchange;
using testing::queryInt;
using testing::queryText;
using testing::TempDir;
using Json = protocol::Json;

class BodyCompressionTest : public ::testing::Test {
 protected:
  /// Records one exchange and returns its id.
  std::int64_t record(protocol::Exchange ex) {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, std::move(ex));
    recorder.close();
    return queryInt(path_, "SELECT max(id) FROM exchanges");
  }

  std::string column(std::int64_t id, const std::string& expression) {
    return queryText(path_,
                     "SELECT " + expression + " FROM exchanges WHERE id = " + std::to_string(id));
  }

  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
};

/// A MAGMA-like request: keys and values that repeat, as memory and tools do.
std::string repetitiveJson(std::size_t bytes) {
  std::string text = R"({"request_id":"r1","inputs":[)";
  for (int i = 0; text.size() < bytes; ++i) {
    text += R"({"author":"USER","content":"press the red button )" + std::to_string(i) + R"("},)";
  }
  text.back() = ']';
  return text + "}";
}

std::string randomBytes(std::size_t bytes) {
  std::mt19937_64 random(42);
  std::string text(bytes, '\0');
  for (char& c : text) {
    c = static_cast<char>(random() & 0xFFU);
  }
  return text;
}

TEST_F(BodyCompressionTest, ARepetitiveBodyIsStoredCompressedAndReadBackExactly) {
  const std::string request = repetitiveJson(4096);
  const std::string response = repetitiveJson(2048);
  const std::int64_t id = record(httpExchange("POST", "/upload", request, 200, response));

  EXPECT_EQ(column(id, "request_body_codec"), "zstd");
  EXPECT_EQ(column(id, "response_body_codec"), "zstd");
  EXPECT_LT(std::stoll(column(id, "length(request_body)")),
            static_cast<std::int64_t>(request.size()) / 3);
  EXPECT_EQ(std::stoll(column(id, "request_body_size")), static_cast<std::int64_t>(request.size()));

  ArchiveReader reader(path_);
  const std::optional<ExchangeRow> row = reader.exchange(id);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->request_body, request);
  EXPECT_EQ(row->response_body, response);
  EXPECT_EQ(row->request_body_size, static_cast<std::int64_t>(request.size()));
  EXPECT_EQ(row->response_body_size, static_cast<std::int64_t>(response.size()));
  // The listing (no payload) reports wire sizes too.
  const std::vector<ExchangeRow> listed = reader.exchanges(row->session_id, 0, 10);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].request_body_size, static_cast<std::int64_t>(request.size()));
  // Replay reads the answer through its own query.
  const std::optional<RecordedResponse> answer = reader.recordedResponse(id);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->body, response);
}

TEST_F(BodyCompressionTest, ShortAndIncompressibleBodiesStayVerbatim) {
  const std::string noise = randomBytes(8192);
  const std::int64_t id = record(httpExchange("POST", "/upload", noise, 200, "{\"ok\":true}"));

  EXPECT_EQ(column(id, "request_body_codec"), "<null>");
  EXPECT_EQ(column(id, "response_body_codec"), "<null>");
  EXPECT_EQ(column(id, "response_body"), "{\"ok\":true}");  // readable with plain SQL
  EXPECT_EQ(std::stoll(column(id, "length(request_body)")), 8192);
  const std::optional<ExchangeRow> row = ArchiveReader(path_).exchange(id);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->request_body, noise);
}

TEST_F(BodyCompressionTest, PlainBodiesOptionStoresEveryBodyVerbatim) {
  const std::string request = repetitiveJson(4096);
  RecorderOptions options = testing::testOptions();
  options.compress_bodies = false;
  {
    Recorder recorder(path_, testing::testSession(), options);
    testing::submit(recorder, httpExchange("POST", "/v1/responses", request, 200, request));
  }
  EXPECT_EQ(queryText(path_, "SELECT request_body_codec FROM exchanges"), "<null>");
  EXPECT_EQ(queryText(path_, "SELECT CAST(request_body AS TEXT) FROM exchanges"), request);
  EXPECT_EQ(queryText(path_, "SELECT CAST(response_body AS TEXT) FROM exchanges"), request);
}

TEST_F(BodyCompressionTest, EmptyBodiesRoundTrip) {
  const std::int64_t id = record(httpExchange("GET", "/health", "", 204, ""));
  const std::optional<ExchangeRow> row = ArchiveReader(path_).exchange(id);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->request_body, "");
  EXPECT_EQ(row->response_body_size, 0);
}

TEST_F(BodyCompressionTest, ADamagedFrameIsAClearErrorNotGarbage) {
  const std::int64_t id =
      record(httpExchange("POST", "/upload", repetitiveJson(4096), 200, repetitiveJson(999)));
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE exchanges SET request_body = substr(request_body, 1, length(request_body) / 2) "
        "WHERE id = " +
        std::to_string(id));
  }
  ArchiveReader reader(path_);
  EXPECT_THAT(testing::thrownMessage([&] { reader.exchange(id); }),
              HasSubstr("[store.body.corrupt]"));
  // The rest of the archive stays readable.
  ASSERT_TRUE(reader.recordedResponse(id));
  EXPECT_EQ(reader.recordedResponse(id)->body, repetitiveJson(999));
}

TEST_F(BodyCompressionTest, AnUnknownCodecIsNamed) {
  const std::int64_t id = record(httpExchange("POST", "/x", repetitiveJson(1024), 200, ""));
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec("UPDATE exchanges SET request_body_codec = 'brotli' WHERE id = " + std::to_string(id));
  }
  EXPECT_THAT(testing::thrownMessage([&] { ArchiveReader(path_).exchange(id); }),
              HasSubstr("[store.body.codec] body stored with codec 'brotli'"));
}

/// One MAGMA step whose input memory is `memory` and whose candidate returns `returned`.
protocol::Exchange stepWithMemories(const Json& memory, const Json& returned) {
  return testing::magmaExchange(
      testing::request("r1", {testing::input(1, "user", "Press sw3", memory)}),
      Json::array({testing::sayOutput("r1", 1, 0, returned, "Pressed")}));
}

TEST_F(BodyCompressionTest, LargeMemoriesAreKeptInTheBodiesThatHoldThemAndReadBackExactly) {
  const Json memory = testing::memoryOf("episode", 60);
  const Json returned = testing::memoryOf("episode", 61);
  record(stepWithMemories(memory, returned));

  // Neither memory is copied: each row says which body holds it (the input memory the request,
  // the returned one the response) and where. Tools and attributes stay verbatim for plain SQL.
  EXPECT_EQ(queryText(path_,
                      "SELECT group_concat(body_side || ':' || length(text), ',') FROM "
                      "(SELECT * FROM blobs WHERE codec = 'body' ORDER BY body_side)"),
            "0:0,1:0");
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM blobs WHERE codec IS NULL"), 3);
  EXPECT_EQ(queryInt(path_,
                     "SELECT count(*) FROM blobs WHERE codec = 'body' AND "
                     "body_exchange_id = (SELECT id FROM exchanges)"),
            2);

  ArchiveReader reader(path_);
  const std::int64_t step_id = queryInt(path_, "SELECT id FROM steps");
  const std::int64_t candidate_id = queryInt(path_, "SELECT id FROM candidates");
  const std::optional<Json> input = reader.inputJson(step_id);
  ASSERT_TRUE(input);
  EXPECT_EQ((*input)["memory"], memory);
  EXPECT_EQ((*input)["tools"], testing::benchTools());
  const std::optional<Json> output = reader.outputJson(candidate_id);
  ASSERT_TRUE(output);
  EXPECT_EQ((*output)["memory"], returned);
  const std::uint64_t hash = static_cast<std::uint64_t>(
      queryInt(path_, "SELECT memory_hash FROM steps WHERE id = " + std::to_string(step_id)));
  ASSERT_TRUE(reader.blob(hash));
  EXPECT_EQ(Json::parse(*reader.blob(hash)), memory);
}

TEST_F(BodyCompressionTest, AMemoryNamedTwiceIsReadBackAsTheDecoderKeptIt) {
  // JSON allows a member twice and the decoder keeps the later value: a reference must point
  // at that one, not at the decoy before it, in the request and in the response alike.
  const Json memory = testing::memoryOf("episode", 60);
  const Json returned = testing::memoryOf("episode", 61);
  protocol::Exchange ex = stepWithMemories(memory, returned);
  const std::string decoy = "\"memory\":" + testing::memoryOf("decoy", 70).dump() + ",";
  for (std::string* body : {&ex.request_body, &ex.response_body}) {
    const std::size_t at = body->find("\"memory\":");
    ASSERT_NE(at, std::string::npos);
    body->insert(at, decoy);
  }
  record(std::move(ex));

  ArchiveReader reader(path_);
  const std::optional<Json> input = reader.inputJson(queryInt(path_, "SELECT id FROM steps"));
  ASSERT_TRUE(input);
  EXPECT_EQ((*input)["memory"], memory);
  const std::optional<Json> output =
      reader.outputJson(queryInt(path_, "SELECT id FROM candidates"));
  ASSERT_TRUE(output);
  EXPECT_EQ((*output)["memory"], returned);
}

TEST_F(BodyCompressionTest, StepInputsViewSaysWhenItCannotShowACompressedMemory) {
  record(stepWithMemories(testing::memoryOf("episode", 60), testing::memoryOf("episode", 61)));
  EXPECT_EQ(queryInt(path_, "SELECT memory_compressed FROM step_inputs"), 1);
  EXPECT_EQ(queryText(path_, "SELECT json_type(input, '$.memory') FROM step_inputs"), "null");
  EXPECT_EQ(queryText(path_, "SELECT json_type(input, '$.tools') FROM step_inputs"), "array");
}

TEST_F(BodyCompressionTest, PlainBodiesOptionKeepsMemoriesReadableInTheView) {
  const Json memory = testing::memoryOf("episode", 60);
  RecorderOptions options = testing::testOptions();
  options.compress_bodies = false;
  {
    Recorder recorder(path_, testing::testSession(), options);
    testing::submit(recorder, stepWithMemories(memory, testing::memoryOf("episode", 61)));
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM blobs WHERE codec IS NOT NULL"), 0);
  EXPECT_EQ(queryInt(path_, "SELECT memory_compressed FROM step_inputs"), 0);
  EXPECT_EQ(
      Json::parse(queryText(path_, "SELECT json_extract(input, '$.memory') FROM step_inputs")),
      memory);
}

TEST_F(BodyCompressionTest, ARepeatedMemoryIsStoredOnceAndReadBack) {
  // The second step carries the memory the first step's candidate returned.
  const Json first = testing::memoryOf("episode", 60);
  const Json second = testing::memoryOf("episode", 61);
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, stepWithMemories(first, second));
    testing::submit(recorder, stepWithMemories(second, testing::memoryOf("episode", 62)));
  }
  // Three memories, each kept once, in the first body that held it.
  EXPECT_EQ(queryText(path_,
                      "SELECT group_concat(body_exchange_id || ':' || body_side, ',') FROM "
                      "(SELECT * FROM blobs WHERE codec = 'body' ORDER BY body_exchange_id, "
                      "body_side)"),
            "1:0,1:1,2:1");
  ArchiveReader reader(path_);
  const std::int64_t second_step = queryInt(path_, "SELECT max(id) FROM steps");
  EXPECT_EQ((*reader.inputJson(second_step))["memory"], second);
}

/// The MAGMA step of one episode at turn `turn`: its memory holds `turn` entries.
protocol::Exchange episodeStep(const std::string& episode, int turn) {
  return stepWithMemories(testing::memoryOf(episode, turn), testing::memoryOf(episode, turn + 1));
}

/// A step whose memory is `turns` entries of noise drawn from `seed`: nothing in it repeats
/// another seed's step, though each turn only appends to the previous one.
protocol::Exchange noisyStep(std::uint64_t seed, int turns) {
  std::mt19937_64 random(seed);
  Json history = Json::array();
  for (int i = 0; i <= turns; ++i) {
    history.push_back({{"author", "USER"}, {"content", std::to_string(random())}});
  }
  Json memory = {{"history", history}};
  Json returned = memory;
  returned["history"].push_back({{"author", "MODEL"}, {"content", "ok"}});
  return stepWithMemories(memory, returned);
}

/// The id of the exchange recorded `seq`-th.
std::int64_t idOfSeq(const std::string& path, std::size_t seq) {
  return queryInt(path, "SELECT id FROM exchanges WHERE seq = " + std::to_string(seq));
}

/// Reads back every exchange of `sent` (in seq order) through `reader` and checks both bodies.
void expectBodiesReadBack(ArchiveReader& reader, const std::string& path,
                          const std::vector<protocol::Exchange>& sent,
                          const std::vector<std::size_t>& order) {
  for (std::size_t i : order) {
    const std::optional<ExchangeRow> row = reader.exchange(idOfSeq(path, i));
    ASSERT_TRUE(row) << "seq " << i;
    EXPECT_EQ(row->request_body, sent[i].request_body) << "seq " << i;
    EXPECT_EQ(row->response_body, sent[i].response_body) << "seq " << i;
  }
}

std::vector<std::size_t> inOrder(std::size_t n) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    order[i] = i;
  }
  return order;
}

TEST_F(BodyCompressionTest, ConsecutiveMagmaBodiesAreSegmentsOfOneStreamAndReadBackExactly) {
  std::vector<protocol::Exchange> sent;
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    for (int turn = 10; turn < 50; ++turn) {
      sent.push_back(episodeStep("episode", turn));
      testing::submit(recorder, sent.back());
    }
  }
  // 16 exchanges a segment; each segment starts from the keyframe of the one before.
  EXPECT_EQ(queryText(path_,
                      "SELECT group_concat(coalesce(prefix_segment_id, 'none'), ',') FROM "
                      "(SELECT prefix_segment_id FROM body_segments ORDER BY id)"),
            "none,1,2");
  EXPECT_EQ(queryText(path_,
                      "SELECT group_concat(n, ',') FROM (SELECT count(*) AS n FROM exchanges "
                      "GROUP BY body_segment_id ORDER BY body_segment_id)"),
            "16,16,8");
  EXPECT_EQ(queryInt(path_,
                     "SELECT count(*) FROM exchanges WHERE request_body_codec <> 'zstd-segment' "
                     "OR response_body_codec <> 'zstd-segment'"),
            0);
  // A step costs what it adds: its new turn, not its whole memory again.
  const std::int64_t stored = queryInt(
      path_,
      "SELECT max(length(request_body) + length(response_body)) FROM exchanges WHERE seq > 0");
  EXPECT_LT(stored, static_cast<std::int64_t>(sent.back().request_body.size()) / 16);

  ArchiveReader reader(path_);
  expectBodiesReadBack(reader, path_, sent, inOrder(sent.size()));
  EXPECT_EQ(reader.recordedResponse(idOfSeq(path_, 39))->body, sent[39].response_body);
  // Read backwards by a fresh reader: each read decodes its own segment and keyframes.
  ArchiveReader backwards(path_);
  std::vector<std::size_t> order = inOrder(sent.size());
  std::reverse(order.begin(), order.end());
  expectBodiesReadBack(backwards, path_, sent, order);
  // The indexer reads them back too: every step decoded.
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), 40);
}

TEST_F(BodyCompressionTest, EverySixteenthSegmentStartsFromNothingSoAReadStaysBounded) {
  std::vector<protocol::Exchange> sent;
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    for (int turn = 0; turn < 16 * 17 + 1; ++turn) {
      sent.push_back(httpExchange("POST", "/v1/responses", repetitiveJson(300 + turn), 422,
                                  R"({"detail":"turn )" + std::to_string(turn) + R"("})"));
      testing::submit(recorder, sent.back());
    }
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM body_segments"), 18);
  EXPECT_EQ(queryText(path_,
                      "SELECT group_concat(id, ',') FROM body_segments WHERE prefix_segment_id "
                      "IS NULL"),
            "1,17");
  // The longest chain of keyframes a read decodes.
  EXPECT_EQ(queryInt(path_, R"sql(
      WITH RECURSIVE chain(id, prefix, length) AS (
        SELECT id, prefix_segment_id, 0 FROM body_segments
        UNION ALL
        SELECT c.id, s.prefix_segment_id, c.length + 1 FROM chain c
        JOIN body_segments s ON s.id = c.prefix)
      SELECT max(length) FROM chain)sql"),
            15);
  ArchiveReader reader(path_);
  expectBodiesReadBack(reader, path_, sent, {sent.size() - 1, 16 * 16 - 1, 16 * 16, 0});
}

TEST_F(BodyCompressionTest, ABodyTooLargeForASegmentIsCompressedAloneAndTheStreamGoesOn) {
  std::vector<protocol::Exchange> sent;
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    sent.push_back(episodeStep("episode", 20));
    sent.push_back(httpExchange("POST", "/v1/responses", repetitiveJson(5u << 20), 422, "{}"));
    sent.push_back(episodeStep("episode", 21));
    for (const protocol::Exchange& ex : sent) {
      testing::submit(recorder, ex);
    }
  }
  EXPECT_EQ(queryText(path_,
                      "SELECT request_body_codec || ' ' || coalesce(body_segment_id, 'none') "
                      "FROM exchanges WHERE seq = 1"),
            "zstd none");
  EXPECT_EQ(queryText(path_, "SELECT group_concat(body_segment_id, ',') FROM exchanges"), "1,1");
  ArchiveReader reader(path_);
  expectBodiesReadBack(reader, path_, sent, {2, 1, 0});
}

TEST_F(BodyCompressionTest, AnExchangeThatFailsAloneEndsItsStreamAndTheRestReadsBack) {
  std::vector<protocol::Exchange> kept;
  ::testing::internal::CaptureStderr();
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    protocol::Exchange first = episodeStep("episode", 20);
    first.recorded_seq = 5;
    protocol::Exchange stale = episodeStep("episode", 21);
    stale.recorded_seq = 3;  // before the last seq written: refused alone
    protocol::Exchange after = episodeStep("episode", 22);
    after.recorded_seq = 6;
    testing::submit(recorder, first);
    testing::submit(recorder, stale);
    testing::submit(recorder, after);
    kept = {first, after};
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("not written"));
  // The refused exchange's blocks went into its stream, so the stream ended with it.
  EXPECT_EQ(queryText(path_, "SELECT group_concat(body_segment_id, ',') FROM exchanges"), "1,2");
  ArchiveReader reader(path_);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const std::optional<ExchangeRow> row = reader.exchange(
        queryInt(path_, "SELECT id FROM exchanges WHERE seq = " + std::to_string(5 + i)));
    ASSERT_TRUE(row);
    EXPECT_EQ(row->request_body, kept[i].request_body);
    EXPECT_EQ(row->response_body, kept[i].response_body);
  }
}

TEST_F(BodyCompressionTest, ARolledBackBatchEndsEveryStreamAndLaterBodiesReadBack) {
  RecorderOptions options = testing::testOptions();
  Recorder recorder(path_, testing::testSession(), options);
  const protocol::Exchange before = episodeStep("episode", 30);
  testing::submit(recorder, before);
  recorder.flush();
  {  // the next batch fails as a whole, at its session counters
    SQLite::Database db(path_, SQLite::OPEN_READWRITE, 60000);
    db.exec(
        "CREATE TRIGGER refuse_counters BEFORE UPDATE OF exchange_count ON sessions "
        "BEGIN SELECT RAISE(ABORT, 'counters refused'); END");
  }
  ::testing::internal::CaptureStderr();
  testing::submit(recorder, episodeStep("episode", 31));
  recorder.flush();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("not committed"));
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE, 60000);
    db.exec("DROP TRIGGER refuse_counters");
  }
  const protocol::Exchange later = episodeStep("episode", 32);
  testing::submit(recorder, later);
  recorder.close();

  EXPECT_EQ(recorder.stats().write_errors, 1u);
  EXPECT_EQ(queryText(path_, "SELECT group_concat(body_segment_id, ',') FROM exchanges"), "1,2");
  ArchiveReader reader(path_);
  expectBodiesReadBack(reader, path_, {before, later}, {1, 0});
}

TEST_F(BodyCompressionTest, ADamagedSegmentIsAClearErrorNotGarbage) {
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, episodeStep("episode", 20));
    testing::submit(recorder, episodeStep("episode", 21));
    testing::submit(recorder, httpExchange("GET", "/other", "", 200, R"({"status":"ready"})"));
  }
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec("UPDATE exchanges SET request_body = zeroblob(length(request_body)) WHERE seq = 0");
  }
  ArchiveReader reader(path_);
  EXPECT_THAT(testing::thrownMessage([&] { reader.exchange(idOfSeq(path_, 1)); }),
              HasSubstr("[store.body.corrupt] body segment 1"));
  EXPECT_EQ(reader.exchange(idOfSeq(path_, 2))->response_body, R"({"status":"ready"})");
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("DELETE FROM body_segments");
  }
  ArchiveReader after_loss(path_);
  EXPECT_THAT(testing::thrownMessage([&] { after_loss.exchange(idOfSeq(path_, 1)); }),
              HasSubstr("[store.body.segment] body segment 1 is missing"));
}

/// A seed for the generator: AGENTVCR_SEGMENT_SEED replays one, else a fresh one.
std::uint64_t segmentSeed() {
  if (const char* given = std::getenv("AGENTVCR_SEGMENT_SEED")) {
    return std::stoull(given);
  }
  return std::random_device{}();
}

TEST_F(BodyCompressionTest, ASeededMixOfRoutesSizesBatchesAndFailuresReadsBackByteForByte) {
  const std::uint64_t seed = segmentSeed();
  SCOPED_TRACE("AGENTVCR_SEGMENT_SEED=" + std::to_string(seed));
  std::mt19937_64 random(seed);
  auto draw = [&](std::uint64_t n) { return random() % n; };
  std::vector<protocol::Exchange> kept;
  std::vector<int> turns(3, 5);
  ::testing::internal::CaptureStderr();
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    std::int64_t next_seq = 0;
    for (int i = 0; i < 150; ++i) {
      protocol::Exchange ex;
      switch (draw(6)) {
        case 0:
        case 1:
        case 2: {  // a step of one of three episodes, interleaved on one route
          const std::size_t episode = draw(turns.size());
          ex = episodeStep("episode" + std::to_string(episode), turns[episode]++);
          break;
        }
        case 3:  // a step of noise, now and then a large one
          ex = noisyStep(random(), draw(8) == 0 ? 4000 : static_cast<int>(draw(60)));
          break;
        case 4:  // a MAGMA route with small and empty bodies
          ex = httpExchange("GET", "/health", "", 200, draw(2) == 0 ? "" : R"({"status":"ready"})");
          break;
        default:  // plain HTTP, outside every segment
          ex = httpExchange("POST", "/other", repetitiveJson(draw(4000)), 200, "{}");
          break;
      }
      const bool refused = next_seq > 0 && draw(20) == 0;
      ex.recorded_seq = refused ? next_seq - 1 : next_seq;
      testing::submit(recorder, ex);
      if (!refused) {
        kept.push_back(ex);
        ++next_seq;
      }
      if (draw(10) == 0) {
        recorder.flush();
      }
    }
  }
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges"),
            static_cast<std::int64_t>(kept.size()));
  ArchiveReader reader(path_);
  std::vector<std::size_t> order = inOrder(kept.size());
  std::shuffle(order.begin(), order.end(), random);
  expectBodiesReadBack(reader, path_, kept, order);
  ArchiveReader in_order(path_);
  expectBodiesReadBack(in_order, path_, kept, inOrder(kept.size()));
}

TEST_F(BodyCompressionTest, PlainHttpBodiesAreCompressedAlone) {
  const std::string body = repetitiveJson(4096);
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, httpExchange("POST", "/other", body, 200, body));
    testing::submit(recorder, httpExchange("POST", "/other", body, 200, body));
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM body_segments"), 0);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE request_body_codec = 'zstd'"), 2);
}

TEST_F(BodyCompressionTest, ABodyAnOlderRecorderCompressedAgainstADictionaryStillReadsBack) {
  // Schema 9 to 15 kept MAGMA bodies as frames against an earlier body: such rows stay
  // readable, and a missing dictionary is named.
  const std::string dictionary = repetitiveJson(3000);
  const std::string body = repetitiveJson(3100);
  std::string frame(ZSTD_compressBound(body.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  const std::size_t size =
      ZSTD_compress_usingDict(cctx, frame.data(), frame.size(), body.data(), body.size(),
                              dictionary.data(), dictionary.size(), 1);
  ZSTD_freeCCtx(cctx);
  ASSERT_EQ(ZSTD_isError(size), 0u);
  frame.resize(size);
  const std::int64_t id = record(httpExchange("POST", "/other", "", 200, R"({"status":"ready"})"));
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    SQLite::Statement insert(
        db, "INSERT INTO body_dictionaries (content, codec, size) VALUES (?, NULL, ?)");
    insert.bind(1, dictionary.data(), static_cast<int>(dictionary.size()));
    insert.bind(2, static_cast<std::int64_t>(dictionary.size()));
    insert.exec();
    SQLite::Statement update(db,
                             "UPDATE exchanges SET request_body = ?, request_body_codec = 'zstd', "
                             "request_body_size = ?, request_body_dictionary = 1 WHERE id = ?");
    update.bind(1, frame.data(), static_cast<int>(frame.size()));
    update.bind(2, static_cast<std::int64_t>(body.size()));
    update.bind(3, id);
    update.exec();
  }
  EXPECT_EQ(ArchiveReader(path_).exchange(id)->request_body, body);
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("DELETE FROM body_dictionaries");
  }
  EXPECT_THAT(testing::thrownMessage([&] { ArchiveReader(path_).exchange(id); }),
              HasSubstr("[store.body.dictionary] body dictionary 1"));
}

}  // namespace
}  // namespace agentvcr::store
