#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/utf8.hpp"
#include "agentvcr/store/export.hpp"
#include "body_codec.hpp"
#include "export_url.hpp"

namespace agentvcr::store {
namespace {

/// Headers curl computes itself for the connection it makes: copying them would conflict with
/// what it sends.
bool curlSetsItself(std::string_view name) {
  return protocol::equalsIgnoreCase(name, "Host") ||
         protocol::equalsIgnoreCase(name, "Content-Length") ||
         protocol::equalsIgnoreCase(name, "Connection") ||
         protocol::equalsIgnoreCase(name, "Transfer-Encoding");
}

}  // namespace

std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string curlCommand(const ExchangeRow& exchange, const std::string& upstream) {
  const std::string& body = exchange.request_body;
  // A shell word cannot hold a NUL byte, other binary bodies are unreadable in a terminal,
  // and curl reads "--data-binary @x" as the file x: those go through base64 on stdin.
  const bool piped = !body.empty() && (!protocol::isUtf8(body) ||
                                       body.find('\0') != std::string::npos || body.front() == '@');
  std::string command;
  if (piped) {
    command += "printf '%s' " + shellQuote(detail::base64Encode(body)) + " | base64 -d | ";
  }
  command += "curl -sS -X " + shellQuote(exchange.method) + ' ' +
             shellQuote(detail::requestUrl(upstream, exchange.target));
  if (exchange.http_version == 10) {
    command += " --http1.0";
  }
  for (const protocol::HeaderField& field : exchange.request_headers) {
    if (!curlSetsItself(field.name)) {
      command += " \\\n  -H " + shellQuote(field.name + ": " + field.value);
    }
  }
  if (piped) {
    command += " \\\n  --data-binary @-";
  } else if (!body.empty()) {
    command += " \\\n  --data-binary " + shellQuote(body);
  }
  return command;
}

std::size_t exportCurl(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                       std::ostream& out) {
  std::map<std::int64_t, std::string> upstreams;
  std::size_t commands = 0;
  for (std::int64_t id : exchange_ids) {
    std::optional<ExchangeRow> ex = reader.exchange(id);
    if (!ex) {
      continue;
    }
    if (!upstreams.contains(ex->session_id)) {
      std::optional<SessionRow> session = reader.session(ex->session_id);
      upstreams[ex->session_id] = session ? session->upstream : std::string();
    }
    out << "# exchange " << ex->id << " (session " << ex->session_id << ", seq " << ex->seq << ")\n"
        << curlCommand(*ex, upstreams[ex->session_id]) << "\n\n";
    if (!out) {
      throw std::runtime_error("[store.export] writing the curl command of exchange " +
                               std::to_string(id) + " failed");
    }
    ++commands;
  }
  return commands;
}

}  // namespace agentvcr::store
