#include "demo_recording.hpp"

#include <filesystem>
#include <map>
#include <stdexcept>

#include <gtest/gtest.h>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

ScriptedAgentServer::ScriptedAgentServer()
    : server_(
          proxy::ServerOptions{},
          proxy::makeLocalServiceFactory(services::scriptedAgentRoutes(services::loadScriptedAgent(
              std::string(AGENTVCR_FIXTURES_DIR) + "/demo/agent-script.json")))) {
  server_.start();
}

sim::magma::DemoPlan demoPlan() {
  auto load = sim::magma::loadDemoPlanText(
      services::readTextFile(std::string(AGENTVCR_FIXTURES_DIR) + "/demo/episodes.json"));
  if (!load.plan) {
    throw std::runtime_error("the demo plan does not load: " + load.error);
  }
  return *load.plan;
}

sim::magma::Summary drive(sim::magma::DemoDriver& driver, std::uint16_t port) {
  while (!driver.done()) {
    const std::string body = driver.nextRequestBody();
    if (body.empty()) {
      break;
    }
    net::HttpClient client("127.0.0.1", port);
    auto response = client.postJson("/v1/responses", body);
    if (auto error = driver.onResponse(response.status, response.body)) {
      ADD_FAILURE() << "the run was aborted: " << *error;
      break;
    }
  }
  return driver.summary();
}

std::unique_ptr<proxy::RecordingProxy> startRecording(const std::string& upstream_url,
                                                      const std::string& db_path,
                                                      const std::string& name,
                                                      bool probe_identity) {
  proxy::RecordingProxyConfig config;
  config.relay.upstream = *net::parseUrl(upstream_url);
  config.server.threads = 2;
  config.db_path = db_path;
  config.session.name = name;
  config.session.mode = "record";
  config.probe_identity = probe_identity;
  auto recording = std::make_unique<proxy::RecordingProxy>(config);
  recording->start();
  return recording;
}

sim::magma::Summary recordDemo(const std::string& db_path, const std::string& name,
                               sim::magma::DemoPlan plan, bool probe_identity) {
  ScriptedAgentServer agent;
  auto recording = startRecording(agent.url(), db_path, name, probe_identity);
  {
    net::HttpClient client("127.0.0.1", recording->endpoint().port);
    client.get("/health");
    client.get("/v1/info");
  }
  sim::magma::DemoDriver driver(std::move(plan));
  auto summary = drive(driver, recording->endpoint().port);
  recording->settle();
  recording->stop();
  return summary;
}

void copyArchive(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  fs::copy_file(from, to);
  if (fs::exists(from + "-wal")) {
    fs::copy_file(from + "-wal", to + "-wal");
  }
}

sim::magma::Summary copyOfRecordedDemo(const std::string& db_path, const std::string& name) {
  struct Recorded {
    std::string path;
    sim::magma::Summary summary;
  };

  static TempDir folder;
  static std::map<std::string, Recorded> recorded;
  auto it = recorded.find(name);
  if (it == recorded.end()) {
    const std::string path = folder.file(std::to_string(recorded.size()) + ".sqlite");
    it = recorded.emplace(name, Recorded{path, recordDemo(path, name)}).first;
  }
  if (std::filesystem::exists(db_path)) {
    throw std::logic_error("copyOfRecordedDemo: " + db_path + " exists already");
  }
  copyArchive(it->second.path, db_path);
  return it->second.summary;
}

}  // namespace agentvcr::testing
