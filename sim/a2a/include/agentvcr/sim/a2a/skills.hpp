#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/rate_limiter.hpp"

namespace agentvcr::sim::a2a {

/// One canned answer of a skill. It applies when `match` is absent or occurs in the query
/// (ASCII case-insensitive), and does exactly one of: answer (`chunks`, plus an optional `data`
/// part), fail the task with `failure` in `status.message`, reject it with `rejection`, or
/// simulate an unexpected server fault (-32603).
struct Answer {
  std::optional<std::string> match;  ///< lower case
  std::vector<std::string> chunks;   ///< the answer text in the pieces a stream sends
  std::optional<Json> data;          ///< the data part beside the text, e.g. {"citations": [...]}
  std::optional<std::string> failure;
  std::optional<std::string> rejection;
  bool internal_error = false;
  /// The answer completes the task. Otherwise a standard agent waits in input-required for
  /// the next message (Magisterium's tasks always complete).
  bool completes = false;

  /// The chunks with every "{query}" replaced by `query`.
  std::vector<std::string> chunksFor(std::string_view query) const;
};

/// A skill as the fixtures describe it: its entry on the agent card, its rate tier, and its
/// canned answers. In the standard profile a skill may ask for more input on the first
/// `input_turns` messages of a task, with `progress_text` in `status.message`, before it
/// answers.
struct Skill {
  std::string id;
  Json card_entry;  ///< id, name, description, tags and the optional card fields
  Tier tier = Tier::Default;
  std::string artifact_name = "answer";
  int input_turns = 0;
  std::string progress_text;
  std::vector<Answer> answers;  ///< tried in order; the last one matches every query

  const Answer& answerFor(std::string_view query) const;
};

struct SkillTableLoad;

/// The skills a profile serves, loaded from its fixtures' skills.json (see docs/a2a-mock.md).
class SkillTable {
 public:
  /// Reads `{"default_skill": ID, "skills": [...]}`; the error names the faulty field.
  static SkillTableLoad fromJson(const Json& document);

  const Skill* find(std::string_view id) const;

  const Skill& defaultSkill() const { return skills_[default_index_]; }

  const std::vector<Skill>& skills() const { return skills_; }

 private:
  std::vector<Skill> skills_;
  std::size_t default_index_ = 0;
};

struct SkillTableLoad {
  std::optional<SkillTable> table;
  std::string error;
};

}  // namespace agentvcr::sim::a2a
