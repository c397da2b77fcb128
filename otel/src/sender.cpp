#include "agentvcr/otel/sender.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::otel {
namespace {

/// The statuses OTLP/HTTP tells a client to retry.
bool retryable(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

/// Retry-After in seconds; the HTTP-date form is not honoured (the backoff applies).
std::optional<std::chrono::milliseconds> retryAfter(const net::ClientResponse& response) {
  const std::string value = response.header("Retry-After");
  long seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || seconds < 0) {
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

/// What the collector said: the `message` of its Status body, else the start of the body.
std::string collectorMessage(const std::string& body) {
  constexpr std::size_t kMostShown = 300;
  if (auto status = protocol::parseJson(body).value; status && status->is_object() &&
                                                     status->contains("message") &&
                                                     (*status)["message"].is_string()) {
    return (*status)["message"].get<std::string>().substr(0, kMostShown);
  }
  return body.substr(0, kMostShown);
}

}  // namespace

struct OtlpSender::Client {
  Client(const net::Url& url, const net::ClientTls& tls, std::chrono::milliseconds timeout)
      : http(url, tls, timeout) {}

  net::HttpClient http;
};

RetryWait sleepingWait() {
  return [](std::chrono::milliseconds d) {
    std::this_thread::sleep_for(d);
    return true;
  };
}

OtlpSender::OtlpSender(OtlpEndpoint endpoint, RetryPolicy retry)
    : endpoint_(std::move(endpoint)), retry_(retry) {}

OtlpSender::~OtlpSender() = default;

Delivery OtlpSender::send(const std::string& body, const RetryWait& wait) {
  protocol::Headers headers = endpoint_.headers;
  headers.push_back({"Content-Type", "application/json"});
  auto backoff = retry_.first;
  for (int attempt = 1;; ++attempt) {
    std::optional<std::chrono::milliseconds> asked;
    try {
      if (!client_) {
        client_ = std::make_unique<Client>(endpoint_.server, endpoint_.tls, retry_.timeout);
      }
      const net::ClientResponse response =
          client_->http.send("POST", endpoint_.path, body, headers);
      if (response.status >= 200 && response.status < 300) {
        return Delivery::Sent;
      }
      last_error_ = endpoint_.toString() + " answered " + std::to_string(response.status) + ": " +
                    collectorMessage(response.body);
      if (!retryable(response.status)) {
        return Delivery::Refused;
      }
      asked = retryAfter(response);
    } catch (const net::ClientError& e) {
      client_.reset();  // a fresh connection next time
      last_error_ = e.what();
    }
    if (retry_.attempts > 0 && attempt >= retry_.attempts) {
      return Delivery::GaveUp;
    }
    ++retries_;
    if (!wait(std::min(asked.value_or(backoff), retry_.max))) {
      return Delivery::Stopped;
    }
    backoff = std::min(backoff * 2, retry_.max);
  }
}

}  // namespace agentvcr::otel
