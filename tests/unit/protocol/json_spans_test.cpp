// findJsonValues() and jsonStringAt(): the spans the archive stores as references into bodies,
// checked by hand and against nlohmann's own reading of generated documents.

#include "agentvcr/protocol/json_spans.hpp"

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {
namespace {

using Found = std::vector<std::pair<std::vector<std::size_t>, std::string>>;

Found find(std::string_view text, std::vector<JsonPathStep> pattern, bool* ok = nullptr) {
  Found found;
  const bool well_formed =
      findJsonValues(text, pattern, [&](std::span<const std::size_t> indexes, JsonSpan span) {
        found.emplace_back(std::vector<std::size_t>(indexes.begin(), indexes.end()),
                           std::string(text.substr(span.begin, span.end - span.begin)));
      });
  if (ok != nullptr) {
    *ok = well_formed;
  }
  return found;
}

TEST(JsonSpans, FindsEachValueAtAPatternWithTheIndexesOfItsWildcards) {
  const std::string text =
      R"([ {"memory": {"h": [1, 2]}, "internal_steps": [{"full_prompt": "a\"b"}, {"x": 1}]},
           {"internal_steps": [], "memory": null},
           {"internal_steps": [{"full_prompt": "c", "full_prompt": "d"}]} ])";
  bool ok = false;
  const Found prompts = find(text, {{""}, {"internal_steps"}, {""}, {"full_prompt"}}, &ok);
  EXPECT_TRUE(ok);
  ASSERT_EQ(prompts.size(), 3u);
  EXPECT_EQ(prompts[0], (Found::value_type{{0, 0}, R"("a\"b")"}));
  EXPECT_EQ(prompts[1], (Found::value_type{{2, 0}, R"("c")"}));
  EXPECT_EQ(prompts[2], (Found::value_type{{2, 0}, R"("d")"}));  // the later one wins
  const Found memories = find(text, {{""}, {"memory"}});
  ASSERT_EQ(memories.size(), 2u);
  EXPECT_EQ(memories[0].second, R"({"h": [1, 2]})");
  EXPECT_EQ(memories[1].second, "null");
}

TEST(JsonSpans, AnEscapedMemberNameMatchesTheNameItSpells) {
  const Found found = find(R"({"mem\u006fry": 7, "memory\n": 8})", {{"memory"}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].second, "7");
}

TEST(JsonSpans, BrokenStructureIsRefusedNotMisread) {
  for (const char* broken :
       {R"({"a": [1, 2})", R"({"a" 1})", R"([1, 2)", R"({"a": "x)", "", R"({"a": 1} x)"}) {
    bool ok = true;
    find(broken, {{"a"}}, &ok);
    EXPECT_FALSE(ok) << broken;
  }
}

TEST(JsonSpans, AStringLiteralIsReadWhereItStarts) {
  const std::string text = R"({"p": "line\nnext \u00e9\ud83d\ude00", "q": "plain"})";
  EXPECT_EQ(jsonStringAt(text, text.find("\"line")), "line\nnext \u00e9\U0001F600");
  EXPECT_EQ(jsonStringAt(text, text.find("\"plain")), "plain");
  EXPECT_EQ(jsonStringAt(text, 0), std::nullopt);
  EXPECT_EQ(jsonStringAt(text, text.size()), std::nullopt);
  EXPECT_EQ(jsonStringAt(R"("open)", 0), std::nullopt);
  // A quote after an even run of backslashes closes the string; after an odd one it is escaped.
  const std::string runs = R"({"a": "end\\", "b": "q\\\"x"})";
  EXPECT_EQ(jsonStringAt(runs, runs.find("\"end")), "end\\");
  EXPECT_EQ(jsonStringAt(runs, runs.find("\"q")), "q\\\"x");
  EXPECT_EQ(find(runs, {{"b"}}).at(0).second, R"("q\\\"x")");
}

TEST(JsonSpans, AnEscapeIsReadWhereverItFallsInTheBytesLookedAtTogether) {
  // Strings are searched sixteen bytes at a time: put an escaped quote, an escaped backslash
  // and an escaped backslash before the closing quote at every place of strings that end
  // inside, at and across those sixteen bytes.
  for (const std::string escape : {"\\\"", "\\\\", "\\u00e9"}) {
    for (std::size_t length = 0; length <= 40; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        std::string literal = "\"" + std::string(length, 'x') + "\"";
        literal.insert(1 + at, escape);
        const std::string text = R"({"a": )" + literal + R"(, "b": "next"})";
        const std::optional<Json> parsed = parseJson(text).value;
        ASSERT_TRUE(parsed) << text;
        ASSERT_EQ(jsonStringAt(text, text.find('"', 5)), (*parsed)["a"].get<std::string>()) << text;
        const Found b = find(text, {{"b"}});
        ASSERT_EQ(b.size(), 1u) << text;
        ASSERT_EQ(b[0].second, R"("next")") << text;
      }
    }
  }
}

/// A random value: objects whose member names repeat and need escapes, arrays, scalars.
Json randomValue(std::mt19937_64& random, int depth) {
  const std::vector<std::string> names = {"a", "b", "memory", "c\"d", "\u00e9", "a"};
  switch (depth > 3 ? random() % 3 : random() % 6) {
    case 0:
      return static_cast<std::int64_t>(random() % 1000) - 500;
    case 1:
      return std::string(random() % 5, static_cast<char>('a' + random() % 26)) + "\n\"\u00e9";
    case 2:
      return nullptr;
    case 3:
    case 4: {
      Json object = Json::object();
      for (std::uint64_t n = random() % 4; n > 0; --n) {
        object[names[random() % names.size()]] = randomValue(random, depth + 1);
      }
      return object;
    }
    default: {
      Json array = Json::array();
      for (std::uint64_t n = random() % 4; n > 0; --n) {
        array.push_back(randomValue(random, depth + 1));
      }
      return array;
    }
  }
}

/// What the pattern [*, "a", *] finds, read from the parsed value.
Found expected(const Json& value) {
  Found out;
  if (!value.is_array()) {
    return out;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Json* a = findMember(value[i], "a");
    if (a == nullptr || !a->is_array()) {
      continue;
    }
    for (std::size_t k = 0; k < a->size(); ++k) {
      out.emplace_back(std::vector<std::size_t>{i, k}, dumpCompact((*a)[k]));
    }
  }
  return out;
}

TEST(JsonSpans, ASeededGeneratorFindsWhatTheParserReads) {
  const std::uint64_t seed = std::getenv("AGENTVCR_SPANS_SEED") != nullptr
                                 ? std::stoull(std::getenv("AGENTVCR_SPANS_SEED"))
                                 : std::random_device{}();
  SCOPED_TRACE("AGENTVCR_SPANS_SEED=" + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (int round = 0; round < 500; ++round) {
    Json doc = Json::array();
    for (std::uint64_t n = random() % 4; n > 0; --n) {
      Json element = randomValue(random, 1);
      if (random() % 2 == 0 && element.is_object()) {
        element["a"] = randomValue(random, 2);
      }
      doc.push_back(element);
    }
    const int indent = static_cast<int>(random() % 3) - 1;
    const std::string text = doc.dump(indent, ' ', random() % 2 == 0);
    Found found = find(text, {{""}, {"a"}, {""}});
    for (auto& [indexes, bytes] : found) {  // compare values, not spellings
      bytes = dumpCompact(*parseJson(bytes).value);
    }
    // The parser keeps one "a" per object (nlohmann's objects never repeat a name).
    ASSERT_EQ(found, expected(doc)) << text;
  }
}

}  // namespace
}  // namespace agentvcr::protocol
