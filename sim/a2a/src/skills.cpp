#include "agentvcr/sim/a2a/skills.hpp"

#include <algorithm>
#include <cctype>

namespace agentvcr::sim::a2a {
namespace {

std::string lowerAscii(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

/// Thrown inside the loader only and turned into SkillTableLoad::error: the loader runs at
/// start-up, never on the request path.
struct FixtureError {
  std::string message;
};

const Json& member(const Json& object, const char* name, const std::string& where) {
  if (!object.contains(name)) {
    throw FixtureError{where + "." + name + " is required"};
  }
  return object[name];
}

std::string stringMember(const Json& object, const char* name, const std::string& where) {
  const Json& value = member(object, name, where);
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    throw FixtureError{where + "." + name + " must be a non-empty string"};
  }
  return value.get<std::string>();
}

std::vector<std::string> stringList(const Json& value, const std::string& where) {
  if (!value.is_array()) {
    throw FixtureError{where + " must be an array of strings"};
  }
  std::vector<std::string> strings;
  for (const Json& item : value) {
    if (!item.is_string()) {
      throw FixtureError{where + " must be an array of strings"};
    }
    strings.push_back(item.get<std::string>());
  }
  return strings;
}

Answer readAnswer(const Json& entry, const std::string& where) {
  if (!entry.is_object()) {
    throw FixtureError{where + " must be an object"};
  }
  Answer answer;
  if (entry.contains("match")) {
    answer.match = lowerAscii(stringMember(entry, "match", where));
  }
  int kinds = 0;
  for (const char* kind : {"text", "chunks", "fail", "reject", "internal_error"}) {
    kinds += static_cast<int>(entry.contains(kind));
  }
  if (kinds != 1) {
    throw FixtureError{where + " needs exactly one of text, chunks, fail, reject, internal_error"};
  }
  if (entry.contains("text")) {
    answer.chunks.push_back(stringMember(entry, "text", where));
  } else if (entry.contains("chunks")) {
    answer.chunks = stringList(entry["chunks"], where + ".chunks");
    if (answer.chunks.empty()) {
      throw FixtureError{where + ".chunks must not be empty"};
    }
  } else if (entry.contains("fail")) {
    answer.failure = stringMember(entry, "fail", where);
  } else if (entry.contains("reject")) {
    answer.rejection = stringMember(entry, "reject", where);
  } else if (entry["internal_error"] != true) {
    throw FixtureError{where + ".internal_error must be true"};
  } else {
    answer.internal_error = true;
  }
  if (entry.contains("data")) {
    answer.data = entry["data"];
  }
  if (entry.contains("state")) {
    const std::string state = stringMember(entry, "state", where);
    if (answer.chunks.empty() || (state != "completed" && state != "input-required")) {
      throw FixtureError{where +
                         ".state must be \"completed\" or \"input-required\", on an answer "
                         "with text or chunks"};
    }
    answer.completes = state == "completed";
  }
  return answer;
}

Json cardEntry(const Json& entry, const std::string& where) {
  Json card = Json::object();
  card["id"] = stringMember(entry, "id", where);
  card["name"] = stringMember(entry, "name", where);
  card["description"] = stringMember(entry, "description", where);
  card["tags"] =
      entry.contains("tags") ? Json(stringList(entry["tags"], where + ".tags")) : Json::array();
  for (const char* optional : {"examples", "inputModes", "outputModes"}) {
    if (entry.contains(optional)) {
      card[optional] = stringList(entry[optional], where + "." + optional);
    }
  }
  return card;
}

Skill readSkill(const Json& entry, const std::string& where) {
  if (!entry.is_object()) {
    throw FixtureError{where + " must be an object"};
  }
  Skill skill;
  skill.card_entry = cardEntry(entry, where);
  skill.id = skill.card_entry["id"].get<std::string>();
  if (entry.contains("tier")) {
    const std::string tier = stringMember(entry, "tier", where);
    if (tier != "default" && tier != "expensive") {
      throw FixtureError{where + ".tier must be \"default\" or \"expensive\""};
    }
    skill.tier = tier == "expensive" ? Tier::Expensive : Tier::Default;
  }
  if (entry.contains("artifact_name")) {
    skill.artifact_name = stringMember(entry, "artifact_name", where);
  }
  if (entry.contains("working_turns")) {
    throw FixtureError{where +
                       ".working_turns is now input_turns: a task that waits for the caller is "
                       "input-required, since a blocking send may not return a working task"};
  }
  if (entry.contains("input_turns")) {
    const Json& turns = entry["input_turns"];
    if (!turns.is_number_integer() || turns.get<std::int64_t>() < 0 ||
        turns.get<std::int64_t>() > 1000) {
      throw FixtureError{where + ".input_turns must be an integer from 0 to 1000"};
    }
    skill.input_turns = turns.get<int>();
  }
  skill.progress_text = entry.contains("progress_text")
                            ? stringMember(entry, "progress_text", where)
                            : std::string("Tell me more.");
  const Json& answers = member(entry, "answers", where);
  if (!answers.is_array() || answers.empty()) {
    throw FixtureError{where + ".answers must be a non-empty array"};
  }
  for (std::size_t i = 0; i < answers.size(); ++i) {
    skill.answers.push_back(readAnswer(answers[i], where + ".answers[" + std::to_string(i) + "]"));
  }
  if (skill.answers.back().match) {
    throw FixtureError{where + ".answers: the last answer must have no match (the fallback)"};
  }
  return skill;
}

}  // namespace

std::vector<std::string> Answer::chunksFor(std::string_view query) const {
  static constexpr std::string_view kPlaceholder = "{query}";
  std::vector<std::string> filled;
  for (const std::string& chunk : chunks) {
    std::string text;
    std::size_t start = 0;
    for (std::size_t at = chunk.find(kPlaceholder); at != std::string::npos;
         at = chunk.find(kPlaceholder, start)) {
      text.append(chunk, start, at - start).append(query);
      start = at + kPlaceholder.size();
    }
    filled.push_back(text.append(chunk, start));
  }
  return filled;
}

const Answer& Skill::answerFor(std::string_view query) const {
  const std::string lower = lowerAscii(query);
  for (const Answer& answer : answers) {
    if (!answer.match || lower.find(*answer.match) != std::string::npos) {
      return answer;
    }
  }
  return answers.back();
}

SkillTableLoad SkillTable::fromJson(const Json& document) {
  try {
    if (!document.is_object()) {
      throw FixtureError{"skills file must hold an object"};
    }
    SkillTable table;
    const Json& skills = member(document, "skills", "skills file");
    if (!skills.is_array() || skills.empty()) {
      throw FixtureError{"skills must be a non-empty array"};
    }
    for (std::size_t i = 0; i < skills.size(); ++i) {
      Skill skill = readSkill(skills[i], "skills[" + std::to_string(i) + "]");
      if (table.find(skill.id)) {
        throw FixtureError{"skill '" + skill.id + "' is listed twice"};
      }
      table.skills_.push_back(std::move(skill));
    }
    const std::string default_id = stringMember(document, "default_skill", "skills file");
    const Skill* fallback = table.find(default_id);
    if (fallback == nullptr) {
      throw FixtureError{"default_skill '" + default_id + "' is not in skills"};
    }
    table.default_index_ = static_cast<std::size_t>(fallback - table.skills_.data());
    return {std::move(table), {}};
  } catch (const FixtureError& error) {
    return {std::nullopt, error.message};
  }
}

const Skill* SkillTable::find(std::string_view id) const {
  for (const Skill& skill : skills_) {
    if (skill.id == id) {
      return &skill;
    }
  }
  return nullptr;
}

}  // namespace agentvcr::sim::a2a
