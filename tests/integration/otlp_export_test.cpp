// Recordings as OpenTelemetry traces over real loopback sockets: `agentvcr export --format otlp`
// into an in-process OTLP/HTTP receiver that checks every request's shape, over https with the
// fixture certificate, against a collector that fails first; and the live exporter beside a
// recording proxy, with the collector down and then up.

#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/export_command.hpp"
#include "agentvcr/otel/live_exporter.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/server.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_archive_fixture.hpp"
#include "fake_upstream.hpp"
#include "proxy_fixture.hpp"
#include "store_test_support.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

bool isLowerHex(const json& value, std::size_t length) {
  if (!value.is_string() || value.get<std::string>().size() != length) {
    return false;
  }
  const std::string text = value.get<std::string>();
  return text.find_first_not_of("0123456789abcdef") == std::string::npos &&
         text != std::string(length, '0');
}

bool isNanoString(const json& value) {
  return value.is_string() && !value.get<std::string>().empty() &&
         value.get<std::string>().find_first_not_of("0123456789") == std::string::npos;
}

/// What is wrong with an ExportTraceServiceRequest in OTLP/HTTP's JSON encoding; appends its
/// spans to `spans`.
std::vector<std::string> shapeProblems(const std::string& body, std::vector<json>& spans) {
  std::vector<std::string> problems;
  const json request = json::parse(body, nullptr, false);
  if (!request.is_object() || !request["resourceSpans"].is_array()) {
    return {"no resourceSpans array"};
  }
  for (const json& resource : request["resourceSpans"]) {
    bool named = false;
    for (const json& a : resource["resource"]["attributes"]) {
      named = named || (a["key"] == "service.name" && a["value"]["stringValue"] == "agentvcr");
    }
    if (!named) {
      problems.push_back("resource without service.name=agentvcr");
    }
    for (const json& scope : resource["scopeSpans"]) {
      if (scope["scope"]["name"] != "agentvcr") {
        problems.push_back("scope not named agentvcr");
      }
      for (const json& span : scope["spans"]) {
        const std::string name = span.value("name", "");
        if (name.empty()) {
          problems.push_back("span without a name");
        }
        if (!isLowerHex(span["traceId"], 32) || !isLowerHex(span["spanId"], 16)) {
          problems.push_back(name + ": ids are not 32/16 lowercase hex digits");
        }
        if (span.contains("parentSpanId") && !isLowerHex(span["parentSpanId"], 16)) {
          problems.push_back(name + ": parentSpanId is not 16 hex digits");
        }
        if (!isNanoString(span["startTimeUnixNano"]) || !isNanoString(span["endTimeUnixNano"])) {
          problems.push_back(name + ": times are not decimal strings");
        } else if (std::stoll(span["startTimeUnixNano"].get<std::string>()) >
                   std::stoll(span["endTimeUnixNano"].get<std::string>())) {
          problems.push_back(name + ": ends before it starts");
        }
        if (!span["kind"].is_number_integer() || span["kind"] < 1 || span["kind"] > 5) {
          problems.push_back(name + ": kind is not an OTLP SpanKind");
        }
        for (const json& a : span["attributes"]) {
          if (!a["key"].is_string() || !a["value"].is_object() || a["value"].size() != 1) {
            problems.push_back(name + ": malformed attribute");
          } else if (a["value"].contains("intValue") && !a["value"]["intValue"].is_string()) {
            problems.push_back(name + ": intValue not a string");
          }
        }
        spans.push_back(span);
      }
    }
  }
  return problems;
}

/// Problems with the spans as a whole: duplicates, parents missing from their trace.
std::vector<std::string> treeProblems(const std::vector<json>& spans) {
  std::vector<std::string> problems;
  std::set<std::string> ids;
  for (const json& span : spans) {
    if (!ids.insert(span["traceId"].get<std::string>() + span["spanId"].get<std::string>())
             .second) {
      problems.push_back("duplicate span " + span["name"].get<std::string>());
    }
  }
  for (const json& span : spans) {
    if (span.contains("parentSpanId") && !ids.contains(span["traceId"].get<std::string>() +
                                                       span["parentSpanId"].get<std::string>())) {
      problems.push_back(span["name"].get<std::string>() + ": parent not in its trace");
    }
  }
  return problems;
}

/// An OTLP/HTTP receiver on 127.0.0.1 (port 0: any): answers each POST /v1/traces with the next
/// of `statuses` (200 once they run out) and keeps the spans of the requests it took.
class OtlpReceiver {
 public:
  explicit OtlpReceiver(std::vector<int> statuses = {}, std::uint16_t port = 0)
      : statuses_(std::move(statuses)) {
    proxy::ServerOptions options;
    options.port = port;
    server_ = std::make_unique<proxy::Server>(
        options, proxy::makeLocalServiceFactory(
                     [this](const protocol::HttpRequest& request) { return answer(request); }));
    server_->start();
  }

  ~OtlpReceiver() { server_->stop(); }

  std::uint16_t port() const { return server_->endpoint().port; }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }

  std::vector<json> spans() const {
    std::lock_guard lock(mutex_);
    return spans_;
  }

  std::vector<std::string> problems() const {
    std::lock_guard lock(mutex_);
    return problems_;
  }

  int requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

  std::vector<protocol::HttpRequest> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

  /// Spans whose name starts with `prefix`.
  std::size_t count(const std::string& prefix) const {
    std::size_t n = 0;
    for (const json& span : spans()) {
      n += span["name"].get<std::string>().starts_with(prefix) ? 1 : 0;
    }
    return n;
  }

 private:
  protocol::HttpReply answer(const protocol::HttpRequest& request) {
    std::lock_guard lock(mutex_);
    ++requests_;
    received_.push_back(request);
    if (request.method != "POST" || request.target != "/v1/traces" ||
        protocol::headerValue(request.headers, "Content-Type") != "application/json") {
      problems_.push_back("unexpected " + request.method + " " + request.target);
      return reply(404, R"({"code":5,"message":"not here"})");
    }
    if (!statuses_.empty()) {
      const int status = statuses_.front();
      statuses_.erase(statuses_.begin());
      if (status != 200) {
        protocol::HttpReply refusal = reply(status, R"({"code":14,"message":"collector says no"})");
        refusal.headers.push_back({"Retry-After", "0"});
        return refusal;
      }
    }
    for (std::string& problem : shapeProblems(request.body, spans_)) {
      problems_.push_back(std::move(problem));
    }
    return reply(200, "{}");
  }

  static protocol::HttpReply reply(int status, std::string body) {
    protocol::HttpReply out;
    out.status = status;
    out.body = std::move(body);
    return out;
  }

  mutable std::mutex mutex_;
  std::vector<int> statuses_;
  std::vector<json> spans_;
  std::vector<std::string> problems_;
  std::vector<protocol::HttpRequest> received_;
  int requests_ = 0;
  std::unique_ptr<proxy::Server> server_;
};

/// A loopback port free a moment ago, for a collector that is down first and comes up on it
/// later. Not deadPort(): a port below 1024 that root can bind would draw other tests' traffic.
std::uint16_t freedPort() {
  proxy::Server probe({}, proxy::makeLocalServiceFactory(
                              [](const protocol::HttpRequest&) { return protocol::HttpReply{}; }));
  return probe.endpoint().port;
}

class OtlpExportTest : public DemoArchiveTest {
 protected:
  cli::ExportCommand otlpExport(const std::string& to) const {
    cli::ExportCommand command;
    command.db_path = db_path_;
    command.format = "otlp";
    command.to = to;
    command.retry.first = std::chrono::milliseconds(10);
    command.retry.max = std::chrono::milliseconds(50);
    return command;
  }

  /// runExport()'s status, what it printed and what it wrote to stderr.
  std::tuple<int, std::string, std::string> run(const cli::ExportCommand& command) {
    std::ostringstream out;
    ::testing::internal::CaptureStderr();
    const int status = cli::runExport(command, out);
    return {status, out.str(), ::testing::internal::GetCapturedStderr()};
  }
};

TEST_F(OtlpExportTest, TheDemoArchiveArrivesAsWellFormedTraces) {
  OtlpReceiver receiver;
  auto [status, out, err] = run(otlpExport(receiver.url()));
  ASSERT_EQ(status, cli::kExitOk) << err;
  EXPECT_THAT(receiver.problems(), IsEmpty());
  const auto spans = receiver.spans();
  EXPECT_THAT(treeProblems(spans), IsEmpty());
  std::set<std::string> traces;
  for (const json& span : spans) {
    traces.insert(span["traceId"]);
  }
  const store::ArchiveReader archive(db_path_);
  EXPECT_GE(traces.size(), static_cast<std::size_t>(archive.counts().conversations));
  EXPECT_EQ(receiver.count("conversation "),
            static_cast<std::size_t>(archive.counts().conversations));
  EXPECT_GT(receiver.count("invoke_agent "), 0u);
  EXPECT_GT(receiver.count("chat "), 0u);
  EXPECT_THAT(out, HasSubstr("exported " + std::to_string(traces.size()) + " trace(s), " +
                             std::to_string(spans.size()) + " span(s)"));

  // Exported again: the same ids, so a deduplicating backend keeps one copy.
  OtlpReceiver again;
  ASSERT_EQ(std::get<0>(run(otlpExport(again.url()))), cli::kExitOk);
  std::set<std::string> first_ids;
  std::set<std::string> second_ids;
  for (const json& span : spans) {
    first_ids.insert(span["spanId"]);
  }
  for (const json& span : again.spans()) {
    second_ids.insert(span["spanId"]);
  }
  EXPECT_EQ(first_ids, second_ids);
}

TEST_F(OtlpExportTest, RetriesA503AndSendsEachSpanOnce) {
  OtlpReceiver receiver({503, 200, 429});
  auto command = otlpExport(receiver.url() + "/v1/traces");
  command.otlp_headers = {"X-Api-Key=hunter2"};
  auto [status, out, err] = run(command);
  ASSERT_EQ(status, cli::kExitOk) << err;
  EXPECT_THAT(receiver.problems(), IsEmpty());
  EXPECT_THAT(treeProblems(receiver.spans()), IsEmpty());  // no span twice
  const auto received = receiver.received();
  ASSERT_FALSE(received.empty());
  EXPECT_EQ(protocol::headerValue(received[0].headers, "X-Api-Key"), "hunter2");
  EXPECT_THAT(out + err, Not(HasSubstr("hunter2")));
}

TEST_F(OtlpExportTest, APermanentRefusalFailsWithTheCollectorsMessage) {
  OtlpReceiver receiver({400});
  auto command = otlpExport(receiver.url());
  command.otlp_headers = {"Authorization=Bearer hunter2"};
  auto [status, out, err] = run(command);
  EXPECT_EQ(status, cli::kExitFailure);
  EXPECT_THAT(err, HasSubstr("answered 400: collector says no"));
  EXPECT_THAT(out + err, Not(HasSubstr("hunter2")));
  EXPECT_EQ(receiver.requests(), 1);  // not retried
}

TEST_F(OtlpExportTest, AnUnreachableCollectorFailsAfterAFewAttempts) {
  auto command = otlpExport("http://127.0.0.1:" + std::to_string(deadPort()));
  command.retry.attempts = 3;
  auto [status, out, err] = run(command);
  EXPECT_EQ(status, cli::kExitFailure);
  EXPECT_THAT(err, HasSubstr("gave up after 3 attempts"));
  EXPECT_THAT(err, HasSubstr("cannot connect"));
}

TEST_F(OtlpExportTest, HttpsWithTheFixtureCertificate) {
  std::mutex mutex;
  std::vector<json> spans;
  std::vector<std::string> problems;
  FakeUpstream collector(
      [&](const protocol::HttpRequest& request) {
        std::lock_guard lock(mutex);
        for (auto& problem : shapeProblems(request.body, spans)) {
          problems.push_back(problem);
        }
        return FakeReply::http(200, "{}");
      },
      FakeTls{kTlsDir + "/agent-cert.pem", kTlsDir + "/agent-key.pem"});

  // Not trusted: the certificate is verified by default.
  auto command = otlpExport(collector.url());
  command.retry.attempts = 1;
  auto [refused, refused_out, refused_err] = run(command);
  EXPECT_EQ(refused, cli::kExitFailure);
  EXPECT_THAT(refused_err, HasSubstr("certificate verify failed"));

  ::setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", (kTlsDir + "/agent-cert.pem").c_str(), 1);
  auto [status, out, err] = run(command);
  ::unsetenv("OTEL_EXPORTER_OTLP_CERTIFICATE");
  ASSERT_EQ(status, cli::kExitOk) << err;
  std::lock_guard lock(mutex);
  EXPECT_THAT(problems, IsEmpty());
  EXPECT_THAT(treeProblems(spans), IsEmpty());
  EXPECT_FALSE(spans.empty());
}

TEST_F(OtlpExportTest, OutWritesTheRequestsAsJsonLines) {
  auto command = otlpExport("");
  command.out_path = temp_.file("traces.jsonl");
  command.conversations = {1};
  auto [status, out, err] = run(command);
  ASSERT_EQ(status, cli::kExitOk) << err;
  std::ifstream file(command.out_path);
  std::vector<json> spans;
  std::string line;
  while (std::getline(file, line)) {
    EXPECT_THAT(shapeProblems(line, spans), IsEmpty());
  }
  std::set<std::string> traces;
  for (const json& span : spans) {
    traces.insert(span["traceId"]);
  }
  EXPECT_EQ(traces.size(), 1u);
  EXPECT_THAT(out, HasSubstr("exported 1 trace(s)"));
}

TEST(OtlpExportCliTest, BadInputIsAClearError) {
  auto usage = [](const std::vector<std::string>& args) {
    CLI::App app{"agentvcr"};
    cli::Invocation invocation;
    cli::registerExport(app, invocation);
    std::vector<const char*> argv{"agentvcr", "export"};
    for (const auto& arg : args) {
      argv.push_back(arg.c_str());
    }
    std::ostringstream out;
    std::ostringstream err;
    const int status =
        cli::parseAndExecute(app, invocation, static_cast<int>(argv.size()), argv.data(), out, err);
    return std::pair(status, err.str());
  };
  EXPECT_EQ(usage({"--format", "xml"}).first, cli::kExitUsage);
  auto [bad_url, bad_url_err] = usage({"--format", "otlp", "--to", "ftp://collector"});
  EXPECT_EQ(bad_url, cli::kExitUsage);
  EXPECT_THAT(bad_url_err, HasSubstr("--to must be http(s)://host"));
  auto [stray, stray_err] = usage({"--format", "har", "--to", "http://c:4318"});
  EXPECT_EQ(stray, cli::kExitUsage);
  EXPECT_THAT(stray_err, HasSubstr("need --format otlp"));
  auto [missing, missing_err] =
      usage({"--format", "otlp", "--db", "/nonexistent/a.sqlite", "--to", "http://127.0.0.1:1"});
  EXPECT_EQ(missing, cli::kExitUsage);
  EXPECT_THAT(missing_err, HasSubstr("no archive at /nonexistent/a.sqlite"));
}

// --- the live exporter beside a recording proxy ---

/// A MAGMA agent that says "ok" to every input and grows its memory by one turn.
FakeUpstream sayingAgent() {
  return FakeUpstream([](const protocol::HttpRequest& request) {
    const json body = json::parse(request.body);
    json outputs = json::array();
    for (const json& in : body["inputs"]) {
      json memory = in["memory"];
      memory["history"].push_back({{"author", "MODEL"}, {"content", "ok"}});
      outputs.push_back(store::testing::sayOutput(body["request_id"].get<std::string>(),
                                                  in["id"].get<std::int64_t>(), 0, memory, "ok"));
    }
    return FakeReply::http(200, outputs.dump());
  });
}

class LiveOtlpTest : public ProxyTest {
 protected:
  /// `episodes` conversations of `steps` exchanges each, every one answered; how long it took.
  std::chrono::milliseconds converse(int episodes, int steps) {
    const auto start = std::chrono::steady_clock::now();
    auto caller = client();
    for (int e = 0; e < episodes; ++e) {
      json memory = store::testing::memoryOf("episode-" + std::to_string(e), 0);
      for (int s = 0; s < steps; ++s) {
        const std::string id = "r-" + std::to_string(e) + "-" + std::to_string(s);
        const json in = store::testing::input(1, s == 0 ? "user" : "env", "go", memory);
        const auto answer =
            caller.postJson("/v1/responses", store::testing::request(id, {in}).dump());
        EXPECT_EQ(answer.status, 200) << answer.body;
        memory = json::parse(answer.body)[0]["memory"];
      }
    }
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start);
  }

  void startExporter(std::uint16_t collector_port, std::chrono::seconds idle,
                     const std::string& positions_path = {}) {
    otel::LiveOptions options;
    options.db_path = db_path_;
    options.positions_path = positions_path;
    options.endpoint =
        otel::resolveEndpoint("http://127.0.0.1:" + std::to_string(collector_port), {},
                              [](const char*) { return std::optional<std::string>(); });
    options.idle = idle;
    options.poll = std::chrono::milliseconds(20);
    options.retry.first = std::chrono::milliseconds(20);
    options.retry.max = std::chrono::milliseconds(100);
    // Long enough for the in-process receiver on a loaded machine: a request timed out while
    // the receiver still handles it is sent again, and the exact span counts below would see
    // it twice (delivery is at least once).
    options.retry.timeout = std::chrono::seconds(10);
    options.log = [this](const std::string& line) {
      std::lock_guard lock(log_mutex_);
      log_ += line + "\n";
    };
    exporter_ = std::make_unique<otel::LiveExporter>(options);
    thread_ = std::thread([this] { exporter_->run(); });
  }

  void finishExporter() {
    exporter_->finish();
    thread_.join();
  }

  void TearDown() override {
    if (thread_.joinable()) {
      exporter_->stop();
      thread_.join();
    }
    ProxyTest::TearDown();
  }

  std::string log() {
    std::lock_guard lock(log_mutex_);
    return log_;
  }

  std::unique_ptr<otel::LiveExporter> exporter_;
  std::thread thread_;
  std::mutex log_mutex_;
  std::string log_;
};

TEST_F(LiveOtlpTest, ADeadCollectorNeverSlowsTheRelayAndGetsEverythingOnceUp) {
  auto agent = sayingAgent();
  startProxy(agent.url());
  const std::uint16_t port = freedPort();
  startExporter(port, std::chrono::seconds(1));
  constexpr int kEpisodeCount = 3;
  constexpr int kSteps = 10;
  const auto took = converse(kEpisodeCount, kSteps);
  // 30 loopback exchanges take milliseconds each; an exporter in the way would add its
  // retries (hundreds of milliseconds) to them.
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_EQ(proxy_->recorder().stats().refused_full, 0u);
  ASSERT_TRUE(proxy_->settle());
  EXPECT_TRUE(waitUntil(
      [&] { return log().find("retrying until the collector is back") != std::string::npos; }));
  EXPECT_EQ(exporter_->stats().spans, 0u);

  OtlpReceiver collector({}, port);
  ASSERT_TRUE(
      waitUntil([&] { return collector.count("POST /v1/responses") == kEpisodeCount * kSteps; },
                std::chrono::seconds(20)))
      << collector.count("POST /v1/responses");
  // The conversations go idle: their roots follow without the session ending.
  ASSERT_TRUE(waitUntil([&] { return collector.count("conversation ") == kEpisodeCount; },
                        std::chrono::seconds(20)));
  EXPECT_THAT(log(), HasSubstr("is back after"));
  finishExporter();
  EXPECT_THAT(collector.problems(), IsEmpty());
  EXPECT_THAT(treeProblems(collector.spans()), IsEmpty());
  EXPECT_EQ(collector.count("invoke_agent "), static_cast<std::size_t>(kEpisodeCount * kSteps));
  const otel::LiveStats stats = exporter_->stats();
  EXPECT_EQ(stats.exchanges, static_cast<std::uint64_t>(kEpisodeCount * kSteps));
  EXPECT_EQ(stats.roots, static_cast<std::uint64_t>(kEpisodeCount));
  EXPECT_EQ(stats.outages, 1u);
  EXPECT_EQ(stats.left, 0u);
}

TEST_F(LiveOtlpTest, RootsWaitForIdleOrTheSessionsEnd) {
  auto agent = sayingAgent();
  startProxy(agent.url());
  OtlpReceiver collector;
  startExporter(collector.port(), std::chrono::seconds(3600));
  converse(2, 3);
  ASSERT_TRUE(waitUntil([&] { return collector.count("POST /v1/responses") == 6; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(collector.count("conversation "), 0u);  // not idle for an hour yet

  proxy_->stop();  // the session ends: its conversations are closed
  ASSERT_TRUE(waitUntil([&] { return collector.count("conversation ") == 2; }));
  finishExporter();
  EXPECT_THAT(treeProblems(collector.spans()), IsEmpty());
  EXPECT_EQ(exporter_->stats().roots, 2u);
}

TEST_F(LiveOtlpTest, AConversationGoesIdleByTheSteadyClockWhateverTheRecordedOneSays) {
  // Recorded an hour ahead of the wall clock (a clock stepped back an hour since): the root
  // follows a second after the conversation was last seen to grow, not an hour later.
  auto agent = sayingAgent();
  startProxy(agent.url(), [](proxy::RecordingProxyConfig& config) {
    config.recorder.clock = [] {
      return protocol::nowNs() + std::chrono::nanoseconds(std::chrono::hours(1)).count();
    };
  });
  OtlpReceiver collector;
  startExporter(collector.port(), std::chrono::seconds(1));
  converse(1, 2);
  EXPECT_TRUE(
      waitUntil([&] { return collector.count("conversation ") == 1; }, std::chrono::seconds(20)))
      << "the root waits for the recorded clock to catch up";
  finishExporter();
}

TEST_F(LiveOtlpTest, FinishSendsTheOpenConversationsRoots) {
  auto agent = sayingAgent();
  startProxy(agent.url());
  OtlpReceiver collector;
  startExporter(collector.port(), std::chrono::seconds(3600));
  converse(1, 2);
  ASSERT_TRUE(proxy_->settle());
  finishExporter();
  EXPECT_EQ(collector.count("POST /v1/responses"), 2u);
  EXPECT_EQ(collector.count("conversation "), 1u);
}

TEST_F(LiveOtlpTest, ARestartedExporterResumesWhereItWas) {
  auto agent = sayingAgent();
  startProxy(agent.url());
  OtlpReceiver collector;
  const std::string positions = db_path_ + ".otlp-positions";
  startExporter(collector.port(), std::chrono::seconds(3600), positions);
  converse(2, 3);
  proxy_->stop();  // the session ends: its roots go too
  ASSERT_TRUE(waitUntil([&] { return collector.count("conversation ") == 2; }));
  finishExporter();
  const std::size_t spans = collector.spans().size();

  // Restarted on the same archive: the collector never gets a trace twice.
  startExporter(collector.port(), std::chrono::seconds(3600), positions);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // 15 polls
  finishExporter();
  EXPECT_EQ(collector.spans().size(), spans) << "sent again after a restart";
  EXPECT_EQ(exporter_->stats().spans, 0u);

  // A new session after the restart is sent, and only it.
  startProxy(agent.url());
  startExporter(collector.port(), std::chrono::seconds(3600), positions);
  converse(1, 2);
  proxy_->stop();
  ASSERT_TRUE(waitUntil([&] { return collector.count("conversation ") == 3; }));
  finishExporter();
  EXPECT_EQ(collector.count("POST /v1/responses"), 8u);
  EXPECT_THAT(collector.problems(), IsEmpty());
}

}  // namespace
}  // namespace agentvcr::testing
