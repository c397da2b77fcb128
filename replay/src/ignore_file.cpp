#include "agentvcr/replay/ignore_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::replay {
namespace {

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

/// `line` without its comment and surrounding blanks. A '#' starts a comment at the start of
/// the line or after a blank: inside a pointer ("/notes/#1") it is part of a member name.
std::string_view withoutComment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || isBlank(line[i - 1]))) {
      line = line.substr(0, i);
      break;
    }
  }
  while (!line.empty() && isBlank(line.front())) {
    line.remove_prefix(1);
  }
  while (!line.empty() && isBlank(line.back())) {
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

IgnoreFile parseIgnoreFile(std::string_view text, const std::string& name) {
  IgnoreFile file;
  std::vector<std::string>* section = nullptr;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = withoutComment(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    const auto fail = [&](const std::string& problem) {
      throw std::invalid_argument(name + ":" + std::to_string(number) + ": " + problem);
    };
    if (line.empty()) {
      continue;
    }
    if (line.front() == '[') {
      if (line == "[input]") {
        section = &file.input;
      } else if (line == "[output]") {
        section = &file.output;
      } else {
        fail("unknown section " + std::string(line) + " (expected [input] or [output])");
      }
      continue;
    }
    if (section == nullptr) {
      fail("'" + std::string(line) + "' comes before any [input] or [output] section");
    }
    if (line.front() != '/') {
      fail("'" + std::string(line) + "' is not a JSON pointer (RFC 6901, e.g. /attributes/clock)");
    }
    try {
      protocol::Json::json_pointer pointer{std::string(line)};
    } catch (const protocol::Json::exception&) {
      fail("'" + std::string(line) + "' is not a JSON pointer (RFC 6901: '~' only as ~0 or ~1)");
    }
    section->emplace_back(line);
  }
  return file;
}

IgnoreFile readIgnoreFile(const std::string& path) {
  std::error_code error;
  std::ifstream in(path, std::ios::binary);
  if (!std::filesystem::is_regular_file(path, error) || !in) {
    throw std::runtime_error("cannot read ignore file " + path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseIgnoreFile(text.str(), path);
}

}  // namespace agentvcr::replay
