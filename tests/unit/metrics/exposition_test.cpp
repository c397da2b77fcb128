#include "agentvcr/metrics/exposition.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "prometheus_text.hpp"

namespace agentvcr::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Exposition, WritesTrafficReadingsBuildInfoAndProcessFigures) {
  auto traffic = std::make_shared<TrafficMetrics>();
  protocol::Exchange exchange;
  exchange.method = "GET";
  exchange.target = "/health";
  exchange.status = 200;
  traffic->observeRelayed(exchange);
  Exposition exposition("9.8.7");
  exposition.addTraffic(traffic);
  double depth = 3;
  exposition.addGauge("agentvcr_recorder_queue_depth", "Items waiting", [&] { return depth; });
  exposition.addCounter("agentvcr_captured_exchanges_total", "Committed", [] { return 12.0; });

  const std::string text = exposition.scrape();
  EXPECT_THAT(text, HasSubstr("# HELP agentvcr_exchanges_total "));
  EXPECT_THAT(text, HasSubstr("# TYPE agentvcr_exchanges_total counter"));
  EXPECT_THAT(text, HasSubstr("# TYPE agentvcr_recorder_queue_depth gauge"));
  const auto samples = testing::prometheusSamples(text);
  EXPECT_EQ(samples.at(R"(agentvcr_exchanges_total{route="health",status="200"})"), 1);
  EXPECT_EQ(samples.at("agentvcr_recorder_queue_depth"), 3);
  EXPECT_EQ(samples.at("agentvcr_captured_exchanges_total"), 12);
  EXPECT_EQ(samples.at(R"(agentvcr_build_info{version="9.8.7"})"), 1);
  EXPECT_GT(samples.at("process_resident_memory_bytes"), 0);
  EXPECT_GT(samples.at("process_open_fds"), 0);
  EXPECT_GT(samples.at("process_max_fds"), 0);
  EXPECT_GE(samples.at("process_threads"), 1);
  EXPECT_GE(samples.at("process_cpu_seconds_total"), 0);

  depth = 0;  // read again at each scrape
  EXPECT_EQ(testing::prometheusSample(exposition.scrape(), "agentvcr_recorder_queue_depth"), 0);
}

TEST(Exposition, ProcessStartTimeIsThisProcesssStart) {
  Exposition exposition("1");
  const double start = testing::prometheusSample(exposition.scrape(), "process_start_time_seconds");
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(start, now + 1);
  EXPECT_GT(start, now - 3600);  // this test binary started minutes ago at most
}

TEST(Exposition, LeavesOutFamiliesWithNothingObserved) {
  Exposition exposition("1");
  exposition.addTraffic(std::make_shared<TrafficMetrics>());
  EXPECT_THAT(exposition.scrape(), Not(HasSubstr("agentvcr_exchanges_total")));
}

}  // namespace
}  // namespace agentvcr::metrics
