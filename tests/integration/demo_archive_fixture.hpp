#pragma once

// The archive `agentvcr demo` records from the bundled fixtures, for the tests of the commands
// that read one: the demo runs once per test process, and each test gets a copy of its own.

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/cli/demo_command.hpp"
#include "demo_recording.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

/// What the one `agentvcr demo` of this process did.
struct DemoRun {
  std::string db_path;  ///< where it wrote
  int status = -1;
  std::string output;
};

inline const DemoRun& demoRun() {
  static TempDir folder;
  static const DemoRun run = [] {
    DemoRun demo_run;
    demo_run.db_path = folder.file("demo.sqlite");
    cli::DemoCommand demo;
    demo.fixtures_dir = AGENTVCR_FIXTURES_DIR;
    demo.db_path = demo_run.db_path;
    std::ostringstream out;
    demo_run.status = cli::runDemo(demo, out);
    demo_run.output = out.str();
    return demo_run;
  }();
  return run;
}

class DemoArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const DemoRun& run = demoRun();
    ASSERT_EQ(run.status, cli::kExitOk) << run.output;
    copyArchive(run.db_path, db_path_);
  }

  TempDir temp_;
  std::string db_path_ = temp_.file("demo.sqlite");
};

}  // namespace agentvcr::testing
