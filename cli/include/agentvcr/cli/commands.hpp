#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/fleet/pull.hpp"
#include "agentvcr/otel/live_exporter.hpp"
#include "agentvcr/otel/sender.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"
#include "agentvcr/services/evaluator.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/sim/a2a/config.hpp"

/// The `agentvcr` subcommands. Parsing (command_line.hpp) fills these option structs; each run
/// function returns the process exit status and writes what a person reads to `out`.
namespace agentvcr::cli {

/// Exit statuses shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// The archive every command reads or writes when --db is not given.
inline constexpr const char* kDefaultArchive = "agentvcr.sqlite";
/// `agentvcr demo` writes its own archive so it never replaces recorded traffic.
inline constexpr const char* kDefaultDemoArchive = "agentvcr-demo.sqlite";

struct RecordCommand {
  proxy::RecordingProxyConfig config;
  std::string ready_file;  ///< written with "http://host:port" once listening
  std::string ship_uri;    ///< --ship: the fleet archive to ship to as the recording goes
  std::chrono::seconds ship_drain{10};  ///< after the signal, ship for at most this long
  std::string metrics_listen;           ///< --metrics-listen HOST:PORT; empty: no metrics
  /// --otlp: also send the recording as traces (`db_path` and `log` are set when it starts).
  std::optional<otel::LiveOptions> otlp;
};

int runRecord(const RecordCommand& command, std::ostream& out);

struct ReplayCommand {
  services::ReplayServiceConfig config;
  std::string ready_file;      ///< written with "http://host:port" once listening
  std::string metrics_listen;  ///< --metrics-listen HOST:PORT; empty: no metrics
};

int runReplay(const ReplayCommand& command, std::ostream& out);

struct MockMagmaCommand {
  std::string script_path;
  proxy::ServerOptions server;
  std::string ready_file;
  std::string metrics_listen;  ///< --metrics-listen HOST:PORT; empty: no metrics
};

int runMockMagma(const MockMagmaCommand& command, std::ostream& out);

/// `agentvcr mock a2a`: the synthetic A2A server (docs/a2a-mock.md).
struct MockA2aCommand {
  /// Everything but the fixtures and tokens, which runMockA2a() reads from the files below.
  sim::a2a::MockConfig config;
  std::string fixtures_dir;         ///< holds card.json and skills.json
  std::vector<std::string> tokens;  ///< accepted as Pro users
  std::string tokens_file;          ///< more tokens, `TOKEN [PLAN]` per line
  proxy::ServerOptions server;
  std::string ready_file;  ///< written with "http://host:port" once listening
  /// `--clock fixed:TIME`: every reading of the mock's clock; the system clock when absent.
  std::optional<sim::a2a::TimePoint> fixed_clock;
  std::string metrics_listen;  ///< --metrics-listen HOST:PORT; empty: no metrics
};

/// Serves the mock until SIGINT or SIGTERM. Throws std::runtime_error for unreadable
/// fixtures or tokens.
int runMockA2a(const MockA2aCommand& command, std::ostream& out);

/// `agentvcr reindex`: re-threads the conversations of recorded sessions with the current
/// rules (docs/schema.md, "Conversation threading").
struct ReindexCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< every session when empty
};

/// Throws std::runtime_error when the archive is missing, a session does not exist or is
/// still being recorded.
int runReindex(const ReindexCommand& command, std::ostream& out);

struct DemoCommand {
  std::string fixtures_dir;  ///< holds demo/agent-script.json and demo/episodes.json
  std::string db_path = kDefaultDemoArchive;
  unsigned threads = 2;
  std::string node;                        ///< --node; empty: the host name
  std::string program = "agentvcr";        ///< how the user runs agentvcr, for the printed hints
  std::shared_ptr<protocol::Chaos> chaos;  ///< --chaos: faults the demo's caller meets
};

int runDemo(const DemoCommand& command, std::ostream& out);

/// `agentvcr ls`: the sessions of an archive, or the conversations of one.
struct LsCommand {
  std::string db_path = kDefaultArchive;
  std::optional<std::int64_t> session;
};

int runLs(const std::string& db_path, std::optional<std::int64_t> session, std::ostream& out);

struct ShowCommand {
  std::string db_path = kDefaultArchive;
  std::optional<std::int64_t> conversation;
  std::optional<std::int64_t> exchange;
  bool bodies = false;  ///< with --exchange: print request and response bodies too
};

int runShow(const ShowCommand& command, std::ostream& out);

/// `agentvcr export`: exchanges of an archive as JSONL, HAR 1.2 or curl commands, or its
/// recordings as OpenTelemetry traces (docs/observability.md).
struct ExportCommand {
  std::string db_path = kDefaultArchive;
  std::string format = "jsonl";  ///< "jsonl", "har", "curl" or "otlp"
  std::vector<std::int64_t> sessions;
  std::vector<std::int64_t> conversations;
  /// Empty: `out`. otlp: the request bodies, one per line, instead of posting them.
  std::string out_path;
  /// otlp: the collector's base URL (--to); empty: the OTEL_EXPORTER_OTLP_* variables.
  std::string to;
  std::vector<std::string> otlp_headers;  ///< otlp: --otlp-header NAME=VALUE
  bool content = false;                   ///< otlp: prompts, outputs and texts too
  otel::RetryPolicy retry;                ///< otlp: how hard to try each request
};

int runExport(const ExportCommand& command, std::ostream& out);

/// `agentvcr import`: the JSONL of `agentvcr export` back into an archive as new sessions.
struct ImportCommand {
  std::string db_path = kDefaultArchive;
  std::string format = "jsonl";
  std::string in_path;
  std::string session_name;  ///< empty: the exported names
  bool as_new = false;       ///< --as-new: copy sessions the archive holds again, as new ones
};

int runImport(const ImportCommand& command, std::ostream& out);

/// `agentvcr merge`: every session of the inputs copied into `out_path`.
struct MergeCommand {
  std::string out_path;
  std::vector<std::string> in_paths;
  bool as_new = false;  ///< as ImportCommand::as_new
};

int runMerge(const MergeCommand& command, std::ostream& out);

/// `agentvcr eval`: re-asks recorded inputs of a live agent and compares (docs/eval.md).
struct EvalCommand {
  services::EvalConfig config;
  std::string report_path;           ///< --report: the JSON report is written here
  std::optional<double> fail_under;  ///< --fail-under: lowest accepted match rate (0..1)
  bool progress = false;             ///< print "done/total" as requests are answered
};

/// Eval's exit status when nothing could be judged (the archive unreadable, the agent down or
/// refused, the report unwritable): 2, as for bad arguments, so that a CI gate tells "the agent
/// regressed" (1) from "the check itself did not run".
inline constexpr int kExitNotEvaluated = kExitUsage;

/// Exit 0 when every step matched (at least fail_under of them, when set) and the contract was
/// kept, 1 otherwise, kExitNotEvaluated when nothing could be evaluated.
int runEval(const EvalCommand& command, std::ostream& out);

/// `agentvcr noise`: the paths that vary between recordings of the same episodes (docs/replay.md).
struct NoiseCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< empty: the latest recording and its evaluations
  std::string out_path;                ///< --out; empty: `out`
};

/// kExitFailure when the sessions cannot be compared (the reason on `out`).
int runNoise(const NoiseCommand& command, std::ostream& out);

/// `agentvcr lint`: contract violations in recorded traffic (docs/lint-and-stats.md).
struct LintCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< empty: every session
  std::string format = "text";         ///< "text" or "json"
};

/// kExitOk when no violation is found, kExitFailure otherwise (a CI gate).
int runLint(const LintCommand& command, std::ostream& out);

/// `agentvcr stats`: per-session aggregates of recorded traffic (docs/lint-and-stats.md).
struct StatsCommand {
  std::string db_path = kDefaultArchive;
  std::vector<std::int64_t> sessions;  ///< empty: every session
  std::string format = "text";         ///< "text" or "json"
};

int runStats(const StatsCommand& command, std::ostream& out);

struct MigrateCommand {
  std::string db_path = kDefaultArchive;
};

/// `agentvcr migrate`: applies the pending schema migrations to the archive at `db_path` (which
/// must exist) and says from which version to which. Throws std::runtime_error on failure.
int runMigrate(const std::string& db_path, std::ostream& out);

/// `agentvcr ship`: copies what an archive committed into the fleet archive (docs/fleet.md).
struct ShipCommand {
  std::string db_path = kDefaultArchive;
  std::string uri;      ///< --to
  bool follow = false;  ///< keep shipping until SIGINT/SIGTERM
  std::size_t batch = 2000;
  std::chrono::seconds drain{10};  ///< after the signal, ship for at most this long
};

/// kExitFailure when the fleet archive could not take the rows (the reason on stderr).
int runShip(const ShipCommand& command, std::ostream& out);

/// `agentvcr pull`: sessions out of the fleet archive into a SQLite archive.
struct PullCommand {
  fleet::PullOptions options;
};

int runPull(const PullCommand& command, std::ostream& out);

/// `agentvcr pg migrate --db URI`.
struct PgMigrateCommand {
  std::string uri;
};

int runPgMigrate(const PgMigrateCommand& command, std::ostream& out);

/// `agentvcr pg prune --db URI --before DATE [--dry-run]`.
struct PgPruneCommand {
  std::string uri;
  std::string before;
  bool dry_run = false;
};

int runPgPrune(const PgPruneCommand& command, std::ostream& out);

/// Writes `text` to `path` atomically (temp file + rename) so a watcher never reads half.
void writeReadyFile(const std::string& path, const std::string& text);

}  // namespace agentvcr::cli
