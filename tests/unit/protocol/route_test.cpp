#include <gtest/gtest.h>

#include "agentvcr/protocol/magma.hpp"

namespace agentvcr::protocol::magma {
namespace {

TEST(RouteOf, MagmaEndpoints) {
  EXPECT_EQ(routeOf("GET", "/health"), Route::Health);
  EXPECT_EQ(routeOf("GET", "/v1/info"), Route::Info);
  EXPECT_EQ(routeOf("POST", "/v1/responses"), Route::Responses);
  EXPECT_EQ(routeOf("POST", "/v1/coaching"), Route::Coaching);
  EXPECT_EQ(routeOf("PUT", "/v1/coaching/sessions/run-2026-10-04-a"), Route::CoachingPut);
  EXPECT_EQ(routeOf("DELETE", "/v1/coaching/sessions/run-2026-10-04-a"), Route::CoachingDelete);
}

TEST(RouteOf, IgnoresTheQueryString) {
  EXPECT_EQ(routeOf("POST", "/v1/responses?trace=1"), Route::Responses);
  EXPECT_EQ(routeOf("GET", "/health?"), Route::Health);
  EXPECT_EQ(routeOf("PUT", "/v1/coaching/sessions/r1?x=/y"), Route::CoachingPut);
}

TEST(RouteOf, AcceptsAbsoluteFormTargets) {
  EXPECT_EQ(routeOf("POST", "http://agent:8000/v1/responses"), Route::Responses);
  EXPECT_EQ(routeOf("GET", "https://agent/health?x"), Route::Health);
  EXPECT_EQ(routeOf("GET", "http://agent"), Route::None);
}

TEST(RouteOf, WrongMethodIsNotAMagmaRoute) {
  EXPECT_EQ(routeOf("GET", "/v1/responses"), Route::None);
  EXPECT_EQ(routeOf("POST", "/health"), Route::None);
  EXPECT_EQ(routeOf("HEAD", "/health"), Route::None);
  EXPECT_EQ(routeOf("post", "/v1/responses"), Route::None);  // methods are case-sensitive
  EXPECT_EQ(routeOf("GET", "/v1/coaching/sessions/r1"), Route::None);
  EXPECT_EQ(routeOf("PUT", "/v1/coaching"), Route::None);
}

TEST(RouteOf, PathsMustMatchExactly) {
  EXPECT_EQ(routeOf("POST", "/v1/responses/"), Route::None);
  EXPECT_EQ(routeOf("POST", "/v2/responses"), Route::None);
  EXPECT_EQ(routeOf("GET", "/healthz"), Route::None);
  EXPECT_EQ(routeOf("GET", "/"), Route::None);
  EXPECT_EQ(routeOf("GET", ""), Route::None);
  EXPECT_EQ(routeOf("POST", "/V1/responses"), Route::None);
}

TEST(RouteOf, SessionRunIdIsOneNonEmptySegment) {
  EXPECT_EQ(routeOf("PUT", "/v1/coaching/sessions/"), Route::None);
  EXPECT_EQ(routeOf("PUT", "/v1/coaching/sessions"), Route::None);
  EXPECT_EQ(routeOf("PUT", "/v1/coaching/sessions/a/b"), Route::None);
  EXPECT_EQ(routeOf("DELETE", "/v1/coaching/sessions/a/"), Route::None);
  EXPECT_EQ(routeOf("DELETE", "/v1/coaching/sessions/x"), Route::CoachingDelete);
}

TEST(RouteName, StableNames) {
  EXPECT_STREQ(routeName(Route::None), "none");
  EXPECT_STREQ(routeName(Route::Health), "health");
  EXPECT_STREQ(routeName(Route::Info), "info");
  EXPECT_STREQ(routeName(Route::Responses), "responses");
  EXPECT_STREQ(routeName(Route::CoachingPut), "coaching_put");
  EXPECT_STREQ(routeName(Route::CoachingDelete), "coaching_delete");
  EXPECT_STREQ(routeName(Route::Coaching), "coaching");
}

}  // namespace
}  // namespace agentvcr::protocol::magma
