// Bodies in the archive (schema v7): compressed with zstd when that pays, verbatim otherwise,
// and always read back byte for byte at their wire size. MAGMA bodies against a dictionary, and
// memories, likewise (schema v9). Checked through the Recorder and the ArchiveReader, with raw
// SQL probes for what is actually on disk.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  const std::int64_t id = record(httpExchange("POST", "/v1/responses", request, 200, response));

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
      record(httpExchange("POST", "/v1/responses", repetitiveJson(4096), 200, repetitiveJson(999)));
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

TEST_F(BodyCompressionTest, LargeMemoriesAreStoredCompressedAndReadBackExactly) {
  const Json memory = testing::memoryOf("episode", 60);
  const Json returned = testing::memoryOf("episode", 61);
  record(stepWithMemories(memory, returned));

  // Both memories are compressed; tools and attributes stay verbatim for plain SQL.
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM blobs WHERE codec = 'zstd'"), 2);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM blobs WHERE codec IS NULL"), 3);
  EXPECT_LT(queryInt(path_, "SELECT max(length(text)) FROM blobs WHERE codec = 'zstd'"),
            static_cast<std::int64_t>(memory.dump().size()) / 3);

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
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM blobs WHERE codec = 'zstd'"), 3);
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

TEST_F(BodyCompressionTest, ConsecutiveMagmaBodiesShareADictionaryAndReadBackExactly) {
  std::vector<protocol::Exchange> sent;
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    for (int turn = 10; turn < 30; ++turn) {
      sent.push_back(episodeStep("episode", turn));
      testing::submit(recorder, sent.back());
    }
  }
  // One dictionary per side, made from the first step; every later body compresses against it.
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM body_dictionaries"), 2);
  EXPECT_EQ(queryInt(path_,
                     "SELECT count(*) FROM exchanges WHERE request_body_dictionary IS NULL "
                     "OR response_body_dictionary IS NULL"),
            0);
  const std::int64_t stored =
      queryInt(path_, "SELECT max(length(request_body)) FROM exchanges WHERE seq > 0");
  EXPECT_LT(stored, static_cast<std::int64_t>(sent.back().request_body.size()) / 8);

  ArchiveReader reader(path_);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const std::int64_t id =
        queryInt(path_, "SELECT id FROM exchanges WHERE seq = " + std::to_string(i));
    const std::optional<ExchangeRow> row = reader.exchange(id);
    ASSERT_TRUE(row);
    EXPECT_EQ(row->request_body, sent[i].request_body);
    EXPECT_EQ(row->response_body, sent[i].response_body);
    EXPECT_EQ(reader.recordedResponse(id)->body, sent[i].response_body);
  }
  // The indexer reads them back too: every step decoded.
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), 20);
}

TEST_F(BodyCompressionTest, ABodyThatNoLongerCompressesWellBecomesTheNextDictionary) {
  std::vector<protocol::Exchange> sent;
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    sent.push_back(noisyStep(1, 100));
    sent.push_back(noisyStep(1, 101));
    sent.push_back(noisyStep(2, 100));
    sent.push_back(noisyStep(2, 101));
    for (const protocol::Exchange& ex : sent) {
      testing::submit(recorder, ex);
    }
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(DISTINCT request_body_dictionary) FROM exchanges"), 2);
  EXPECT_EQ(queryInt(path_,
                     "SELECT count(*) FROM exchanges WHERE request_body_dictionary = "
                     "(SELECT request_body_dictionary FROM exchanges WHERE seq = 3)"),
            2);
  ArchiveReader reader(path_);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const std::optional<ExchangeRow> row = reader.exchange(
        queryInt(path_, "SELECT id FROM exchanges WHERE seq = " + std::to_string(i)));
    ASSERT_TRUE(row);
    EXPECT_EQ(row->request_body, sent[i].request_body);
  }
}

TEST_F(BodyCompressionTest, MoreDictionariesThanAReaderKeepsAllReadBackExactly) {
  // 36 unrelated steps of about 250 KB a side: 72 dictionaries, more than the 16 MiB a reader
  // keeps, so reading them back and forth evicts and reloads.
  std::vector<protocol::Exchange> sent;
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    for (std::uint64_t seed = 1; seed <= 36; ++seed) {
      sent.push_back(noisyStep(seed, 5000));
      testing::submit(recorder, sent.back());
    }
  }
  ASSERT_EQ(queryInt(path_, "SELECT count(*) FROM body_dictionaries"), 72);
  ASSERT_GT(queryInt(path_, "SELECT sum(size) FROM body_dictionaries"), 16 << 20);
  ArchiveReader reader(path_);
  auto check = [&](std::size_t i) {
    const std::int64_t id =
        queryInt(path_, "SELECT id FROM exchanges WHERE seq = " + std::to_string(i));
    const std::optional<ExchangeRow> row = reader.exchange(id);
    ASSERT_TRUE(row);
    EXPECT_EQ(row->request_body, sent[i].request_body) << "step " << i;
    EXPECT_EQ(row->response_body, sent[i].response_body) << "step " << i;
  };
  for (std::size_t i = 0; i < sent.size(); ++i) {
    check(i);
  }
  for (std::size_t i = sent.size(); i-- > 0;) {
    check(i);
  }
  check(0);
}

TEST_F(BodyCompressionTest, PlainHttpBodiesAreCompressedAlone) {
  const std::string body = repetitiveJson(4096);
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, httpExchange("POST", "/other", body, 200, body));
    testing::submit(recorder, httpExchange("POST", "/other", body, 200, body));
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM body_dictionaries"), 0);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE request_body_codec = 'zstd'"), 2);
}

TEST_F(BodyCompressionTest, AMissingDictionaryIsNamedAndTheRestStaysReadable) {
  {
    Recorder recorder(path_, testing::testSession(), testing::testOptions());
    testing::submit(recorder, episodeStep("episode", 20));
    testing::submit(recorder, httpExchange("GET", "/health", "", 200, R"({"status":"ready"})"));
  }
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec("DELETE FROM body_dictionaries");
  }
  ArchiveReader reader(path_);
  EXPECT_THAT(testing::thrownMessage([&] { reader.exchange(1); }),
              HasSubstr("[store.body.dictionary] body dictionary"));
  ASSERT_TRUE(reader.exchange(2));
  EXPECT_EQ(reader.exchange(2)->response_body, R"({"status":"ready"})");
}

TEST_F(BodyCompressionTest, ADictionaryOfARolledBackBatchIsNeverNamedLater) {
  RecorderOptions options = testing::testOptions();
  Recorder recorder(path_, testing::testSession(), options);
  testing::submit(recorder, noisyStep(1, 100));
  recorder.flush();
  {  // the next batch fails as a whole, at its session counters
    SQLite::Database db(path_, SQLite::OPEN_READWRITE, 60000);
    db.exec(
        "CREATE TRIGGER refuse_counters BEFORE UPDATE OF exchange_count ON sessions "
        "BEGIN SELECT RAISE(ABORT, 'counters refused'); END");
  }
  ::testing::internal::CaptureStderr();
  testing::submit(recorder, noisyStep(2, 100));
  recorder.flush();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("not committed"));
  {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE, 60000);
    db.exec("DROP TRIGGER refuse_counters");
  }
  const protocol::Exchange later = noisyStep(2, 101);
  testing::submit(recorder, later);
  recorder.close();

  EXPECT_EQ(recorder.stats().write_errors, 1u);
  ArchiveReader reader(path_);
  const std::optional<ExchangeRow> row =
      reader.exchange(queryInt(path_, "SELECT max(id) FROM exchanges"));
  ASSERT_TRUE(row);
  EXPECT_EQ(row->request_body, later.request_body);
}

}  // namespace
}  // namespace agentvcr::store
