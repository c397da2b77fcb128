// The fleet archive under a seeded fault campaign (docs/fleet.md, "Proof"): a recorder writes
// under load while the campaign crashes PostgreSQL, cuts the shipper's connection, kills the
// shipper and the recorder, slows the network, prunes (and unprunes at once, while the follower
// ships), ships copies of the archive (some with their uuids in upper case, as an older or a
// foreign tool writes them), changes the fleet's password to one holding every character a
// connection string gives a meaning to, and steps the recorder's clock, each drawn by the seed.
// At the end PostgreSQL holds exactly the archive's rows minus the pruned sessions and the
// quarantined exchanges, nothing twice, pull gives the rest back byte for byte, and no password
// appears in anything agentvcr printed.
//
// AGENTVCR_CAMPAIGN_SEED replays a seed; AGENTVCR_CAMPAIGN_FAULTS sets how many faults one run
// draws (30 here; scripts/fleet-campaign runs long ones).

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agentvcr/cli/pg_command.hpp"
#include "agentvcr/fleet/prune.hpp"
#include "agentvcr/fleet/pull.hpp"
#include "agentvcr/net/http_client.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr_process.hpp"
#include "delaying_relay.hpp"
#include "env_number.hpp"
#include "fake_upstream.hpp"
#include "fleet_fixture.hpp"
#include "store_test_support.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

/// How long the campaign waits for an agentvcr that ends by itself (the last recorder's drain, a
/// one-shot ship) on a machine saturated by other work: its background threads run nicer than
/// everything else there.
constexpr std::chrono::minutes kDrain{3};

std::int64_t msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

/// `ns` since the epoch as a timestamptz PostgreSQL reads, one microsecond later: a prune
/// before it takes the session that started at `ns`.
std::string justAfter(std::int64_t ns) {
  const std::int64_t micros = ns / 1000 + 1;
  const std::time_t seconds = micros / 1'000'000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  std::ostringstream out;
  out << text << '.' << std::setw(6) << std::setfill('0') << micros % 1'000'000 << "+00";
  return out.str();
}

/// Every character a postgresql:// URI or a keyword/value connection string gives a meaning to.
constexpr std::string_view kConnectionSpecials = ":/?#[]@!$&'()*+,;=% \\\"";

/// A password drawn by the seed: each of kConnectionSpecials once, in the seed's order, among
/// twelve letters and digits.
std::string drawPassword(std::mt19937_64& random) {
  constexpr std::string_view plain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string password(kConnectionSpecials);
  std::shuffle(password.begin(), password.end(), random);
  for (int i = 0; i < 12; ++i) {
    password.insert(
        password.begin() + static_cast<std::ptrdiff_t>(random() % (password.size() + 1)),
        plain[random() % plain.size()]);
  }
  return password;
}

/// `text` with every byte but the unreserved ones and those of `raw` percent-encoded, as a URI
/// carries it.
std::string percentEncoded(std::string_view text, std::string_view raw = {}) {
  std::ostringstream out;
  out << std::uppercase << std::hex << std::setfill('0');
  for (const unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' ||
        raw.find(static_cast<char>(c)) != std::string_view::npos) {
      out << static_cast<char>(c);
    } else {
      out << '%' << std::setw(2) << static_cast<int>(c);
    }
  }
  return out.str();
}

/// `text` as a quoted value of a keyword/value connection string.
std::string quotedValue(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'') {
      quoted += '\\';
    }
    quoted += c;
  }
  return quoted + "'";
}

/// A connection to `database` as user agentvcr over TCP, written in one of the ways a user gives
/// a password (in a URI's user info, encoded whole or only where libpq needs it; as its query
/// parameter; as a keyword among others separated by spaces or by lines), drawn by the seed.
std::string connectionWithPassword(std::mt19937_64& random, const std::string& password,
                                   std::uint16_t port, const std::string& database) {
  const std::string at = "127.0.0.1:" + std::to_string(port) + "/" + database;
  const char* const separator = random() % 2 == 0 ? " " : "\n";
  switch (random() % 4) {
    case 0:
      return "postgresql://agentvcr:" + percentEncoded(password) + "@" + at;
    case 1:
      // libpq ends a URI's user info at its first '@' or '/' and decodes '%': the rest may stand
      // as it is, '?' and '#' included.
      return "postgresql://agentvcr:" + percentEncoded(password, ":?#[]!$&'()*+,;= \\\"") + "@" +
             at;
    case 2:
      return "postgresql://agentvcr@" + at + "?password=" + percentEncoded(password);
    default:
      return std::string("host=127.0.0.1") + separator + "port=" + std::to_string(port) +
             separator + "dbname=" + database + separator + "user=agentvcr" + separator +
             "password=" + quotedValue(password);
  }
}

/// The faults a campaign draws, each as likely as the others. A new kind is one more enumerator
/// here and in kFaults, and its case in FleetCampaignTest::fault(); seeds drawn before it replay
/// other faults after it.
enum class Fault {
  PostgresCrashed,
  ConnectionTerminated,
  ShipperKilled,
  RecorderKilled,
  Pruned,
  PrunedAndUnpruned,
  NetworkSlowed,
  CopyShipped,
  UpperCaseCopyShipped,
  PasswordChanged,
  RecorderClockStepped,
};

constexpr Fault kFaults[] = {
    Fault::PostgresCrashed,
    Fault::ConnectionTerminated,
    Fault::ShipperKilled,
    Fault::RecorderKilled,
    Fault::Pruned,
    Fault::PrunedAndUnpruned,
    Fault::NetworkSlowed,
    Fault::CopyShipped,
    Fault::UpperCaseCopyShipped,
    Fault::PasswordChanged,
    Fault::RecorderClockStepped,
};

/// What a fault-free read of one exchange gives: its raw columns and its bodies.
struct ExchangeTruth {
  std::string target, request_headers, response_headers, error;
  int status = 0;
  std::string request_body, response_body;
  bool operator==(const ExchangeTruth&) const = default;
};

/// Every exchange of `db_path`, by (session uuid, seq).
std::map<std::pair<std::string, std::int64_t>, ExchangeTruth> exchangesOf(
    const std::string& db_path) {
  std::map<std::pair<std::string, std::int64_t>, ExchangeTruth> all;
  const store::ArchiveReader reader(db_path);
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "SELECT s.uuid, e.seq, e.id, e.target, e.request_headers, "
                      "e.response_headers, coalesce(e.error, '<null>'), e.status FROM exchanges e "
                      "JOIN sessions s ON s.id = e.session_id");
  while (q.executeStep()) {
    const auto exchange = reader.exchange(q.getColumn(2).getInt64());
    all[{q.getColumn(0).getString(), q.getColumn(1).getInt64()}] = ExchangeTruth{
        q.getColumn(3).getString(), q.getColumn(4).getString(), q.getColumn(5).getString(),
        q.getColumn(6).getString(), q.getColumn(7).getInt(),    exchange->request_body,
        exchange->response_body};
  }
  return all;
}

class FleetCampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A cluster of its own: the campaign crashes it, which the other tests must not see.
    cluster_dir_ = "/tmp/agentvcr-campaign-" + randomName("");
    ASSERT_EQ(pgCluster("start"), 0);
    cluster_uri_ = readLine(cluster_dir_ + "/uri");
    fleet_db_ = std::make_unique<FleetDatabase>(cluster_uri_);
    // A rule of this fleet archive that some exchanges break: PostgreSQL refuses them with a
    // data error, as it would a value no escape could fix. The test cluster commits without
    // waiting for its log (synchronous_commit off), so a crash drawn at once could lose the
    // rule, and the schema with it (seeds 119619593, 3089184200): this commit waits, which
    // makes everything before it survive a crash too.
    fleet::PgConnection rule(fleet_db_->uri());
    rule.exec("SET synchronous_commit = on");
    rule.exec("ALTER TABLE exchanges ADD CONSTRAINT no_poison CHECK (target NOT LIKE '%poison%')");
    db_ = dir_.file("campaign.sqlite");
    // The following shipper reaches PostgreSQL over TCP through a relay the campaign can slow.
    pg_port_ = static_cast<std::uint16_t>(std::stoi(readLine(cluster_dir_ + "/port")));
    relay_ = std::make_unique<DelayingRelay>(pg_port_);
    passwords_.push_back(readLine(cluster_dir_ + "/password"));
    shipper_uri_ = "postgresql://agentvcr:" + passwords_.back() +
                   "@127.0.0.1:" + std::to_string(relay_->port()) + "/" + fleet_db_->name();
  }

  void TearDown() override {
    stopTraffic();
    recorder_.reset();
    shipper_.reset();
    relay_.reset();
    fleet_db_.reset();
    pgCluster("remove");
  }

  int pgCluster(const std::string& action) {
    return std::system(
        (std::string(AGENTVCR_PG_CLUSTER) + " " + action + " " + cluster_dir_ + " >/dev/null 2>&1")
            .c_str());
  }

  /// `variables`: NAME=VALUE entries for its environment (a stepped clock).
  void startRecorder(std::vector<std::string> variables = {}) {
    const std::string run = std::to_string(++starts_);
    const std::string ready = dir_.file("ready-" + run);
    recorder_ = std::make_unique<AgentvcrProcess>(
        std::vector<std::string>{"record", "--upstream", agent_.url(), "--db", db_, "--listen",
                                 "127.0.0.1:0", "--ready-file", ready, "--no-probe"},
        dir_.file("recorder-" + run + ".out"), dir_.file("recorder-" + run + ".log"), false,
        std::move(variables));
    ASSERT_TRUE(waitUntil([&] { return !readLine(ready).empty(); }, 60s));
    const std::string url = readLine(ready);
    recorder_port_ = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  }

  void startShipper() {
    const std::string run = std::to_string(++starts_);
    shipper_ = std::make_unique<AgentvcrProcess>(
        std::vector<std::string>{"ship", "--db", db_, "--to", shipper_uri_, "--follow", "--batch",
                                 "3"},
        dir_.file("shipper-" + run + ".out"), dir_.file("shipper-" + run + ".log"));
  }

  /// One caller sending requests to whichever recorder runs, until stopTraffic(). Every 11th
  /// request is one the fleet archive refuses, every 5th carries \u0000 in its env payload.
  void startTraffic() {
    traffic_ = std::thread([this] {
      int n = 0;
      while (!stop_traffic_) {
        const std::uint16_t port = recorder_port_;
        if (port == 0) {
          std::this_thread::sleep_for(5ms);
          continue;
        }
        try {
          net::HttpClient client("127.0.0.1", port, 5s);
          for (int k = 0; k < 50 && !stop_traffic_ && recorder_port_ == port; ++k, ++n) {
            const bool env = n % 5 == 0;
            const std::string content =
                env ? R"({"obs":"door\u0000open","n":)" + std::to_string(n) + "}" : "go";
            const Json in =
                store::testing::input(1, env ? "env" : "user", content,
                                      store::testing::memoryOf("c" + std::to_string(n), 0));
            const std::string target = n % 11 == 0 ? "/v1/responses?poison=1" : "/v1/responses";
            client.postJson(target, store::testing::request("c-" + std::to_string(n), {in}).dump());
            std::this_thread::sleep_for(2ms);
          }
        } catch (const std::exception&) {
          std::this_thread::sleep_for(5ms);  // the recorder is being killed or restarted
        }
      }
    });
  }

  void stopTraffic() {
    stop_traffic_ = true;
    if (traffic_.joinable()) {
      traffic_.join();
    }
  }

  std::vector<std::int64_t> localSessionStarts() {
    std::vector<std::int64_t> starts;
    SQLite::Database db(db_, SQLite::OPEN_READONLY);
    SQLite::Statement q(db, "SELECT started_ns FROM sessions ORDER BY id");
    while (q.executeStep()) {
      starts.push_back(q.getColumn(0).getInt64());
    }
    return starts;
  }

  /// The tombstones of the fleet archive: the sessions pruned, and not unpruned since.
  std::set<std::string> tombstones() {
    fleet::PgConnection pg(fleet_db_->uri());
    const std::vector<std::string> uuids = pgColumn(pg, "SELECT uuid::text FROM pruned_sessions");
    return {uuids.begin(), uuids.end()};
  }

  /// Waits, 5 s at most, until the fleet holds every exchange of the session recording now,
  /// unless it was pruned: with the traffic paused, the follower then has nothing to do. Says
  /// whether it came to that.
  bool awaitFollowerCaughtUp() {
    return waitUntil(
        [&] {
          SQLite::Database db(db_, SQLite::OPEN_READONLY);
          SQLite::Statement newest(
              db, "SELECT uuid, exchange_count FROM sessions ORDER BY id DESC LIMIT 1");
          newest.executeStep();
          fleet::PgConnection pg(fleet_db_->uri());
          return pg.exec(
                       "SELECT EXISTS (SELECT 1 FROM pruned_sessions WHERE uuid = $1) OR "
                       "EXISTS (SELECT 1 FROM ship_positions WHERE session_uuid = $1 AND "
                       "exchanges = $2)",
                       {newest.getColumn(0).getString(), newest.getColumn(1).getString()})
                     .text(0, 0) == "t";
        },
        5s, 50ms);
  }

  /// Prunes the sessions that started before `started` and that one; says so.
  std::string pruneThrough(std::int64_t started) {
    const std::string before = justAfter(started);
    fleet::PgConnection conn(fleet_db_->uri());
    fleet::pruneFleet(conn, before, false);
    return "pruned before " + before;
  }

  /// A copy of the archive as it stands, as a restored backup or a colleague's copy: the same
  /// sessions, partly shipped already.
  std::string copyOfArchive() {
    const std::string copy = dir_.file("copy-" + std::to_string(++starts_) + ".sqlite");
    SQLite::Database(db_, SQLite::OPEN_READONLY).exec("VACUUM INTO '" + copy + "'");
    return copy;
  }

  /// A one-shot `agentvcr ship` of `copy`, straight to PostgreSQL over TCP with the password of
  /// the moment, written as the seed draws.
  void shipCopy(const std::string& copy, std::mt19937_64& random) {
    const Finished shipped = runAgentvcr(
        {"ship", "--db", copy, "--to",
         connectionWithPassword(random, passwords_.back(), pg_port_, fleet_db_->name())},
        dir_.path().string(), kDrain);
    printed_ += shipped.out + shipped.err;
    EXPECT_TRUE(shipped.status == 0 || shipped.status == 3 || shipped.status == 4)
        << shipped.status << shipped.err;
  }

  /// Every password of the fleet that appears in what agentvcr printed (the outputs of the
  /// one-shot ships, every output file of the recorders and the shippers): pg_cluster's whole,
  /// each drawn one whole or in part (any 8 of its characters in a row, as written or
  /// percent-encoded; pg_cluster's shares "agentvcr" with everything printed).
  std::vector<std::string> passwordsPrinted() {
    std::string all = printed_;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      const std::string extension = entry.path().extension().string();
      if (extension == ".out" || extension == ".log") {
        all += readWhole(entry.path().string());
      }
    }
    std::vector<std::string> found;
    for (const std::string& password : passwords_) {
      const std::size_t window = &password == passwords_.data() ? password.size() : 8;
      for (const std::string& written : {password, percentEncoded(password)}) {
        for (std::size_t at = 0; at + window <= written.size(); ++at) {
          if (all.find(written.substr(at, window)) != std::string::npos) {
            found.push_back(written.substr(at, window) + " of password " +
                            std::to_string(&password - passwords_.data()));
            break;
          }
        }
      }
    }
    return found;
  }

  /// Draws and applies one fault; says which, for the failure message.
  std::string fault(std::mt19937_64& random) {
    switch (kFaults[random() % std::size(kFaults)]) {
      case Fault::PostgresCrashed: {
        pgCluster("crash");
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % 300));
        EXPECT_EQ(pgCluster("start"), 0);
        return "postgres crashed and restarted";
      }
      case Fault::ConnectionTerminated:
        fleet::PgConnection(fleet_db_->uri())
            .exec(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                "current_database() AND pid <> pg_backend_pid()");
        return "the shipper's connection terminated";
      case Fault::ShipperKilled:
        shipper_->stop(SIGKILL);
        startShipper();
        return "the shipper killed and restarted";
      case Fault::RecorderKilled:
        recorder_port_ = 0;
        recorder_->stop(SIGKILL);
        startRecorder();
        return "the recorder killed and restarted";
      case Fault::Pruned: {
        const std::vector<std::int64_t> starts = localSessionStarts();
        return pruneThrough(starts.at(random() % starts.size()));
      }
      case Fault::PrunedAndUnpruned: {
        // A prune by mistake, undone at once, of the sessions up to the one recording now or the
        // one before: the ones the follower ships. Half the time the traffic pauses first and
        // the follower catches up, so that it sees neither the prune nor the unprune and goes on
        // from what it remembers when the traffic resumes; otherwise it ships through both.
        const bool idle = random() % 2 == 0;
        const std::uint16_t port = idle ? recorder_port_.exchange(0) : 0;
        const bool waited = idle && awaitFollowerCaughtUp();
        const std::vector<std::int64_t> starts = localSessionStarts();
        const std::set<std::string> before = tombstones();
        const std::string pruned = pruneThrough(
            starts.at(starts.size() - 1 - random() % std::min<std::size_t>(starts.size(), 2)));
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % 200));
        std::vector<std::string> mistaken;
        for (const std::string& uuid : tombstones()) {
          if (!before.contains(uuid)) {
            mistaken.push_back(uuid);
          }
        }
        std::ostringstream out;
        if (!mistaken.empty()) {
          EXPECT_EQ(cli::runPgUnprune({fleet_db_->uri(), mistaken}, out), 0) << out.str();
        }
        if (idle) {
          recorder_port_ = port;
        }
        return pruned + ", then unpruned " + std::to_string(mistaken.size()) + " session(s)" +
               (waited ? " while the follower waited" : "");
      }
      case Fault::NetworkSlowed: {
        slow_ = !slow_;
        const auto delay = std::chrono::milliseconds(slow_ ? 20 + random() % 180 : 0);
        relay_->setDelay(delay);
        return "the network to PostgreSQL delays " + std::to_string(delay.count()) + " ms";
      }
      case Fault::CopyShipped:
        shipCopy(copyOfArchive(), random);
        return "a copy of the archive shipped";
      case Fault::UpperCaseCopyShipped: {
        // A copy an older or a foreign tool wrote: the same sessions, their uuids in upper case.
        const std::string copy = copyOfArchive();
        SQLite::Database(copy, SQLite::OPEN_READWRITE)
            .exec("UPDATE sessions SET uuid = upper(uuid)");
        shipCopy(copy, random);
        return "a copy with its uuids in upper case shipped";
      }
      case Fault::PasswordChanged: {
        // An operator rotates the fleet's password to one holding every character that means
        // something in a connection string, and a supervisor restarts the follower with it; what
        // the follower printed meanwhile (a refused login, each retry) never shows either one.
        passwords_.push_back(drawPassword(random));
        std::string literal;
        for (const char c : passwords_.back()) {
          literal += c == '\'' ? std::string("''") : std::string(1, c);
        }
        fleet::PgConnection(fleet_db_->uri())
            .exec("ALTER ROLE agentvcr PASSWORD '" + literal + "'");
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % 500));
        shipper_->stop(SIGKILL);
        shipper_uri_ =
            connectionWithPassword(random, passwords_.back(), relay_->port(), fleet_db_->name());
        startShipper();
        return "the password changed, the follower restarted with it (" +
               std::string(shipper_uri_.starts_with("postgresql://") ? "a URI" : "keywords") + ")";
      }
      case Fault::RecorderClockStepped: {
        // The recorder restarts on a clock an NTP correction steps, back or ahead by up to two
        // minutes, soon after it starts; the next restart brings the true time back.
        const auto after = std::chrono::milliseconds(random() % 500);
        const auto by =
            std::chrono::milliseconds(static_cast<std::int64_t>(random() % 240'001) - 120'000);
        recorder_port_ = 0;
        recorder_->stop(SIGKILL);
        startRecorder({"AGENTVCR_TEST_CLOCK_STEPS=" + std::to_string(after.count()) + ":" +
                       std::to_string(by.count())});
        return "the recorder restarted on a clock stepped by " + std::to_string(by.count()) +
               " ms after " + std::to_string(after.count()) + " ms";
      }
    }
    throw std::logic_error("a fault without its case");
  }

  TempDir dir_;
  std::string cluster_dir_;
  std::string cluster_uri_;
  std::unique_ptr<FleetDatabase> fleet_db_;
  std::string db_;
  FakeUpstream agent_{[](const protocol::HttpRequest& request) {
    const Json body = Json::parse(request.body);
    Json outputs = Json::array();
    for (const Json& in : body["inputs"]) {
      outputs.push_back(store::testing::sayOutput(body["request_id"].get<std::string>(),
                                                  in["id"].get<std::int64_t>(), 0, in["memory"],
                                                  "ok"));
    }
    return FakeReply::http(200, outputs.dump());
  }};
  std::uint16_t pg_port_ = 0;
  std::unique_ptr<DelayingRelay> relay_;
  std::vector<std::string> passwords_;  ///< the fleet's, the first from pg_cluster, in order
  std::string shipper_uri_;
  std::string printed_;  ///< what the one-shot ships printed
  bool slow_ = false;
  std::unique_ptr<AgentvcrProcess> recorder_;
  std::unique_ptr<AgentvcrProcess> shipper_;
  std::atomic<std::uint16_t> recorder_port_{0};
  std::atomic<bool> stop_traffic_{false};
  std::thread traffic_;
  int starts_ = 0;
};

TEST_F(FleetCampaignTest, PostgresHoldsExactlyTheArchiveMinusPrunedAndQuarantined) {
  const std::uint64_t seed = envNumber("AGENTVCR_CAMPAIGN_SEED", std::random_device{}());
  const std::uint64_t faults = envNumber("AGENTVCR_CAMPAIGN_FAULTS", 30);
  std::cout << "fleet campaign: seed " << seed << ", " << faults
            << " faults (replay with AGENTVCR_CAMPAIGN_SEED=" << seed << ")" << std::endl;
  SCOPED_TRACE("AGENTVCR_CAMPAIGN_SEED=" + std::to_string(seed));
  std::mt19937_64 random(seed);

  startRecorder();
  startShipper();
  startTraffic();
  std::vector<std::string> drawn;
  for (std::uint64_t i = 0; i < faults && !HasFatalFailure(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + random() % 170));
    const auto start = std::chrono::steady_clock::now();
    drawn.push_back(fault(random));
    std::cout << "  " << drawn.back() << " (" << msSince(start) << " ms)" << std::endl;
  }
  stopTraffic();
  relay_->setDelay(std::chrono::milliseconds(0));
  recorder_port_ = 0;
  // On SIGTERM the last recorder indexes what it and every killed one left unindexed, with an
  // index thread 10 nicer than the process (docs/schema.md, "How the recorder writes"): on a
  // machine saturated by other work that backlog takes minutes. Past kDrain the recorder is
  // killed like the others, and `agentvcr migrate` indexes the rest, as ship tells a user to.
  auto stopping = std::chrono::steady_clock::now();
  recorder_->signal(SIGTERM);
  const std::optional<int> recorder_status = recorder_->waitFor(kDrain);
  std::cout << "  recorder " << (recorder_status ? "stopped" : "still indexing, killed") << " in "
            << msSince(stopping) << " ms" << std::endl;
  if (recorder_status) {
    EXPECT_EQ(*recorder_status, 0);
  } else {
    recorder_->stop(SIGKILL);
    const Finished migrated = runAgentvcr({"migrate", "--db", db_}, dir_.path().string(), kDrain);
    EXPECT_EQ(migrated.status, 0) << migrated.err;
  }
  stopping = std::chrono::steady_clock::now();
  const int shipper_status = shipper_->stop(SIGTERM);
  std::cout << "  shipper stopped in " << msSince(stopping) << " ms" << std::endl;
  // A follower the last fault restarted may meet SIGTERM before it has set its handlers, and die
  // of it (seed 3222027051): what it owed is the last ship's, which the ground truth checks.
  EXPECT_TRUE(shipper_status == 0 || shipper_status == 3 || shipper_status == -SIGTERM)
      << shipper_status;
  // The last ship takes everything the follower had not reached. Exit status 3 (it quarantined
  // something) outranks 4 (exchanges left unindexed): the summary says whether any were left.
  const Finished last =
      runAgentvcr({"ship", "--db", db_, "--to", fleet_db_->uri()}, dir_.path().string(), kDrain);
  EXPECT_TRUE(last.status == 0 || last.status == 3) << last.status << last.err;
  EXPECT_THAT(last.out, Not(HasSubstr("not indexed"))) << last.out;

  std::ostringstream faults_drawn;
  for (const std::string& f : drawn) {
    faults_drawn << "\n  " << f;
  }
  SCOPED_TRACE("faults:" + faults_drawn.str());

  // The ground truth: the archive, the tombstones, and the rule that refuses poison.
  fleet::PgConnection pg(fleet_db_->uri());
  std::set<std::string> pruned;
  for (const std::string& uuid : pgColumn(pg, "SELECT uuid::text FROM pruned_sessions")) {
    pruned.insert(uuid);
  }
  const auto local = exchangesOf(db_);
  std::map<std::string, std::set<std::int64_t>> expected_seqs;  // by session
  std::set<std::pair<std::string, std::int64_t>> expected_quarantine;
  for (const auto& [key, truth] : local) {
    if (pruned.contains(key.first)) {
      continue;
    }
    if (truth.target.find("poison") != std::string::npos) {
      expected_quarantine.insert(key);
    } else {
      expected_seqs[key.first].insert(key.second);
    }
  }
  std::set<std::string> kept_sessions;
  for (const std::string& uuid : sqliteColumn(db_, "SELECT uuid FROM sessions")) {
    if (!pruned.contains(uuid)) {
      kept_sessions.insert(uuid);
    }
  }

  std::set<std::string> fleet_sessions;
  for (const std::string& uuid : pgColumn(pg, "SELECT uuid::text FROM sessions")) {
    fleet_sessions.insert(uuid);
  }
  EXPECT_EQ(fleet_sessions, kept_sessions) << "sessions: pruned ones gone, every other one there";

  std::map<std::string, std::set<std::int64_t>> fleet_seqs;
  std::size_t fleet_exchanges = 0;
  for (const std::string& row :
       pgColumn(pg, "SELECT session_uuid::text || ' ' || seq FROM exchanges")) {
    const std::size_t space = row.find(' ');
    fleet_seqs[row.substr(0, space)].insert(std::stoll(row.substr(space + 1)));
    ++fleet_exchanges;
  }
  EXPECT_EQ(fleet_seqs, expected_seqs) << "exchanges: each once, minus pruned and quarantined";

  std::set<std::pair<std::string, std::int64_t>> quarantined;
  for (const std::string& row : pgColumn(pg,
                                         "SELECT session_uuid || ' ' || number FROM quarantine "
                                         "WHERE kind = 'exchange' AND sqlstate = '23514'")) {
    const std::size_t space = row.find(' ');
    quarantined.emplace(row.substr(0, space), std::stoll(row.substr(space + 1)));
  }
  EXPECT_EQ(quarantined, expected_quarantine) << "each refused exchange quarantined, with why";
  EXPECT_EQ(pg.exec("SELECT count(*) FROM quarantine WHERE kind <> 'exchange'").integer(0, 0), 0);

  // Every row decoded from a kept exchange, and nothing of a pruned session anywhere.
  for (const std::string& uuid : kept_sessions) {
    const long long local_steps = sqliteCount(
        db_,
        "SELECT count(*) FROM steps st JOIN exchanges e ON e.id = st.exchange_id JOIN sessions s "
        "ON s.id = e.session_id WHERE s.uuid = '" +
            uuid + "' AND e.target NOT LIKE '%poison%'");
    EXPECT_EQ(pg.exec("SELECT count(*) FROM steps WHERE session_uuid = $1", {uuid}).integer(0, 0),
              local_steps)
        << uuid;
  }
  for (const char* table : {"sessions", "exchanges", "steps", "conversations", "ship_positions"}) {
    const std::string uuid = std::string(table) == "sessions" ? "uuid" : "session_uuid";
    EXPECT_EQ(pg.exec(std::string("SELECT count(*) FROM ") + table + " WHERE " + uuid +
                      " IN (SELECT uuid FROM pruned_sessions)")
                  .integer(0, 0),
              0)
        << table;
  }

  // Pull gives back every kept exchange byte for byte.
  const std::string pulled = dir_.file("pulled.sqlite");
  fleet::PullOptions pull;
  pull.uri = fleet_db_->uri();
  pull.db_path = pulled;
  fleet::pull(pull);
  // Each under its recorded seq, the quarantine's gaps kept, so step links still find it.
  std::map<std::pair<std::string, std::int64_t>, ExchangeTruth> kept;
  for (const auto& [key, truth] : local) {
    if (expected_seqs[key.first].contains(key.second)) {
      kept.emplace(key, truth);
    }
  }
  const auto back = std::filesystem::exists(pulled) ? exchangesOf(pulled) : decltype(kept){};
  EXPECT_EQ(back.size(), kept.size());
  for (const auto& [key, truth] : kept) {
    const auto found = back.find(key);
    EXPECT_TRUE(found != back.end() && found->second == truth)
        << "session " << key.first << " seq " << key.second << " pulled back otherwise";
  }

  EXPECT_THAT(passwordsPrinted(), ::testing::IsEmpty()) << "no password in any output";
}

}  // namespace
}  // namespace agentvcr::testing
