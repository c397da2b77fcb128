#include "agentvcr/cli/mock_a2a_command.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/metrics_serving.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/services/a2a_mock_service.hpp"
#include "agentvcr/services/scripted_service.hpp"
#include "agentvcr/sim/a2a/fixtures.hpp"
#include "agentvcr/sim/a2a/tokens.hpp"

namespace agentvcr::cli {
namespace {

/// The tokens of --tokens-file, then those of --token (as Pro users).
sim::a2a::TokenTable loadTokens(const MockA2aCommand& command) {
  sim::a2a::TokenTable tokens;
  if (!command.tokens_file.empty()) {
    auto load = sim::a2a::parseTokensFile(services::readTextFile(command.tokens_file));
    if (!load.table) {
      throw std::runtime_error(command.tokens_file + ": " + load.error);
    }
    tokens = std::move(*load.table);
  }
  for (const std::string& token : command.tokens) {
    tokens.add(token, sim::a2a::Plan::Pro);
  }
  return tokens;
}

}  // namespace

std::string quotaBanner(const sim::a2a::MockConfig& config, const sim::a2a::Profile& profile) {
  if (!config.quota || !profile.checks_quota) {
    return {};
  }
  std::string expensive;
  for (const sim::a2a::Skill& skill : config.fixtures.skills.skills()) {
    if (skill.tier == sim::a2a::Tier::Expensive) {
      expensive += (expensive.empty() ? "" : ", ") + skill.id;
    }
  }
  const auto& limits = config.limits;
  // A second run of a test suite within the window meets 429s: say so before it does.
  return "quota on: per token, " + std::to_string(limits.default_pool.calls) +
         " message/send calls a " + std::to_string(limits.default_pool.window.count()) +
         " s window, " + std::to_string(limits.expensive_pool.calls) + " of them to " +
         (expensive.empty() ? std::string("expensive skills") : expensive) + " (" +
         std::to_string(limits.expensive_pool.window.count()) +
         " s), then 429; --no-quota turns it off, --rate-default N and --rate-expensive N raise "
         "it";
}

int runMockA2a(const MockA2aCommand& command, std::ostream& out) {
  StopSignals stop_signals;
  sim::a2a::MockConfig config = command.config;
  auto fixtures = sim::a2a::loadFixturesDir(command.fixtures_dir);
  if (!fixtures.fixtures) {
    const std::string profile(sim::a2a::profileName(config.profile));
    throw std::runtime_error(
        fixtures.error + ": --fixtures takes the fixtures folder (holding a2a/" + profile +
        "/) or the " + profile + " profile's own folder (card.json, skills.json)");
  }
  config.fixtures = std::move(*fixtures.fixtures);
  config.tokens = loadTokens(command);
  std::shared_ptr<const sim::a2a::Clock> clock;
  if (command.fixed_clock) {
    clock = std::make_shared<sim::a2a::ManualClock>(*command.fixed_clock);
  } else {
    clock = std::make_shared<sim::a2a::SystemClock>();
  }
  const sim::a2a::MockConfig banner_config = config;
  MetricsServing metrics(command.metrics_listen);
  services::A2aMockService service(std::move(config), std::move(clock), command.server,
                                   metrics.traffic());
  const auto metrics_endpoint = metrics.serve(out, "mock a2a");
  service.start();
  const std::string address = service.baseUrl();
  out << "agentvcr mock a2a: " << sim::a2a::profileName(service.profile().kind)
      << " profile listening on " << address << " (JSON-RPC at " << service.publicUrl()
      << ", card at " << address << service.profile().preferred_card_path << ")" << std::endl;
  if (const std::string quota = quotaBanner(banner_config, service.profile()); !quota.empty()) {
    out << "agentvcr mock a2a: " << quota << std::endl;
  }
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  drainAfterSignal(
      stop_signals, stop_signals.wait(), out, "mock a2a", command.server.drain_timeout,
      [&] { service.stop(); }, [&] { service.cutNow(); });
  return kExitOk;
}

namespace {

/// The arguments of `mock a2a` that are not stored as given.
struct MockA2aArguments {
  std::string profile = "magisterium";
  std::string listen = "127.0.0.1:8000";
  std::string card_version;
  std::string check_order;
  std::string a2a_version;
  std::string clock = "system";
  std::string rate_window = "fixed";
  unsigned rate_default = 15;
  unsigned rate_expensive = 2;
  unsigned rate_window_s = 60;
  unsigned stream_delay_ms = 50;
  bool no_quota = false;
  bool no_cors = false;
};

std::string configureMockA2a(MockA2aCommand& command, const MockA2aArguments& args) {
  auto& config = command.config;
  config.profile = *sim::a2a::profileFromName(args.profile);
  const bool magisterium = config.profile == sim::a2a::ProfileKind::Magisterium;
  const bool has_tokens = !command.tokens.empty() || !command.tokens_file.empty();
  if (magisterium && !has_tokens && !config.no_auth) {
    return "the magisterium profile needs --token, --tokens-file or --no-auth";
  }
  if (!magisterium && has_tokens) {
    return "the standard profile checks no tokens: drop --token and --tokens-file";
  }
  if (!args.card_version.empty()) {
    if (!magisterium && args.card_version != "0.3.0") {
      return "--card-version 0.2.6 applies to the magisterium profile only";
    }
    config.card_version = args.card_version;
  }
  if (!args.a2a_version.empty()) {
    if (magisterium) {
      return "--a2a-version applies to the standard profile only: Magisterium speaks v0.3";
    }
    using sim::a2a::WireVersion;
    config.a2a_versions = args.a2a_version == "0.3" ? std::vector{WireVersion::V03}
                          : args.a2a_version == "1.0"
                              ? std::vector{WireVersion::V10}
                              : std::vector{WireVersion::V03, WireVersion::V10};
  }
  if (args.clock != "system") {
    constexpr std::string_view kFixed = "fixed:";
    std::string_view clock = args.clock;
    command.fixed_clock = clock.substr(0, kFixed.size()) == kFixed
                              ? sim::a2a::parseIsoTimestamp(clock.substr(kFixed.size()))
                              : std::nullopt;
    if (!command.fixed_clock) {
      return "--clock must be `system` or `fixed:` and an RFC 3339 time, such as "
             "fixed:2026-01-01T00:00:00Z; got '" +
             args.clock + "'";
    }
  }
  if (config.endpoint_path.empty() || config.endpoint_path.front() != '/') {
    return "--endpoint-path must start with '/'";
  }
  if (config.rest_path.size() < 2 || config.rest_path.front() != '/' ||
      config.rest_path.back() == '/' || config.rest_path == config.endpoint_path) {
    return "--rest-path must start with '/', not end with one, and differ from --endpoint-path";
  }
  if (args.rate_default == 0 || args.rate_expensive == 0 || args.rate_window_s == 0) {
    return "the rate numbers must be at least 1 (--no-quota turns quotas off)";
  }
  const std::chrono::seconds window(args.rate_window_s);
  config.limits.default_pool = {args.rate_default, window};
  config.limits.expensive_pool = {args.rate_expensive, window};
  config.limits.window =
      args.rate_window == "sliding" ? sim::a2a::WindowKind::Sliding : sim::a2a::WindowKind::Fixed;
  config.quota = !args.no_quota;
  config.cors = !args.no_cors;
  config.stream_delay = std::chrono::milliseconds(args.stream_delay_ms);
  if (!args.check_order.empty()) {
    std::string error;
    auto order = sim::a2a::parseCheckOrder(args.check_order, error);
    if (!order) {
      return "--check-order: " + error;
    }
    config.check_order = *order;
  }
  if (command.fixtures_dir.empty()) {
    if (auto problem = defaultFixturesDir(command.fixtures_dir); !problem.empty()) {
      return problem;
    }
  }
  // The fixtures root, as `demo` and AGENTVCR_FIXTURES take it, or the profile's own folder.
  if (const auto profile_dir = std::filesystem::path(command.fixtures_dir) / "a2a" / args.profile;
      std::filesystem::is_directory(profile_dir)) {
    command.fixtures_dir = profile_dir.string();
  }
  auto listen = parseListen(args.listen);
  command.server.host = listen.host;
  command.server.port = listen.port;
  return {};
}

}  // namespace

Registration<MockA2aCommand> registerMockA2a(CLI::App& mock, Invocation& invocation) {
  auto command = std::make_shared<MockA2aCommand>();
  auto args = std::make_shared<MockA2aArguments>();
  command->server.threads = std::min(2u, defaultThreads());

  auto* a2a = mock.add_subcommand("a2a", "A synthetic A2A JSON-RPC server");
  a2a->add_option("--profile", args->profile, "magisterium or standard (A2A v0.3 and v1.0)")
      ->check(CLI::IsMember({"magisterium", "standard"}))
      ->capture_default_str();
  a2a->add_option("--fixtures", command->fixtures_dir,
                  "Fixtures folder holding a2a/PROFILE/, or a folder with card.json and "
                  "skills.json (default: the bundled fixtures)");
  a2a->add_option("--listen", args->listen, "Address to listen on (port 0: any free port)")
      ->capture_default_str();
  a2a->add_option("--ready-file", command->ready_file, "Write the URL here once ready");
  addDrainTimeoutOption(a2a, command->server);
  addMetricsListenOption(a2a, command->metrics_listen);
  a2a->add_option("--public-url", command->config.public_url,
                  "The card's url (default: the listening address and endpoint path)");
  a2a->add_option("--endpoint-path", command->config.endpoint_path,
                  "Path of the JSON-RPC endpoint (POST / is served too)")
      ->capture_default_str();
  a2a->add_option("--rest-path", command->config.rest_path,
                  "Base path of the HTTP+JSON binding (standard profile, v1.0)")
      ->capture_default_str();
  a2a->add_option("--token", command->tokens,
                  "Accept this Bearer token as a Pro user (repeatable)");
  a2a->add_option("--tokens-file", command->tokens_file,
                  "Accept the tokens of this file, one `TOKEN [PLAN]` per line")
      ->check(CLI::ExistingFile);
  a2a->add_flag("--no-auth", command->config.no_auth,
                "Requests without an Authorization header act as a Pro user");
  a2a->add_option("--card-version", args->card_version,
                  "protocolVersion of the magisterium card: 0.3.0 (default) or 0.2.6")
      ->check(CLI::IsMember({"0.2.6", "0.3.0"}));
  a2a->add_option("--a2a-version", args->a2a_version,
                  "A2A versions the standard profile serves: 0.3, 1.0 or both (default)")
      ->check(CLI::IsMember({"0.3", "1.0", "both"}));
  a2a->add_option("--seed", command->config.seed, "Seed of the minted ids")->capture_default_str();
  a2a->add_option("--clock", args->clock,
                  "system, or fixed:TIME (RFC 3339) for timestamps that never change")
      ->capture_default_str();
  a2a->add_option("--stream-delay-ms", args->stream_delay_ms, "Pause between two stream events")
      ->capture_default_str();
  a2a->add_option("--rate-default", args->rate_default, "message/send calls per window and token")
      ->capture_default_str();
  a2a->add_option("--rate-expensive", args->rate_expensive,
                  "Calls of expensive skills (catholic_qa) per window and token")
      ->capture_default_str();
  a2a->add_option("--rate-window-s", args->rate_window_s, "Quota window in seconds")
      ->capture_default_str();
  a2a->add_option("--rate-window", args->rate_window, "fixed or sliding")
      ->check(CLI::IsMember({"fixed", "sliding"}))
      ->capture_default_str();
  a2a->add_flag("--no-quota", args->no_quota, "Never answer 429");
  a2a->add_flag("--retry-after-header", command->config.retry_after_header,
                "Send an HTTP Retry-After header with 429 too");
  a2a->add_option("--check-order", args->check_order,
                  "The eight checks, comma-separated (default: "
                  "parse,envelope,auth,plan,method,params,skill,quota)");
  a2a->add_flag("--no-cors", args->no_cors, "No CORS headers; OPTIONS answers 204 with Allow");
  a2a->add_option("--threads", command->server.threads, "Worker threads")->capture_default_str();
  runWhenParsed<MockA2aCommand>(
      a2a, invocation, "mock a2a", command,
      [args](MockA2aCommand& parsed) { return configureMockA2a(parsed, *args); }, runMockA2a);
  return {a2a, command};
}

}  // namespace agentvcr::cli
