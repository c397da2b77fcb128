// Where `agentvcr demo` and `mock a2a` find the bundled fixtures without --fixtures: no source
// path is compiled in, so the lookup starts from the environment and the executable.

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/cli/command_line.hpp"

namespace agentvcr::cli {
namespace {

namespace fs = std::filesystem;

class FixturesDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("agentvcr-fixtures-dir-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }

  void TearDown() override { fs::remove_all(root_); }

  /// A fixtures folder as lookup recognises it: one with demo/ inside.
  static fs::path makeFixtures(const fs::path& dir) {
    fs::create_directories(dir / "demo");
    return dir;
  }

  fs::path root_;
};

TEST_F(FixturesDirTest, TheEnvironmentWins) {
  makeFixtures(root_ / "src" / "fixtures");
  auto found = findFixturesDir("/chosen/fixtures", root_ / "src" / "build" / "agentvcr");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path("/chosen/fixtures"));
}

TEST_F(FixturesDirTest, AnEmptyEnvironmentIsNotAChoice) {
  const auto fixtures = makeFixtures(root_ / "src" / "fixtures");
  auto found = findFixturesDir("", root_ / "src" / "build" / "agentvcr");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fixtures);
}

TEST_F(FixturesDirTest, AnInstalledAgentvcrUsesShare) {
  const auto fixtures = makeFixtures(root_ / "usr" / "share" / "agentvcr" / "fixtures");
  auto found = findFixturesDir(nullptr, root_ / "usr" / "bin" / "agentvcr");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fixtures);
}

TEST_F(FixturesDirTest, ABuildTreeWalksUpToTheSourceTree) {
  const auto fixtures = makeFixtures(root_ / "src" / "fixtures");
  auto found = findFixturesDir(nullptr, root_ / "src" / "build" / "dev" / "cli" / "agentvcr");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fixtures);
}

TEST_F(FixturesDirTest, AFixturesFolderWithoutDemoIsNotTheBundle) {
  fs::create_directories(root_ / "src" / "fixtures" / "other");
  EXPECT_FALSE(findFixturesDir(nullptr, root_ / "src" / "build" / "agentvcr"));
}

TEST_F(FixturesDirTest, NoneFoundAnywhere) {
  EXPECT_FALSE(findFixturesDir(nullptr, root_ / "bin" / "agentvcr"));
}

// A copied binary finds nothing: the message says where it looked, so the fix is plain.
TEST_F(FixturesDirTest, AMissSaysWhereItLooked) {
  std::string looked;
  EXPECT_FALSE(findFixturesDir(nullptr, root_ / "bin" / "agentvcr", &looked));
  EXPECT_EQ(looked, "$AGENTVCR_FIXTURES (not set), " +
                        (root_ / "share" / "agentvcr" / "fixtures").string() +
                        ", and fixtures/ in " + (root_ / "bin").string() +
                        " and each folder above it");
}

// The demo's closing hint names the viewer that came with this agentvcr.
TEST_F(FixturesDirTest, TheViewerBesideAnInstalledAgentvcr) {
  fs::create_directories(root_ / "usr" / "bin");
  std::ofstream(root_ / "usr" / "bin" / "agentvcr-viewer") << "";
  EXPECT_EQ(viewerCommand(root_ / "usr" / "bin" / "agentvcr"),
            (root_ / "usr" / "bin" / "agentvcr-viewer").string());
}

TEST_F(FixturesDirTest, TheViewerOfABuildTree) {
  fs::create_directories(root_ / "build" / "viewer");
  std::ofstream(root_ / "build" / "viewer" / "agentvcr-viewer") << "";
  EXPECT_EQ(viewerCommand(root_ / "build" / "cli" / "agentvcr"),
            (root_ / "build" / "viewer" / "agentvcr-viewer").string());
}

TEST_F(FixturesDirTest, NoViewerBuiltMeansTheOneOnPath) {
  fs::create_directories(root_ / "build" / "viewer");  // a viewer folder, but no viewer in it
  EXPECT_EQ(viewerCommand(root_ / "build" / "cli" / "agentvcr"), "agentvcr-viewer");
  EXPECT_EQ(viewerCommand(fs::path()), "agentvcr-viewer");
}

TEST_F(FixturesDirTest, ThisTestBinaryFindsTheSourceTreeFixtures) {
  ::unsetenv("AGENTVCR_FIXTURES");
  std::string dir;
  EXPECT_EQ(defaultFixturesDir(dir), "");
  EXPECT_EQ(fs::weakly_canonical(dir), fs::weakly_canonical(AGENTVCR_FIXTURES_DIR));
}

}  // namespace
}  // namespace agentvcr::cli
