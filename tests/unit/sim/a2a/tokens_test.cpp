#include "agentvcr/sim/a2a/tokens.hpp"

#include <gtest/gtest.h>

namespace agentvcr::sim::a2a {
namespace {

TEST(TokensFile, ReadsTokensPlansCommentsAndBlankLines) {
  TokensFileLoad load = parseTokensFile(
      "# team tokens\n"
      "alpha pro\n"
      "\n"
      "  beta   free  \n"
      "gamma organization\n"
      "delta enterprise\n"
      "epsilon\n");
  ASSERT_TRUE(load.table) << load.error;
  EXPECT_EQ(load.table->size(), 5u);
  EXPECT_EQ(load.table->find("alpha"), Plan::Pro);
  EXPECT_EQ(load.table->find("beta"), Plan::Free);
  EXPECT_EQ(load.table->find("gamma"), Plan::Organization);
  EXPECT_EQ(load.table->find("delta"), Plan::Enterprise);
  EXPECT_EQ(load.table->find("epsilon"), Plan::Pro);
  EXPECT_EQ(load.table->find("zeta"), std::nullopt);
}

TEST(TokensFile, FaultsNameTheLine) {
  EXPECT_EQ(parseTokensFile("a pro\nb gold\n").error,
            "line 2: unknown plan 'gold' (free, pro, organization, enterprise)");
  EXPECT_EQ(parseTokensFile("a pro\na free\n").error, "line 2: token 'a' is given twice");
  EXPECT_EQ(parseTokensFile("a pro extra\n").error, "line 1: expected TOKEN [PLAN], got 3 words");
  EXPECT_TRUE(parseTokensFile("").table.has_value());
}

TEST(Plans, NamesRoundTripAndOnlyFreeIsUnpaid) {
  for (Plan plan : {Plan::Free, Plan::Pro, Plan::Organization, Plan::Enterprise}) {
    EXPECT_EQ(planFromName(planName(plan)), plan);
    EXPECT_EQ(isPaid(plan), plan != Plan::Free);
  }
  EXPECT_EQ(planFromName("Pro"), std::nullopt);
}

}  // namespace
}  // namespace agentvcr::sim::a2a
