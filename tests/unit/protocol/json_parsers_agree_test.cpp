// parseJson() reads most documents with simdjson and leaves the rest to nlohmann's parser; it
// must answer exactly as that parser alone does (parseJsonExact): same value, same error. These
// cases are the edges where two JSON parsers usually part ways, plus every JSON file the project
// ships (fixtures, fuzz seeds, bench bodies). The canonical_json fuzz target checks the same
// property on generated input.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol {
namespace {

void expectSameAnswer(const std::string& text, std::size_t max_depth = kDefaultMaxJsonDepth) {
  const JsonParseResult fast = parseJson(text, max_depth);
  const JsonParseResult exact = parseJsonExact(text, max_depth);
  ASSERT_EQ(fast.value.has_value(), exact.value.has_value()) << text;
  if (exact.value) {
    EXPECT_EQ(fast.value->dump(), exact.value->dump()) << text;
    EXPECT_EQ(*fast.value, *exact.value) << text;
  } else {
    EXPECT_EQ(fast.error.offset, exact.error.offset) << text;
    EXPECT_EQ(fast.error.message, exact.error.message) << text;
  }
}

TEST(JsonParsersAgree, OnNumbers) {
  for (const char* text : {"0",
                           "-0",
                           "-0.0",
                           "1.0",
                           "1e2",
                           "1E+2",
                           "-1e-2",
                           "0.1",
                           "123456789012345678",
                           "9223372036854775807",
                           "9223372036854775808",
                           "-9223372036854775808",
                           "-9223372036854775809",
                           "18446744073709551615",
                           "18446744073709551616",
                           "1e400",
                           "-1e400",
                           "1.5e-400",
                           "4.9406564584124654e-324",
                           "2.2250738585072014e-308",
                           "01",
                           "1.",
                           ".5",
                           "+1",
                           "-",
                           "1e",
                           "0x10",
                           "[1,2.5,-3,4e10]"}) {
    expectSameAnswer(text);
  }
}

TEST(JsonParsersAgree, OnStrings) {
  for (const std::string& text : std::vector<std::string>{
           R"("plain")", R"("\u00e9\u4e2d")", R"("\ud83d\ude00")", R"("\ud800")", R"("\udc00x")",
           R"("\ud800\u0041")", R"("\u0000")", R"("\/\b\f\n\r\t\"\\")", R"("\x")", R"("\u12")",
           "\"raw\ttab\"", "\"raw\nnewline\"", "\"\xc3\xa9\"", "\"\xc3\"", "\"\xed\xa0\x80\"",
           "\"\xf4\x90\x80\x80\"", "\"unterminated"}) {
    expectSameAnswer(text);
  }
}

TEST(JsonParsersAgree, OnStructure) {
  for (const std::string& text : std::vector<std::string>{R"({"a":1,"a":2})",
                                                          R"({"b":1,"a":{"x":[]},"b":[3]})",
                                                          "[1,]",
                                                          "{\"a\":1,}",
                                                          "[1 2]",
                                                          "{} x",
                                                          "{}  \n",
                                                          "\xef\xbb\xbf{\"bom\":true}",
                                                          "\xef\xbb\xbf",
                                                          "NaN",
                                                          "[Infinity]",
                                                          "{\"a\" 1}",
                                                          "{1:2}",
                                                          "[",
                                                          "]",
                                                          "null",
                                                          "true",
                                                          "false",
                                                          "nul",
                                                          "[[]]",
                                                          "{\"\":\"\"}",
                                                          std::string("[1]\0", 4),
                                                          std::string("\0", 1)}) {
    expectSameAnswer(text);
  }
}

TEST(JsonParsersAgree, OnDepthLimits) {
  for (std::size_t depth : {1, 2, 3, 10, 511, 512, 513, 1023, 1024, 1025, 5000}) {
    const std::string nested = std::string(depth, '[') + std::string(depth, ']');
    expectSameAnswer(nested);
    expectSameAnswer(nested, 3);
    expectSameAnswer(std::string(depth, '['));
  }
}

TEST(JsonParsersAgree, OnLargeDocuments) {
  std::string big = "[";
  while (big.size() < (2u << 20)) {  // past the fast parser's limit
    big += R"({"author":"USER","content":"press the red button"},)";
  }
  big.back() = ']';
  expectSameAnswer(big);
  expectSameAnswer(big.substr(0, 1000) + "]");
}

TEST(JsonParsersAgree, OnEveryJsonFileTheProjectShips) {
  std::size_t files = 0;
  for (const char* root : {AGENTVCR_FIXTURES_DIR, AGENTVCR_FIXTURES_DIR "/../bench"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || entry.file_size() > (4u << 20)) {
        continue;
      }
      std::ifstream file(entry.path(), std::ios::binary);
      std::ostringstream content;
      content << file.rdbuf();
      SCOPED_TRACE(entry.path().string());
      expectSameAnswer(content.str());
      ++files;
    }
  }
  EXPECT_GT(files, 20u);
}

}  // namespace
}  // namespace agentvcr::protocol
