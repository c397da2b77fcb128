#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/sim/a2a/json.hpp"
#include "agentvcr/sim/a2a/task.hpp"

namespace agentvcr::sim::a2a {

/// What the agent does with one message of a task whose caller chose its fate.
struct FateTurn {
  TaskState state = TaskState::Completed;  ///< Completed, InputRequired, Failed or Rejected
  /// The agent's words: the task's status message, or the reply when `message_reply`.
  std::string text;
  /// The parts (v0.3 shape) of the one artifact this turn adds; none adds no artifact.
  std::vector<Json> artifact_parts;
  /// In a stream, each artifact part goes out as a chunk of its own (append, lastChunk).
  bool chunked = false;
  /// The answer is a Message, not a task: nothing is stored.
  bool message_reply = false;
  /// `working` status updates a stream sends before the turn's outcome.
  int updates = 0;
};

/// A caller's scripted fate: one turn per message of the task; once they are played, the last
/// turn plays again.
struct Fate {
  std::string name;
  std::vector<FateTurn> turns;
};

/// The fates a caller can ask for (docs/a2a-mock.md, "Scripted task fates"): those of the
/// fixture's fates.json, asked by a messageId that starts with `fate-NAME` or with a prefix the
/// fate lists (the official suite's `tck-complete-task`, …), or by a first text part that starts
/// with `[fate:NAME]`; and `stream-N` (1 to 100), N working updates then a completed task with
/// one artifact.
struct FateTableLoad;

class FateTable {
 public:
  /// Reads fates.json: `{"fates": [{"name", "prefixes"?, "turns": [turn…]}]}`, each turn
  /// `{"state", "text"?, "artifact"?: [part…], "chunked"?, "message"?, "updates"?}` with
  /// v0.3 parts and states (`completed`, `input-required`, `failed`, `rejected`).
  static FateTableLoad fromJson(const Json& document);

  /// The fate `message` (a v0.3 message, as the store keeps it) asks for; none when it names
  /// none, and the skill answers as usual.
  std::optional<Fate> forMessage(const Json& message) const;

  /// The fate named `name`: a fixture's, or `stream-N`.
  std::optional<Fate> named(std::string_view name) const;

  bool empty() const { return fates_.empty(); }

 private:
  std::map<std::string, Fate, std::less<>> fates_;
  /// messageId prefix -> fate name (`fate-NAME` and the listed prefixes); the longest wins.
  std::map<std::string, std::string, std::less<>> prefixes_;
};

struct FateTableLoad {
  std::optional<FateTable> table;
  std::string error;  ///< why fates.json is not one
};

}  // namespace agentvcr::sim::a2a
