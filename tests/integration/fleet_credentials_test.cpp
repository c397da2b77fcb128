// Passwords in connection strings against a real PostgreSQL 15 (tests/support/pg_cluster), over
// TCP where it asks for one: libpq reads each as written, however odd its characters, and no
// command prints any part of it, its own lines or libpq's messages.

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentvcr_process.hpp"
#include "fleet_fixture.hpp"
#include "password_pieces.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class FleetCredentialsTest : public FleetShipTest {
 protected:
  void SetUp() override {
    FleetShipTest::SetUp();
    port_ = readLine(clusterDir() + "/port");
    role_ = randomName("shipper_");
  }

  void TearDown() override {
    fleet_db_.reset();  // the role owns nothing once its database is gone
    fleet::PgConnection(cluster_uri_).exec("DROP ROLE IF EXISTS " + role_);
  }

  /// Gives the test's role `password`: a role of its own, so that any password can be tried.
  void rolePassword(const std::string& password) {
    fleet::PgConnection conn(cluster_uri_);
    const std::string literal =
        conn.exec("SELECT quote_literal($1)", {password}).optionalText(0, 0).value();
    conn.exec("DROP ROLE IF EXISTS " + role_);
    conn.exec("CREATE ROLE " + role_ + " LOGIN SUPERUSER PASSWORD " + literal);
  }

  /// What `agentvcr args...` printed, both streams.
  std::string printed(const std::vector<std::string>& args, int* status = nullptr) {
    const Finished run = runAgentvcr(args, dir_.path().string(), 60s);
    if (status != nullptr) {
      *status = run.status;
    }
    return run.out + run.err;
  }

  std::string tcp() const { return "127.0.0.1:" + port_; }

  std::string port_;
  std::string role_;
};

/// Expects `text` to hold no run of three letters or digits of `password`.
void expectNoPartOf(const std::string& text, const std::string& password, const std::string& what) {
  for (const std::string& piece : passwordPieces(password)) {
    EXPECT_THAT(text, Not(HasSubstr(piece))) << what;
  }
}

TEST_F(FleetCredentialsTest, APasswordWithQuestionMarksAndHashesConnectsAndNeverShows) {
  const std::string password = "Kq7?Vw3#Zp9&Xy4";
  rolePassword(password);
  const std::string uri =
      "postgresql://" + role_ + ":" + password + "@" + tcp() + "/" + fleet_db_->name();
  const std::string shown = "postgresql://" + role_ + ":***@" + tcp() + "/" + fleet_db_->name();

  int status = -1;
  const std::string migrated = printed({"pg", "migrate", "--db", uri}, &status);
  EXPECT_EQ(status, 0) << migrated << "\nlibpq read the password as written: it connected";
  EXPECT_THAT(migrated, AllOf(HasSubstr(shown), HasSubstr("warning")));
  expectNoPartOf(migrated, password, "pg migrate");

  const std::string listed = printed({"ls", "--db", uri}, &status);
  EXPECT_EQ(status, 0) << listed;
  expectNoPartOf(listed, password, "ls");

  // ship --follow's banner, then a clean stop.
  const std::string db = recordArchive("banner");
  const std::string out = dir_.file("follow.out");
  const std::string err = dir_.file("follow.err");
  AgentvcrProcess follow({"ship", "--db", db, "--to", uri, "--follow"}, out, err);
  ASSERT_TRUE(waitUntil([&] { return readWhole(out).find("following") != std::string::npos; }, 30s))
      << readWhole(err);
  // It ships everything with the password it read, however long a busy machine makes that.
  EXPECT_TRUE(waitUntil([&] { return fleetCounts(*fleet_db_) == archiveCounts(db); }, 60s))
      << readWhole(err);
  follow.stop(SIGTERM);
  const std::string followed = readWhole(out) + readWhole(err);
  EXPECT_THAT(followed, AllOf(HasSubstr(shown), HasSubstr("warning")));
  expectNoPartOf(followed, password, "ship --follow");
}

TEST_F(FleetCredentialsTest, APasswordInAKeywordListConnectsAsLibpqReadsIt) {
  // A quoted value with a space, newlines between the pairs, a backslash-escaped space.
  rolePassword("Kq7 Vw3");
  const std::string keywords = "host=127.0.0.1\nport=" + port_ + "\nuser=" + role_ +
                               "\ndbname=" + fleet_db_->name() + "\npassword=";
  for (const std::string& written : {std::string("'Kq7 Vw3'"), std::string("Kq7\\ Vw3")}) {
    int status = -1;
    const std::string migrated = printed({"pg", "migrate", "--db", keywords + written}, &status);
    EXPECT_EQ(status, 0) << migrated;
    EXPECT_THAT(migrated, HasSubstr("password="));
    expectNoPartOf(migrated, "Kq7 Vw3", written);
  }
}

TEST_F(FleetCredentialsTest, ConnectionErrorsPrintNoPartOfThePassword) {
  rolePassword("Rt5Gh8Ju2");
  const std::string db = "/" + fleet_db_->name();
  const std::string role = role_;
  // Each: a wrong password written as libpq reads it, or a password libpq reads otherwise than
  // it was meant, which its own messages then quote in pieces.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"postgresql://" + role + ":Qz8?Wx4#Lk2@" + tcp() + db, "Qz8?Wx4#Lk2"},
      {"postgresql://" + role + ":Qz8/Wx4Lk2@" + tcp() + db, "Qz8/Wx4Lk2"},
      {"postgresql://" + role + ":Qz8@Wx4Lk2@" + tcp() + db, "Qz8@Wx4Lk2"},
      {"postgresql://" + role + ":Qz8/Wx4?Lk2@" + tcp() + db, "Qz8/Wx4?Lk2"},
      {"postgresql://" + tcp() + db + "?user=" + role + "&password=Qz8&Wx4Lk2", "Qz8&Wx4Lk2"},
      {"postgresql://" + tcp() + db + "?user=" + role + "&password=Qz8#Wx4Lk2", "Qz8#Wx4Lk2"},
      {"host=127.0.0.1 port=" + port_ + " user=" + role +
           " password=Qz8 Wx4Lk2 dbname=" + fleet_db_->name(),
       "Qz8 Wx4Lk2"},
      {"host=127.0.0.1\nport=" + port_ + "\nuser=" + role + "\npassword=Qz8Wx4Lk2", "Qz8Wx4Lk2"},
      {"host=127.0.0.1 port=" + port_ + " user=" + role + " password=Qz8\\ Wx4Lk2", "Qz8 Wx4Lk2"},
      {"host=127.0.0.1 port=" + port_ + " user=" + role + " sslpassword=Qz8Wx4Lk2 password=x",
       "Qz8Wx4Lk2"},
  };
  const std::string archive = recordArchive("errors");
  for (const auto& [connection, password] : cases) {
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"pg", "migrate", "--db", connection},
          {"pg", "unprune", "--db", connection, "--session", "00000000"},
          {"pull", "--from", connection, "--db", dir_.file("pulled.sqlite")},
          {"ls", "--db", connection}}) {
      int status = 0;
      const std::string text = printed(command, &status);
      EXPECT_NE(status, 0) << command[0] << " " << connection << ": " << text;
      expectNoPartOf(text, password, command[0] + " " + connection + ": " + text);
    }
  }
  // The shipper retries a connection that fails: one case of each way of writing is enough.
  for (const std::size_t i : {1u, 6u}) {
    const auto& [connection, password] = cases[i];
    int status = 0;
    const std::string text = printed({"ship", "--db", archive, "--to", connection}, &status);
    EXPECT_NE(status, 0) << connection << ": " << text;
    expectNoPartOf(text, password, "ship " + connection + ": " + text);
  }
}

TEST_F(FleetCredentialsTest, AnArgumentTheCommandLineCannotPlaceNeverShowsItsPassword) {
  const std::string uri = "postgresql://" + role_ + ":Qz8?Wx4@" + tcp() + "/postgres";
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"pg", "migrate", "--db", "x", uri},
        {"ls", "--db", "x", uri},
        {"pull", "--from", uri, "--from", uri, "--db", "x"}}) {
    int status = 0;
    const std::string text = printed(command, &status);
    EXPECT_NE(status, 0) << text;
    expectNoPartOf(text, "Qz8?Wx4", command[0] + ": " + text);
  }
}

}  // namespace
}  // namespace agentvcr::testing
