// Shipping archives into a real PostgreSQL 15 (tests/support/pg_cluster, started by ctest's
// `postgres` fixture): every table row for row and byte for byte, idempotence, four shippers at
// once, an outage under load, a shipper killed with SIGKILL, and the messages a user meets.

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "agentvcr/cli/inspect_commands.hpp"
#include "agentvcr/cli/stats_command.hpp"
#include "agentvcr/fleet/pull.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/transfer.hpp"
#include "agentvcr_process.hpp"
#include "fleet_fixture.hpp"
#include "full_history_recording.hpp"
#include "thread_niceness.hpp"
#include "wait.hpp"

namespace agentvcr::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(FleetShipTest, EveryTableArrivesRowForRowAndBodiesByteForByte) {
  const std::string db = recordArchive("demo");
  const fleet::ShipStats stats = ship(db, fleet_db_->uri());
  const auto local = archiveCounts(db);
  EXPECT_EQ(fleetCounts(*fleet_db_), local);
  EXPECT_GT(local.at("steps"), 10);
  EXPECT_GT(local.at("internal_steps"), 0);
  EXPECT_EQ(stats.exchanges, static_cast<std::uint64_t>(local.at("exchanges")));
  EXPECT_EQ(stats.left, 0u);

  // Bodies byte for byte (a segmented body travels as a frame of its own), headers and timing
  // points as recorded.
  SQLite::Database sqlite(db, SQLite::OPEN_READONLY);
  SQLite::Statement q(sqlite, R"sql(
    SELECT e.seq, e.id, e.request_headers, e.started_ns, e.upstream_first_byte_ns, s.uuid
    FROM exchanges e JOIN sessions s ON s.id = e.session_id ORDER BY e.seq)sql");
  const store::ArchiveReader reader(db);
  fleet::PgConnection pg(fleet_db_->uri());
  auto bytesOfHex = [](std::string_view hex) {
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    }
    return bytes;
  };
  // A segmented body arrives compressed against its segment's keyframe, a body dictionary
  // itself compressed against the keyframe before it.
  std::function<std::string(const std::string&)> dictionaryOf = [&](const std::string& hash) {
    fleet::PgResult d = pg.exec(
        "SELECT encode(content, 'hex'), codec, dictionary FROM body_dictionaries WHERE hash = $1",
        {hash});
    EXPECT_EQ(d.rows(), 1);
    return d.isNull(0, 2) ? store::unpackStoredBody(bytesOfHex(d.text(0, 0)), d.optionalText(0, 1))
                          : store::unpackStoredBody(bytesOfHex(d.text(0, 0)), d.optionalText(0, 1),
                                                    dictionaryOf(std::string(d.text(0, 2))));
  };
  auto bodyOf = [&](const fleet::PgResult& r, int at) {
    if (r.isNull(0, at + 2)) {
      return store::unpackStoredBody(bytesOfHex(r.text(0, at)), r.optionalText(0, at + 1));
    }
    return store::unpackStoredBody(bytesOfHex(r.text(0, at)), r.optionalText(0, at + 1),
                                   dictionaryOf(std::string(r.text(0, at + 2))));
  };
  int compared = 0;
  while (q.executeStep()) {
    fleet::PgResult r = pg.exec(
        "SELECT encode(request_body, 'hex'), request_body_codec, request_body_dictionary, "
        "encode(response_body, 'hex'), response_body_codec, response_body_dictionary, "
        "request_headers, started_ns, upstream_first_byte_ns FROM exchanges "
        "WHERE session_uuid = $1 AND seq = $2",
        {q.getColumn(5).getString(), q.getColumn(0).getString()});
    ASSERT_EQ(r.rows(), 1);
    const std::optional<store::ExchangeRow> row = reader.exchange(q.getColumn(1).getInt64());
    ASSERT_TRUE(row);
    EXPECT_EQ(bodyOf(r, 0), row->request_body);
    EXPECT_EQ(bodyOf(r, 3), row->response_body);
    EXPECT_EQ(r.text(0, 6), q.getColumn(2).getString());
    EXPECT_EQ(r.integer(0, 7), q.getColumn(3).getInt64());
    EXPECT_EQ(r.optionalInteger(0, 8).value_or(-1),
              q.getColumn(4).isNull() ? -1 : q.getColumn(4).getInt64());
    ++compared;
  }
  EXPECT_EQ(compared, local.at("exchanges"));

  // A blob kept as text is JSON SQL can reach into. A memory the archive keeps in a body is
  // packed against its segment's keyframe instead, and unpacks to the archive's text.
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM blobs WHERE text IS NOT NULL AND doc IS NULL"),
            0);
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM blobs WHERE packed IS NOT NULL"),
            sqliteCount(db, "SELECT count(*) FROM blobs WHERE codec = 'body'"));
  EXPECT_GT(fleet_db_->count("SELECT count(*) FROM blobs WHERE dictionary IS NOT NULL"), 0);
  fleet::PgResult packed = pg.exec(
      "SELECT hash, encode(packed, 'hex'), codec, dictionary FROM blobs WHERE packed IS NOT NULL");
  for (int i = 0; i < packed.rows(); ++i) {
    const std::string text =
        packed.isNull(i, 3)
            ? store::unpackStoredBody(bytesOfHex(packed.text(i, 1)), packed.optionalText(i, 2))
            : store::unpackStoredBody(bytesOfHex(packed.text(i, 1)), packed.optionalText(i, 2),
                                      dictionaryOf(std::string(packed.text(i, 3))));
    EXPECT_EQ(text, reader.blob(static_cast<std::uint64_t>(packed.integer(i, 0))).value_or("?"));
  }
  // A prompt is kept as where its response body holds it, with what it adds to its parent's.
  EXPECT_EQ(
      fleet_db_->count("SELECT count(*) FROM internal_steps WHERE full_prompt_at IS NOT NULL"),
      sqliteCount(db, "SELECT count(*) FROM internal_steps WHERE full_prompt_at IS NOT NULL"));
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM internal_steps WHERE full_prompt IS NOT NULL "
                             "AND full_prompt_at IS NOT NULL"),
            0);
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM internal_steps WHERE prompt_new IS NOT NULL"),
            sqliteCount(db, "SELECT count(*) FROM internal_steps WHERE prompt_new IS NOT NULL"));
  // Every step's parent is a candidate that exists.
  EXPECT_EQ(fleet_db_->count(R"sql(
    SELECT count(*) FROM steps s WHERE s.parent_seq IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM candidates c WHERE c.session_uuid = s.session_uuid AND c.seq = s.parent_seq
        AND c.position = s.parent_position AND c.candidate_index = s.parent_candidate_index))sql"),
            0);
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM steps WHERE parent_seq IS NOT NULL"),
            sqliteCount(db, "SELECT count(*) FROM steps WHERE parent_candidate_id IS NOT NULL"));
  EXPECT_EQ(fleet_db_->count("SELECT sum(step_count) FROM conversations"),
            sqliteCount(db, "SELECT sum(step_count) FROM conversations"));
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM sessions WHERE ended_ns IS NOT NULL"), 1);
  EXPECT_EQ(fleet_db_->count("SELECT exchanges FROM ship_positions"), local.at("exchanges"));
}

TEST_F(FleetShipTest, TextPostgresCannotHoldNeverStopsTheShipping) {
  const std::string db = recordArchive("demo");
  {
    SQLite::Database sqlite(db, SQLite::OPEN_READWRITE);
    // A blob that is not JSON, and a header with a NUL byte and malformed UTF-8.
    sqlite.exec(
        "UPDATE blobs SET text = 'not json {' WHERE hash = "
        "(SELECT tools_hash FROM steps ORDER BY id LIMIT 1)");
    sqlite.exec(
        "UPDATE exchanges SET response_headers = "
        "'[[\"x-odd\",\"a' || char(0) || CAST(X'FF' AS TEXT) || 'b\"]]' WHERE seq = 0");
  }
  const fleet::ShipStats stats = ship(db, fleet_db_->uri());
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(db));
  EXPECT_EQ(stats.left, 0u);
  EXPECT_EQ(
      fleet_db_->count("SELECT count(*) FROM blobs WHERE doc IS NULL AND text = 'not json {'"), 1);
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM exchanges WHERE seq = 0 AND "
                             "response_headers LIKE '%a\uFFFD\uFFFDb%'"),
            1);
}

TEST_F(FleetShipTest, ShippingAgainOrShippingACopyAddsNothing) {
  const std::string db = recordArchive("demo");
  ship(db, fleet_db_->uri());
  const auto once = fleetCounts(*fleet_db_);

  ship(db, fleet_db_->uri());
  EXPECT_EQ(fleetCounts(*fleet_db_), once) << "shipped twice";

  // A merge keeps the session's uuid: its rows land on the same keys.
  const std::string merged = dir_.file("merged.sqlite");
  store::mergeArchive(merged, db);
  const fleet::ShipStats from_copy = ship(merged, fleet_db_->uri());
  EXPECT_EQ(fleetCounts(*fleet_db_), once) << "shipped a merged copy";
  EXPECT_EQ(from_copy.exchanges, 0u) << "the copy's positions were known to the fleet archive";

  // Positions lost (a restore of an older backup): every row comes again, onto its key.
  fleet::PgConnection(fleet_db_->uri()).exec("DELETE FROM ship_positions");
  const fleet::ShipStats resent = ship(db, fleet_db_->uri());
  EXPECT_EQ(fleetCounts(*fleet_db_), once) << "shipped again without positions";
  EXPECT_EQ(resent.exchanges, static_cast<std::uint64_t>(once.at("exchanges")));
}

TEST_F(FleetShipTest, ABatchWhoseContentTheFleetPartlyHoldsSendsTheRest) {
  const std::string db = recordArchive("demo");
  ship(db, fleet_db_->uri());
  const auto once = fleetCounts(*fleet_db_);
  const auto digests = [&] {
    fleet::PgConnection pg(fleet_db_->uri());
    const std::string blobs(
        pg.exec("SELECT md5(string_agg(b::text, '|' ORDER BY hash)) FROM blobs b").text(0, 0));
    const std::string dictionaries(
        pg.exec("SELECT md5(string_agg(d::text, '|' ORDER BY hash)) FROM body_dictionaries d")
            .text(0, 0));
    return std::pair(blobs, dictionaries);
  };
  const auto shipped = digests();

  // Every other blob gone, and the positions with it: the same rows come again, and only the
  // missing content is written (the rest would fail a straight COPY on its key).
  fleet::PgConnection(fleet_db_->uri())
      .exec(
          "DELETE FROM blobs WHERE hash % 2 = 0; DELETE FROM body_dictionaries; "
          "DELETE FROM ship_positions");
  ASSERT_LT(fleet_db_->count("SELECT count(*) FROM blobs"), once.at("blobs"));
  ship(db, fleet_db_->uri());
  EXPECT_EQ(fleetCounts(*fleet_db_), once);
  EXPECT_EQ(digests(), shipped) << "the content came back as it was";
}

TEST_F(FleetShipTest, FourShippersAtOnceEachSessionOnce) {
  std::vector<std::string> archives;
  for (int i = 0; i < 4; ++i) {
    archives.push_back(recordArchive("node" + std::to_string(i)));
  }
  std::vector<std::thread> shippers;
  for (const std::string& db : archives) {
    shippers.emplace_back([&, db] { ship(db, fleet_db_->uri()); });
  }
  for (std::thread& t : shippers) {
    t.join();
  }
  long long exchanges = 0;
  for (const std::string& db : archives) {
    exchanges += sqliteCount(db, "SELECT count(*) FROM exchanges");
  }
  EXPECT_EQ(fleet_db_->rows("sessions"), 4);
  EXPECT_EQ(fleet_db_->rows("exchanges"), exchanges);
  EXPECT_EQ(fleet_db_->count("SELECT sum(exchange_count) FROM sessions"), exchanges);
}

TEST_F(FleetShipTest, ConnectionFailuresAreClearAndNeverShowThePassword) {
  const std::string db = recordArchive("demo");
  const std::string port = readLine(clusterDir() + "/port");
  auto failure = [&](const std::string& uri) {
    fleet::ShipOptions options;
    options.db_path = db;
    options.uri = uri;
    options.attempts = 1;
    fleet::Shipper shipper(options);
    EXPECT_EQ(shipper.run(), fleet::ShipEnd::Failed);
    EXPECT_EQ(shipper.stats().left,
              static_cast<std::uint64_t>(sqliteCount(db, "SELECT count(*) FROM exchanges")));
    return shipper.error();
  };
  const std::string wrong_password =
      failure("postgresql://agentvcr:Wr0ngSecret@127.0.0.1:" + port + "/postgres");
  EXPECT_THAT(wrong_password,
              AllOf(HasSubstr("[fleet.connect]"), HasSubstr("password authentication failed"),
                    HasSubstr("agentvcr:***@127.0.0.1"), Not(HasSubstr("Wr0ng"))));
  EXPECT_THAT(failure("postgresql://agentvcr@127.0.0.1:1/postgres?connect_timeout=2"),
              AllOf(HasSubstr("[fleet.connect]"), HasSubstr("127.0.0.1:1")));
  EXPECT_THAT(failure("postgresql://nobody@[bad"), HasSubstr("[fleet.connect]"));
  EXPECT_THAT(failure("host=127.0.0.1 port=" + port + " user=agentvcr password=Wr0ngSecret"),
              AllOf(HasSubstr("password=***"), Not(HasSubstr("Wr0ng"))));
}

/// An environment variable set for a scope: libpq reads PGPASSWORD and friends at connect.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }

  ~ScopedEnv() { unsetenv(name_); }

  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

TEST_F(FleetShipTest, LibpqFindsPasswordsAndServicesWhereItsOwnProgramsDo) {
  const std::string db = recordArchive("demo");
  const std::string port = readLine(clusterDir() + "/port");
  const std::string password = readLine(clusterDir() + "/password");
  // Over TCP, where the test cluster asks for a password; none in the URI.
  const std::string uri = "postgresql://agentvcr@127.0.0.1:" + port + "/" + fleet_db_->name();
  auto ship = [&](const std::string& to) {
    fleet::ShipOptions options;
    options.db_path = db;
    options.uri = to;
    options.attempts = 1;
    fleet::Shipper shipper(options);
    return shipper.run() == fleet::ShipEnd::CaughtUp ? std::string("shipped") : shipper.error();
  };
  EXPECT_THAT(ship(uri), AllOf(HasSubstr("[fleet.connect]"), HasSubstr("no password")));
  {
    const ScopedEnv env("PGPASSWORD", password);
    EXPECT_EQ(ship(uri), "shipped");
  }
  {
    const std::string pgpass = dir_.file("pgpass");
    std::ofstream(pgpass) << "127.0.0.1:" << port << ":*:agentvcr:" << password << "\n";
    chmod(pgpass.c_str(), 0600);  // libpq ignores a password file others can read
    const ScopedEnv env("PGPASSFILE", pgpass);
    EXPECT_EQ(ship(uri), "shipped");
  }
  {
    const std::string services = dir_.file("pg_service.conf");
    std::ofstream(services) << "[fleet]\nhost=127.0.0.1\nport=" << port
                            << "\nuser=agentvcr\npassword=" << password
                            << "\ndbname=" << fleet_db_->name() << "\n";
    const ScopedEnv env("PGSERVICEFILE", services);
    EXPECT_EQ(ship("service=fleet"), "shipped");
  }
  // verify-full to a server that speaks no TLS: refused, never a fall back to plain text.
  const ScopedEnv env("PGPASSWORD", password);
  EXPECT_THAT(ship(uri + "?sslmode=verify-full"),
              AllOf(HasSubstr("[fleet.connect]"), HasSubstr("SSL")));
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(db));
}

/// A digest of every row of every table of a fleet archive, by table: equal digests, equal rows.
std::map<std::string, std::string> fleetDigests(const FleetDatabase& fleet_db) {
  fleet::PgConnection pg(fleet_db.uri());
  std::map<std::string, std::string> digests;
  for (const std::string& table : kSessionTables) {
    digests[table] = pg.exec(
                           "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), ''))"
                           " FROM " +
                           table + " t")
                         .text(0, 0);
  }
  for (const char* table : {"sessions", "blobs", "body_dictionaries"}) {
    digests[table] = pg.exec(std::string("SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY "
                                         "t::text), '')) FROM ") +
                             table + " t")
                         .text(0, 0);
  }
  return digests;
}

TEST_F(FleetShipTest, ShipThenPullIsLosslessAndShippingThePullAddsNothing) {
  const std::string db = recordArchive("demo");
  {
    // A column the demo leaves empty: the note of a card the recorder rewrote.
    SQLite::Database sqlite(db, SQLite::OPEN_READWRITE);
    sqlite.exec(R"(UPDATE exchanges SET card_rewrite = '{"left":"signed"}' WHERE seq = 1)");
  }
  const std::string card_rewrites = "SELECT card_rewrite FROM exchanges ORDER BY seq";
  // A timing point the recorder measured on (nearly) every exchange of the demo.
  const std::string last_bytes = "SELECT upstream_last_byte_ns FROM exchanges ORDER BY seq";
  ASSERT_GT(sqliteCount(db, "SELECT count(*) FROM exchanges WHERE upstream_last_byte_ns > 0"), 0);
  ship(db, fleet_db_->uri());
  fleet::PgConnection pg(fleet_db_->uri());
  EXPECT_EQ(pgColumn(pg, card_rewrites), sqliteColumn(db, card_rewrites));
  EXPECT_EQ(pgColumn(pg, last_bytes), sqliteColumn(db, last_bytes));

  const std::string pulled = dir_.file("pulled.sqlite");
  fleet::PullOptions options;
  options.uri = fleet_db_->uri();
  options.db_path = pulled;
  const store::CopyResult result = fleet::pull(options);
  EXPECT_EQ(result.session_ids.size(), 1u);
  EXPECT_EQ(static_cast<long long>(result.exchanges),
            sqliteCount(db, "SELECT count(*) FROM exchanges"));
  EXPECT_EQ(archiveCounts(pulled), archiveCounts(db));
  EXPECT_EQ(sqliteColumn(pulled, card_rewrites), sqliteColumn(db, card_rewrites));
  EXPECT_EQ(sqliteColumn(pulled, last_bytes), sqliteColumn(db, last_bytes));

  // Shipped again from the pulled copy into a second fleet archive: every row equal, bodies,
  // headers, timings, uuids and every decoded row included.
  const FleetDatabase second(cluster_uri_);
  ship(pulled, second.uri());
  EXPECT_EQ(fleetDigests(second), fleetDigests(*fleet_db_));

  // And into the first: it holds all of it already.
  const auto before = fleetCounts(*fleet_db_);
  EXPECT_EQ(ship(pulled, fleet_db_->uri()).exchanges, 0u);
  EXPECT_EQ(fleetCounts(*fleet_db_), before);

  // Pulling again adds nothing either: the archive holds the session.
  EXPECT_EQ(fleet::pull(options).already_held.size(), 1u);
}

TEST_F(FleetShipTest, AFullHistoryConversationShipsCompactAndPullsBackByteForByte) {
  // 40 steps of one conversation whose memory keeps every turn: three body segments, each
  // body packed against its segment's keyframe, and a memory on every step that the archive
  // keeps in a body.
  constexpr int kSteps = 40;
  const std::string db = dir_.file("full-history.sqlite");
  recordFullHistory(db, "turn", kSteps);
  ASSERT_GE(sqliteCount(db, "SELECT count(DISTINCT body_segment_id) FROM exchanges"), 3);
  ship(db, fleet_db_->uri());
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(db));
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM exchanges WHERE request_body_dictionary IS "
                             "NOT NULL AND response_body_dictionary IS NOT NULL"),
            kSteps);
  EXPECT_EQ(fleet_db_->count("SELECT count(*) FROM blobs WHERE packed IS NOT NULL"),
            sqliteCount(db, "SELECT count(*) FROM blobs WHERE codec = 'body'"));

  // Each keyframe but an anchor's is compressed against the one before it.
  EXPECT_EQ(
      fleet_db_->count("SELECT count(*) FROM body_dictionaries WHERE dictionary IS NOT NULL"),
      sqliteCount(db, "SELECT count(*) FROM body_segments WHERE prefix_segment_id IS NOT NULL"));

  const std::string pulled = dir_.file("pulled.sqlite");
  fleet::PullOptions options;
  options.uri = fleet_db_->uri();
  options.db_path = pulled;
  ASSERT_EQ(fleet::pull(options).session_ids.size(), 1u);
  const store::ArchiveReader original(db);
  const store::ArchiveReader copy(pulled);
  const std::vector<std::string> ids = sqliteColumn(db, "SELECT id FROM exchanges ORDER BY seq");
  const std::vector<std::string> copy_ids =
      sqliteColumn(pulled, "SELECT id FROM exchanges ORDER BY seq");
  ASSERT_EQ(copy_ids.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto a = original.exchange(std::stoll(ids[i]));
    const auto b = copy.exchange(std::stoll(copy_ids[i]));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(b->request_body, a->request_body) << "exchange seq " << i;
    EXPECT_EQ(b->response_body, a->response_body) << "exchange seq " << i;
  }
  for (const std::string& hash : sqliteColumn(db, "SELECT hash FROM blobs")) {
    EXPECT_EQ(copy.blob(std::stoull(hash)), original.blob(std::stoull(hash))) << hash;
  }
  const std::string prompts = "SELECT full_prompt_at FROM internal_steps ORDER BY id";
  EXPECT_EQ(sqliteColumn(pulled, prompts), sqliteColumn(db, prompts));
}

TEST_F(FleetShipTest, PullTakesTheSlicesItIsAskedFor) {
  for (const char* node : {"a", "b"}) {
    const std::string db = dir_.file(std::string(node) + ".sqlite");
    recordDemo(db, node);
    SQLite::Database(db, SQLite::OPEN_READWRITE)
        .exec(std::string("UPDATE sessions SET node = '") + node + "'");
    ship(db, fleet_db_->uri());
  }
  auto pulledSessions = [&](fleet::PullOptions options) {
    options.uri = fleet_db_->uri();
    options.db_path = dir_.file(randomName("slice") + ".sqlite");
    return fleet::pull(options).session_ids.size();
  };
  EXPECT_EQ(pulledSessions({}), 2u);
  fleet::PullOptions by_node;
  by_node.nodes = {"b"};
  EXPECT_EQ(pulledSessions(by_node), 1u);
  fleet::PgConnection pg(fleet_db_->uri());
  fleet::PullOptions by_session;
  by_session.sessions = {std::string(pg.exec("SELECT left(uuid::text, 8) FROM sessions WHERE "
                                             "node = 'a'")
                                         .text(0, 0))};
  EXPECT_EQ(pulledSessions(by_session), 1u);
  fleet::PullOptions future;
  future.since = "2999-01-01";
  EXPECT_EQ(pulledSessions(future), 0u);
  fleet::PullOptions past;
  past.since = "2000-01-01T00:00:00Z";
  EXPECT_EQ(pulledSessions(past), 2u);
}

TEST_F(FleetShipTest, LsAndStatsReadTheFleetArchiveWithEachSessionsNode) {
  for (const char* node : {"gen-worker-1", "gen-worker-2"}) {
    const std::string db = dir_.file(std::string(node) + ".sqlite");
    recordDemo(db, node);
    SQLite::Database(db, SQLite::OPEN_READWRITE)
        .exec(std::string("UPDATE sessions SET node = '") + node + "'");
    ship(db, fleet_db_->uri());
  }
  std::ostringstream ls;
  EXPECT_EQ(cli::runLs(fleet_db_->uri(), std::nullopt, ls), cli::kExitOk);
  EXPECT_THAT(ls.str(),
              AllOf(HasSubstr("NODE"), HasSubstr("gen-worker-1"), HasSubstr("gen-worker-2")));

  cli::StatsCommand stats;
  stats.db_path = fleet_db_->uri();
  stats.format = "json";
  std::ostringstream out;
  EXPECT_EQ(cli::runStats(stats, out), cli::kExitOk);
  const auto json = nlohmann::json::parse(out.str());
  ASSERT_EQ(json["sessions"].size(), 2u);
  for (const auto& session : json["sessions"]) {
    EXPECT_THAT(session["node"].get<std::string>(), HasSubstr("gen-worker-"));
    EXPECT_GT(session["steps"].get<int>(), 10);
    EXPECT_GT(session["latency_ms"]["count"].get<int>(), 0);
    EXPECT_GT(session["tools_by_robot"].size(), 0u);
  }
  // The same figures as the SQLite archive's own stats.
  cli::StatsCommand local;
  local.db_path = dir_.file("gen-worker-1.sqlite");
  local.format = "json";
  std::ostringstream local_out;
  cli::runStats(local, local_out);
  auto local_session = nlohmann::json::parse(local_out.str())["sessions"][0];
  auto fleet_session =
      json["sessions"][0]["name"] == "gen-worker-1" ? json["sessions"][0] : json["sessions"][1];
  for (const char* key : {"steps", "candidates", "env_failures", "tools_by_robot", "latency_ms",
                          "http_statuses", "error_codes"}) {
    EXPECT_EQ(fleet_session[key], local_session[key]) << key;
  }
  // The same traffic; the fleet keeps each body as a frame of its own, not in segments.
  EXPECT_EQ(fleet_session["body_bytes"]["on_wire"], local_session["body_bytes"]["on_wire"]);
  EXPECT_GE(fleet_session["body_bytes"]["stored"], local_session["body_bytes"]["stored"]);
  EXPECT_GT(json["body_bytes_on_wire"].get<std::int64_t>(),
            local_session["body_bytes"]["on_wire"].get<std::int64_t>())
      << "both shipped sessions' traffic";
  EXPECT_GT(json["archive_bytes"].get<std::int64_t>(), 0);
}

/// The SQL queries docs/fleet.md gives (the blocks that read), in order.
/// The SQL blocks of docs/fleet.md that begin with `start`.
std::vector<std::string> documentedSql(const std::string& start) {
  std::ifstream doc(AGENTVCR_FLEET_DOC);
  std::vector<std::string> blocks;
  std::string line;
  std::string block;
  bool in_sql = false;
  while (std::getline(doc, line)) {
    if (!in_sql && line == "```sql") {
      in_sql = true;
      block.clear();
    } else if (in_sql && line == "```") {
      in_sql = false;
      if (block.starts_with(start)) {
        blocks.push_back(block);
      }
    } else if (in_sql) {
      block += line + "\n";
    }
  }
  return blocks;
}

std::vector<std::string> documentedQueries() {
  std::vector<std::string> queries = documentedSql("SELECT");
  for (std::string& with : documentedSql("WITH")) {
    queries.push_back(std::move(with));
  }
  return queries;
}

std::string replacedAll(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

TEST_F(FleetShipTest, TheDocumentedShipperRoleShipsIntoAMonthNotYetMade) {
  const std::vector<std::string> grants = documentedSql("CREATE ROLE shipper");
  ASSERT_EQ(grants.size(), 1u);
  const std::string role = randomName("shipper_");
  fleet::PgConnection(fleet_db_->uri())
      .exec(replacedAll(replacedAll(grants.front(), "shipper", role), "DATABASE agentvcr",
                        "DATABASE " + fleet_db_->name()));
  ASSERT_EQ(fleet_db_->rows("agentvcr_months"), 0);

  const std::string db = recordArchive("demo");
  ship(db, replacedAll(fleet_db_->uri(), "agentvcr@", role + "@"));
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(db));
  EXPECT_EQ(fleet_db_->rows("agentvcr_months"), 1);

  fleet_db_.reset();  // the role's rights went with its database
  fleet::PgConnection(cluster_uri_).exec("DROP ROLE " + role);
}

TEST_F(FleetShipTest, TheDocumentedQueriesRunOnAShippedRecording) {
  ship(recordArchive("demo"), fleet_db_->uri());
  const std::vector<std::string> queries = documentedQueries();
  ASSERT_GE(queries.size(), 5u);
  fleet::PgConnection pg(fleet_db_->uri());
  for (const std::string& sql : queries) {
    EXPECT_NO_THROW(pg.exec(sql)) << sql;
  }
  auto documented = [&](const char* fragment) {
    const auto found = std::find_if(queries.begin(), queries.end(), [&](const std::string& q) {
      return q.find(fragment) != std::string::npos;
    });
    EXPECT_NE(found, queries.end()) << fragment;
    return found == queries.end() ? std::string("SELECT 1 WHERE false") : *found;
  };
  // The demo's robots press buttons: the tools-per-robot query names robot and tool.
  const fleet::PgResult tools = pg.exec(documented("jsonb_array_elements(tool_calls)"));
  ASSERT_GT(tools.rows(), 0);
  bool pressed = false;
  for (int i = 0; i < tools.rows(); ++i) {
    EXPECT_FALSE(tools.isNull(i, 0)) << "every call names its robot";
    pressed = pressed || tools.text(i, 1) == "press_button";
  }
  EXPECT_TRUE(pressed);
  // The GIN-indexed blob query reaches inside the tools offered.
  EXPECT_GT(pg.exec(documented("b.doc @>")).integer(0, 0), 0);
}

TEST_F(FleetShipTest, AShipperKilledMidwayResumesWithoutLossOrDoubles) {
  const std::string db = recordArchive("demo");
  const long long exchanges = sqliteCount(db, "SELECT count(*) FROM exchanges");
  AgentvcrProcess shipper(
      {"ship", "--db", db, "--to", fleet_db_->uri(), "--follow", "--batch", "1"});
  ASSERT_TRUE(waitUntil([&] { return fleet_db_->rows("exchanges") >= exchanges / 3; }, 60s));
  EXPECT_EQ(shipper.stop(SIGKILL), -SIGKILL);
  EXPECT_LT(fleet_db_->rows("exchanges"), exchanges) << "killed before the end";

  EXPECT_EQ(
      runAgentvcr({"ship", "--db", db, "--to", fleet_db_->uri()}, dir_.path().string()).status, 0);
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(db));
}

/// `agentvcr record --ship URI` as a process in front of the demo's agent, its stderr kept in
/// `log`; plays the demo through it and stops it with SIGTERM. Returns its exit status.
int recordAndShip(const std::string& db, const std::string& uri, const std::string& log,
                  const std::string& ready, const std::string& drain_s) {
  ScriptedAgentServer agent;
  AgentvcrProcess recorder(
      {"record", "--upstream", agent.url(), "--db", db, "--listen", "127.0.0.1:0", "--ready-file",
       ready, "--ship", uri, "--no-probe", "--ship-drain", drain_s},
      {}, log);
  const pid_t pid = recorder.pid();
  EXPECT_TRUE(waitUntil([&] { return !readLine(ready).empty(); }, 30s));
  // Shipping yields the CPU to the relay: it runs at the lowest priority.
  EXPECT_TRUE(waitUntil(
      [&] {
        const auto niceness = threadNicenessByName(std::to_string(pid));
        const auto ship = niceness.find("avcr-ship");
        return ship != niceness.end() && ship->second == 19;
      },
      10s));
  const std::string url = readLine(ready);
  const auto port = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  sim::magma::DemoDriver driver(demoPlan());
  drive(driver, port);
  return recorder.stop(SIGTERM);
}

TEST_F(FleetShipTest, RecordShipsWhatItRecordsAndRecordsOnWhenPostgresIsAway) {
  const std::string shipped = dir_.file("shipped.sqlite");
  EXPECT_EQ(
      recordAndShip(shipped, fleet_db_->uri(), dir_.file("up.log"), dir_.file("up.ready"), "60"),
      0);
  EXPECT_EQ(fleetCounts(*fleet_db_), archiveCounts(shipped)) << "SIGTERM ships what is left";
  EXPECT_GT(fleet_db_->rows("exchanges"), 5);

  // Unreachable at start: a warning, once, and the recording goes on.
  const std::string kept = dir_.file("kept.sqlite");
  const std::string log = dir_.file("down.log");
  EXPECT_EQ(recordAndShip(kept, "postgresql://agentvcr:Wr0ngSecret@127.0.0.1:1/postgres", log,
                          dir_.file("down.ready"), "1"),
            0);
  EXPECT_EQ(sqliteCount(kept, "SELECT count(*) FROM exchanges"),
            sqliteCount(shipped, "SELECT count(*) FROM exchanges"));
  std::ifstream file(log);
  const std::string err((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_THAT(err,
              AllOf(HasSubstr("[fleet.connect]"), HasSubstr("retrying"), Not(HasSubstr("Wr0ng"))));
  EXPECT_EQ(err.find("[fleet.connect]"), err.rfind("[fleet.connect]")) << err;
}

/// A cluster of the test's own, which it stops and starts again.
class OwnCluster {
 public:
  explicit OwnCluster(const std::string& dir) : dir_(dir) { start(); }

  ~OwnCluster() { run("remove"); }

  void start() { run("start"); }

  void stop() { run("stop"); }

  std::string uri() const { return readLine(dir_ + "/uri"); }

 private:
  void run(const char* action) {
    const std::string command =
        std::string(AGENTVCR_PG_CLUSTER) + " " + action + " " + dir_ + " >/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  std::string dir_;
};

TEST_F(FleetShipTest, AnOutageUnderLoadLosesNothingAndDoublesNothing) {
  OwnCluster cluster(dir_.file("cluster"));
  const FleetDatabase fleet_db(cluster.uri());
  const std::string db = dir_.file("buffer.sqlite");
  recordDemo(db, "before");

  std::vector<std::string> log;
  std::mutex log_mutex;
  fleet::ShipOptions options;
  options.db_path = db;
  options.uri = fleet_db.uri();
  options.follow = true;
  options.poll = 20ms;
  options.retry_first = 50ms;
  options.retry_max = 200ms;
  options.log = [&](const std::string& line) {
    std::lock_guard lock(log_mutex);
    log.push_back(line);
  };
  fleet::Shipper shipper(options);
  std::thread shipping([&] { shipper.run(); });
  const long long before = sqliteCount(db, "SELECT count(*) FROM exchanges");
  ASSERT_TRUE(waitUntil([&] { return fleet_db.rows("exchanges") == before; }, 60s));

  cluster.stop();
  // Recording goes on while PostgreSQL is away: two more sessions, at full speed.
  recordDemo(db, "during-1");
  recordDemo(db, "during-2");
  std::this_thread::sleep_for(500ms);  // several failed retries
  const long long all = sqliteCount(db, "SELECT count(*) FROM exchanges");
  // What --metrics-listen shows meanwhile: everything recorded since the outage, and how long.
  const fleet::ShipStats during = shipper.stats();
  EXPECT_EQ(static_cast<long long>(during.lag_exchanges), all - before);
  EXPECT_GE(during.lag, 500ms);
  cluster.start();

  ASSERT_TRUE(waitUntil(
      [&] {
        try {
          return fleet_db.rows("exchanges") == all;
        } catch (const fleet::PgError&) {
          return false;
        }
      },
      60s));
  EXPECT_TRUE(waitUntil(
      [&] {
        const fleet::ShipStats caught_up = shipper.stats();
        return caught_up.lag_exchanges == 0 && caught_up.lag.count() == 0;
      },
      10s));
  shipper.finish();
  shipping.join();
  EXPECT_EQ(fleetCounts(fleet_db), archiveCounts(db));
  EXPECT_EQ(shipper.stats().outages, 1u);
  std::lock_guard lock(log_mutex);
  // One message when it went away, one when it came back: not one per retry or per row.
  ASSERT_EQ(log.size(), 2u) << ::testing::PrintToString(log);
  EXPECT_THAT(log[1], HasSubstr("is back after"));
}

}  // namespace
}  // namespace agentvcr::testing
