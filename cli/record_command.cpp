#include "agentvcr/cli/record_command.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "agentvcr/cli/clock_steps.hpp"
#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/metrics_serving.hpp"
#include "agentvcr/cli/otlp_options.hpp"
#include "agentvcr/cli/signals.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/shipper.hpp"
#include "agentvcr/store/background_thread.hpp"

namespace agentvcr::cli {

namespace {

/// Linux's lowest scheduling priority.
constexpr int kMaxNice = 19;

/// A follower of the archive the recorder writes (the fleet shipper, the live OTLP exporter) on a
/// thread of its own at the lowest priority. It only reads the file, so PostgreSQL or a collector
/// being slow or away never slows the relay, and what it has not sent waits in the archive. Its
/// owner stops and joins it whatever happens: an error after it started (a taken
/// --metrics-listen address) is a clean exit, never an abort.
template <class Follower>
class FollowerThread {
 public:
  FollowerThread(std::unique_ptr<Follower> follower, const char* name)
      : follower_(std::move(follower)), thread_([this, name] {
          // Following can wait and the relay cannot: on a saturated machine the relay takes the
          // CPU, and the archive keeps what is not sent yet, which drains once the load eases.
          store::nameThisThread(name);
          store::lowerThisThreadsPriority(kMaxNice);
          follower_->run();
          done_.set_value();
        }) {}

  ~FollowerThread() {
    if (thread_.joinable()) {
      follower_->stop();
      thread_.join();
    }
  }

  FollowerThread(const FollowerThread&) = delete;
  FollowerThread& operator=(const FollowerThread&) = delete;

  Follower& follower() { return *follower_; }

  /// Lets the follower send what is committed for at most `drain`, then stops it.
  void finish(std::chrono::seconds drain) {
    follower_->finish();
    if (done_future_.wait_for(drain) != std::future_status::ready) {
      follower_->stop();
    }
    thread_.join();
  }

 private:
  std::unique_ptr<Follower> follower_;
  std::promise<void> done_;
  std::future<void> done_future_ = done_.get_future();
  std::thread thread_;  // last: it starts once what it uses exists
};

void logToStderr(const std::string& line) {
  std::cerr << "agentvcr record: " << line << std::endl;
}

}  // namespace

int runRecord(const RecordCommand& command, std::ostream& out) {
  StopSignals stop_signals;
  MetricsServing metrics(command.metrics_listen);
  proxy::RecordingProxyConfig config = command.config;
  if (const char* steps = std::getenv(kClockStepsVariable)) {
    config.recorder.clock = steppedClock(parseClockSteps(steps));
    out << "agentvcr record: the recorded clock steps as " << kClockStepsVariable << " says ("
        << steps << "), for tests" << std::endl;
  }
  if (const auto& traffic = metrics.traffic()) {
    config.relay.metrics = traffic;
    config.recorder.on_a2a_call = [traffic](const protocol::a2a::Call& call) {
      traffic->observeA2aCall(call.method, call.error_code);
    };
  }
  proxy::RecordingProxy recording(config);
  metrics.addRecorder(recording.recorder());
  std::optional<FollowerThread<fleet::Shipper>> shipping;
  if (!command.ship_uri.empty()) {
    if (fleet::carriesPassword(command.ship_uri)) {
      std::cerr << "agentvcr record: warning: " << fleet::passwordWarning() << std::endl;
    }
    fleet::ShipOptions options;
    options.db_path = command.config.db_path;
    options.uri = command.ship_uri;
    options.follow = true;
    options.log = logToStderr;
    out << "agentvcr record: shipping to " << fleet::redactedUri(command.ship_uri) << std::endl;
    shipping.emplace(std::make_unique<fleet::Shipper>(options), "avcr-ship");
    metrics.addShipper(shipping->follower());
  }
  std::optional<FollowerThread<otel::LiveExporter>> tracing;
  if (command.otlp) {
    otel::LiveOptions options = *command.otlp;
    options.db_path = command.config.db_path;
    options.positions_path = command.config.db_path + ".otlp-positions";
    options.log = logToStderr;
    out << "agentvcr record: sending traces to " << options.endpoint.toString() << std::endl;
    tracing.emplace(std::make_unique<otel::LiveExporter>(std::move(options)), "avcr-otlp");
  }
  // Bound before the relay starts, so that a taken metrics address stops the command before
  // any exchange is relayed; declared after the recorder and the shipper it reads, so that it
  // stops serving before they go.
  const auto metrics_endpoint = metrics.serve(out, "record");
  recording.start();
  const std::string address = recording.endpoint().httpUrl();
  out << "agentvcr record: listening on " << address << ", relaying to "
      << command.config.relay.upstream.toString() << ", recording session " << recording.sessionId()
      << " into " << command.config.db_path << std::endl;
  if (!command.ready_file.empty()) {
    writeReadyFile(command.ready_file, address);
  }
  drainAfterSignal(
      stop_signals, stop_signals.wait(), out, "record", command.config.server.drain_timeout,
      [&] { recording.stop(); }, [&] { recording.cutNow(); });
  if (shipping) {
    shipping->finish(command.ship_drain);
    const fleet::ShipStats stats = shipping->follower().stats();
    out << "agentvcr record: shipped " << stats.exchanges << " exchanges";
    if (stats.left > 0) {
      out << "; " << stats.left << " left in the archive for `agentvcr ship`";
    }
    out << std::endl;
  }
  if (tracing) {
    tracing->finish(command.ship_drain);
    const otel::LiveStats stats = tracing->follower().stats();
    out << "agentvcr record: sent " << stats.spans << " spans of " << stats.exchanges
        << " exchanges";
    if (stats.left > 0) {
      out << "; " << stats.left << " exchanges left for `agentvcr export --format otlp`";
    }
    out << std::endl;
  }
  auto stats = recording.recorder().stats();
  out << "agentvcr record: " << stats.written << " exchanges written in " << stats.batches
      << " batches, " << stats.indexed << " indexed";
  if (stats.refused_full > 0) {
    out << ", queue full " << stats.refused_full << " times (callers waited)";
  }
  if (stats.write_errors > 0) {
    out << ", " << stats.write_errors << " write errors";
  }
  out << std::endl;
  return stats.write_errors == 0 ? kExitOk : kExitFailure;
}

namespace {

/// record's arguments that are not stored as given.
struct RecordArguments {
  std::string upstream;
  std::string listen = "127.0.0.1:8080";
  std::string durability = "normal";
  unsigned upstream_timeout_s = 600;
  bool insecure = false;
  ChaosArguments chaos;
  OtlpArguments otlp;
};

std::string configureRecord(RecordCommand& command, const RecordArguments& args) {
  auto url = net::parseUrl(args.upstream);
  if (!url) {
    return "--upstream must be http(s)://host[:port][/path], got '" + args.upstream + "'";
  }
  auto listen = parseListen(args.listen);
  auto& config = command.config;
  config.relay.upstream = *url;
  config.relay.upstream_timeout = std::chrono::seconds(args.upstream_timeout_s);
  config.relay.verify_tls = !args.insecure;
  config.relay.chaos = makeChaos(args.chaos);
  config.server.host = listen.host;
  config.server.port = listen.port;
  config.recorder.durability =
      args.durability == "full" ? store::Durability::Full : store::Durability::Normal;
  return configureLiveExport(args.otlp, command.otlp);
}

}  // namespace

Registration<RecordCommand> registerRecord(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<RecordCommand>();
  auto args = std::make_shared<RecordArguments>();
  auto& config = command->config;
  config.db_path = kDefaultArchive;
  config.server.threads = defaultThreads();
  config.server.port = 8080;
  config.session.mode = "record";
  // A proxy relays first: under load its index thread takes a quarter of a core by default.
  config.recorder.index_share_under_load = 0.25;

  auto* record = app.add_subcommand("record", "Relay to an agent and record every exchange");
  record->add_option("--upstream", args->upstream, "Agent base URL (http:// or https://)")
      ->required();
  record->add_option("--listen", args->listen, "Address to listen on")->capture_default_str();
  record->add_option("--db", config.db_path, "SQLite archive")->capture_default_str();
  record->add_option("--session", config.session.name, "Session name");
  addNodeOption(record, config.session.node);
  record->add_option("--threads", config.server.threads, "Worker threads")->capture_default_str();
  addDrainTimeoutOption(record, config.server);
  record
      ->add_option("--max-body", config.relay.max_request_body,
                   "Largest request body in bytes (413 above)")
      ->capture_default_str();
  record
      ->add_option("--upstream-timeout", args->upstream_timeout_s,
                   "Seconds to wait for the agent's answer (504 after)")
      ->capture_default_str();
  record->add_option("--durability", args->durability, "normal or full")
      ->check(CLI::IsMember({"normal", "full"}))
      ->capture_default_str();
  record->add_flag(
      "!--plain-bodies", config.recorder.compress_bodies,
      "Store bodies and memories verbatim (readable with plain SQL), not zstd-compressed");
  record
      ->add_option("--index-share", config.recorder.index_share_under_load,
                   "Share of one core the indexing of captured exchanges takes while traffic "
                   "keeps arriving (1: all it needs); the index catches up when the load drops")
      ->check(CLI::Range(0.05, 1.0))
      ->capture_default_str();
  record->add_option("--ready-file", command->ready_file,
                     "Write the listening URL here once ready");
  addChaosOptions(record, args->chaos);
  record->add_flag("--insecure", args->insecure, "Do not verify an https upstream's certificate");
  record
      ->add_option("--ca-file", config.relay.ca_file,
                   "Also trust the certificate authorities in this PEM file")
      ->check(CLI::ExistingFile);
  record->add_option("--ship", command->ship_uri,
                     "Also ship the recording into this fleet archive (postgresql://...) as it "
                     "is indexed; PostgreSQL being slow or down never slows the relay");
  record
      ->add_option_function<int>(
          "--ship-drain",
          [command](int seconds) { command->ship_drain = std::chrono::seconds(seconds); },
          "With --ship or --otlp: seconds to keep sending after SIGTERM (default 10)")
      ->check(CLI::Range(0, 3600));
  addOtlpOptions(record, args->otlp);
  record->add_flag("!--no-rewrite-card", config.relay.rewrite_cards,
                   "Pass agent cards on as the agent wrote them, not pointed at the recorder");
  record
      ->add_option("--public-url", config.relay.public_url,
                   "Where clients reach the recorder, written into the agent cards it passes on "
                   "(default: the listening address)")
      ->check([](const std::string& url) {
        return net::parseUrl(url) ? std::string() : "must be http(s)://host[:port][/path]";
      });
  record->add_flag("!--no-probe", config.probe_identity,
                   "Do not ask the agent for /health and /v1/info at start");
  addMetricsListenOption(record, command->metrics_listen);
  runWhenParsed<RecordCommand>(
      record, invocation, "record", command,
      [args](RecordCommand& parsed) { return configureRecord(parsed, *args); }, runRecord);
  return {record, command};
}

}  // namespace agentvcr::cli
