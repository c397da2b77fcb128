#include "export_positions.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "agentvcr/protocol/canonical.hpp"

namespace agentvcr::otel::detail {
namespace {

constexpr const char* kEndpoint = "endpoint ";

}  // namespace

ExportPositions::ExportPositions(std::string path, std::string endpoint)
    : path_(std::move(path)), endpoint_(std::move(endpoint)) {
  if (path_.empty()) {
    return;
  }
  std::ifstream in(path_);
  std::string line;
  bool ours = std::getline(in, line) && line == kEndpoint + endpoint_;
  while (ours && std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    std::string hex;
    fields >> kind >> hex;
    const std::string uuid = protocol::hexDecode(hex).value_or("");
    if (kind == "p") {
      store::FeedPosition p;
      if (fields >> p.exchanges >> p.misses >> p.links) {
        sessions_[uuid].position = p;
      }
    } else if (kind == "r") {
      std::int64_t number = 0;
      if (fields >> number) {
        sessions_[uuid].roots.insert(number);
      }
    }
    ++lines_;
  }
  rewrite();  // a fresh file for this endpoint, without a cut-short line
}

const SentSession& ExportPositions::sent(const std::string& uuid) {
  return sessions_[uuid];
}

void ExportPositions::recordPosition(const std::string& uuid, const store::FeedPosition& p) {
  sessions_[uuid].position = p;
  append("p " + protocol::hexEncode(uuid) + " " + std::to_string(p.exchanges) + " " +
         std::to_string(p.misses) + " " + std::to_string(p.links));
}

void ExportPositions::recordRoot(const std::string& uuid, std::int64_t number) {
  sessions_[uuid].roots.insert(number);
  append("r " + protocol::hexEncode(uuid) + " " + std::to_string(number));
}

void ExportPositions::append(const std::string& line) {
  if (path_.empty()) {
    return;
  }
  log_ << line << '\n';
  log_.flush();  // to the kernel: a kill of the process after this loses nothing
  if (++lines_ > 1000 + 4 * sessions_.size()) {
    rewrite();
  }
}

void ExportPositions::rewrite() {
  if (path_.empty()) {
    return;
  }
  const std::string temporary = path_ + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kEndpoint << endpoint_ << '\n';
    lines_ = 0;
    for (const auto& [uuid, session] : sessions_) {
      const store::FeedPosition& p = session.position;
      out << "p " << protocol::hexEncode(uuid) << " " << p.exchanges << " " << p.misses << " "
          << p.links << '\n';
      for (const std::int64_t root : session.roots) {
        out << "r " << protocol::hexEncode(uuid) << " " << root << '\n';
      }
      lines_ += 1 + session.roots.size();
    }
    if (!out) {
      throw std::runtime_error("[otel.export] cannot write " + temporary);
    }
  }
  log_.close();
  if (std::rename(temporary.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error("[otel.export] cannot replace " + path_);
  }
  log_.open(path_, std::ios::app);
}

}  // namespace agentvcr::otel::detail
