#include "agentvcr/cli/demo_command.hpp"

#include <filesystem>
#include <iomanip>
#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "agentvcr/sim/magma/demo_driver.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::cli {
namespace {

/// The headers Python `requests` sends, as BENCH does (it uses no Session and no auth).
const protocol::Headers kBenchHeaders = {
    {"User-Agent", "python-requests/2.31.0"},
    {"Accept-Encoding", "gzip, deflate"},
    {"Accept", "*/*"},
    {"Connection", "keep-alive"},
    {"Content-Type", "application/json"},
};

void removeArchive(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-sessions"}) {
    std::filesystem::remove(path + suffix);
  }
}

/// BENCH's start-up checks: /health must be exactly ready, /v1/info valid, protocol 2.0,
/// inference capable.
std::string checkAgentLikeBench(net::HttpClient& client) {
  auto health = client.get("/health");
  auto health_json = protocol::parseJson(health.body);
  if (health.status != 200 || !health_json.value ||
      !protocol::magma::parseAgentHealth(*health_json.value).ok()) {
    return "/health did not answer {\"status\":\"ready\"}";
  }
  auto info = client.get("/v1/info");
  auto info_json = protocol::parseJson(info.body);
  if (info.status != 200 || !info_json.value) {
    return "/v1/info did not answer JSON";
  }
  auto parsed = protocol::magma::parseAgentInfo(*info_json.value);
  if (!parsed.ok() || parsed.value->protocol_version != protocol::magma::kProtocolVersion ||
      !parsed.value->capabilities.contains("inference") ||
      !parsed.value->capabilities.at("inference")) {
    return "/v1/info is not a protocol 2.0 agent with inference";
  }
  return {};
}

/// Runs the plan through the proxy, one connection per call as BENCH does.
sim::magma::Summary driveEpisodes(sim::magma::DemoDriver& driver, std::uint16_t port) {
  while (!driver.done()) {
    std::string body = driver.nextRequestBody();
    if (body.empty()) {
      break;
    }
    net::HttpClient client("127.0.0.1", port);
    auto response = client.send("POST", "/v1/responses", body, kBenchHeaders);
    if (auto error = driver.onResponse(response.status, response.body)) {
      break;
    }
  }
  return driver.summary();
}

void printSummary(const sim::magma::Summary& summary, const store::ArchiveReader& archive,
                  std::int64_t session_id, std::ostream& out) {
  out << "\nEpisodes (" << summary.requests << " batched /v1/responses calls):\n";
  for (const auto& outcome : summary.outcomes) {
    out << "  " << std::left << std::setw(24) << outcome.label
        << (outcome.done ? "done  " : "failed") << "  " << outcome.agent_calls << " agent calls";
    if (!outcome.last_say.empty()) {
      out << ", said \"" << outcome.last_say << "\"";
    }
    if (!outcome.reason.empty()) {
      out << " (" << outcome.reason << ")";
    }
    out << "\n";
  }
  if (auto session = archive.session(session_id)) {
    out << "\nArchive: session " << session->id << " holds " << session->exchange_count
        << " exchanges, " << session->step_count << " steps, " << session->candidate_count
        << " candidates, " << session->internal_step_count << " internal steps in "
        << session->conversation_count << " conversations\n";
  }
}

/// What --chaos did to the run: the faulted calls, in order, with what the caller got.
void printFaults(const store::ArchiveReader& archive, std::int64_t session_id, std::ostream& out) {
  std::size_t calls = 0;
  std::size_t faulted = 0;
  for (const store::ExchangeRow& row :
       archive.exchanges(session_id, 0, store::ArchiveReader::kNoLimit)) {
    if (row.method != "POST") {
      continue;
    }
    ++calls;
    if (row.fault) {
      ++faulted;
      out << "  call " << calls << ": " << *row.fault << " (HTTP " << row.status << ")\n";
    }
  }
  out << "Chaos: " << faulted << " of " << calls << " calls faulted\n";
}

}  // namespace

int runDemo(const DemoCommand& command, std::ostream& out) {
  const std::string demo_dir = command.fixtures_dir + "/demo";
  auto agent = services::loadScriptedAgent(demo_dir + "/agent-script.json");
  auto plan = sim::magma::loadDemoPlanText(services::readTextFile(demo_dir + "/episodes.json"));
  if (!plan.plan) {
    throw std::runtime_error(demo_dir + "/episodes.json: " + plan.error);
  }

  proxy::ServerOptions agent_server;
  proxy::Server agent_service(agent_server,
                              proxy::makeLocalServiceFactory(services::scriptedAgentRoutes(agent)));
  agent_service.start();
  const auto agent_port = agent_service.endpoint().port;
  out << "agentvcr demo: scripted agent " << agent->script().info.agent_id
      << " on http://127.0.0.1:" << agent_port << "\n";

  removeArchive(command.db_path);
  proxy::RecordingProxyConfig config;
  config.relay.upstream = *net::parseUrl("http://127.0.0.1:" + std::to_string(agent_port));
  config.server.threads = command.threads;
  config.db_path = command.db_path;
  config.session.name = "demo";
  config.session.mode = "demo";
  config.session.node = command.node;
  config.relay.chaos = command.chaos;
  proxy::RecordingProxy recording(config);
  recording.start();
  const auto proxy_port = recording.endpoint().port;
  out << "agentvcr demo: recording proxy on http://127.0.0.1:" << proxy_port << " -> "
      << command.db_path << "\n";

  net::HttpClient probe("127.0.0.1", proxy_port);
  if (auto problem = checkAgentLikeBench(probe); !problem.empty()) {
    throw std::runtime_error("the agent failed BENCH's start-up checks: " + problem);
  }
  sim::magma::DemoDriver driver(*plan.plan);
  auto summary = driveEpisodes(driver, proxy_port);
  recording.stop();
  agent_service.stop();

  store::ArchiveReader archive(command.db_path);
  printSummary(summary, archive, recording.sessionId(), out);
  if (command.chaos) {
    printFaults(archive, recording.sessionId(), out);
  }
  auto mismatches = sim::magma::checkExpectations(*plan.plan, summary);
  if (summary.abort_reason) {
    mismatches.push_back("run aborted: " + *summary.abort_reason);
  }
  for (const auto& mismatch : mismatches) {
    out << "UNEXPECTED: " << mismatch << "\n";
  }
  std::error_code no_exe;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", no_exe);
  const auto archive_path = std::filesystem::absolute(command.db_path).string();
  out << "\nLook inside:\n"
      << "  " << command.program << " ls --db " << command.db_path << " " << recording.sessionId()
      << "\n"
      << "  " << command.program << " show --db " << command.db_path << " 1\n"
      << "  sqlite3 " << command.db_path << " 'SELECT * FROM conversations'\n"
      << "  " << viewerCommand(no_exe ? std::filesystem::path() : executable) << " " << archive_path
      << "\n"
      << "Replay it as a mock agent:\n"
      << "  " << command.program << " replay --db " << command.db_path
      << " --listen 127.0.0.1:8000\n";
  return mismatches.empty() ? kExitOk : kExitFailure;
}

Registration<DemoCommand> registerDemo(CLI::App& app, Invocation& invocation,
                                       const std::string& program) {
  auto command = std::make_shared<DemoCommand>();
  command->program = program;
  auto* demo = app.add_subcommand(
      "demo", "Record scripted BENCH-like episodes through the proxy into an archive");
  demo->add_option("--db", command->db_path, "Archive to write")->capture_default_str();
  addNodeOption(demo, command->node);
  demo->add_option("--fixtures", command->fixtures_dir,
                   "Fixtures folder (default: $AGENTVCR_FIXTURES, else the bundled fixtures)");
  auto chaos_spec = std::make_shared<std::string>();
  addChaosSpecOption(demo, *chaos_spec);
  runWhenParsed<DemoCommand>(
      demo, invocation, "demo", command,
      [chaos_spec](DemoCommand& parsed) {
        parsed.chaos = makeChaos({*chaos_spec, false});
        return parsed.fixtures_dir.empty() ? defaultFixturesDir(parsed.fixtures_dir)
                                           : std::string();
      },
      runDemo);
  return {demo, command};
}

}  // namespace agentvcr::cli
