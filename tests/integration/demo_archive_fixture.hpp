#pragma once

// A fresh archive recorded by `agentvcr demo` from the bundled fixtures, for the tests of the
// commands that read one.

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/cli/demo_command.hpp"
#include "temp_dir.hpp"

namespace agentvcr::testing {

class DemoArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cli::DemoCommand demo;
    demo.fixtures_dir = AGENTVCR_FIXTURES_DIR;
    demo.db_path = db_path_;
    std::ostringstream out;
    demo_status_ = cli::runDemo(demo, out);
    demo_output_ = out.str();
  }

  TempDir temp_;
  std::string db_path_ = temp_.file("demo.sqlite");
  int demo_status_ = -1;
  std::string demo_output_;
};

}  // namespace agentvcr::testing
