#include "agentvcr/sim/a2a/json_rpc.hpp"

#include "agentvcr/protocol/a2a.hpp"

namespace agentvcr::sim::a2a {
namespace {

bool isUsableId(const Json& id) {
  return id.is_string() || id.is_number() || id.is_null();
}

Json responseHead(const Json& id) {
  Json response = Json::object();
  response["jsonrpc"] = "2.0";
  response["id"] = id;
  return response;
}

}  // namespace

Envelope readEnvelope(const Json& document, bool requires_id) {
  Envelope envelope;
  if (!document.is_object()) {
    envelope.problem = document.is_array() ? "batch requests are not supported"
                                           : "the request must be a JSON object";
    return envelope;
  }
  const auto id = document.find("id");
  if (id != document.end() && isUsableId(*id)) {
    envelope.id = *id;
  }
  const auto version = document.find("jsonrpc");
  const auto method = document.find("method");
  const auto params = document.find("params");
  if (version == document.end() || *version != "2.0") {
    envelope.problem = "jsonrpc must be \"2.0\"";
  } else if (method == document.end() || !method->is_string()) {
    envelope.problem = "method must be a string";
  } else if (id == document.end() && requires_id) {
    envelope.problem = "id is required";
  } else if (id != document.end() && !envelope.id) {
    envelope.problem = "id must be a string, a number or null";
  } else if (params != document.end() && !params->is_object() && !params->is_array()) {
    envelope.problem = "params must be an object or an array";
  }
  if (method != document.end() && method->is_string()) {
    envelope.method = method->get<std::string>();
  }
  if (params != document.end()) {
    envelope.params = *params;
  }
  return envelope;
}

std::string resultBody(const Json& id, const Json& result) {
  Json response = responseHead(id);
  response["result"] = result;
  return dumpJson(response);
}

std::string errorBody(const Json& id, const RpcError& error) {
  Json response = responseHead(id);
  Json body = Json::object();
  body["code"] = error.code;
  body["message"] = error.message;
  if (error.data) {
    body["data"] = *error.data;
  }
  response["error"] = std::move(body);
  return dumpJson(response);
}

std::string sseData(const std::string& body) {
  return "data: " + body + "\n\n";
}

std::string sseError(const std::string& body) {
  return "event: error\ndata: " + body + "\n\n";
}

void addV10ErrorDetails(RpcError& error) {
  const std::string_view reason = protocol::a2a::errorReason(error.code);
  if (reason.empty()) {
    return;
  }
  Json info = {{"@type", protocol::a2a::kErrorInfoType},
               {"reason", reason},
               {"domain", protocol::a2a::kErrorDomain}};
  if (error.data && error.data->is_object()) {
    Json metadata = Json::object();
    for (const auto& [key, value] : error.data->items()) {
      std::string text;
      if (value.is_array()) {
        for (const Json& element : value) {
          text += (text.empty() ? "" : ",") +
                  (element.is_string() ? element.get<std::string>() : element.dump());
        }
      } else {
        text = value.is_string() ? value.get<std::string>() : value.dump();
      }
      metadata[key] = std::move(text);
    }
    info["metadata"] = std::move(metadata);
  }
  error.data = Json::array({std::move(info)});
}

}  // namespace agentvcr::sim::a2a
