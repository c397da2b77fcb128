#include "agentvcr/sim/a2a/card.hpp"

namespace agentvcr::sim::a2a {

Json buildCard(const Json& card_template, const Profile& profile, const SkillTable& skills,
               const std::string& url) {
  Json card = Json::object();
  card["protocolVersion"] = profile.card_version;
  for (const char* leading : {"name", "description"}) {
    if (card_template.contains(leading)) {
      card[leading] = card_template[leading];
    }
  }
  card["url"] = url;
  if (profile.card_version.rfind("0.2.", 0) != 0) {
    card["preferredTransport"] = "JSONRPC";
  }
  for (const auto& [key, value] : card_template.items()) {
    if (!card.contains(key) && key != "skills" && key != "capabilities") {
      card[key] = value;
    }
  }
  if (profile.kind == ProfileKind::Magisterium) {
    card["capabilities"] = {
        {"streaming", false}, {"pushNotifications", false}, {"stateTransitionHistory", true}};
  } else {
    card["capabilities"] = card_template.contains("capabilities")
                               ? card_template["capabilities"]
                               : Json{{"streaming", true},
                                      {"pushNotifications", false},
                                      {"stateTransitionHistory", true}};
  }
  card["skills"] = Json::array();
  for (const Skill& skill : skills.skills()) {
    card["skills"].push_back(skill.card_entry);
  }
  return card;
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
