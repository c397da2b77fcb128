#pragma once

#include <string>
#include <string_view>
#include <vector>

/// The ignore file `agentvcr noise` writes and `replay --ignore-file` and `eval --ignore-file`
/// read: two sections of RFC 6901 pointers, one per line,
///
///     # comments start with '#' at the start of a line or after a space
///     [input]
///     /attributes/clock  # timestamp (ISO 8601), varies in 12 of 12 aligned steps
///     [output]
///     /output/tool_calls/0/arguments/requested_at
///
/// `[input]` pointers are relative to an input object, as `--ignore` takes them; `[output]`
/// pointers are relative to an output object (AgentOutput), as eval compares it.
namespace agentvcr::replay {

struct IgnoreFile {
  std::vector<std::string> input;   ///< in file order
  std::vector<std::string> output;  ///< in file order
};

/// Parses the text of an ignore file; `name` names it in errors. Throws std::invalid_argument
/// "NAME:LINE: ..." for a section other than [input] and [output], a pointer before any
/// section, or a line that is not an RFC 6901 pointer (the whole document "" included).
IgnoreFile parseIgnoreFile(std::string_view text, const std::string& name);

/// Reads and parses the file at `path`. Throws std::runtime_error when it cannot be read, and
/// what parseIgnoreFile() throws.
IgnoreFile readIgnoreFile(const std::string& path);

}  // namespace agentvcr::replay
