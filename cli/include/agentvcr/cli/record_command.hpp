#pragma once

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>

#include "agentvcr/cli/command.hpp"
#include "agentvcr/otel/live_exporter.hpp"
#include "agentvcr/proxy/recording_proxy.hpp"

namespace agentvcr::cli {

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

Registration<RecordCommand> registerRecord(CLI::App& app, Invocation& invocation);

}  // namespace agentvcr::cli
