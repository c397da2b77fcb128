#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <strings.h>

#include "agentvcr/store/export.hpp"
#include "body_codec.hpp"
#include "export_url.hpp"

namespace agentvcr::store {
namespace {

/// Headers curl computes itself: copying them would conflict with what it sends.
bool curlSetsItself(const std::string& name) {
  return strcasecmp(name.c_str(), "Host") == 0 || strcasecmp(name.c_str(), "Content-Length") == 0;
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
    // A shell word cannot hold a NUL byte, other binary bodies are unreadable in a terminal,
    // and curl reads "--data-binary @x" as the file x: those go through base64 on stdin.
    const bool piped =
        !ex->request_body.empty() &&
        (!detail::isUtf8(ex->request_body) || ex->request_body.find('\0') != std::string::npos ||
         ex->request_body.front() == '@');
    out << "# exchange " << ex->id << " (session " << ex->session_id << ", seq " << ex->seq
        << ")\n";
    if (piped) {
      out << "printf '%s' " << shellQuote(detail::base64Encode(ex->request_body))
          << " | base64 -d | ";
    }
    out << "curl -sS -X " << shellQuote(ex->method) << ' '
        << shellQuote(detail::requestUrl(upstreams[ex->session_id], ex->target));
    if (ex->http_version == 10) {
      out << " --http1.0";
    }
    for (const protocol::HeaderField& field : ex->request_headers) {
      if (!curlSetsItself(field.name)) {
        out << " \\\n  -H " << shellQuote(field.name + ": " + field.value);
      }
    }
    if (piped) {
      out << " \\\n  --data-binary @-";
    } else if (!ex->request_body.empty()) {
      out << " \\\n  --data-binary " << shellQuote(ex->request_body);
    }
    out << "\n\n";
    if (!out) {
      throw std::runtime_error("[store.export] writing the curl command of exchange " +
                               std::to_string(id) + " failed");
    }
    ++commands;
  }
  return commands;
}

}  // namespace agentvcr::store
