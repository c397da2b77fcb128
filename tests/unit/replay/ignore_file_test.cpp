// The ignore file `agentvcr noise` writes and replay and eval read back.

#include "agentvcr/replay/ignore_file.hpp"

#include <fstream>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace agentvcr::replay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

/// The message parseIgnoreFile() throws for `text`, or "<nothing thrown>".
std::string parseError(const std::string& text) {
  try {
    parseIgnoreFile(text, "noise.txt");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "<nothing thrown>";
}

TEST(ParseIgnoreFile, ReadsBothSectionsSkippingCommentsAndBlankLines) {
  const IgnoreFile file = parseIgnoreFile(
      "# agentvcr noise\r\n"
      "\n"
      "[input]\n"
      "  /attributes/clock  # timestamp (ISO 8601), varies in 12 of 12 aligned steps\n"
      "/notes/#1\n"
      "/a~1b\t# tab before the comment\r\n"
      "[output]\n"
      "/output/tool_calls/0/arguments/at\n"
      "[input]\n"
      "/extra_keys/seq",
      "noise.txt");
  EXPECT_THAT(file.input,
              ElementsAre("/attributes/clock", "/notes/#1", "/a~1b", "/extra_keys/seq"));
  EXPECT_THAT(file.output, ElementsAre("/output/tool_calls/0/arguments/at"));
}

TEST(ParseIgnoreFile, AnEmptyFileOrEmptySectionsIgnoreNothing) {
  const IgnoreFile file = parseIgnoreFile("# nothing varies\n[input]\n\n[output]\n", "noise.txt");
  EXPECT_THAT(file.input, IsEmpty());
  EXPECT_THAT(file.output, IsEmpty());
  EXPECT_THAT(parseIgnoreFile("", "noise.txt").input, IsEmpty());
}

TEST(ParseIgnoreFile, NamesTheFileAndLineOfABadLine) {
  EXPECT_EQ(parseError("[input]\n/a\n[inputs]\n"),
            "noise.txt:3: unknown section [inputs] (expected [input] or [output])");
  EXPECT_THAT(parseError("# header\n/attributes/clock\n"),
              HasSubstr("noise.txt:2: '/attributes/clock' comes before any [input] or [output]"));
  EXPECT_THAT(parseError("[input]\n\nattributes/clock\n"),
              HasSubstr("noise.txt:3: 'attributes/clock' is not a JSON pointer"));
  EXPECT_THAT(parseError("[output]\n/a~2b\n"),
              HasSubstr("noise.txt:2: '/a~2b' is not a JSON pointer"));
}

TEST(ReadIgnoreFile, ReadsAFileAndNamesOneItCannotRead) {
  testing::TempDir dir;
  const std::string path = dir.file("noise.txt");
  std::ofstream(path) << "[input]\n/attributes/clock\n";
  EXPECT_THAT(readIgnoreFile(path).input, ElementsAre("/attributes/clock"));
  try {
    readIgnoreFile(dir.file("missing.txt"));
    ADD_FAILURE() << "no error for a missing file";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("missing.txt"));
  }
  EXPECT_THROW(readIgnoreFile(dir.path().string()), std::runtime_error);
}

}  // namespace
}  // namespace agentvcr::replay
