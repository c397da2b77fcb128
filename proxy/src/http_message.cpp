#include "http_message.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

namespace agentvcr::proxy {

namespace {

/// The length of the fields and the blank line after them, to size the header once.
std::size_t fieldsLength(const http::fields& fields) {
  std::size_t length = 2;
  for (const auto& field : fields) {
    length += field.name_string().size() + 2 + field.value().size() + 2;
  }
  return length;
}

void appendVersion(std::string& out, unsigned version) {
  out.append("HTTP/");
  out.push_back(static_cast<char>('0' + version / 10));
  out.push_back('.');
  out.push_back(static_cast<char>('0' + version % 10));
}

void appendFields(std::string& out, const http::fields& fields) {
  for (const auto& field : fields) {
    out.append(field.name_string()).append(": ").append(field.value()).append("\r\n");
  }
  out.append("\r\n");
}

}  // namespace

std::string wireHeader(const http::request_header<>& request) {
  const std::string_view method = request.method_string();
  const std::string_view target = request.target();
  std::string out;
  out.reserve(method.size() + 1 + target.size() + 11 + fieldsLength(request));
  out.append(method).append(" ").append(target).append(" ");
  appendVersion(out, request.version());
  out.append("\r\n");
  appendFields(out, request);
  return out;
}

std::string wireHeader(const http::response_header<>& response) {
  const unsigned code = response.result_int();
  const std::string_view reason = response.reason();
  std::string out;
  out.reserve(13 + reason.size() + 2 + fieldsLength(response));
  appendVersion(out, response.version());
  out.push_back(' ');
  out.push_back(static_cast<char>('0' + code / 100));
  out.push_back(static_cast<char>('0' + code / 10 % 10));
  out.push_back(static_cast<char>('0' + code % 10));
  out.push_back(' ');
  out.append(reason).append("\r\n");
  appendFields(out, response);
  return out;
}

void stripHopByHop(http::fields& fields) {
  // Headers that Connection names are hop-by-hop too ("Connection: close, X-Trace").
  std::vector<std::string> named;
  auto [first, last] = fields.equal_range(http::field::connection);
  for (auto it = first; it != last; ++it) {
    for (auto token : http::token_list{it->value()}) {
      named.emplace_back(token);
    }
  }
  for (const auto& name : named) {
    fields.erase(name);
  }
  static constexpr std::array kHopByHop = {
      http::field::connection, http::field::keep_alive, http::field::proxy_connection,
      http::field::te,         http::field::trailer,    http::field::transfer_encoding,
      http::field::upgrade,    http::field::expect,
  };
  for (auto field : kHopByHop) {
    fields.erase(field);
  }
}

http::response<http::string_body> wholeResponse(protocol::HttpReply reply, unsigned version,
                                                bool keep_alive) {
  http::response<http::string_body> response{static_cast<http::status>(reply.status), version};
  setReplyHeader(response, reply, keep_alive);
  response.body() = std::move(reply.body);
  response.prepare_payload();
  if (response.result() == http::status::not_modified) {
    // A 304 has no content, and its Content-Length may only repeat the 200's (RFC 9110 §8.6).
    response.erase(http::field::content_length);
  }
  return response;
}

std::string bodyTooLargeMessage(std::uint64_t limit, std::string_view remedy) {
  constexpr std::uint64_t kMib = 1 << 20;
  std::string message = "request body larger than " + std::to_string(limit) + " bytes";
  if (limit >= kMib && limit % kMib == 0) {
    message += " (" + std::to_string(limit / kMib) + " MiB)";
  }
  return message + ", the most accepted; " + std::string(remedy);
}

http::response<http::string_body> localResponse(http::status status, std::string_view id,
                                                std::string_view message, unsigned version,
                                                bool keep_alive) {
  return wholeResponse(
      protocol::HttpReply{
          static_cast<int>(status), "application/json", {}, protocol::errorBody(id, message), {}},
      version, keep_alive);
}

}  // namespace agentvcr::proxy
