#include "agentvcr/replay/json_diff.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace agentvcr::replay {
namespace {

using protocol::Json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

Json json(const char* text) {
  return Json::parse(text);
}

TEST(DifferingPaths, EqualValuesHaveNoDifference) {
  const Json value = json(R"({"memory": {"history": [{"role": "user", "content": "hi"}]},
                              "num_outputs": 2, "tools": [], "flag": null})");
  const JsonDifferences differences = differingPaths(value, value);
  EXPECT_THAT(differences.paths, IsEmpty());
  EXPECT_FALSE(differences.truncated);
  EXPECT_THAT(differingPaths(json("3"), json("3")).paths, IsEmpty());
  EXPECT_THAT(differingPaths(json("[]"), json("[]")).paths, IsEmpty());
}

TEST(DifferingPaths, NamesAChangedScalarDeepInsideNestedValues) {
  const Json a = json(R"({"memory": {"history": [{"role": "user", "content": "hi"},
                                                 {"role": "assistant", "content": "ok"}],
                                     "memory_list": ["a"]},
                          "num_outputs": 1})");
  Json b = a;
  b["memory"]["history"][1]["content"] = "not ok";
  EXPECT_THAT(differingPaths(a, b).paths, ElementsAre("/memory/history/1/content"));
  EXPECT_THAT(differingPaths(b, a).paths, ElementsAre("/memory/history/1/content"));
}

TEST(DifferingPaths, NamesAMemberPresentOnOneSideOnly) {
  const Json a = json(R"({"attributes": {"zones": ["left"], "robot_statuses": {"arm1": "FREE"}}})");
  const Json b = json(R"({"attributes": {"zones": ["left"]}})");
  EXPECT_THAT(differingPaths(a, b).paths, ElementsAre("/attributes/robot_statuses"));
  EXPECT_THAT(differingPaths(b, a).paths, ElementsAre("/attributes/robot_statuses"));
}

TEST(DifferingPaths, ListsEveryDifferenceInKeyOrder) {
  // Members are visited in byte order of their keys, whatever order they were written in.
  const Json a = json(R"({"z": 1, "b": 2, "a": {"y": 1}, "only_a": 0})");
  const Json b = json(R"({"a": {"x": 1}, "b": 2, "z": 2, "only_b": 0})");
  EXPECT_THAT(differingPaths(a, b).paths, ElementsAre("/a/x", "/a/y", "/only_a", "/only_b", "/z"));
}

TEST(DifferingPaths, NamesTheExtraIndicesOfTheLongerArray) {
  const Json shorter = json(R"({"history": ["a", "b"]})");
  const Json longer = json(R"({"history": ["a", "b", "c", "d"]})");
  EXPECT_THAT(differingPaths(shorter, longer).paths, ElementsAre("/history/2", "/history/3"));
  EXPECT_THAT(differingPaths(longer, shorter).paths, ElementsAre("/history/2", "/history/3"));
  EXPECT_THAT(differingPaths(json("[]"), json("[0]")).paths, ElementsAre("/0"));
}

TEST(DifferingPaths, ComparesArraysElementByElement) {
  EXPECT_THAT(differingPaths(json("[1, 2, 3]"), json("[1, 5, 3, 4]")).paths,
              ElementsAre("/1", "/3"));
}

TEST(DifferingPaths, ATypeChangeIsADifference) {
  EXPECT_THAT(differingPaths(json(R"({"n": 1})"), json(R"({"n": "1"})")).paths, ElementsAre("/n"));
  EXPECT_THAT(differingPaths(json(R"({"n": 1})"), json(R"({"n": true})")).paths, ElementsAre("/n"));
  EXPECT_THAT(differingPaths(json(R"({"n": 0})"), json(R"({"n": false})")).paths,
              ElementsAre("/n"));
  EXPECT_THAT(differingPaths(json(R"({"n": null})"), json(R"({"n": {}})")).paths,
              ElementsAre("/n"));
  EXPECT_THAT(differingPaths(json(R"({"n": []})"), json(R"({"n": {}})")).paths, ElementsAre("/n"));
}

TEST(DifferingPaths, NumbersCompareByValue) {
  EXPECT_THAT(differingPaths(json(R"({"n": 1})"), json(R"({"n": 1.0})")).paths, IsEmpty());
  EXPECT_THAT(differingPaths(json(R"({"n": -2})"), json(R"({"n": -2.0})")).paths, IsEmpty());
  EXPECT_THAT(differingPaths(json("0"), json("-0.0")).paths, IsEmpty());
  EXPECT_THAT(differingPaths(json(R"({"n": 1})"), json(R"({"n": 1.5})")).paths, ElementsAre("/n"));
  EXPECT_THAT(differingPaths(json(R"({"n": 1})"), json(R"({"n": -1})")).paths, ElementsAre("/n"));
}

TEST(DifferingPaths, EscapesKeysAsJsonPointerTokens) {
  EXPECT_THAT(differingPaths(json(R"({"a/b": 1})"), json(R"({"a/b": 2})")).paths,
              ElementsAre("/a~1b"));
  EXPECT_THAT(differingPaths(json(R"({"m~n": 1})"), json(R"({"m~n": 2})")).paths,
              ElementsAre("/m~0n"));
  EXPECT_THAT(differingPaths(json(R"({"~/": {"": 1}})"), json(R"({"~/": {"": 2}})")).paths,
              ElementsAre("/~0~1/"));
  EXPECT_THAT(differingPaths(json(R"({"x": {"a/b": 1}})"), json(R"({"x": {}})")).paths,
              ElementsAre("/x/a~1b"));
}

TEST(DifferingPaths, StopsAtTheLimitAndSaysSo) {
  const Json a = json(R"({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1})");
  const Json b = json(R"({"a": 2, "b": 2, "c": 2, "d": 2, "e": 2})");
  const JsonDifferences limited = differingPaths(a, b, 3);
  EXPECT_THAT(limited.paths, ElementsAre("/a", "/b", "/c"));
  EXPECT_TRUE(limited.truncated);

  const JsonDifferences exact = differingPaths(a, b, 5);
  EXPECT_EQ(exact.paths.size(), 5u);
  EXPECT_FALSE(exact.truncated);

  const JsonDifferences none = differingPaths(a, b, 0);
  EXPECT_THAT(none.paths, IsEmpty());
  EXPECT_TRUE(none.truncated);
  EXPECT_FALSE(differingPaths(a, a, 0).truncated);
}

TEST(DifferingPaths, TheLimitCountsExtraArrayElementsAndMissingMembersToo) {
  const JsonDifferences elements = differingPaths(json("[]"), json("[1, 2, 3, 4]"), 2);
  EXPECT_THAT(elements.paths, ElementsAre("/0", "/1"));
  EXPECT_TRUE(elements.truncated);
  const JsonDifferences members =
      differingPaths(json("{}"), json(R"({"a": 1, "b": 2, "c": 3})"), 2);
  EXPECT_THAT(members.paths, ElementsAre("/a", "/b"));
  EXPECT_TRUE(members.truncated);
}

TEST(DifferingPaths, DefaultLimitIs32) {
  Json a = Json::array();
  Json b = Json::array();
  for (int i = 0; i < 40; ++i) {
    a.push_back(i);
    b.push_back(-i - 1);
  }
  const JsonDifferences differences = differingPaths(a, b);
  EXPECT_EQ(differences.paths.size(), 32u);
  EXPECT_TRUE(differences.truncated);
  EXPECT_EQ(differences.paths.back(), "/31");
}

TEST(DifferingPaths, AWholeValueDifferenceIsTheEmptyPointer) {
  EXPECT_THAT(differingPaths(json("1"), json("2")).paths, ElementsAre(""));
  EXPECT_THAT(differingPaths(json(R"({"a": 1})"), json("[1]")).paths, ElementsAre(""));
  EXPECT_THAT(differingPaths(json(R"("text")"), json("{}")).paths, ElementsAre(""));
  EXPECT_THAT(differingPaths(json("null"), json("false")).paths, ElementsAre(""));
}

}  // namespace
}  // namespace agentvcr::replay
