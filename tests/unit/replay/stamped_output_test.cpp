// StampedOutput writes a recorded output with the caller's request_id and source_id, byte for
// byte as serialising the restamped JSON would.

#include "agentvcr/replay/stamped_output.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/protocol/python_json.hpp"

namespace agentvcr::replay {
namespace {

using nlohmann::ordered_json;
using protocol::PythonJsonStyle;

/// What replay wrote before outputs were stamped: the JSON restamped, then serialised.
std::string restampedDump(ordered_json output, const std::string& request_id,
                          std::int64_t source_id, PythonJsonStyle style) {
  output["request_id"] = request_id;
  output["source_id"] = source_id;
  return protocol::pythonJsonDumps(output, style);
}

std::string stamped(const ordered_json& output, const std::string& request_id,
                    std::int64_t source_id, PythonJsonStyle style) {
  std::string out;
  StampedOutput(output, style)
      .appendTo(out, protocol::pythonJsonDumps(ordered_json(request_id), style), source_id);
  return out;
}

const PythonJsonStyle kStyles[] = {
    PythonJsonStyle{},
    PythonJsonStyle{.spaced = true, .ensure_ascii = false, .allow_nan = false},
    PythonJsonStyle{.spaced = false, .ensure_ascii = true, .allow_nan = false},
    protocol::kPythonDefaultStyle,
};

ordered_json recordedOutput() {
  return *protocol::parseOrderedJson(R"({
    "request_id": "recorded-7", "source_id": 3, "candidate_index": 0, "status": "success",
    "memory": {"history": [{"author": "USER", "content": "presse le bouton \u00e9 \ud83d\udd34"}],
               "score": 0.1, "big": 12345678901234567890},
    "internal_steps": [], "output": {"actions": [{"press_button": {"id": "red"}}]},
    "error": null})");
}

TEST(StampedOutput, WritesWhatTheRestampedJsonSerialisesTo) {
  for (const PythonJsonStyle style : kStyles) {
    for (const std::string request_id :
         {"live-1", "", "r\u00e9q \"quoted\" \\ \n", "\xf0\x9f\x94\xb4"}) {
      for (const std::int64_t source_id :
           {std::int64_t{0}, std::int64_t{-5}, std::int64_t{42},
            std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
        EXPECT_EQ(stamped(recordedOutput(), request_id, source_id, style),
                  restampedDump(recordedOutput(), request_id, source_id, style))
            << "request_id " << request_id << ", source_id " << source_id;
      }
    }
  }
}

TEST(StampedOutput, KeepsBothMembersWhereTheAgentPutThem) {
  const ordered_json output =
      *protocol::parseOrderedJson(R"({"status":"success","source_id":1,"x":1,"request_id":"a"})");
  EXPECT_EQ(stamped(output, "b", 9, {}),
            R"({"status":"success","source_id":9,"x":1,"request_id":"b"})");
}

TEST(StampedOutput, AddsMissingMembersAtTheEndRequestIdFirst) {
  for (const PythonJsonStyle style : kStyles) {
    for (const char* text : {R"({"status":"success"})", R"({"source_id":1,"status":"success"})",
                             R"({"request_id":"a","status":"success"})", "{}"}) {
      const ordered_json output = *protocol::parseOrderedJson(text);
      EXPECT_EQ(stamped(output, "live", 7, style), restampedDump(output, "live", 7, style)) << text;
    }
  }
}

TEST(StampedOutput, ReplacesValuesOfAnyRecordedType) {
  const ordered_json output = *protocol::parseOrderedJson(
      R"({"request_id":{"nested":[1,2]},"source_id":"not an integer","status":"error"})");
  EXPECT_EQ(stamped(output, "live", 4, {}), restampedDump(output, "live", 4, {}));
  EXPECT_EQ(StampedOutput(output, {}).recordedSourceId(), 0);
}

TEST(StampedOutput, RemembersTheRecordedSourceId) {
  EXPECT_EQ(StampedOutput(recordedOutput(), {}).recordedSourceId(), 3);
}

TEST(StampedOutput, AppendsAfterWhatIsAlreadyWritten) {
  std::string out = "[";
  const StampedOutput output(*protocol::parseOrderedJson(R"({"source_id":1})"), {});
  output.appendTo(out, R"("a")", 1);
  out += ",";
  output.appendTo(out, R"("a")", 2);
  out += "]";
  EXPECT_EQ(out, R"([{"source_id":1,"request_id":"a"},{"source_id":2,"request_id":"a"}])");
}

}  // namespace
}  // namespace agentvcr::replay
