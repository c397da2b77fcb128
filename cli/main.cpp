// agentvcr: record, inspect and replay agent HTTP traffic. This file only turns
// arguments into command options; the commands live in agentvcr_cli.

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "agentvcr/cli/commands.hpp"

namespace {

using namespace agentvcr;

#ifndef AGENTVCR_DEFAULT_FIXTURES_DIR
#define AGENTVCR_DEFAULT_FIXTURES_DIR "fixtures"
#endif

unsigned defaultThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

proxy::HostPort parseListen(const std::string& text) {
  auto parsed = proxy::parseHostPort(text);
  if (!parsed) {
    throw CLI::ValidationError("--listen", "expected HOST:PORT, got '" + text + "'");
  }
  return *parsed;
}

void addRecord(CLI::App& app, cli::RecordCommand& command, std::string& upstream,
               std::string& listen, std::string& durability, unsigned& upstream_timeout_s,
               bool& insecure) {
  auto* record = app.add_subcommand("record", "Relay to an agent and record every exchange");
  record->add_option("--upstream", upstream, "Agent base URL (http:// or https://)")->required();
  record->add_option("--listen", listen, "Address to listen on")->capture_default_str();
  record->add_option("--db", command.config.db_path, "SQLite archive")->capture_default_str();
  record->add_option("--session", command.config.session.name, "Session name");
  record->add_option("--threads", command.config.server.threads, "Worker threads")
      ->capture_default_str();
  record
      ->add_option("--max-body", command.config.relay.max_request_body,
                   "Largest request body in bytes (413 above)")
      ->capture_default_str();
  record
      ->add_option("--upstream-timeout", upstream_timeout_s,
                   "Seconds to wait for the agent's answer (504 after)")
      ->capture_default_str();
  record->add_option("--durability", durability, "normal or full")
      ->check(CLI::IsMember({"normal", "full"}))
      ->capture_default_str();
  record->add_flag(
      "!--plain-bodies", command.config.recorder.compress_bodies,
      "Store bodies and memories verbatim (readable with plain SQL), not zstd-compressed");
  // A proxy relays first: under load its index thread takes a quarter of a core by default.
  command.config.recorder.index_share_under_load = 0.25;
  record
      ->add_option("--index-share", command.config.recorder.index_share_under_load,
                   "Share of one core the indexing of captured exchanges takes while traffic "
                   "keeps arriving (1: all it needs); the index catches up when the load drops")
      ->check(CLI::Range(0.05, 1.0))
      ->capture_default_str();
  record->add_option("--ready-file", command.ready_file, "Write the listening URL here once ready");
  record->add_flag("--insecure", insecure, "Do not verify an https upstream's certificate");
  record
      ->add_option("--ca-file", command.config.relay.ca_file,
                   "Also trust the certificate authorities in this PEM file")
      ->check(CLI::ExistingFile);
  record->add_flag("!--no-probe", command.config.probe_identity,
                   "Do not ask the agent for /health and /v1/info at start");
}

struct ReplayArguments {
  std::string listen = "127.0.0.1:8000";
  std::string on_miss = "error";
  std::string upstream;
  std::vector<std::string> ignore;
  unsigned forward_timeout_s = 600;
  bool no_store_misses = false;
  std::string sse_pace = "recorded";
};

CLI::App* addReplay(CLI::App& app, cli::ReplayCommand& command, ReplayArguments& args) {
  auto* replay = app.add_subcommand("replay", "Serve recorded conversations as a mock agent");
  replay->add_option("--db", command.config.db_path, "SQLite archive")->capture_default_str();
  replay->add_option("--session", command.config.replay.selection.sessions,
                     "Serve this session (repeatable; default: all)");
  replay->add_option("--conversation", command.config.replay.selection.conversations,
                     "Serve this conversation (repeatable)");
  replay->add_option("--listen", args.listen, "Address to listen on (port 0: any free port)")
      ->capture_default_str();
  replay->add_option("--ready-file", command.ready_file, "Write the URL here once ready");
  replay->add_option("--on-miss", args.on_miss, "error, http or forward")
      ->check(CLI::IsMember({"error", "http", "forward"}))
      ->capture_default_str();
  replay->add_option("--upstream", args.upstream, "Live agent asked under --on-miss forward");
  replay->add_option("--ignore", args.ignore,
                     "JSON pointer into an input left out of its key (repeatable)");
  replay->add_option("--threads", command.config.server.threads, "Worker threads")
      ->capture_default_str();
  replay
      ->add_option("--forward-timeout", args.forward_timeout_s,
                   "Seconds to wait for the live agent under --on-miss forward")
      ->capture_default_str();
  replay->add_flag("--no-store-misses", args.no_store_misses,
                   "Only log misses; never write to the archive");
  replay->add_flag("--a2a-ignore-message-id", command.config.replay.a2a_ignore_message_id,
                   "Leave A2A message ids out of the key (callers that mint new ones)");
  replay->add_option("--sse-pace", args.sse_pace, "Event streams at the recorded pace, or fast")
      ->check(CLI::IsMember({"recorded", "fast"}))
      ->capture_default_str();
  return replay;
}

/// Turns replay's arguments into its configuration; returns an error message when they
/// contradict each other.
std::string configureReplay(cli::ReplayCommand& command, const ReplayArguments& args) {
  auto& config = command.config;
  config.replay.on_miss = *replay::parseMissPolicy(args.on_miss);
  if (config.replay.on_miss == replay::MissPolicy::Forward) {
    auto url = proxy::parseUrl(args.upstream);
    if (!url || url->tls) {
      return "--on-miss forward needs --upstream http://host[:port][/path], got '" + args.upstream +
             "'";
    }
    config.upstream = *url;
  } else if (!args.upstream.empty()) {
    return "--upstream is only used with --on-miss forward";
  }
  try {
    config.replay.key_rules = replay::KeyRules::ignoring(args.ignore);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  auto listen = parseListen(args.listen);
  config.server.host = listen.host;
  config.server.port = listen.port;
  config.forward_timeout = std::chrono::seconds(args.forward_timeout_s);
  config.store_misses = !args.no_store_misses;
  config.replay.stream_pace = *replay::parseStreamPace(args.sse_pace);
  return {};
}

struct MockA2aArguments {
  std::string profile = "magisterium";
  std::string listen = "127.0.0.1:8000";
  std::string card_version;
  std::string check_order;
  std::string rate_window = "fixed";
  unsigned rate_default = 15;
  unsigned rate_expensive = 2;
  unsigned rate_window_s = 60;
  unsigned stream_delay_ms = 50;
  bool no_quota = false;
  bool no_cors = false;
};

CLI::App* addMockA2a(CLI::App& mock, cli::MockA2aCommand& command, MockA2aArguments& args) {
  auto* a2a = mock.add_subcommand("a2a", "A synthetic A2A JSON-RPC server");
  a2a->add_option("--profile", args.profile, "magisterium or standard (A2A v0.3)")
      ->check(CLI::IsMember({"magisterium", "standard"}))
      ->capture_default_str();
  a2a->add_option("--fixtures", command.fixtures_dir,
                  "Folder with card.json and skills.json (default: the bundled a2a/PROFILE)");
  a2a->add_option("--listen", args.listen, "Address to listen on (port 0: any free port)")
      ->capture_default_str();
  a2a->add_option("--ready-file", command.ready_file, "Write the URL here once ready");
  a2a->add_option("--public-url", command.config.public_url,
                  "The card's url (default: the listening address and endpoint path)");
  a2a->add_option("--endpoint-path", command.config.endpoint_path,
                  "Path of the JSON-RPC endpoint (POST / is served too)")
      ->capture_default_str();
  a2a->add_option("--token", command.tokens, "Accept this Bearer token as a Pro user (repeatable)");
  a2a->add_option("--tokens-file", command.tokens_file,
                  "Accept the tokens of this file, one `TOKEN [PLAN]` per line")
      ->check(CLI::ExistingFile);
  a2a->add_flag("--no-auth", command.config.no_auth,
                "Requests without an Authorization header act as a Pro user");
  a2a->add_option("--card-version", args.card_version,
                  "protocolVersion of the magisterium card: 0.3.0 (default) or 0.2.6")
      ->check(CLI::IsMember({"0.2.6", "0.3.0"}));
  a2a->add_option("--seed", command.config.seed, "Seed of the minted ids")->capture_default_str();
  a2a->add_option("--stream-delay-ms", args.stream_delay_ms, "Pause between two stream events")
      ->capture_default_str();
  a2a->add_option("--rate-default", args.rate_default, "message/send calls per window and token")
      ->capture_default_str();
  a2a->add_option("--rate-expensive", args.rate_expensive,
                  "Calls of expensive skills (catholic_qa) per window and token")
      ->capture_default_str();
  a2a->add_option("--rate-window-s", args.rate_window_s, "Quota window in seconds")
      ->capture_default_str();
  a2a->add_option("--rate-window", args.rate_window, "fixed or sliding")
      ->check(CLI::IsMember({"fixed", "sliding"}))
      ->capture_default_str();
  a2a->add_flag("--no-quota", args.no_quota, "Never answer 429");
  a2a->add_flag("--retry-after-header", command.config.retry_after_header,
                "Send an HTTP Retry-After header with 429 too");
  a2a->add_option("--check-order", args.check_order,
                  "The eight checks, comma-separated (default: "
                  "parse,envelope,auth,plan,method,params,skill,quota)");
  a2a->add_flag("--no-cors", args.no_cors, "No CORS headers; OPTIONS answers 204 with Allow");
  a2a->add_option("--threads", command.server.threads, "Worker threads")->capture_default_str();
  return a2a;
}

/// Turns the arguments of `mock a2a` into its command; returns an error message when they
/// contradict each other.
std::string configureMockA2a(cli::MockA2aCommand& command, const MockA2aArguments& args) {
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
  if (config.endpoint_path.empty() || config.endpoint_path.front() != '/') {
    return "--endpoint-path must start with '/'";
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
    command.fixtures_dir = std::string(AGENTVCR_DEFAULT_FIXTURES_DIR) + "/a2a/" + args.profile;
  }
  auto listen = parseListen(args.listen);
  command.server.host = listen.host;
  command.server.port = listen.port;
  return {};
}

struct EvalArguments {
  std::string agent;
  std::optional<double> fail_under;
};

CLI::App* addEval(CLI::App& app, cli::EvalCommand& command, EvalArguments& args) {
  auto* eval = app.add_subcommand("eval", "Re-ask recorded inputs of a live agent and compare");
  eval->add_option("--db", command.config.db_path, "SQLite archive")->capture_default_str();
  eval->add_option("--agent", args.agent, "Live agent base URL (http://)")->required();
  eval->add_option("--session", command.config.selection.sessions,
                   "Re-ask this session (repeatable; default: all but evaluations)");
  eval->add_option("--conversation", command.config.selection.conversations,
                   "Re-ask this conversation (repeatable)");
  eval->add_option("--jobs", command.config.jobs, "Concurrent requests")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  eval->add_flag("--one-by-one", command.config.one_by_one,
                 "One request per recorded input instead of the recorded batches");
  eval->add_option("--report", command.report_path, "Write the JSON report here");
  eval->add_option("--fail-under", args.fail_under, "Fail when the match rate is under this (0..1)")
      ->check(CLI::Range(0.0, 1.0));
  return eval;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"agentvcr: record, inspect and replay AI-agent HTTP traffic"};
  app.require_subcommand(1);

  cli::RecordCommand record;
  record.config.server.threads = defaultThreads();
  record.config.server.port = 8080;
  record.config.session.mode = "record";
  std::string upstream;
  std::string record_listen = "127.0.0.1:8080";
  std::string durability = "normal";
  unsigned upstream_timeout_s = 600;
  bool insecure = false;
  addRecord(app, record, upstream, record_listen, durability, upstream_timeout_s, insecure);

  cli::ReplayCommand replay_command;
  replay_command.config.server.threads = std::min(4u, defaultThreads());
  ReplayArguments replay_args;
  auto* replay_app = addReplay(app, replay_command, replay_args);

  cli::MockMagmaCommand mock;
  std::string mock_listen = "127.0.0.1:8000";
  auto* mock_app = app.add_subcommand("mock", "Run a synthetic agent");
  mock_app->require_subcommand(1);
  auto* mock_magma = mock_app->add_subcommand("magma", "A scripted MAGMA 2.0 agent");
  mock_magma->add_option("--script", mock.script_path, "Script file (JSON)")->required();
  mock_magma->add_option("--listen", mock_listen, "Address to listen on")->capture_default_str();
  mock_magma->add_option("--ready-file", mock.ready_file, "Write the URL here once ready");

  cli::MockA2aCommand mock_a2a;
  mock_a2a.server.threads = std::min(2u, defaultThreads());
  MockA2aArguments mock_a2a_args;
  addMockA2a(*mock_app, mock_a2a, mock_a2a_args);

  cli::DemoCommand demo;
  demo.fixtures_dir = AGENTVCR_DEFAULT_FIXTURES_DIR;
  demo.program = argv[0];
  auto* demo_app = app.add_subcommand(
      "demo", "Record scripted BENCH-like episodes through the proxy into an archive");
  demo_app->add_option("--db", demo.db_path, "Archive to write")->capture_default_str();
  demo_app->add_option("--fixtures", demo.fixtures_dir, "Fixtures folder")->capture_default_str();

  std::string ls_db = "agentvcr.sqlite";
  std::optional<std::int64_t> ls_session;
  auto* ls_app = app.add_subcommand("ls", "List sessions, or the conversations of one");
  ls_app->add_option("--db", ls_db, "Archive")->capture_default_str();
  ls_app->add_option("session", ls_session, "Session id: list its conversations");

  cli::ShowCommand show;
  show.db_path = "agentvcr.sqlite";
  auto* show_app = app.add_subcommand("show", "Show a conversation's steps or one exchange");
  show_app->add_option("--db", show.db_path, "Archive")->capture_default_str();
  auto* conversation_option =
      show_app->add_option("conversation", show.conversation, "Conversation id");
  show_app->add_option("--exchange", show.exchange, "Exchange id")->excludes(conversation_option);
  show_app->add_flag("--bodies", show.bodies, "With --exchange: print the bodies");

  std::string migrate_db = "agentvcr.sqlite";
  auto* migrate_app =
      app.add_subcommand("migrate", "Bring an archive from an older agentvcr to this schema");
  migrate_app->add_option("--db", migrate_db, "Archive")->capture_default_str();

  cli::ExportCommand export_command;
  export_command.db_path = "agentvcr.sqlite";
  auto* export_app = app.add_subcommand("export", "Write exchanges as JSONL, HAR 1.2 or curl");
  export_app->add_option("--db", export_command.db_path, "Archive")->capture_default_str();
  export_app->add_option("--format", export_command.format, "jsonl, har or curl")
      ->check(CLI::IsMember({"jsonl", "har", "curl"}))
      ->capture_default_str();
  export_app->add_option("--session", export_command.sessions,
                         "Export this session (repeatable; default: all)");
  export_app->add_option("--conversation", export_command.conversations,
                         "Export this conversation's exchanges (repeatable)");
  export_app->add_option("--out", export_command.out_path, "File to write (default: stdout)");

  cli::ImportCommand import_command;
  import_command.db_path = "agentvcr.sqlite";
  auto* import_app =
      app.add_subcommand("import", "Add the sessions of an `agentvcr export` JSONL file");
  import_app->add_option("--db", import_command.db_path, "Archive (created if missing)")
      ->capture_default_str();
  import_app->add_option("--format", import_command.format, "jsonl")
      ->check(CLI::IsMember({"jsonl"}))
      ->capture_default_str();
  import_app->add_option("--session-name", import_command.session_name,
                         "Name of the imported session(s) (default: the exported names)");
  import_app->add_option("input", import_command.in_path, "JSONL file")
      ->required()
      ->check(CLI::ExistingFile);

  cli::MergeCommand merge_command;
  auto* merge_app =
      app.add_subcommand("merge", "Copy every session of the inputs into OUT (kept distinct)");
  merge_app->add_option("out", merge_command.out_path, "Archive to write (created if missing)")
      ->required();
  merge_app->add_option("inputs", merge_command.in_paths, "Archives to copy")
      ->required()
      ->check(CLI::ExistingFile);

  cli::EvalCommand eval_command;
  eval_command.config.db_path = "agentvcr.sqlite";
  eval_command.progress = isatty(STDOUT_FILENO) != 0;
  EvalArguments eval_args;
  auto* eval_app = addEval(app, eval_command, eval_args);

  cli::LintCommand lint;
  lint.db_path = "agentvcr.sqlite";
  auto* lint_app =
      app.add_subcommand("lint", "Report contract violations in recorded traffic (exit 1 if any)");
  lint_app->add_option("--db", lint.db_path, "Archive")->capture_default_str();
  lint_app->add_option("--session", lint.sessions, "Only this session (repeatable)");
  lint_app->add_option("--format", lint.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();

  cli::StatsCommand stats;
  stats.db_path = "agentvcr.sqlite";
  auto* stats_app = app.add_subcommand("stats", "Per-session traffic, latency and error stats");
  stats_app->add_option("--db", stats.db_path, "Archive")->capture_default_str();
  stats_app->add_option("--session", stats.sessions, "Only this session (repeatable)");
  stats_app->add_option("--format", stats.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);

  try {
    if (app.got_subcommand("record")) {
      auto url = proxy::parseUrl(upstream);
      if (!url) {
        std::cerr << "agentvcr record: --upstream must be http(s)://host[:port][/path], got '"
                  << upstream << "'\n";
        return cli::kExitUsage;
      }
      auto listen = parseListen(record_listen);
      record.config.relay.upstream = *url;
      record.config.relay.upstream_timeout = std::chrono::seconds(upstream_timeout_s);
      record.config.relay.verify_tls = !insecure;
      record.config.server.host = listen.host;
      record.config.server.port = listen.port;
      record.config.recorder.durability =
          durability == "full" ? store::Durability::Full : store::Durability::Normal;
      return cli::runRecord(record, std::cout);
    }
    if (replay_app->parsed()) {
      if (auto problem = configureReplay(replay_command, replay_args); !problem.empty()) {
        std::cerr << "agentvcr replay: " << problem << "\n";
        return cli::kExitUsage;
      }
      return cli::runReplay(replay_command, std::cout);
    }
    if (eval_app->parsed()) {
      auto url = proxy::parseUrl(eval_args.agent);
      if (!url || url->tls) {
        std::cerr << "agentvcr eval: --agent must be http://host[:port][/path], got '"
                  << eval_args.agent << "'\n";
        return cli::kExitUsage;
      }
      eval_command.config.agent = *url;
      eval_command.fail_under = eval_args.fail_under;
      return cli::runEval(eval_command, std::cout);
    }
    if (mock_app->got_subcommand("magma")) {
      auto listen = parseListen(mock_listen);
      mock.server.host = listen.host;
      mock.server.port = listen.port;
      return cli::runMockMagma(mock, std::cout);
    }
    if (mock_app->got_subcommand("a2a")) {
      if (auto problem = configureMockA2a(mock_a2a, mock_a2a_args); !problem.empty()) {
        std::cerr << "agentvcr mock a2a: " << problem << "\n";
        return cli::kExitUsage;
      }
      return cli::runMockA2a(mock_a2a, std::cout);
    }
    if (app.got_subcommand("demo")) {
      return cli::runDemo(demo, std::cout);
    }
    if (app.got_subcommand("ls")) {
      return cli::runLs(ls_db, ls_session, std::cout);
    }
    if (migrate_app->parsed()) {
      return cli::runMigrate(migrate_db, std::cout);
    }
    if (export_app->parsed()) {
      return cli::runExport(export_command, std::cout);
    }
    if (import_app->parsed()) {
      return cli::runImport(import_command, std::cout);
    }
    if (merge_app->parsed()) {
      return cli::runMerge(merge_command, std::cout);
    }
    if (lint_app->parsed()) {
      return cli::runLint(lint, std::cout);
    }
    if (stats_app->parsed()) {
      return cli::runStats(stats, std::cout);
    }
    if (app.got_subcommand("show")) {
      if (!show.conversation && !show.exchange) {
        std::cerr << "agentvcr show: give a conversation id or --exchange ID\n";
        return cli::kExitUsage;
      }
      return cli::runShow(show, std::cout);
    }
  } catch (const CLI::Error& error) {
    return app.exit(error);
  } catch (const std::exception& error) {
    std::cerr << "agentvcr: " << error.what() << "\n";
    return cli::kExitFailure;
  }
  return cli::kExitUsage;
}
