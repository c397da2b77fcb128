#include "agentvcr/proxy/recording_proxy.hpp"

#include <iostream>
#include <thread>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/proxy/connection.hpp"

namespace agentvcr::proxy {
namespace {

constexpr std::chrono::seconds kProbeTimeout{5};

bool isWildcard(const std::string& host) {
  return host == "0.0.0.0" || host == "::" || host.empty();
}

}  // namespace

RecordingProxy::RecordingProxy(RecordingProxyConfig config) : config_(std::move(config)) {
  // Bind first, so the session row names the port actually taken (port 0 picks one); the
  // relay handlers are made at start(), when the recorder exists.
  config_.relay.commit_before_answer = config_.recorder.durability == store::Durability::Full;
  config_.recorder.live_order = true;  // callers' next requests may overtake their answers
  auto relay_options = std::make_shared<RelayOptions>(config_.relay);
  server_ = std::make_unique<Server>(config_.server, [this, relay_options](asio::io_context& io) {
    return makeRelayFactory(relay_options, *recorder_, counters_)(io);
  });
  config_.server.port = server_->endpoint().port;
  if (relay_options->public_url.empty() && !isWildcard(config_.server.host)) {
    // Set before start(): no worker reads the options yet. A wildcard address names no host a
    // client could use; then each card takes the Host its request named.
    relay_options->public_url = server_->endpoint().httpUrl();
  }
  config_.session.upstream = config_.relay.upstream.toString();
  config_.session.listen = net::HostPort{config_.server.host, config_.server.port}.toString();
  recorder_ = std::make_unique<store::Recorder>(config_.db_path, config_.session, config_.recorder);
}

RecordingProxy::~RecordingProxy() {
  stop();
}

void RecordingProxy::start() {
  if (config_.probe_identity && !config_.relay.upstream.tls) {
    probeIdentity();
  }
  server_->start();
}

void RecordingProxy::stop() {
  server_->stop();
  if (recorder_) {
    recorder_->close();
  }
}

bool RecordingProxy::settle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (counters_.unrecorded.load() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  recorder_->flush();
  return true;
}

void RecordingProxy::probeIdentity() {
  const net::Url& upstream = config_.relay.upstream;
  try {
    net::HttpClient client(upstream.host, upstream.port, kProbeTimeout);
    auto health = client.get(upstream.base_path + "/health");
    auto info = client.get(upstream.base_path + "/v1/info");
    recorder_->recordAgentIdentity(health.status == 200 ? health.body : std::string{},
                                   info.status == 200 ? info.body : std::string{});
  } catch (const net::ClientError& error) {
    // The agent may come up later; the caller's own /health and /v1/info are recorded anyway.
    std::cerr << "[proxy.identity] upstream not answering yet: " << error.what() << "\n";
  }
}

}  // namespace agentvcr::proxy
