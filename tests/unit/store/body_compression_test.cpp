// Bodies in the archive (schema v7): compressed with zstd when that pays, verbatim otherwise,
// and always read back byte for byte at their wire size. Memories (schema v9) likewise. Checked
// through the Recorder and the ArchiveReader, with raw SQL probes for what is actually on disk.

#include <cstdint>
#include <optional>
#include <random>
#include <string>

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
    db.exec("UPDATE exchanges SET request_body = substr(request_body, 1, 20) WHERE id = " +
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

}  // namespace
}  // namespace agentvcr::store
