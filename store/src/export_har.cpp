#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/store/export.hpp"
#include "body_codec.hpp"
#include "export_decoded.hpp"
#include "export_url.hpp"

namespace agentvcr::store {
namespace {

using detail::Ordered;

/// ISO 8601 in UTC with milliseconds, as HAR's startedDateTime wants.
std::string isoTime(std::int64_t ns) {
  const std::int64_t ms = ns / 1'000'000;
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(ms % 1000));
  return std::string(text) + millis;
}

double milliseconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

Ordered harHeaders(const protocol::Headers& fields) {
  Ordered array = Ordered::array();
  for (const protocol::HeaderField& field : fields) {
    array.push_back({{"name", field.name}, {"value", field.value}});
  }
  return array;
}

/// name=value pairs of the target's query, as sent (not percent-decoded).
Ordered queryString(const std::string& target) {
  Ordered array = Ordered::array();
  const std::size_t mark = target.find('?');
  if (mark == std::string::npos) {
    return array;
  }
  const std::string query = target.substr(mark + 1);
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) {
      end = query.size();
    }
    const std::string pair = query.substr(start, end - start);
    if (!pair.empty()) {
      const std::size_t eq = pair.find('=');
      array.push_back({{"name", pair.substr(0, eq)},
                       {"value", eq == std::string::npos ? std::string() : pair.substr(eq + 1)}});
    }
    start = end + 1;
  }
  return array;
}

Ordered request(const ExchangeRow& ex, const std::string& upstream) {
  Ordered r = Ordered::object();
  r["method"] = ex.method;
  r["url"] = detail::requestUrl(upstream, ex.target);
  r["httpVersion"] = ex.http_version == 10 ? "HTTP/1.0" : "HTTP/1.1";
  r["cookies"] = Ordered::array();
  r["headers"] = harHeaders(ex.request_headers);
  r["queryString"] = queryString(ex.target);
  if (!ex.request_body.empty()) {
    Ordered post = Ordered::object();
    post["mimeType"] = std::string(protocol::headerValue(ex.request_headers, "Content-Type"));
    if (protocol::isUtf8(ex.request_body)) {
      post["text"] = ex.request_body;
    } else {
      post["text"] = detail::base64Encode(ex.request_body);
      post["_encoding"] = "base64";
    }
    r["postData"] = std::move(post);
  }
  r["headersSize"] = -1;
  r["bodySize"] = static_cast<std::int64_t>(ex.request_body.size());
  return r;
}

Ordered response(const ExchangeRow& ex) {
  Ordered content = Ordered::object();
  content["size"] = static_cast<std::int64_t>(ex.response_body.size());
  content["mimeType"] = std::string(protocol::headerValue(ex.response_headers, "Content-Type"));
  if (protocol::isUtf8(ex.response_body)) {
    content["text"] = ex.response_body;
  } else {
    content["text"] = detail::base64Encode(ex.response_body);
    content["encoding"] = "base64";
  }
  Ordered r = Ordered::object();
  r["status"] = ex.status;
  r["statusText"] = reason(ex.status);
  r["httpVersion"] = ex.http_version == 10 ? "HTTP/1.0" : "HTTP/1.1";
  r["cookies"] = Ordered::array();
  r["headers"] = harHeaders(ex.response_headers);
  r["content"] = std::move(content);
  r["redirectURL"] = std::string(protocol::headerValue(ex.response_headers, "Location"));
  r["headersSize"] = -1;
  r["bodySize"] = static_cast<std::int64_t>(ex.response_body.size());
  return r;
}

/// HAR wants non-negative send/wait/receive: a moment that never came counts as no time. `send`
/// lasts until the request was fully written to the agent (caller and proxy together), `wait`
/// is the agent's; rows older than schema 11 never measured the send and count it in `wait`.
Ordered timings(const ExchangeRow& ex) {
  const std::int64_t end = ex.ended_ns.value_or(ex.started_ns);
  const std::int64_t first = ex.upstream_first_byte_ns.value_or(end);
  const std::int64_t sent = std::min(ex.upstream_sent_ns.value_or(ex.started_ns), first);
  Ordered t = Ordered::object();
  t["send"] = milliseconds(std::max<std::int64_t>(0, sent - ex.started_ns));
  t["wait"] = milliseconds(std::max<std::int64_t>(0, first - sent));
  t["receive"] = milliseconds(std::max<std::int64_t>(0, end - first));
  return t;
}

}  // namespace

std::size_t exportHar(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                      const std::string& creator_version, std::ostream& out) {
  std::map<std::int64_t, std::string> upstreams;
  Ordered entries = Ordered::array();
  for (std::int64_t id : exchange_ids) {
    std::optional<ExchangeRow> ex = reader.exchange(id);
    if (!ex) {
      continue;
    }
    if (!upstreams.contains(ex->session_id)) {
      std::optional<SessionRow> session = reader.session(ex->session_id);
      upstreams[ex->session_id] = session ? session->upstream : std::string();
    }
    Ordered entry = Ordered::object();
    entry["startedDateTime"] = isoTime(ex->started_ns);
    Ordered t = timings(*ex);
    entry["time"] = t["send"].get<double>() + t["wait"].get<double>() + t["receive"].get<double>();
    entry["request"] = request(*ex, upstreams[ex->session_id]);
    entry["response"] = response(*ex);
    entry["cache"] = Ordered::object();
    entry["timings"] = std::move(t);
    entry["_agentvcr_exchange_id"] = ex->id;
    entry["_agentvcr_session_id"] = ex->session_id;
    entry["_outcome"] = ex->outcome;
    entry["_error"] = ex->error ? Ordered(*ex->error) : Ordered(nullptr);
    entry["_magma_steps"] = detail::magmaStepsJson(reader, ex->id);
    entry["_env_feedback"] = detail::envFeedbackJson(reader, ex->id);
    entry["_a2a_calls"] = detail::a2aCallsJson(reader, ex->id);
    entry["_stream_events"] = detail::streamEventsJson(reader, ex->id);
    entries.push_back(std::move(entry));
  }
  Ordered log = Ordered::object();
  log["version"] = "1.2";
  log["creator"] = {{"name", "agentvcr"}, {"version", creator_version}};
  log["entries"] = std::move(entries);
  Ordered har = Ordered::object();
  const std::size_t written = log["entries"].size();
  har["log"] = std::move(log);
  out << har.dump(2, ' ', false, Ordered::error_handler_t::replace) << '\n';
  if (!out) {
    throw std::runtime_error("[store.export] writing the HAR document failed");
  }
  return written;
}

}  // namespace agentvcr::store
