#include "agentvcr/services/replay_service.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/python_json.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/step_links.hpp"

namespace agentvcr::services {
namespace {

/// Headers a forwarded request must not carry over: they describe the caller's own connection
/// and body, which net::HttpClient sets anew, or speak to agentvcr (the chaos header).
bool staysBehind(const std::string& name) {
  if (protocol::equalsIgnoreCase(name, protocol::kChaosHeader)) {
    return true;
  }
  static const char* const kNames[] = {
      "content-length", "connection",       "keep-alive", "transfer-encoding", "host", "te",
      "upgrade",        "proxy-connection", "trailer"};
  for (const char* transfer : kNames) {
    if (protocol::equalsIgnoreCase(name, transfer)) {
      return true;
    }
  }
  return false;
}

std::string missLogLine(const replay::MissReport& miss, const char* policy) {
  nlohmann::ordered_json line;
  line["event"] = "replay_miss";
  line["route"] = miss.route;
  line["request_id"] = miss.request_id;
  line["position"] = miss.position;
  line["source_id"] = miss.source_id ? nlohmann::ordered_json(*miss.source_id) : nullptr;
  line["replay_key"] = protocol::hashHex(miss.replay_key);
  line["input"] = miss.input;  // what a test harness names when it reports the miss
  line["closest_step_id"] =
      miss.closest_step_id ? nlohmann::ordered_json(*miss.closest_step_id) : nullptr;
  line["differences"] = miss.differences.paths;
  line["differences_truncated"] = miss.differences.truncated;
  line["policy"] = policy;
  line["reason"] = miss.reason;
  return protocol::pythonJsonDumps(line);
}

std::string listenText(const proxy::ServerOptions& server) {
  return server.host + ":" + std::to_string(server.port);
}

/// A forward in progress, known to cutForwards() for as long as it lives; aborted at once when
/// the forwards were cut already.
class ForwardInProgress {
 public:
  ForwardInProgress(std::mutex& mutex, std::set<net::HttpClient*>& forwards, const bool& cut,
                    net::HttpClient& client)
      : mutex_(mutex), forwards_(forwards), client_(client) {
    std::lock_guard<std::mutex> lock(mutex_);
    forwards_.insert(&client_);
    if (cut) {
      client_.abort();
    }
  }

  ~ForwardInProgress() {
    std::lock_guard<std::mutex> lock(mutex_);
    forwards_.erase(&client_);
  }

  ForwardInProgress(const ForwardInProgress&) = delete;
  ForwardInProgress& operator=(const ForwardInProgress&) = delete;

 private:
  std::mutex& mutex_;
  std::set<net::HttpClient*>& forwards_;
  net::HttpClient& client_;
};

}  // namespace

ReplayService::ReplayService(ReplayServiceConfig config) : config_(std::move(config)) {
  if (!config_.log_miss) {
    config_.log_miss = [](const std::string& line) { std::cerr << line << "\n"; };
  }
  replayer_ = std::make_unique<replay::Replayer>(config_.db_path, config_.replay);
  forwarder_ = [this](const protocol::HttpRequest& request, const replay::Reasked& reasked) {
    return forward(request, reasked);
  };
  if (!config_.chaos) {
    config_.chaos = std::make_shared<protocol::Chaos>(std::nullopt, false);
  }
  config_.server.on_cut = [this] { cutForwards(); };
  proxy::LocalServiceOptions service;
  service.metrics = config_.metrics;
  server_ = std::make_unique<proxy::Server>(
      config_.server,
      proxy::makeLocalServiceFactory(
          [this](const protocol::HttpRequest& request) { return answer(request); }, service));
  config_.server.port = server_->endpoint().port;
}

ReplayService::~ReplayService() {
  stop();
}

void ReplayService::start() {
  server_->start();
}

void ReplayService::stop() {
  server_->stop();
  {
    std::lock_guard<std::mutex> lock(recorder_mutex_);
    if (!recorder_) {
      return;
    }
    recorder_->close();
  }
  try {
    linkForkedExchanges();
  } catch (const std::exception& error) {
    // stop() runs in the destructor too: say what is missing rather than end the process.
    std::cerr << "[replay.fork] the fork's exchanges are stored, but its steps and calls could "
                 "not be linked to the recorded ones they continue: "
              << error.what() << "\n";
  }
}

void ReplayService::linkForkedExchanges() {
  std::vector<replay::Reasked> submitted;
  {
    std::lock_guard<std::mutex> lock(submit_mutex_);
    submitted.swap(submitted_);  // once: a second stop() finds nothing left to link
  }
  const bool any = std::any_of(submitted.begin(), submitted.end(), [](const auto& reasked) {
    return reasked.a2a_exchange || std::any_of(reasked.steps.begin(), reasked.steps.end(),
                                               [](const auto& step) { return step.has_value(); });
  });
  if (!any) {
    return;
  }
  std::vector<store::StepLink> step_links;
  std::vector<store::CallLink> call_links;
  {
    const store::ArchiveReader reader(config_.db_path);
    const auto stored = reader.exchanges(recorder_->sessionId(), 0, store::ArchiveReader::kNoLimit);
    for (std::size_t i = 0; i < stored.size() && i < submitted.size(); ++i) {
      const replay::Reasked& reasked = submitted[i];
      for (const auto& step : reader.stepsOfExchange(stored[i].id)) {
        const auto position = static_cast<std::size_t>(step.position);
        if (position < reasked.steps.size() && reasked.steps[position]) {
          step_links.push_back({step.id, reasked.steps[position]->step_id});
        }
      }
      if (reasked.a2a_exchange) {
        // The live calls ask again the recorded exchange's calls, position by position.
        const auto recorded = reader.a2aCallsOfExchange(reasked.a2a_exchange->exchange_id);
        for (const auto& call : reader.a2aCallsOfExchange(stored[i].id)) {
          for (const auto& asked : recorded) {
            if (asked.position == call.position) {
              call_links.push_back({call.id, asked.id});
            }
          }
        }
      }
    }
  }
  store::writeStepLinks(config_.db_path, step_links);
  store::writeCallLinks(config_.db_path, call_links);
}

void ReplayService::flush() {
  std::lock_guard<std::mutex> lock(recorder_mutex_);
  if (recorder_) {
    recorder_->flush();
  }
}

std::optional<std::int64_t> ReplayService::recordingSessionId() {
  std::lock_guard<std::mutex> lock(recorder_mutex_);
  if (!recorder_) {
    return std::nullopt;
  }
  return recorder_->sessionId();
}

protocol::HttpReply ReplayService::answer(const protocol::HttpRequest& request) {
  std::optional<std::string_view> forced;
  if (const protocol::HeaderField* header =
          protocol::findHeader(request.headers, protocol::kChaosHeader)) {
    forced = header->value;
  }
  const protocol::ChaosCall call{
      request.method, request.target, request.body, forced,
      protocol::headerCount(request.headers, protocol::kChaosHeader) > 1};
  const protocol::ChaosDecision chaos = config_.chaos->decide(call);
  if (chaos.refusal) {
    return *chaos.refusal;
  }
  if (!chaos.fault) {
    return replayed(request);
  }
  if (config_.metrics) {
    config_.metrics->observeFault(*chaos.fault);
  }
  // A fault that never reaches the agent leaves the recorded answer for the caller's retry.
  if (!protocol::faultReachesAgent(*chaos.fault)) {
    return config_.chaos->injectedAnswer(*chaos.fault, call);
  }
  protocol::HttpReply reply = replayed(request);
  if (*chaos.fault == protocol::FaultKind::Latency) {
    reply.hold += config_.chaos->spec().latency;
  } else {
    reply.delivery = protocol::Delivery::CutMidBody;
  }
  return reply;
}

protocol::HttpReply ReplayService::replayed(const protocol::HttpRequest& request) {
  try {
    return handle(request).reply;
  } catch (const std::exception& error) {
    // The archive could not be read (a disk error, a file replaced underneath): say so instead
    // of dropping the connection.
    const std::string message = std::string("the archive could not be read: ") + error.what();
    std::cerr << "[replay.archive] " << message << "\n";
    return protocol::HttpReply{
        500, "application/json", {}, protocol::errorBody("replay.archive", message), {}};
  }
}

replay::ReplayOutcome ReplayService::handle(const protocol::HttpRequest& request) {
  const bool forwarding = config_.replay.on_miss == replay::MissPolicy::Forward && config_.upstream;
  replay::ReplayOutcome outcome = replayer_->handle(request, forwarding ? &forwarder_ : nullptr);
  if (config_.metrics) {
    config_.metrics->observeReplay(protocol::magma::routeOf(request.method, request.target),
                                   outcome.hits, outcome.misses.size(), outcome.forwarded);
  }
  if (!outcome.misses.empty()) {
    noteMisses(outcome);
  }
  return outcome;
}

void ReplayService::noteMisses(const replay::ReplayOutcome& outcome) {
  const char* policy = outcome.forwarded ? "forward"
                       : outcome.reply.status == 503
                           ? "http"
                           : replay::missPolicyName(config_.replay.on_miss);
  for (const replay::MissReport& miss : outcome.misses) {
    config_.log_miss(missLogLine(miss, policy));
    if (!config_.store_misses) {
      continue;
    }
    store::ReplayMissRow row;
    row.at_ns = protocol::nowNs();
    row.route = miss.route;
    row.request_id = miss.request_id;
    row.position = miss.position;
    row.source_id = miss.source_id;
    row.replay_key = miss.replay_key;
    row.input = protocol::canonicalJson(miss.input);
    row.closest_step_id = miss.closest_step_id;
    row.differences = nlohmann::json(miss.differences.paths).dump();
    row.policy = policy;
    // A full queue means the writer is far behind; the miss was logged above in any case.
    while (!recorder().tryRecordReplayMiss(row) && recorder().stats().refused_closed == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

store::Recorder& ReplayService::recorder(std::optional<std::int64_t> origin_session) {
  std::lock_guard<std::mutex> lock(recorder_mutex_);
  if (!recorder_) {
    const bool forwarding =
        config_.replay.on_miss == replay::MissPolicy::Forward && config_.upstream;
    store::SessionInfo session;
    session.name = forwarding ? "replay-forward" : "replay";
    session.mode = session.name;
    if (forwarding && config_.replay.fork_at) {
      // `ls` shows the name: it says where the fork comes from, in its NAME column's width.
      session.mode = "fork";
      session.name = "fork";
      if (origin_session) {
        session.name += " of " + std::to_string(*origin_session);
      }
      session.name += " at " + std::to_string(*config_.replay.fork_at);
    }
    session.upstream = forwarding ? config_.upstream->toString() : std::string{};
    session.listen = listenText(config_.server);
    session.node = config_.node;
    recorder_ = std::make_unique<store::Recorder>(config_.db_path, session);
  }
  return *recorder_;
}

replay::ForwardReply ReplayService::forward(const protocol::HttpRequest& request,
                                            const replay::Reasked& reasked) {
  const net::Url& upstream = *config_.upstream;
  protocol::Headers headers;
  for (const auto& header : request.headers) {
    if (!staysBehind(header.name)) {
      headers.push_back(header);
    }
  }
  protocol::Exchange exchange;
  exchange.client_address = "agentvcr-replay";
  exchange.method = request.method;
  exchange.target = request.target;  // as the caller addressed it, like the record relay
  exchange.request_headers = headers;
  exchange.request_body = request.body;
  // The server hands over a request read whole: it ended when the forward starts.
  exchange.started_ns = protocol::nowNs();
  exchange.request_ended_ns = exchange.started_ns;

  replay::ForwardReply reply;
  const auto began = std::chrono::steady_clock::now();
  try {
    net::HttpClient client(upstream.host, upstream.port, config_.forward_timeout);
    const ForwardInProgress in_progress(forwards_mutex_, forwards_, forwards_cut_, client);
    net::ClientResponse response =
        client.send(request.method, upstream.base_path + request.target, request.body, headers);
    reply.status = response.status;
    reply.headers = std::move(response.headers);
    reply.body = std::move(response.body);
    exchange.upstream_sent_ns = response.sent_ns;
    exchange.upstream_first_byte_ns = response.first_byte_ns;
    exchange.upstream_last_byte_ns = response.last_byte_ns;
    exchange.outcome = protocol::ExchangeOutcome::Complete;
    exchange.response_from_upstream = true;
  } catch (const net::ClientError& error) {
    reply.error = std::string("[replay.forward] ") + upstream.toString() + ": " + error.what();
    exchange.outcome = protocol::ExchangeOutcome::UpstreamError;
    exchange.error = reply.error;
    if (forwardsCut()) {
      // The agent did run the request: the record keeps it, cut, and a line names it.
      exchange.outcome = protocol::ExchangeOutcome::UpstreamTimeout;
      exchange.error = "[proxy.shutdown] replay stopped before the live agent had answered";
      const auto ran = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - began);
      std::cerr << exchange.error + ": " + request.method + " " + request.target +
                       " forwarded to " + upstream.toString() + ", cut after " +
                       std::to_string(ran.count()) + " ms\n";
    }
  }
  exchange.ended_ns = protocol::nowNs();
  exchange.status = reply.status;
  exchange.response_headers = reply.headers;
  exchange.response_body = reply.body;
  std::optional<std::int64_t> origin_session;
  if (reasked.a2a_exchange) {
    origin_session = reasked.a2a_exchange->session_id;
  }
  for (const auto& step : reasked.steps) {
    if (step && !origin_session) {
      origin_session = step->session_id;
    }
  }
  store::Recorder& into = recorder(origin_session);
  // One submission at a time, so that submitted_ follows the recorder's numbering.
  std::lock_guard<std::mutex> lock(submit_mutex_);
  bool submitted = false;
  while (!(submitted = into.trySubmit(exchange)) && into.stats().refused_closed == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (submitted) {
    submitted_.push_back(reasked);
  }
  return reply;
}

void ReplayService::cutForwards() {
  std::lock_guard<std::mutex> lock(forwards_mutex_);
  forwards_cut_ = true;
  for (net::HttpClient* client : forwards_) {
    client->abort();
  }
}

bool ReplayService::forwardsCut() {
  std::lock_guard<std::mutex> lock(forwards_mutex_);
  return forwards_cut_;
}

}  // namespace agentvcr::services
