#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/replay/conversation_diff.hpp"
#include "agentvcr/replay/json_diff.hpp"

namespace agentvcr::store {
class ArchiveReader;
}

/// Noise: the parts of recorded MAGMA steps that change from one recording of an episode to the
/// next while the agent decides the same (clocks, trace ids, counters). `agentvcr noise` lists
/// them in an ignore file (ignore_file.hpp) that replay and eval read back; replay's miss report
/// uses the same classifier to say when only such values kept an input from hitting.
namespace agentvcr::replay {

/// What a changing value looks like.
enum class VolatileKind {
  IsoTimestamp,  ///< "2026-12-03T11:14:46Z", "2026-12-03 11:14:46.123+01:00"
  UnixTime,      ///< a number of seconds, milliseconds, microseconds or nanoseconds since 1970
  Uuid,          ///< "0f8fad5b-d9cb-469f-a165-70867728950e" (any version, any case)
  Counter,       ///< two integers, or two strings equal but for one run of digits ("req-17")
};

/// "timestamp (ISO 8601)", "timestamp (Unix time)", "UUID", "counter".
const char* volatileKindName(VolatileKind kind);

/// The kind the two values at `pointer` share when they differ the way volatile values do: both
/// timestamps of the same form, both UUIDs, or both counters (integers or digit runs, and only
/// under a member whose name says counter: "seq", "step_count", "tick"...). Empty for anything
/// else (an absent side is a JSON null), so a real change of content is not taken for noise.
std::optional<VolatileKind> volatileKindOf(const std::string& pointer, const protocol::Json& a,
                                           const protocol::Json& b);

/// When the closest recorded input differs from a missed one only at paths holding volatile
/// values (`differences` computed between `live` and `recorded`, not truncated), the sentence a
/// miss report appends: the paths with their kinds and the `--ignore` options that would hit.
/// Empty otherwise.
std::string volatileOnlyHint(const protocol::Json& live, const protocol::Json& recorded,
                             const JsonDifferences& differences);

/// A conversation of the base recording and the same episode in another session: `other[i]` is
/// the step that answered the same turn as `base[i]` (by position in tree order for two
/// recordings, by step link for an evaluation), empty where there is none.
struct EpisodePair {
  std::string label;  ///< names the two conversations in the report's comments
  std::vector<DiffStep> base;
  std::vector<std::optional<DiffStep>> other;
};

/// One JSON path that varied between aligned steps.
struct NoisyPath {
  std::size_t varying = 0;  ///< aligned steps in which it differed
  /// Set while every difference at this path was of this kind.
  std::optional<VolatileKind> kind;
  bool mixed = false;  ///< some difference was of no kind, or of another one
};

struct NoiseReport {
  /// RFC 6901 pointers relative to the input object (as `--ignore` takes them), sorted.
  std::map<std::string, NoisyPath> input;
  /// Pointers relative to an output object (AgentOutput), into what eval compares: status,
  /// output.say, output.tool_calls' name, target_robot_name and arguments, error.code.
  std::map<std::string, NoisyPath> output;
  std::size_t aligned_steps = 0;
  /// One line per episode pair: how far it aligned and why it stopped.
  std::vector<std::string> alignment;
};

/// Walks each pair step by step from the start and stops at the first step without a
/// counterpart, at another depth, or whose decisions really differ (compareDecisions finds a
/// difference that is not volatileKindOf() at every differing output path). In the aligned
/// steps it collects the input paths that differ (any value) and the output paths whose
/// volatile values differ. Pure.
NoiseReport findNoise(const std::vector<EpisodePair>& pairs);

/// The sessions noise compares in an archive: the first is the base the others are aligned to.
struct NoiseSessions {
  std::int64_t base = 0;
  std::vector<std::int64_t> others;
};

/// `requested` resolved: two or more sessions as given; one session with the evaluations of it
/// (sessions of mode "eval" whose step links point into it); none: the latest recording (a
/// session that is neither an evaluation nor a replay) with its evaluations. Throws
/// std::invalid_argument saying what is missing (an unknown session, nothing to compare with).
NoiseSessions resolveNoiseSessions(const store::ArchiveReader& reader,
                                   const std::vector<std::int64_t>& requested);

/// The MAGMA conversations of `sessions.base` paired with each other session's: an evaluation's
/// through its step links, another recording's by conversation order.
std::vector<EpisodePair> episodePairs(const store::ArchiveReader& reader,
                                      const NoiseSessions& sessions);

/// The report as an ignore file: `#` comments on what was compared, then the `[input]` and
/// `[output]` sections, one pointer per line in byte order, each with a comment naming its kind
/// and how often it varied.
std::string formatNoise(const NoiseReport& report, const NoiseSessions& sessions);

}  // namespace agentvcr::replay
