#pragma once

// The viewer's QTest classes share one test binary, viewer_tests, which runs one class per
// process: `viewer_tests models [QTest options]`. Each class registers itself under its name
// with AGENTVCR_VIEWER_TEST, in place of QTEST_MAIN.

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <QObject>

namespace agentvcr::testing {

using ViewerTestFactory = std::function<std::unique_ptr<QObject>()>;

/// Every registered test class, by name.
std::map<std::string, ViewerTestFactory>& viewerTests();

struct ViewerTestRegistration {
  ViewerTestRegistration(const char* name, ViewerTestFactory factory) {
    viewerTests().emplace(name, std::move(factory));
  }
};

}  // namespace agentvcr::testing

/// Registers the QTest class `Class` as `name` (`viewer_tests name` runs it).
#define AGENTVCR_VIEWER_TEST(Class, name)                                      \
  static const ::agentvcr::testing::ViewerTestRegistration kViewerTest##Class( \
      name, [] { return std::make_unique<Class>(); });
