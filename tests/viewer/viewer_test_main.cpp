// main() of viewer_tests: the QTest class named by the first argument, run as QTEST_MAIN would
// run it on its own, with the remaining arguments given to QTest.

#include "viewer_test_main.hpp"

#include <iostream>
#include <vector>

#include <QApplication>
#include <QtTest>

namespace agentvcr::testing {

std::map<std::string, ViewerTestFactory>& viewerTests() {
  static std::map<std::string, ViewerTestFactory> tests;
  return tests;
}

}  // namespace agentvcr::testing

int main(int argc, char** argv) {
  const auto& tests = agentvcr::testing::viewerTests();
  const auto test = argc > 1 ? tests.find(argv[1]) : tests.end();
  if (test == tests.end()) {
    std::cerr << "usage: viewer_tests CLASS [QTest options]; CLASS is one of:";
    for (const auto& [name, factory] : tests) {
      std::cerr << " " << name;
    }
    std::cerr << "\n";
    return 2;
  }
  // QTest sees the program and the options after CLASS.
  std::vector<char*> qtest_args{argv[0]};
  qtest_args.insert(qtest_args.end(), argv + 2, argv + argc);
  int qtest_argc = static_cast<int>(qtest_args.size());
  QApplication app(qtest_argc, qtest_args.data());
  app.setAttribute(Qt::AA_Use96Dpi, true);
  const std::unique_ptr<QObject> object = test->second();
  return QTest::qExec(object.get(), qtest_argc, qtest_args.data());
}
