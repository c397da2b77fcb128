#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr/protocol/redact.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using testing::allBytes;
using ::testing::HasSubstr;
using testing::httpExchange;
using ::testing::Not;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

const std::string kBearer = "sk-live-7f3a9c1e55d04b2a";
const std::string kApiKey = "key-4c1d9e8b2f6a0357";
const std::string kCookie = "sess-0b9e77c1a3d2";
const std::string kBackendSecret = "coach-backend-secret-51f0e2d8";

std::string recordedHeader(const protocol::Headers& headers, const std::string& name) {
  for (const protocol::HeaderField& h : headers) {
    if (h.name == name) {
      return h.value;
    }
  }
  return "<absent>";
}

TEST(Redaction, SecretHeadersNeverReachTheDisk) {
  TempDir dir;
  const std::string path = dir.file("archive.sqlite");
  std::int64_t exchange_id = 0;
  {
    Recorder recorder(path, testSession(), testOptions());
    protocol::Exchange ex = httpExchange("POST", "/v1/responses", "{}", 422, "{}");
    ex.request_headers.push_back({"Authorization", "Bearer " + kBearer});
    ex.request_headers.push_back({"X-Api-Key", kApiKey});
    ex.response_headers.push_back({"Set-Cookie", "session=" + kCookie});
    submit(recorder, ex);
    recorder.flush();

    ArchiveReader reader(path);
    std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 1);
    ASSERT_EQ(rows.size(), 1u);
    exchange_id = rows[0].id;
    std::optional<ExchangeRow> row = reader.exchange(exchange_id);
    ASSERT_TRUE(row.has_value());
    EXPECT_THAT(recordedHeader(row->request_headers, "Authorization"), HasSubstr("REDACTED-"));
    EXPECT_THAT(recordedHeader(row->request_headers, "X-Api-Key"), HasSubstr("REDACTED-"));
    EXPECT_THAT(recordedHeader(row->response_headers, "Set-Cookie"), HasSubstr("REDACTED-"));
    EXPECT_EQ(recordedHeader(row->request_headers, "Host"), "127.0.0.1:8080");  // kept
    // Checked while the recorder runs (-wal file present) and again after close below.
    const std::string bytes = allBytes(dir);
    EXPECT_THAT(bytes, Not(HasSubstr(kBearer)));
    EXPECT_THAT(bytes, Not(HasSubstr(kApiKey)));
    EXPECT_THAT(bytes, Not(HasSubstr(kCookie)));
  }
  const std::string bytes = allBytes(dir);
  EXPECT_THAT(bytes, Not(HasSubstr(kBearer)));
  EXPECT_THAT(bytes, Not(HasSubstr(kApiKey)));
  EXPECT_THAT(bytes, Not(HasSubstr(kCookie)));
}

TEST(Redaction, CoachingSessionBodyBackendHeadersAreRedacted) {
  TempDir dir;
  const std::string path = dir.file("archive.sqlite");
  const std::string body =
      R"({"backends":{"local":{"type":"ollama","endpoint":"http://127.0.0.1:11434/v1/chat/completions",)"
      R"("default_model":"qwen","headers":{"Authorization":"Bearer )" +
      kBackendSecret +
      R"("},"timeout":60,"max_retry":3}},"provider":"llm","endpoint":null,"connect_timeout":10,)"
      R"("capture_logs":true})";
  {
    Recorder recorder(path, testSession(), testOptions());
    submit(recorder, httpExchange("PUT", "/v1/coaching/sessions/run-2026-10-04-a", body, 204));
    submit(recorder, httpExchange("POST", "/not-coaching", "{\"headers\":{\"a\":\"b\"}}"));
    recorder.close();

    ArchiveReader reader(path);
    std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 10);
    ASSERT_EQ(rows.size(), 2u);
    std::optional<ExchangeRow> put = reader.exchange(rows[0].id);
    ASSERT_TRUE(put.has_value());
    EXPECT_TRUE(put->request_body_redacted);
    EXPECT_EQ(put->protocol, "magma");
    EXPECT_THAT(put->request_body, Not(HasSubstr(kBackendSecret)));
    EXPECT_THAT(put->request_body, HasSubstr("REDACTED-"));
    EXPECT_EQ(put->request_valid, std::optional<bool>(true));

    std::optional<ExchangeRow> other = reader.exchange(rows[1].id);
    ASSERT_TRUE(other.has_value());
    EXPECT_FALSE(other->request_body_redacted);
    EXPECT_EQ(other->request_body, "{\"headers\":{\"a\":\"b\"}}");  // verbatim
  }
  EXPECT_THAT(allBytes(dir), Not(HasSubstr(kBackendSecret)));
}

}  // namespace
}  // namespace agentvcr::store
