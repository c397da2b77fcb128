// `agentvcr export`: an archive's exchanges as JSONL, HAR or curl commands, or its recordings as
// OpenTelemetry traces sent to a collector.

#include "agentvcr/cli/export_command.hpp"

#include <fstream>
#include <iostream>
#include <ostream>

#include "agentvcr/cli/command_line.hpp"
#include "agentvcr/cli/otlp_options.hpp"
#include "agentvcr/otel/archive_export.hpp"
#include "agentvcr/otel/sender.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/export.hpp"
#include "agentvcr/store/identity.hpp"

namespace agentvcr::cli {
namespace {

std::size_t writeFormat(const ExportCommand& command, const store::ArchiveReader& archive,
                        const std::vector<std::int64_t>& ids, std::ostream& sink) {
  if (command.format == "har") {
    return store::exportHar(archive, ids, store::agentvcrVersion(), sink);
  }
  if (command.format == "curl") {
    return store::exportCurl(archive, ids, sink);
  }
  return store::exportArchiveJsonl(archive, ids, sink);
}

otel::ArchiveExportOptions traceExportOptions(const ExportCommand& command) {
  otel::ArchiveExportOptions options;
  options.db_path = command.db_path;
  options.content = command.content;
  options.sessions = command.sessions;
  options.conversations = command.conversations;
  return options;
}

void printCounts(const otel::ExportCounts& counts, const std::string& where, std::ostream& out) {
  out << "exported " << counts.traces << " trace(s), " << counts.spans << " span(s) in "
      << counts.payloads << " request(s) to " << where << "\n";
}

/// --format otlp --out FILE: the request bodies as JSON lines, for a look or a later `curl`.
int writeTraces(const ExportCommand& command, std::ostream& out) {
  std::ofstream file(command.out_path, std::ios::binary | std::ios::trunc);
  if (!file) {
    std::cerr << "agentvcr export: cannot write " << command.out_path << "\n";
    return kExitUsage;
  }
  const otel::ExportCounts counts =
      otel::exportArchive(traceExportOptions(command), [&file](const otel::Payload& payload) {
        file << payload.body << "\n";
        return true;
      });
  file.close();
  if (!file) {
    std::cerr << "agentvcr export: writing " << command.out_path << " failed\n";
    return kExitUsage;
  }
  printCounts(counts, command.out_path, out);
  return kExitOk;
}

int sendTraces(const ExportCommand& command, std::ostream& out) {
  otel::OtlpEndpoint endpoint;
  if (auto problem = resolveOtlpEndpoint(command.to, command.otlp_headers,
                                         otel::processEnvironment(), endpoint);
      !problem.empty()) {
    std::cerr << "agentvcr export: " << problem << "\n";
    return kExitUsage;
  }
  otel::OtlpSender sender(endpoint, command.retry);
  const otel::RetryWait wait = otel::sleepingWait();
  std::string failure;
  const otel::ExportCounts counts =
      otel::exportArchive(traceExportOptions(command), [&](const otel::Payload& payload) {
        switch (sender.send(payload.body, wait)) {
          case otel::Delivery::Sent:
            return true;
          case otel::Delivery::Refused:
            failure = "the collector refused the spans: " + sender.lastError();
            return false;
          case otel::Delivery::GaveUp:
          case otel::Delivery::Stopped:
            failure = "gave up after " + std::to_string(command.retry.attempts) +
                      " attempts: " + sender.lastError();
            return false;
        }
        return false;
      });
  if (!failure.empty()) {
    std::cerr << "agentvcr export: " << failure << " (" << counts.spans
              << " span(s) were sent before)\n";
    return kExitFailure;
  }
  printCounts(counts, endpoint.toString(), out);
  return kExitOk;
}

}  // namespace

int runExport(const ExportCommand& command, std::ostream& out) {
  if (command.format == "otlp") {
    return command.out_path.empty() ? sendTraces(command, out) : writeTraces(command, out);
  }
  if (command.format != "jsonl" && command.format != "har" && command.format != "curl") {
    std::cerr << "agentvcr export: --format must be jsonl, har, curl or otlp\n";
    return kExitUsage;
  }
  const store::ArchiveReader archive(command.db_path);
  const std::vector<std::int64_t> ids =
      store::selectExchanges(archive, {command.sessions, command.conversations});
  if (command.out_path.empty()) {
    writeFormat(command, archive, ids, out);
    out.flush();
    return kExitOk;
  }
  std::ofstream file(command.out_path, std::ios::binary | std::ios::trunc);
  if (!file) {
    std::cerr << "agentvcr export: cannot write " << command.out_path << "\n";
    return kExitUsage;
  }
  const std::size_t written = writeFormat(command, archive, ids, file);
  file.close();
  if (!file) {
    std::cerr << "agentvcr export: writing " << command.out_path << " failed\n";
    return kExitUsage;
  }
  out << "exported " << written << " exchange(s) to " << command.out_path << "\n";
  return kExitOk;
}

namespace {

/// The usage errors CLI11 cannot see: the options that only --format otlp takes.
std::string checkExport(const ExportCommand& command) {
  const bool otlp = command.format == "otlp";
  if (!otlp && (!command.to.empty() || !command.otlp_headers.empty() || command.content)) {
    return "--to, --otlp-header and --content need --format otlp";
  }
  if (otlp && command.to.empty() && command.out_path.empty()) {
    const otel::EnvLookup env = otel::processEnvironment();
    if (!env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") && !env("OTEL_EXPORTER_OTLP_ENDPOINT")) {
      return "--format otlp needs --to URL (or OTEL_EXPORTER_OTLP_ENDPOINT), or --out FILE";
    }
  }
  if (otlp && !command.to.empty() && !net::parseUrl(command.to)) {
    return "--to must be http(s)://host[:port][/path], got '" + command.to + "'";
  }
  return {};
}

}  // namespace

Registration<ExportCommand> registerExport(CLI::App& app, Invocation& invocation) {
  auto command = std::make_shared<ExportCommand>();
  auto* exporter = app.add_subcommand(
      "export", "Write exchanges as JSONL, HAR 1.2 or curl, or send them as OpenTelemetry traces");
  exporter->add_option("--db", command->db_path, "Archive")->capture_default_str();
  exporter->add_option("--format", command->format, "jsonl, har, curl or otlp")
      ->check(CLI::IsMember({"jsonl", "har", "curl", "otlp"}))
      ->capture_default_str();
  exporter->add_option("--session", command->sessions,
                       "Export this session (repeatable; default: all)");
  exporter->add_option("--conversation", command->conversations,
                       "Export this conversation's exchanges (repeatable)");
  exporter->add_option("--out", command->out_path,
                       "File to write (default: stdout); with otlp: the requests as JSON lines "
                       "instead of sending them");
  exporter->add_option("--to", command->to,
                       "otlp: the OTLP/HTTP collector's base URL (/v1/traces appended)");
  addOtlpHeaderOption(exporter, command->otlp_headers);
  exporter->add_flag("--content", command->content,
                     "otlp: include prompts, outputs and instructions (may be private)");
  runWhenParsed<ExportCommand>(exporter, invocation, "export", command, checkExport, runExport);
  return {exporter, command};
}

}  // namespace agentvcr::cli
