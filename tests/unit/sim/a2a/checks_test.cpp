#include "agentvcr/sim/a2a/checks.hpp"

#include <gtest/gtest.h>

namespace agentvcr::sim::a2a {
namespace {

TEST(CheckOrder, DefaultIsTheDocumentedOne) {
  std::string error;
  auto order = parseCheckOrder("parse,envelope,auth,plan,method,params,skill,quota", error);
  ASSERT_TRUE(order) << error;
  EXPECT_EQ(*order, defaultCheckOrder());
}

TEST(CheckOrder, AcceptsAnyPermutation) {
  std::string error;
  auto order = parseCheckOrder("auth,plan,parse,envelope,method,params,quota,skill", error);
  ASSERT_TRUE(order) << error;
  EXPECT_EQ(order->front(), Check::Auth);
  EXPECT_EQ(order->back(), Check::Skill);
}

TEST(CheckOrder, RefusesUnknownRepeatedOrMissingChecks) {
  std::string error;
  EXPECT_FALSE(parseCheckOrder("parse,envelope,auth,plan,method,params,skill,billing", error));
  EXPECT_EQ(error,
            "unknown check 'billing' (parse, envelope, auth, plan, method, params, skill, quota)");
  EXPECT_FALSE(parseCheckOrder("parse,parse,auth,plan,method,params,skill,quota", error));
  EXPECT_EQ(error, "check 'parse' is named twice");
  EXPECT_FALSE(parseCheckOrder("parse,envelope", error));
  EXPECT_EQ(error, "name all eight checks once each");
  EXPECT_FALSE(parseCheckOrder("", error));
}

}  // namespace
}  // namespace agentvcr::sim::a2a
