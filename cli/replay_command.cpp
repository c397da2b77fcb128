#include "agentvcr/cli/replay_command.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/metrics_serving.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/replay/ignore_file.hpp"

namespace agentvcr::cli {

int runReplay(const ReplayCommand& command, std::ostream& out) {
  StopSignals stop_signals;
  MetricsServing metrics(command.metrics_listen);
  services::ReplayServiceConfig config = command.config;
  config.metrics = metrics.traffic();
  services::ReplayService service(config);
  const auto metrics_endpoint = metrics.serve(out, "replay");
  service.start();
  const std::string address = service.endpoint().httpUrl();
  auto& replayer = service.replayer();
  const replay::RecordedA2a a2a = replayer.recordedA2a();
  out << "agentvcr replay: listening on " << address << " (" << replayer.recordedSteps()
      << " recorded steps, " << replayer.distinctKeys() << " distinct inputs, " << a2a.calls
      << " A2A calls in " << a2a.contexts
      << " contexts, on miss: " << replay::missPolicyName(replayer.options().on_miss) << ")"
      << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  drainAfterSignal(
      stop_signals, stop_signals.wait(), out, "replay", command.config.server.drain_timeout,
      [&] { service.stop(); }, [&] { service.cutNow(); });
  const replay::ReplayStats stats = replayer.stats();
  out << "agentvcr replay: " << stats.requests << " requests, " << stats.hits << " hits, "
      << stats.misses << " misses, " << stats.forwarded << " forwarded";
  if (config.replay.fork_at) {
    out << " (" << stats.forked << " inputs past the fork point)";
  }
  out << std::endl;
  return kExitOk;
}

namespace {

/// replay's arguments that are not stored as given.
struct ReplayArguments {
  std::string listen = "127.0.0.1:8000";
  std::string miss_log;  ///< --miss-log: misses also appended here, one JSON object per line
  std::string on_miss = "error";
  std::string upstream;
  std::optional<std::int64_t> fork_at;
  std::vector<std::string> ignore;
  std::string ignore_file;  ///< --ignore-file: its [input] pointers join --ignore
  unsigned forward_timeout_s = 600;
  bool no_store_misses = false;
  std::string pace;      ///< --pace; empty: answers at once, streams as --sse-pace says
  std::string sse_pace;  ///< --sse-pace; empty: as --pace says, else recorded
  bool no_memo = false;
  std::size_t memo_mib = replay::ReplayOptions::kDefaultMemoBytes >> 20;
  ChaosArguments chaos;
};

/// Where misses are logged with --miss-log: stderr as ever, and the file, which a test harness
/// reads (one JSON object per line, flushed at once so a reader never sees half a line). Null
/// when the file cannot be opened.
std::function<void(const std::string&)> missLogger(const std::string& path) {
  auto file = std::make_shared<std::ofstream>(path, std::ios::binary | std::ios::app);
  if (!*file) {
    return {};
  }
  auto mutex = std::make_shared<std::mutex>();
  return [file, mutex](const std::string& line) {
    std::cerr << line << "\n";
    std::lock_guard<std::mutex> lock(*mutex);
    *file << line << "\n" << std::flush;
  };
}

std::string configureReplay(ReplayCommand& command, const ReplayArguments& args) {
  auto& config = command.config;
  config.replay.on_miss = *replay::parseMissPolicy(args.on_miss);
  if (config.replay.on_miss == replay::MissPolicy::Forward) {
    auto url = net::parseUrl(args.upstream);
    if (!url || url->tls) {
      return "--on-miss forward needs --upstream http://host[:port][/path], got '" + args.upstream +
             "'";
    }
    config.upstream = *url;
  } else if (!args.upstream.empty()) {
    return "--upstream is only used with --on-miss forward";
  }
  if (args.fork_at && config.replay.on_miss != replay::MissPolicy::Forward) {
    return "--fork-at " + std::to_string(*args.fork_at) +
           " sends the steps from there on to a live agent: add --on-miss forward --upstream URL";
  }
  config.replay.fork_at = args.fork_at;
  try {
    std::vector<std::string> ignored = args.ignore;
    if (!args.ignore_file.empty()) {
      const replay::IgnoreFile file = replay::readIgnoreFile(args.ignore_file);
      ignored.insert(ignored.end(), file.input.begin(), file.input.end());
    }
    config.replay.key_rules = replay::KeyRules::ignoring(ignored);
  } catch (const std::exception& error) {  // a bad pointer, or an unreadable or bad file
    return error.what();
  }
  auto listen = parseListen(args.listen);
  config.server.host = listen.host;
  config.server.port = listen.port;
  config.forward_timeout = std::chrono::seconds(args.forward_timeout_s);
  config.store_misses = !args.no_store_misses;
  if (!args.pace.empty()) {
    config.replay.answer_pace = config.replay.stream_pace = *replay::parsePace(args.pace);
  }
  if (!args.sse_pace.empty()) {
    config.replay.stream_pace = *replay::parsePace(args.sse_pace);
  }
  config.replay.memo_bytes = args.no_memo ? 0 : args.memo_mib << 20;
  config.chaos = makeChaos(args.chaos);
  if (!args.miss_log.empty()) {
    config.log_miss = missLogger(args.miss_log);
    if (!config.log_miss) {
      return "--miss-log: cannot write " + args.miss_log;
    }
  }
  return {};
}

}  // namespace

Registration<ReplayCommand> registerReplay(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ReplayCommand>();
  auto args = std::make_shared<ReplayArguments>();
  auto& config = command->config;
  config.db_path = kDefaultArchive;
  config.server.threads = std::min(4u, defaultThreads());

  auto* replay = app.add_subcommand("replay", "Serve recorded conversations as a mock agent");
  replay->add_option("--db", config.db_path, "SQLite archive")->capture_default_str();
  replay->add_option("--session", config.replay.selection.sessions,
                     "Serve this session (repeatable; default: all)");
  replay->add_option("--conversation", config.replay.selection.conversations,
                     "Serve this conversation (repeatable)");
  replay->add_option("--listen", args->listen, "Address to listen on (port 0: any free port)")
      ->capture_default_str();
  replay->add_option("--ready-file", command->ready_file, "Write the URL here once ready");
  addDrainTimeoutOption(replay, command->config.server);
  addMetricsListenOption(replay, command->metrics_listen);
  replay->add_option("--miss-log", args->miss_log,
                     "Also append each miss to this file, one JSON object per line");
  replay->add_option("--on-miss", args->on_miss, "error, http or forward")
      ->check(CLI::IsMember({"error", "http", "forward"}))
      ->capture_default_str();
  replay->add_option("--upstream", args->upstream, "Live agent asked under --on-miss forward");
  replay
      ->add_option("--fork-at", args->fork_at,
                   "Answer the steps of depth below N from the recording and send the rest live "
                   "(needs --on-miss forward); stored as a session of mode fork")
      ->check(CLI::NonNegativeNumber);
  addNodeOption(replay, config.node);
  replay->add_option("--ignore", args->ignore,
                     "JSON pointer into an input left out of its key (repeatable)");
  replay->add_option("--ignore-file", args->ignore_file,
                     "Ignore file (agentvcr noise): its [input] pointers are added to --ignore");
  replay->add_option("--threads", config.server.threads, "Worker threads")->capture_default_str();
  replay
      ->add_option("--forward-timeout", args->forward_timeout_s,
                   "Seconds to wait for the live agent under --on-miss forward")
      ->capture_default_str();
  replay->add_flag("--no-store-misses", args->no_store_misses,
                   "Only log misses; never write to the archive");
  replay->add_flag("--a2a-ignore-message-id", config.replay.a2a_ignore_message_id,
                   "Leave A2A message ids out of the key (callers that mint new ones)");
  replay->add_flag("--rewind-on-info", config.replay.rewind_on_info,
                   "Serve every recording from its first answer again on each GET /v1/info, "
                   "which BENCH sends once per run (one caller at a time)");
  // recorded, fast or a factor of the recorded times; checked when parsed.
  const CLI::Validator pace(
      [](const std::string& text) {
        return replay::parsePace(text) ? std::string()
                                       : "expected recorded, fast or a factor >= 0 (e.g. 0.5)";
      },
      "recorded|fast|FACTOR");
  replay
      ->add_option("--pace", args->pace,
                   "Hold each answer by the agent's recorded think time (recorded), not at all "
                   "(fast, the default) or scaled by a factor (0.5: twice as fast)")
      ->check(pace);
  replay
      ->add_option("--sse-pace", args->sse_pace,
                   "Event streams alone: recorded (the default), fast or a factor; wins over "
                   "--pace for streams")
      ->check(pace);
  addChaosOptions(replay, args->chaos);
  replay->add_flag("--no-memo", args->no_memo,
                   "Parse and key every request, even one seen before with other ids");
  replay
      ->add_option("--memo-mib", args->memo_mib,
                   "Memory for remembered requests, in MiB (least recently used leave first)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  runWhenParsed<ReplayCommand>(
      replay, invocation, "replay", command,
      [args](ReplayCommand& parsed) { return configureReplay(parsed, *args); }, runReplay);
  return {replay, command};
}

}  // namespace agentvcr::cli
