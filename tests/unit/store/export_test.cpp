#include "agentvcr/store/export.hpp"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

std::vector<Json> parseLines(const std::string& text) {
  std::vector<Json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(Json::parse(line));
  }
  return lines;
}

/// The bytes of a body as exported: a string, or {"base64": ...} decoded here independently.
std::string bodyBytes(const Json& body) {
  if (body.is_string()) {
    return body.get<std::string>();
  }
  const std::string text = body.at("base64").get<std::string>();
  EXPECT_EQ(text.size() % 4, 0u);
  return testing::decodeBase64(text);
}

class ExportTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
};

TEST_F(ExportTest, RoundTripsExchangesInTheOrderAsked) {
  const std::string binary("\x89PNG\r\n\x1a\n\x00\xff\xfe", 11);
  {
    Recorder recorder(path_, testSession(), testOptions());
    submit(recorder,
           magmaExchange(request("r1", {input(1, "user", "Press \u2192 sw1", memoryOf("x", 0))}),
                         Json::array({sayOutput("r1", 1, 0, memoryOf("x", 2), "d\u00e9j\u00e0")})));
    protocol::Exchange upload = httpExchange("PUT", "/upload?x=1", binary, 201, "");
    upload.upstream_first_byte_ns = 0;  // never came
    upload.upstream_last_byte_ns = 0;
    upload.ended_ns = 0;
    upload.outcome = protocol::ExchangeOutcome::UpstreamTimeout;
    upload.error = "[proxy.upstream.timeout] no answer";
    submit(recorder, upload);
    // Every length modulo 3, and bytes that look like UTF-8 but are not (overlong, surrogate).
    submit(recorder, httpExchange("POST", "/a", std::string("\xc0\xaf", 2), 200, "x"));
    submit(recorder, httpExchange("POST", "/b", std::string("\xed\xa0\x80z", 4), 200, "xy"));
  }
  ArchiveReader reader(path_);
  std::ostringstream out;
  const std::vector<std::int64_t> ids = {2, 1, 3, 4, 999};
  EXPECT_EQ(exportJsonl(reader, ids, out), 4u);  // 999 does not exist
  const std::string text = out.str();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::vector<Json> lines = parseLines(text);
  ASSERT_EQ(lines.size(), 4u);

  const std::vector<std::string> keys = {"id",
                                         "session_id",
                                         "seq",
                                         "method",
                                         "target",
                                         "http_version",
                                         "status",
                                         "outcome",
                                         "error",
                                         "fault",
                                         "card_rewrite",
                                         "started_ns",
                                         "request_ended_ns",
                                         "upstream_sent_ns",
                                         "upstream_first_byte_ns",
                                         "upstream_last_byte_ns",
                                         "ended_ns",
                                         "protocol",
                                         "route",
                                         "request_headers",
                                         "request_body",
                                         "response_headers",
                                         "response_body"};
  // Keys in the documented order, on every line.
  std::istringstream raw(text);
  std::string first_line;
  std::getline(raw, first_line);
  std::size_t at = 0;
  for (const std::string& key : keys) {
    const std::size_t found = first_line.find("\"" + key + "\":", at);
    ASSERT_NE(found, std::string::npos) << key;
    at = found;
  }

  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Json& line = lines[i];
    ASSERT_EQ(line.size(), keys.size());
    std::optional<ExchangeRow> row = reader.exchange(ids[i]);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(line["id"], row->id);
    EXPECT_EQ(line["session_id"], row->session_id);
    EXPECT_EQ(line["seq"], row->seq);
    EXPECT_EQ(line["method"], row->method);
    EXPECT_EQ(line["target"], row->target);
    EXPECT_EQ(line["http_version"], row->http_version);
    EXPECT_EQ(line["status"], row->status);
    EXPECT_EQ(line["outcome"], row->outcome);
    EXPECT_EQ(line["started_ns"], row->started_ns);
    EXPECT_EQ(line["protocol"], row->protocol);
    EXPECT_EQ(line["route"], row->route);
    EXPECT_EQ(bodyBytes(line["request_body"]), row->request_body);
    EXPECT_EQ(bodyBytes(line["response_body"]), row->response_body);
    ASSERT_EQ(line["request_headers"].size(), row->request_headers.size());
    for (std::size_t h = 0; h < row->request_headers.size(); ++h) {
      EXPECT_EQ(line["request_headers"][h],
                Json::array({row->request_headers[h].name, row->request_headers[h].value}));
    }
    ASSERT_EQ(line["response_headers"].size(), row->response_headers.size());
  }

  // The upload: binary body as base64, unknown moments and the error.
  const Json& upload = lines[0];
  EXPECT_EQ(upload["method"], "PUT");
  EXPECT_EQ(upload["target"], "/upload?x=1");
  EXPECT_EQ(upload["status"], 201);
  EXPECT_EQ(upload["request_body"], Json({{"base64", "iVBORw0KGgoA//4="}}));
  EXPECT_EQ(upload["response_body"], "");
  EXPECT_TRUE(upload["upstream_first_byte_ns"].is_null());
  EXPECT_TRUE(upload["upstream_last_byte_ns"].is_null());
  EXPECT_TRUE(upload["ended_ns"].is_null());
  EXPECT_EQ(upload["error"], "[proxy.upstream.timeout] no answer");
  EXPECT_EQ(upload["http_version"], 11);

  // The MAGMA exchange: UTF-8 bodies stay text, byte for byte.
  const Json& magma = lines[1];
  EXPECT_TRUE(magma["error"].is_null());
  EXPECT_EQ(magma["route"], "responses");
  EXPECT_EQ(magma["protocol"], "magma");
  ASSERT_TRUE(magma["request_body"].is_string());
  EXPECT_NE(magma["request_body"].get<std::string>().find("Press \u2192 sw1"), std::string::npos);
  ASSERT_TRUE(magma["response_body"].is_string());
  EXPECT_NE(magma["response_body"].get<std::string>().find("d\u00e9j\u00e0"), std::string::npos);
  EXPECT_NE(magma["upstream_first_byte_ns"], nullptr);
  EXPECT_NE(magma["upstream_last_byte_ns"], nullptr);

  // An overlong "/" and a lone surrogate are not UTF-8.
  EXPECT_EQ(lines[2]["request_body"], Json({{"base64", "wK8="}}));
  EXPECT_EQ(lines[2]["response_body"], "x");
  EXPECT_EQ(lines[3]["request_body"], Json({{"base64", "7aCAeg=="}}));
  EXPECT_EQ(lines[3]["response_body"], "xy");
}

TEST_F(ExportTest, ExportsAConversationsExchanges) {
  {
    Recorder recorder(path_, testSession(), testOptions());
    submit(recorder, httpExchange("GET", "/health", "", 200, R"({"status":"ready"})"));
    submit(recorder, magmaExchange(request("r1", {input(1, "user", "Press sw1", memoryOf("x", 0))}),
                                   Json::array({sayOutput("r1", 1, 0, memoryOf("x", 2), "ok")})));
    submit(recorder,
           magmaExchange(request("r2", {input(2, "user", "Another one", memoryOf("y", 0))}),
                         Json::array({sayOutput("r2", 2, 0, memoryOf("y", 2), "ok")})));
    submit(recorder, magmaExchange(request("r3", {input(1, "user", "And sw2", memoryOf("x", 2))}),
                                   Json::array({sayOutput("r3", 1, 0, memoryOf("x", 4), "ok")})));
  }
  ArchiveReader reader(path_);
  const std::int64_t conversation = reader.step(1)->conversation_id;
  const std::vector<std::int64_t> ids = reader.exchangeIdsOfConversation(conversation);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{2, 4}));
  std::ostringstream out;
  EXPECT_EQ(exportJsonl(reader, ids, out), 2u);
  std::vector<Json> lines = parseLines(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["id"], 2);
  EXPECT_EQ(lines[1]["id"], 4);
  EXPECT_EQ(lines[1]["seq"], 3);

  std::ostringstream none;
  EXPECT_EQ(exportJsonl(reader, {}, none), 0u);
  EXPECT_TRUE(none.str().empty());
}

TEST_F(ExportTest, AFailingStreamThrows) {
  {
    Recorder recorder(path_, testSession(), testOptions());
    submit(recorder, httpExchange("GET", "/x"));
  }
  ArchiveReader reader(path_);
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  EXPECT_THROW(exportJsonl(reader, {1}, out), std::runtime_error);
}

}  // namespace
}  // namespace agentvcr::store
