#include "agentvcr/metrics/labels.hpp"

#include <set>

#include <gtest/gtest.h>

namespace agentvcr::metrics {
namespace {

TEST(StatusLabel, NamesEveryHttpCodeAndFoldsTheRest) {
  EXPECT_EQ(statusLabel(statusSlot(200)), "200");
  EXPECT_EQ(statusLabel(statusSlot(100)), "100");
  EXPECT_EQ(statusLabel(statusSlot(599)), "599");
  EXPECT_EQ(statusLabel(statusSlot(0)), "none");  // the connection closed before an answer
  EXPECT_EQ(statusLabel(statusSlot(99)), "other");
  EXPECT_EQ(statusLabel(statusSlot(600)), "other");
  EXPECT_EQ(statusLabel(statusSlot(-5)), "other");
  EXPECT_LT(statusSlot(599), kStatusSlots);
}

TEST(RouteLabel, IsTheMagmaRouteName) {
  EXPECT_EQ(routeLabel(routeSlot(protocol::magma::Route::Responses)), "responses");
  EXPECT_EQ(routeLabel(routeSlot(protocol::magma::Route::None)), "none");
  EXPECT_EQ(routeLabel(routeSlot(protocol::magma::Route::Coaching)), "coaching");
  EXPECT_EQ(routeSlot(protocol::magma::Route::Coaching), kRouteSlots - 1);
}

TEST(A2aMethodLabel, KnowsBothBindingsAndFoldsInventions) {
  EXPECT_EQ(a2aMethodLabel(a2aMethodSlot("message/send")), "message/send");
  EXPECT_EQ(a2aMethodLabel(a2aMethodSlot("SendMessage")), "SendMessage");
  EXPECT_EQ(a2aMethodLabel(a2aMethodSlot("ListTasks")), "ListTasks");
  EXPECT_EQ(a2aMethodLabel(a2aMethodSlot(std::nullopt)), "none");
  EXPECT_EQ(a2aMethodLabel(a2aMethodSlot("tasks/../../etc")), "other");
  EXPECT_EQ(a2aMethodSlot("made/up/1"), a2aMethodSlot("made/up/2"));
  EXPECT_EQ(a2aMethodSlot("made/up/1"), a2aMethodSlots() - 1);
}

TEST(A2aCodeLabel, KnowsJsonRpcAndA2aCodes) {
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(std::nullopt)), "none");
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(-32700)), "-32700");
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(-32603)), "-32603");
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(-32001)), "-32001");
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(-32009)), "-32009");
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(-32010)), "other");
  EXPECT_EQ(a2aCodeLabel(a2aCodeSlot(42)), "other");
}

TEST(Labels, EverySlotHasADistinctValue) {
  std::set<std::string> statuses;
  for (std::size_t slot = 0; slot < kStatusSlots; ++slot) {
    statuses.insert(statusLabel(slot));
  }
  EXPECT_EQ(statuses.size(), kStatusSlots);
  std::set<std::string> methods;
  for (std::size_t slot = 0; slot < a2aMethodSlots(); ++slot) {
    methods.insert(a2aMethodLabel(slot));
  }
  EXPECT_EQ(methods.size(), a2aMethodSlots());
  std::set<std::string> codes;
  for (std::size_t slot = 0; slot < kA2aCodeSlots; ++slot) {
    codes.insert(a2aCodeLabel(slot));
  }
  EXPECT_EQ(codes.size(), kA2aCodeSlots);
  std::set<std::string> faults;
  for (const protocol::FaultKind kind : protocol::kFaultKinds) {
    faults.insert(faultLabel(faultSlot(kind)));
    EXPECT_EQ(faultLabel(faultSlot(kind)), protocol::faultName(kind));
  }
  EXPECT_EQ(faults.size(), kFaultSlots);
}

}  // namespace
}  // namespace agentvcr::metrics
