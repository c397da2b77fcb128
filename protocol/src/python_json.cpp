#include "agentvcr/protocol/python_json.hpp"

#include "python_dump.hpp"

namespace agentvcr::protocol {

std::string pythonJsonDumps(const nlohmann::json& value, PythonJsonStyle style) {
  std::string out;
  detail::appendPythonJson(out, value, style);
  return out;
}

std::string pythonJsonDumps(const nlohmann::ordered_json& value, PythonJsonStyle style) {
  std::string out;
  detail::appendPythonJson(out, value, style);
  return out;
}

}  // namespace agentvcr::protocol
