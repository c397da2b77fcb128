#include "agentvcr/sim/a2a/fixtures.hpp"

#include <fstream>
#include <sstream>

namespace agentvcr::sim::a2a {
namespace {

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return std::nullopt;
  }
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

}  // namespace

FixturesLoad fixturesFromText(std::string_view card_text, std::string_view skills_text,
                              std::optional<std::string_view> extended_card_text,
                              std::optional<std::string_view> fates_text) {
  auto card = parseJsonText(card_text);
  if (!card || !card->is_object()) {
    return {std::nullopt, "card.json: not a JSON object"};
  }
  auto skills_document = parseJsonText(skills_text);
  if (!skills_document) {
    return {std::nullopt, "skills.json: not valid JSON"};
  }
  auto skills = SkillTable::fromJson(*skills_document);
  if (!skills.table) {
    return {std::nullopt, "skills.json: " + skills.error};
  }
  std::optional<Json> extended_card;
  if (extended_card_text) {
    extended_card = parseJsonText(*extended_card_text);
    if (!extended_card || !extended_card->is_object()) {
      return {std::nullopt, "extended-card.json: not a JSON object"};
    }
  }
  FateTable fates;
  if (fates_text) {
    auto document = parseJsonText(*fates_text);
    if (!document) {
      return {std::nullopt, "fates.json: not valid JSON"};
    }
    auto read = FateTable::fromJson(*document);
    if (!read.table) {
      return {std::nullopt, "fates.json: " + read.error};
    }
    fates = std::move(*read.table);
  }
  return {Fixtures{std::move(*card), std::move(*skills.table), std::move(extended_card),
                   std::move(fates)},
          {}};
}

FixturesLoad loadFixturesDir(const std::string& dir) {
  const std::string card_path = dir + "/card.json";
  const std::string skills_path = dir + "/skills.json";
  auto card = readFile(card_path);
  if (!card) {
    return {std::nullopt, "cannot read " + card_path};
  }
  auto skills = readFile(skills_path);
  if (!skills) {
    return {std::nullopt, "cannot read " + skills_path};
  }
  // The extended card and the fates are optional: a folder without them configures none.
  const auto optional = [](const std::optional<std::string>& text) {
    return text ? std::optional<std::string_view>(*text) : std::nullopt;
  };
  const auto extended = readFile(dir + "/extended-card.json");
  const auto fates = readFile(dir + "/fates.json");
  auto load = fixturesFromText(*card, *skills, optional(extended), optional(fates));
  if (!load.fixtures) {
    load.error = dir + "/" + load.error;
  }
  return load;
}

}  // namespace agentvcr::sim::a2a
