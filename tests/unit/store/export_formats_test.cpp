// HAR 1.2 and curl exports: structure, encodings and shell quoting.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/export.hpp"
#include "store_test_support.hpp"
#include "transfer_fixture.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using testing::binaryBytes;
using testing::httpExchange;
using testing::kFirstEventNs;
using testing::recordSample;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

void expectField(const Json& object, const std::string& key, Json::value_t type) {
  ASSERT_TRUE(object.contains(key)) << key << " missing in " << object.dump().substr(0, 200);
  const Json& value = object[key];
  if (type == Json::value_t::number_integer) {
    EXPECT_TRUE(value.is_number_integer()) << key;
  } else if (type == Json::value_t::number_float) {
    EXPECT_TRUE(value.is_number()) << key;
  } else {
    EXPECT_EQ(value.type(), type) << key;
  }
}

Json harOf(const std::string& path) {
  const ArchiveReader reader(path);
  std::ostringstream text;
  EXPECT_EQ(exportHar(reader, selectExchanges(reader, {}), "9.9.9", text), 6u);
  return Json::parse(text.str());
}

TEST(ExportFormatsTest, HarHasEveryRequiredFieldWithItsType) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  recordSample(path, "har");
  const Json har = harOf(path);
  using T = Json::value_t;
  const Json& log = har.at("log");
  EXPECT_EQ(log.at("version"), "1.2");
  EXPECT_EQ(log.at("creator").at("name"), "agentvcr");
  EXPECT_EQ(log.at("creator").at("version"), "9.9.9");
  ASSERT_EQ(log.at("entries").size(), 6u);
  for (const Json& entry : log["entries"]) {
    expectField(entry, "startedDateTime", T::string);
    EXPECT_EQ(entry["startedDateTime"].get<std::string>().size(), 24u);  // ...T..:..:..mmmZ
    expectField(entry, "time", T::number_float);
    expectField(entry, "request", T::object);
    expectField(entry, "response", T::object);
    expectField(entry, "cache", T::object);
    expectField(entry, "timings", T::object);
    expectField(entry, "_agentvcr_exchange_id", T::number_integer);
    for (const char* key : {"_magma_steps", "_env_feedback", "_a2a_calls", "_stream_events"}) {
      expectField(entry, key, T::array);
    }
    const Json& request = entry["request"];
    for (const char* key : {"method", "url", "httpVersion"}) {
      expectField(request, key, T::string);
    }
    for (const char* key : {"cookies", "headers", "queryString"}) {
      expectField(request, key, T::array);
    }
    expectField(request, "headersSize", T::number_integer);
    expectField(request, "bodySize", T::number_integer);
    EXPECT_EQ(request["url"].get<std::string>().rfind("http://agent.test:9000/base/", 0), 0u);
    for (const Json& header : request["headers"]) {
      expectField(header, "name", T::string);
      expectField(header, "value", T::string);
    }
    const Json& response = entry["response"];
    expectField(response, "status", T::number_integer);
    for (const char* key : {"statusText", "httpVersion", "redirectURL"}) {
      expectField(response, key, T::string);
    }
    expectField(response, "headers", T::array);
    expectField(response, "cookies", T::array);
    expectField(response, "content", T::object);
    expectField(response["content"], "size", T::number_integer);
    expectField(response["content"], "mimeType", T::string);
    expectField(response, "headersSize", T::number_integer);
    expectField(response, "bodySize", T::number_integer);
    for (const char* key : {"send", "wait", "receive"}) {
      expectField(entry["timings"], key, T::number_float);
      EXPECT_GE(entry["timings"][key].get<double>(), 0.0) << key;
    }
  }
  // The MAGMA step, the A2A call and the stream's times travel in the extension fields.
  const Json& entries = log["entries"];
  EXPECT_EQ(entries[0]["_magma_steps"][0]["candidates"].size(), 2u);
  EXPECT_EQ(entries[1]["_env_feedback"].size(), 1u);
  EXPECT_EQ(entries[2]["_a2a_calls"][0]["method"], "message/send");
  EXPECT_EQ(entries[3]["_stream_events"][0]["at_ns"], kFirstEventNs);
  // Sent to the agent 0.03 ms after the start, its first byte 0.07 ms later.
  EXPECT_DOUBLE_EQ(entries[0]["timings"]["send"].get<double>(), 0.03);
  EXPECT_DOUBLE_EQ(entries[0]["timings"]["wait"].get<double>(), 0.07);
  EXPECT_DOUBLE_EQ(entries[0]["time"].get<double>(), 0.2);
}

TEST(ExportFormatsTest, HarBase64BodiesDecodeToTheRecordedBytes) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  recordSample(path, "har");
  const Json binary = harOf(path)["log"]["entries"][4];
  EXPECT_EQ(binary["response"]["content"]["encoding"], "base64");
  EXPECT_EQ(testing::decodeBase64(binary["response"]["content"]["text"]), binaryBytes());
  EXPECT_EQ(binary["request"]["postData"]["_encoding"], "base64");
  EXPECT_EQ(testing::decodeBase64(binary["request"]["postData"]["text"]), binaryBytes());
  EXPECT_EQ(binary["request"]["queryString"],
            Json::parse(R"([{"name":"x","value":"1"},{"name":"y","value":"two"}])"));
  EXPECT_EQ(binary["response"]["statusText"], "Created");
}

TEST(ExportFormatsTest, ShellQuoteSurvivesQuotesAndNewlines) {
  EXPECT_EQ(shellQuote("plain"), "'plain'");
  EXPECT_EQ(shellQuote("it's\nhere"), "'it'\\''s\nhere'");
  EXPECT_EQ(shellQuote(""), "''");
}

TEST(ExportFormatsTest, CurlCommandResendsTheBodyAsRecorded) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  const std::string body = "{\"say\": \"it's\"}\nline two $HOME `x`";
  {
    Recorder recorder(path, testSession(), testOptions());
    auto ex = httpExchange("POST", "/v1/responses", body);
    ex.request_headers.push_back({"Content-Length", std::to_string(body.size())});
    ex.request_headers.push_back({"Authorization", "Bearer live-secret"});
    submit(recorder, ex);
    recorder.close();
  }
  const ArchiveReader reader(path);
  std::ostringstream text;
  ASSERT_EQ(exportCurl(reader, selectExchanges(reader, {}), text), 1u);
  const std::string command = text.str();
  EXPECT_NE(command.find("--data-binary " + shellQuote(body)), std::string::npos) << command;
  EXPECT_EQ(command.find("Host:"), std::string::npos);
  EXPECT_EQ(command.find("Content-Length"), std::string::npos);
  EXPECT_EQ(command.find("live-secret"), std::string::npos) << "a secret left the archive";
  EXPECT_NE(command.find("Authorization"), std::string::npos);

  // The shell gives back the exact bytes: print the quoted word instead of sending it.
  const std::string script = dir.file("echo.sh");
  std::ofstream(script) << "printf '%s' " << shellQuote(body) << " > " << dir.file("out.txt");
  ASSERT_EQ(std::system(("sh " + script).c_str()), 0);
  std::ifstream in(dir.file("out.txt"), std::ios::binary);
  const std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(printed, body);
}

TEST(ExportFormatsTest, CurlPipesBinaryBodiesThroughBase64) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  recordSample(path, "curl");
  const ArchiveReader reader(path);
  std::ostringstream text;
  exportCurl(reader, selectExchanges(reader, {}), text);
  EXPECT_NE(text.str().find("| base64 -d | curl -sS -X 'PUT' "
                            "'http://agent.test:9000/base/upload?x=1&y=two'"),
            std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace agentvcr::store
