#include "agentvcr/replay/noise.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <regex>
#include <stdexcept>
#include <unordered_map>

#include "agentvcr/replay/decision_compare.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::replay {
namespace {

using protocol::Json;

/// Every differing path is wanted: a noise report that stopped at 32 would miss some.
constexpr std::size_t kAllPaths = std::numeric_limits<std::size_t>::max();

bool isIsoTimestamp(const Json& value) {
  static const std::regex kIso(
      R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?(Z|z|[+-]\d{2}(:?\d{2})?)?)");
  return value.is_string() && std::regex_match(value.get_ref<const std::string&>(), kIso);
}

bool isUuid(const Json& value) {
  static const std::regex kUuid(
      "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  return value.is_string() && std::regex_match(value.get_ref<const std::string&>(), kUuid);
}

/// A number in the range of today's clocks counted in seconds, milliseconds, microseconds or
/// nanoseconds since 1970 (2001 to 2286 in seconds): small numbers are never taken for times.
bool isUnixTime(const Json& value) {
  if (!value.is_number() || value.is_boolean()) {
    return false;
  }
  const double number = value.get<double>();
  for (const double low : {1e9, 1e12, 1e15, 1e18}) {
    if (number >= low && number < low * 10) {
      return true;
    }
  }
  return false;
}

/// A counter is told by its name as much as by its value: two integers named "x" are a
/// position, two named "seq" a counter. Without the name, a changed button number ("sw1"
/// pressed instead of "sw3") would pass for noise.
bool namesACounter(const std::string& pointer) {
  std::string name = pointer.substr(pointer.rfind('/') + 1);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const char* const kCounterWords[] = {"count",     "seq",      "tick",      "step",
                                              "iteration", "attempt",  "turn",      "nonce",
                                              "index",     "revision", "generation"};
  return std::any_of(std::begin(kCounterWords), std::end(kCounterWords),
                     [&](const char* word) { return name.find(word) != std::string::npos; });
}

/// `text` with every run of digits replaced by one '#': two strings with the same shape differ
/// only in their numbers ("req-17" and "req-18").
std::string digitShape(const std::string& text) {
  std::string shape;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      shape += text[i];
    } else if (i == 0 || std::isdigit(static_cast<unsigned char>(text[i - 1])) == 0) {
      shape += '#';
    }
  }
  return shape;
}

bool isCounterPair(const std::string& pointer, const Json& a, const Json& b) {
  if (!namesACounter(pointer)) {
    return false;
  }
  if (a.is_number_integer() && b.is_number_integer()) {
    return true;
  }
  if (!a.is_string() || !b.is_string()) {
    return false;
  }
  const std::string shape = digitShape(a.get<std::string>());
  return shape.find('#') != std::string::npos && shape == digitShape(b.get<std::string>());
}

/// The value at `pointer`, null when it addresses nothing (a member on one side only).
Json valueAt(const Json& document, const std::string& pointer) {
  try {
    const Json::json_pointer parsed(pointer);
    return document.contains(parsed) ? document.at(parsed) : Json();
  } catch (const Json::exception&) {
    return Json();
  }
}

/// Notes one difference at `pointer` into the report's section.
void countDifference(std::map<std::string, NoisyPath>& section, const std::string& pointer,
                     std::optional<VolatileKind> kind) {
  NoisyPath& path = section[pointer];
  if (path.varying == 0) {
    path.kind = kind;
  } else if (path.kind != kind) {
    path.mixed = true;
  }
  path.mixed = path.mixed || !kind;
  ++path.varying;
}

/// What eval compares of one output (decision_compare.hpp), at the paths it has in the output:
/// status, output.say, each tool call's name, target_robot_name and arguments, error.code.
/// Memory and internal steps vary from run to run and are never compared, so never listed.
Json comparedPart(const Json& output) {
  Json part = Json::object();
  part["status"] = valueAt(output, "/status");
  if (const Json decision = valueAt(output, "/output"); decision.is_object()) {
    part["output"]["say"] = valueAt(decision, "/say");
    Json calls = Json::array();
    const Json recorded_calls = valueAt(decision, "/tool_calls");
    for (const Json& call : recorded_calls.is_array() ? recorded_calls : Json::array()) {
      calls.push_back({{"name", valueAt(call, "/name")},
                       {"target_robot_name", valueAt(call, "/target_robot_name")},
                       {"arguments", valueAt(call, "/arguments")}});
    }
    part["output"]["tool_calls"] = std::move(calls);
  }
  if (const Json error = valueAt(output, "/error"); error.is_object()) {
    part["error"]["code"] = valueAt(error, "/code");
  }
  return part;
}

/// A volatile output path and its kind.
using OutputNoise = std::vector<std::pair<std::string, VolatileKind>>;

/// The output differences of two steps whose decisions compareDecisions() told apart, when
/// every one of them holds volatile values; empty when some difference is real (the decisions
/// differ), with that difference in `real`.
std::optional<OutputNoise> volatileOutputDifferences(const DiffStep& base, const DiffStep& other,
                                                     std::string& real) {
  const auto base_slots = outputsBySlot(base.candidates);
  const auto other_slots = outputsBySlot(other.candidates);
  if (base_slots.size() != other_slots.size()) {
    real =
        std::to_string(base_slots.size()) + " candidates vs " + std::to_string(other_slots.size());
    return std::nullopt;
  }
  OutputNoise noise;
  for (const auto& [index, candidate] : base_slots) {
    auto counterpart = other_slots.find(index);
    if (counterpart == other_slots.end()) {
      real = "candidate " + std::to_string(index) + " on one side only";
      return std::nullopt;
    }
    const Json a = comparedPart(*candidate);
    const Json b = comparedPart(*counterpart->second);
    for (const std::string& path : differingPaths(a, b, kAllPaths).paths) {
      auto kind = volatileKindOf(path, valueAt(a, path), valueAt(b, path));
      if (!kind) {
        real = "candidate " + std::to_string(index) + " differs at " + path;
        return std::nullopt;
      }
      noise.emplace_back(path, *kind);
    }
  }
  return noise;
}

std::string pathComment(const NoisyPath& path, std::size_t aligned_steps) {
  std::string text = "  # ";
  if (path.kind && !path.mixed) {
    text += std::string(volatileKindName(*path.kind)) + ", ";
  }
  return text + "varies in " + std::to_string(path.varying) + " of " +
         std::to_string(aligned_steps) + " aligned steps";
}

bool isRecording(const store::SessionRow& session) {
  return session.mode != "eval" && session.mode != "replay" && session.mode != "replay-forward";
}

/// The evaluation sessions whose step links point into `base`.
std::vector<std::int64_t> evaluationsOf(const store::ArchiveReader& reader, std::int64_t base) {
  std::vector<std::int64_t> evaluations;
  for (const store::SessionRow& session : reader.sessions()) {
    if (session.mode != "eval") {
      continue;
    }
    const auto links = reader.stepLinksOfSession(session.id);
    if (links.empty()) {
      continue;
    }
    const auto recorded = reader.step(links.front().recorded_step_id);
    if (recorded && recorded->session_id == base) {
      evaluations.push_back(session.id);
    }
  }
  return evaluations;
}

std::vector<store::ConversationRow> magmaConversations(const store::ArchiveReader& reader,
                                                       std::int64_t session) {
  std::vector<store::ConversationRow> conversations = reader.conversations(session);
  std::erase_if(conversations,
                [](const store::ConversationRow& row) { return row.protocol != "magma"; });
  return conversations;
}

std::string sessionList(const NoiseSessions& sessions) {
  std::string text = std::to_string(sessions.base) + " (base)";
  for (std::int64_t other : sessions.others) {
    text += ", " + std::to_string(other);
  }
  return text;
}

}  // namespace

const char* volatileKindName(VolatileKind kind) {
  switch (kind) {
    case VolatileKind::IsoTimestamp:
      return "timestamp (ISO 8601)";
    case VolatileKind::UnixTime:
      return "timestamp (Unix time)";
    case VolatileKind::Uuid:
      return "UUID";
    case VolatileKind::Counter:
      return "counter";
  }
  return "volatile";
}

std::optional<VolatileKind> volatileKindOf(const std::string& pointer, const Json& a,
                                           const Json& b) {
  if (isIsoTimestamp(a) && isIsoTimestamp(b)) {
    return VolatileKind::IsoTimestamp;
  }
  if (isUuid(a) && isUuid(b)) {
    return VolatileKind::Uuid;
  }
  if (isUnixTime(a) && isUnixTime(b)) {
    return VolatileKind::UnixTime;
  }
  if (isCounterPair(pointer, a, b)) {
    return VolatileKind::Counter;
  }
  return std::nullopt;
}

std::string volatileOnlyHint(const Json& live, const Json& recorded,
                             const JsonDifferences& differences) {
  if (differences.paths.empty() || differences.truncated) {
    return {};
  }
  std::string kinds;
  std::string options;
  for (const std::string& path : differences.paths) {
    auto kind = volatileKindOf(path, valueAt(live, path), valueAt(recorded, path));
    if (!kind) {
      return {};
    }
    kinds += (kinds.empty() ? "" : ", ") + path + ": " + volatileKindName(*kind);
    options += " --ignore " + path;
  }
  return "; only volatile values differ (" + kinds + "): replay with" + options +
         ", or list such paths with `agentvcr noise`";
}

NoiseReport findNoise(const std::vector<EpisodePair>& pairs) {
  NoiseReport report;
  for (const EpisodePair& pair : pairs) {
    std::size_t aligned = 0;
    std::string stop;
    for (; aligned < pair.base.size(); ++aligned) {
      const DiffStep& base = pair.base[aligned];
      if (aligned >= pair.other.size() || !pair.other[aligned]) {
        stop = "no counterpart";
        break;
      }
      const DiffStep& other = *pair.other[aligned];
      if (base.depth != other.depth) {
        stop = "depth " + std::to_string(base.depth) + " vs " + std::to_string(other.depth);
        break;
      }
      OutputNoise output_noise;
      if (!compareDecisions(base.input, base.candidates, other.candidates).match) {
        auto noise = volatileOutputDifferences(base, other, stop);
        if (!noise) {
          break;
        }
        output_noise = std::move(*noise);
      }
      for (const auto& [path, kind] : output_noise) {
        countDifference(report.output, path, kind);
      }
      for (const std::string& path : differingPaths(base.input, other.input, kAllPaths).paths) {
        countDifference(
            report.input, path,
            volatileKindOf(path, valueAt(base.input, path), valueAt(other.input, path)));
      }
      ++report.aligned_steps;
    }
    std::string line = pair.label + ": aligned " + std::to_string(aligned) + " of " +
                       std::to_string(pair.base.size()) + " steps";
    if (!stop.empty()) {
      line += "; stopped at step " + std::to_string(aligned + 1) + ": " + stop;
    } else if (pair.other.size() > pair.base.size()) {
      line += "; the other has " + std::to_string(pair.other.size() - pair.base.size()) + " more";
    }
    report.alignment.push_back(std::move(line));
  }
  return report;
}

NoiseSessions resolveNoiseSessions(const store::ArchiveReader& reader,
                                   const std::vector<std::int64_t>& requested) {
  for (std::int64_t id : requested) {
    if (!reader.session(id)) {
      throw std::invalid_argument("no session " + std::to_string(id) + " in the archive");
    }
  }
  NoiseSessions sessions;
  if (requested.size() >= 2) {
    sessions.base = requested.front();
    sessions.others.assign(requested.begin() + 1, requested.end());
    return sessions;
  }
  if (requested.size() == 1) {
    sessions.base = requested.front();
  } else {
    const std::vector<store::SessionRow> all = reader.sessions();
    auto latest = std::find_if(all.rbegin(), all.rend(), isRecording);
    if (latest == all.rend()) {
      throw std::invalid_argument(
          "the archive holds no recording: record the same episodes twice, or evaluate a "
          "recording with `agentvcr eval`, then run noise again");
    }
    sessions.base = latest->id;
  }
  sessions.others = evaluationsOf(reader, sessions.base);
  if (sessions.others.empty()) {
    throw std::invalid_argument(
        "session " + std::to_string(sessions.base) +
        " has no evaluation to compare with: pass two or more --session that recorded the same "
        "episodes, or evaluate it with `agentvcr eval` first");
  }
  return sessions;
}

std::vector<EpisodePair> episodePairs(const store::ArchiveReader& reader,
                                      const NoiseSessions& sessions) {
  const std::vector<store::ConversationRow> base = magmaConversations(reader, sessions.base);
  std::vector<EpisodePair> pairs;
  for (std::int64_t other_session : sessions.others) {
    const std::vector<store::StepLink> links = reader.stepLinksOfSession(other_session);
    if (!links.empty()) {
      // An evaluation: its steps are found through their links, whatever conversations the
      // live memories threaded them into.
      std::unordered_map<std::int64_t, std::int64_t> evaluated_step;
      for (const store::StepLink& link : links) {
        evaluated_step[link.recorded_step_id] = link.step_id;
      }
      for (const store::ConversationRow& conversation : base) {
        std::unordered_map<std::int64_t, DiffStep> evaluated;
        for (const store::EvaluationPair& evaluation : reader.evaluationPairs(conversation.id)) {
          const auto row = reader.conversation(evaluation.evaluated_conversation_id);
          if (row && row->session_id == other_session) {
            for (DiffStep& step : diffStepsOf(reader, row->id)) {
              evaluated.emplace(step.step_id, std::move(step));
            }
          }
        }
        EpisodePair pair;
        pair.label = "conversation " + std::to_string(conversation.id) + " / its evaluation in " +
                     "session " + std::to_string(other_session);
        pair.base = diffStepsOf(reader, conversation.id);
        for (const DiffStep& step : pair.base) {
          auto link = evaluated_step.find(step.step_id);
          auto found =
              link == evaluated_step.end() ? evaluated.end() : evaluated.find(link->second);
          pair.other.push_back(found == evaluated.end() ? std::nullopt
                                                        : std::optional<DiffStep>(found->second));
        }
        pairs.push_back(std::move(pair));
      }
      continue;
    }
    const std::vector<store::ConversationRow> other = magmaConversations(reader, other_session);
    for (std::size_t i = 0; i < base.size(); ++i) {
      EpisodePair pair;
      pair.base = diffStepsOf(reader, base[i].id);
      pair.label = "conversation " + std::to_string(base[i].id) + " / ";
      if (i < other.size()) {
        pair.label += "conversation " + std::to_string(other[i].id);
        for (DiffStep& step : diffStepsOf(reader, other[i].id)) {
          pair.other.emplace_back(std::move(step));
        }
      } else {
        pair.label += "none in session " + std::to_string(other_session);
      }
      pairs.push_back(std::move(pair));
    }
  }
  return pairs;
}

std::string formatNoise(const NoiseReport& report, const NoiseSessions& sessions) {
  std::string text = "# agentvcr noise: paths that vary while the decisions stay the same\n";
  text += "# sessions " + sessionList(sessions) + "; " + std::to_string(report.aligned_steps) +
          " aligned steps\n";
  for (const std::string& line : report.alignment) {
    text += "# " + line + "\n";
  }
  text += "\n[input]\n";
  for (const auto& [pointer, path] : report.input) {
    text += pointer + pathComment(path, report.aligned_steps) + "\n";
  }
  text += "\n[output]\n";
  for (const auto& [pointer, path] : report.output) {
    text += pointer + pathComment(path, report.aligned_steps) + "\n";
  }
  return text;
}

}  // namespace agentvcr::replay
