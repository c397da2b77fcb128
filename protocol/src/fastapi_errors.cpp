#include "agentvcr/protocol/fastapi_errors.hpp"

#include <cstdint>
#include <variant>

#include <nlohmann/json.hpp>

namespace agentvcr::protocol {

namespace {

using Ordered = nlohmann::ordered_json;

std::string dump(const Ordered& value) {
  return value.dump(-1, ' ', false, Ordered::error_handler_t::replace);
}

Ordered detailList(Ordered items) {
  Ordered body = Ordered::object();
  body["detail"] = std::move(items);
  return body;
}

}  // namespace

std::string validationErrorBody(const std::vector<Finding>& findings) {
  Ordered items = Ordered::array();
  for (const Finding& finding : findings) {
    Ordered loc = Ordered::array({"body"});
    for (const PathElement& element : finding.loc) {
      if (const auto* key = std::get_if<std::string>(&element)) {
        loc.push_back(*key);
      } else {
        loc.push_back(std::get<std::int64_t>(element));
      }
    }
    Ordered item = Ordered::object();
    item["type"] = finding.type;
    item["loc"] = std::move(loc);
    item["msg"] = finding.msg;
    item["input"] = Ordered(finding.input);
    items.push_back(std::move(item));
  }
  return dump(detailList(std::move(items)));
}

std::string jsonDecodeErrorBody(const JsonSyntaxError& error) {
  Ordered item = Ordered::object();
  item["type"] = "json_invalid";
  item["loc"] = Ordered::array({"body", error.offset});
  item["msg"] = "JSON decode error";
  item["input"] = Ordered::object();
  item["ctx"] = Ordered{{"error", error.message}};
  return dump(detailList(Ordered::array({std::move(item)})));
}

std::string missingBodyErrorBody() {
  Ordered item = Ordered::object();
  item["type"] = "missing";
  item["loc"] = Ordered::array({"body"});
  item["msg"] = "Field required";
  item["input"] = nullptr;
  return dump(detailList(Ordered::array({std::move(item)})));
}

std::string detailBody(std::string_view message) {
  Ordered body = Ordered::object();
  body["detail"] = std::string(message);
  return dump(body);
}

}  // namespace agentvcr::protocol
