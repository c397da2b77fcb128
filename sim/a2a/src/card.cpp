#include "agentvcr/sim/a2a/card.hpp"

namespace agentvcr::sim::a2a {
namespace {

/// One `supportedInterfaces` entry: an endpoint, its binding and its version.
Json agentInterface(const std::string& url, const char* binding, const char* version) {
  return {{"url", url}, {"protocolBinding", binding}, {"protocolVersion", version}};
}

Json capabilities(const Json& card_template, const Profile& profile, bool extended) {
  if (profile.kind == ProfileKind::Magisterium) {
    return {{"streaming", false}, {"pushNotifications", false}, {"stateTransitionHistory", true}};
  }
  Json declared = card_template.contains("capabilities") ? card_template["capabilities"]
                                                         : Json{{"streaming", true},
                                                                {"pushNotifications", false},
                                                                {"stateTransitionHistory", true}};
  if (profile.serves(WireVersion::V10) && declared.is_object()) {
    declared["extendedAgentCard"] = extended;
  }
  return declared;
}

}  // namespace

Json buildCard(const Json& card_template, const Profile& profile, const SkillTable& skills,
               const InterfaceUrls& urls, bool extended) {
  const std::string& url = urls.json_rpc;
  const bool v03 = profile.serves(WireVersion::V03);
  const bool v10 = profile.serves(WireVersion::V10);
  Json card = Json::object();
  if (v03) {
    card["protocolVersion"] = profile.card_version;
  }
  for (const char* leading : {"name", "description"}) {
    if (card_template.contains(leading)) {
      card[leading] = card_template[leading];
    }
  }
  if (v03) {
    card["url"] = url;
    if (profile.card_version.rfind("0.2.", 0) != 0) {
      card["preferredTransport"] = "JSONRPC";
    }
  }
  if (v10) {
    // v1.0 clients pick an interface from this list, the newest version first; v0.3 clients
    // read `url` and `protocolVersion` above.
    Json& interfaces = card["supportedInterfaces"] = Json::array();
    interfaces.push_back(agentInterface(url, "JSONRPC", "1.0"));
    if (!urls.rest.empty()) {
      interfaces.push_back(agentInterface(urls.rest, "HTTP+JSON", "1.0"));
    }
    if (v03) {
      interfaces.push_back(agentInterface(url, "JSONRPC", "0.3"));
    }
  }
  for (const auto& [key, value] : card_template.items()) {
    if (!card.contains(key) && key != "skills" && key != "capabilities") {
      card[key] = value;
    }
  }
  card["capabilities"] = capabilities(card_template, profile, extended);
  if (v03 && extended) {
    card["supportsAuthenticatedExtendedCard"] = true;
  }
  card["skills"] = Json::array();
  for (const Skill& skill : skills.skills()) {
    card["skills"].push_back(skill.card_entry);
  }
  return card;
}

Json buildExtendedCard(const Json& card_template, const Json& extension, const Profile& profile,
                       const SkillTable& skills, const InterfaceUrls& urls) {
  Json merged = card_template;
  for (const auto& [key, value] : extension.items()) {
    if (key != "skills") {
      merged[key] = value;
    }
  }
  Json card = buildCard(merged, profile, skills, urls, true);
  if (extension.contains("skills") && extension["skills"].is_array()) {
    for (const Json& skill : extension["skills"]) {
      card["skills"].push_back(skill);
    }
  }
  return card;
}

Json v10Card(const Json& card) {
  // The v1.0 AgentCard, AgentCapabilities and AgentSkill messages (a2a.proto, v1.0.1).
  Json out = onlyMembers(
      card, {"name", "description", "supportedInterfaces", "provider", "version",
             "documentationUrl", "capabilities", "securitySchemes", "securityRequirements",
             "defaultInputModes", "defaultOutputModes", "skills", "signatures", "iconUrl"});
  if (out.contains("capabilities") && out["capabilities"].is_object()) {
    out["capabilities"] = onlyMembers(
        out["capabilities"], {"streaming", "pushNotifications", "extensions", "extendedAgentCard"});
  }
  if (out.contains("skills") && out["skills"].is_array()) {
    for (Json& skill : out["skills"]) {
      skill = onlyMembers(skill, {"id", "name", "description", "tags", "examples", "inputModes",
                                  "outputModes", "securityRequirements"});
    }
  }
  return out;
}

bool cardStreams(const Json& card) {
  const auto capabilities = card.find("capabilities");
  if (capabilities == card.end() || !capabilities->is_object()) {
    return false;
  }
  const auto streaming = capabilities->find("streaming");
  return streaming != capabilities->end() && *streaming == true;
}

}  // namespace agentvcr::sim::a2a
