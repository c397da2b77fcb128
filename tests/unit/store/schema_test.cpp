#include "agentvcr/store/schema.hpp"

#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zstd.h>

#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/recorder.hpp"
#include "agentvcr/store/step_links.hpp"
#include "agentvcr/store/timing.hpp"
#include "older_schema.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using protocol::Json;
using ::testing::HasSubstr;
using testing::queryInt;
using testing::queryText;
using testing::TempDir;
using testing::thrownMessage;

/// The v1 archive exactly as the first release created it (frozen; never edit).
constexpr const char* kV1Schema = R"sql(
CREATE TABLE sessions (
  id         INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  mode       TEXT    NOT NULL,
  upstream   TEXT    NOT NULL,
  listen     TEXT    NOT NULL,
  started_ns INTEGER NOT NULL,
  ended_ns   INTEGER
);
CREATE TABLE exchanges (
  id                     INTEGER PRIMARY KEY,
  session_id             INTEGER NOT NULL REFERENCES sessions(id),
  seq                    INTEGER NOT NULL,
  client_address         TEXT    NOT NULL,
  method                 TEXT    NOT NULL,
  target                 TEXT    NOT NULL,
  http_version           INTEGER NOT NULL,
  status                 INTEGER NOT NULL,
  request_headers        TEXT    NOT NULL,
  request_body           BLOB    NOT NULL,
  response_headers       TEXT    NOT NULL,
  response_body          BLOB    NOT NULL,
  response_from_upstream INTEGER NOT NULL,
  started_ns             INTEGER NOT NULL,
  upstream_first_byte_ns INTEGER,
  ended_ns               INTEGER,
  outcome                TEXT    NOT NULL,
  error                  TEXT
);
CREATE UNIQUE INDEX exchanges_session_seq ON exchanges(session_id, seq);
PRAGMA user_version = 1;
)sql";

/// What version 2 added, exactly as that release created it (frozen; never edit).
constexpr const char* kV2Schema = R"sql(
ALTER TABLE sessions ADD COLUMN agent_health TEXT;
ALTER TABLE sessions ADD COLUMN agent_info TEXT;
ALTER TABLE sessions ADD COLUMN agent_id TEXT;
ALTER TABLE sessions ADD COLUMN agent_version TEXT;
ALTER TABLE sessions ADD COLUMN exchange_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN step_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN candidate_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN internal_step_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN conversation_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN error_candidate_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN failed_exchange_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN invalid_exchange_count INTEGER NOT NULL DEFAULT 0;

ALTER TABLE exchanges ADD COLUMN request_body_redacted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE exchanges ADD COLUMN protocol TEXT NOT NULL DEFAULT 'http';
ALTER TABLE exchanges ADD COLUMN route TEXT NOT NULL DEFAULT 'none';
ALTER TABLE exchanges ADD COLUMN magma_request_id TEXT;
ALTER TABLE exchanges ADD COLUMN request_valid INTEGER;
ALTER TABLE exchanges ADD COLUMN response_valid INTEGER;
ALTER TABLE exchanges ADD COLUMN findings TEXT;
ALTER TABLE exchanges ADD COLUMN decoder_version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE blobs (
  hash INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);

CREATE TABLE conversations (
  id               INTEGER PRIMARY KEY,
  session_id       INTEGER NOT NULL REFERENCES sessions(id),
  root_step_id     INTEGER REFERENCES steps(id),
  title            TEXT,
  step_count       INTEGER NOT NULL DEFAULT 0,
  candidate_count  INTEGER NOT NULL DEFAULT 0,
  error_candidates INTEGER NOT NULL DEFAULT 0,
  env_failures     INTEGER NOT NULL DEFAULT 0,
  max_depth        INTEGER NOT NULL DEFAULT 0,
  first_ns         INTEGER,
  last_ns          INTEGER,
  ended_in         TEXT
);
CREATE INDEX conversations_session ON conversations(session_id, id);

CREATE TABLE steps (
  id                  INTEGER PRIMARY KEY,
  exchange_id         INTEGER NOT NULL REFERENCES exchanges(id),
  session_id          INTEGER NOT NULL REFERENCES sessions(id),
  position            INTEGER NOT NULL,
  source_id           INTEGER NOT NULL,
  replay_key          INTEGER NOT NULL,
  instruction_type    TEXT    NOT NULL,
  instruction_content TEXT    NOT NULL,
  env_feedback        TEXT,
  env_failure         INTEGER,
  memory_hash         INTEGER NOT NULL REFERENCES blobs(hash),
  tools_hash          INTEGER NOT NULL REFERENCES blobs(hash),
  attributes_hash     INTEGER NOT NULL REFERENCES blobs(hash),
  extra_keys_hash     INTEGER NOT NULL REFERENCES blobs(hash),
  num_outputs         INTEGER NOT NULL,
  conversation_id     INTEGER NOT NULL REFERENCES conversations(id),
  parent_candidate_id INTEGER REFERENCES candidates(id),
  parent_ambiguity    INTEGER NOT NULL DEFAULT 0,
  depth               INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX steps_exchange ON steps(exchange_id, position);
CREATE INDEX steps_conversation ON steps(conversation_id, id);
CREATE INDEX steps_replay_key ON steps(replay_key);
CREATE INDEX steps_parent ON steps(parent_candidate_id);

CREATE TABLE candidates (
  id                  INTEGER PRIMARY KEY,
  step_id             INTEGER NOT NULL REFERENCES steps(id),
  candidate_index     INTEGER NOT NULL,
  status              TEXT    NOT NULL,
  say                 TEXT,
  tool_calls          TEXT,
  decision_kind       TEXT,
  error_code          TEXT,
  error_message       TEXT,
  error_component     TEXT,
  memory_hash         INTEGER NOT NULL REFERENCES blobs(hash),
  internal_step_count INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX candidates_step ON candidates(step_id, candidate_index);

CREATE TABLE internal_steps (
  id           INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  position     INTEGER NOT NULL,
  step_key     TEXT,
  component    TEXT,
  origin       TEXT,
  full_prompt  TEXT,
  output_raw   TEXT,
  rest         TEXT    NOT NULL
);
CREATE UNIQUE INDEX internal_steps_candidate ON internal_steps(candidate_id, position);

CREATE VIEW step_inputs AS
SELECT s.id AS step_id,
       json_object('id', s.source_id,
                   'instruction', json_object('type', s.instruction_type,
                                              'content', s.instruction_content),
                   'tools', json(t.text), 'attributes', json(a.text), 'memory', json(m.text),
                   'num_outputs', s.num_outputs, 'extra_keys', json(x.text)) AS input
FROM steps s
JOIN blobs t ON t.hash = s.tools_hash
JOIN blobs a ON a.hash = s.attributes_hash
JOIN blobs m ON m.hash = s.memory_hash
JOIN blobs x ON x.hash = s.extra_keys_hash;

CREATE VIEW internal_steps_full AS
SELECT id, candidate_id, position, step_key, component, origin, full_prompt, output_raw,
       CASE WHEN output_raw IS NULL THEN b ELSE json_set(b, '$.output_raw', output_raw) END
         AS body
FROM (SELECT *, CASE WHEN full_prompt IS NULL THEN rest
                     ELSE json_set(rest, '$.full_prompt', full_prompt) END AS b
      FROM internal_steps);
PRAGMA user_version = 2;
)sql";

/// What version 3 added, exactly as that release created it (frozen; never edit).
constexpr const char* kV3Schema = R"sql(
CREATE TABLE replay_misses (
  id              INTEGER PRIMARY KEY,
  session_id      INTEGER NOT NULL REFERENCES sessions(id),
  at_ns           INTEGER NOT NULL,
  route           TEXT    NOT NULL,
  request_id      TEXT    NOT NULL,
  position        INTEGER NOT NULL,
  source_id       INTEGER,
  replay_key      INTEGER NOT NULL,
  input           TEXT    NOT NULL,
  closest_step_id INTEGER,
  differences     TEXT    NOT NULL,
  policy          TEXT    NOT NULL
);
CREATE INDEX replay_misses_session ON replay_misses(session_id, id);

CREATE INDEX exchanges_route ON exchanges(route, session_id);
PRAGMA user_version = 3;
)sql";

void createV1Archive(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(kV1Schema);
  db.exec(
      "INSERT INTO sessions (id, name, mode, upstream, listen, started_ns, ended_ns) VALUES "
      "(1, 'old', 'record', 'http://a', '127.0.0.1:1', 10, 20)");
  const std::string complete = protocol::outcomeName(protocol::ExchangeOutcome::Complete);
  const std::string timeout = protocol::outcomeName(protocol::ExchangeOutcome::UpstreamTimeout);
  db.exec(
      "INSERT INTO exchanges (session_id, seq, client_address, method, target, http_version, "
      "status, request_headers, request_body, response_headers, response_body, "
      "response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns, outcome, error) "
      "VALUES (1, 0, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'7B7D', '[]', X'5B5D', 1, "
      "11, 12, 13, '" +
      complete +
      "', NULL), (1, 1, 'c', 'GET', '/metrics', 11, 504, '[]', X'', '[]', X'', 0, 14, NULL, 15, '" +
      timeout + "', 'timeout')");
}

/// A version 2 archive with one session: a /v1/responses exchange with one step and its
/// candidate, and a /health exchange.
void createV2Archive(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  SQLite::Transaction tx(db);  // one sync, not one per statement
  db.exec(kV1Schema);
  db.exec(kV2Schema);
  db.exec(R"sql(
INSERT INTO sessions (id, name, mode, upstream, listen, started_ns, ended_ns, exchange_count,
                      step_count, candidate_count, conversation_count)
VALUES (1, 'v2', 'record', 'http://a', '127.0.0.1:1', 10, 20, 2, 1, 1, 1);
INSERT INTO exchanges (id, session_id, seq, client_address, method, target, http_version, status,
                       request_headers, request_body, response_headers, response_body,
                       response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns,
                       outcome, error, protocol, route, magma_request_id, request_valid,
                       response_valid, findings, decoder_version)
VALUES (1, 1, 0, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'7B7D',
        '[["content-type","application/json"]]', X'5B5D', 1, 11, 12, 13, 'complete', NULL,
        'magma', 'responses', 'r1', 1, 1, NULL, 1),
       (2, 1, 1, 'c', 'GET', '/health', 11, 200, '[]', X'', '[]', CAST('{"status":"ready"}' AS BLOB),
        1, 14, 15, 16, 'complete', NULL, 'magma', 'health', NULL, NULL, 1, NULL, 1);
INSERT INTO blobs (hash, text) VALUES (-5, '{"history":[]}'), (6, '[]'), (7, '{}');
INSERT INTO conversations (id, session_id, root_step_id, title, step_count, candidate_count)
VALUES (1, 1, 1, 'hello', 1, 1);
INSERT INTO steps (id, exchange_id, session_id, position, source_id, replay_key, instruction_type,
                   instruction_content, memory_hash, tools_hash, attributes_hash,
                   extra_keys_hash, num_outputs, conversation_id)
VALUES (1, 1, 1, 0, 4, -9, 'user', 'hello', -5, 6, 7, 7, 1, 1);
INSERT INTO candidates (id, step_id, candidate_index, status, say, tool_calls, decision_kind,
                        memory_hash)
VALUES (1, 1, 0, 'completed', 'hi', '[]', 'say', -5);
)sql");
  tx.commit();
}

/// A version 3 archive with two sessions and text in every searched field: a user step whose
/// candidate says something and calls a tool (with one internal step), an env step whose
/// candidate failed, and a step of the second session.
void createV3Archive(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  SQLite::Transaction tx(db);
  db.exec(kV1Schema);
  db.exec(kV2Schema);
  db.exec(kV3Schema);
  db.exec(R"sql(
INSERT INTO sessions (id, name, mode, upstream, listen, started_ns, ended_ns, exchange_count,
                      step_count, candidate_count, internal_step_count, conversation_count,
                      error_candidate_count)
VALUES (1, 'v3', 'record', 'http://a', '127.0.0.1:1', 10, 20, 2, 2, 2, 1, 1, 1),
       (2, 'v3-b', 'record', 'http://a', '127.0.0.1:1', 30, 40, 1, 1, 0, 0, 1, 0);
INSERT INTO exchanges (id, session_id, seq, client_address, method, target, http_version, status,
                       request_headers, request_body, response_headers, response_body,
                       response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns,
                       outcome, error, protocol, route, magma_request_id, request_valid,
                       response_valid, findings, decoder_version)
VALUES (1, 1, 0, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'7B7D', '[]', X'5B5D', 1, 11, 12,
        13, 'complete', NULL, 'magma', 'responses', 'r1', 1, 1, NULL, 1),
       (2, 1, 1, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'7B7D', '[]', X'5B5D', 1, 14, 15,
        16, 'complete', NULL, 'magma', 'responses', 'r2', 1, 1, NULL, 1),
       (3, 2, 0, 'c', 'POST', '/v1/responses', 11, 200, '[]', X'7B7D', '[]', X'5B5D', 1, 31, 32,
        33, 'complete', NULL, 'magma', 'responses', 'r3', 1, 1, NULL, 1);
INSERT INTO blobs (hash, text) VALUES (-5, '{"history":[]}'), (6, '[]'), (7, '{}');
INSERT INTO conversations (id, session_id, root_step_id, title, step_count, candidate_count)
VALUES (1, 1, 1, 'Please press the red button', 2, 2), (2, 2, 3, 'Press the blue button', 1, 0);
INSERT INTO steps (id, exchange_id, session_id, position, source_id, replay_key, instruction_type,
                   instruction_content, env_feedback, env_failure, memory_hash, tools_hash,
                   attributes_hash, extra_keys_hash, num_outputs, conversation_id,
                   parent_candidate_id, depth)
VALUES (1, 1, 1, 0, 4, -9, 'user', 'Please press the red button', NULL, NULL, -5, 6, 7, 7, 1, 1,
        NULL, 0),
       (2, 2, 1, 0, 4, -8, 'env', '{"infos":"panda: press_button failed: no such object"}',
        '{}', 1, -5, 6, 7, 7, 1, 1, 1, 1),
       (3, 3, 2, 0, 4, -7, 'user', 'Press the blue button', NULL, NULL, -5, 6, 7, 7, 1, 2, NULL,
        0);
INSERT INTO candidates (id, step_id, candidate_index, status, say, tool_calls, decision_kind,
                        error_code, error_message, error_component, memory_hash,
                        internal_step_count)
VALUES (1, 1, 0, 'completed', 'Pressing it now',
        '[{"arguments":{"id":"sw3"},"name":"press_button","target_robot_name":"panda"}]',
        'mixed', NULL, NULL, NULL, -5, 1),
       (2, 2, 0, 'error', NULL, NULL, NULL, 'invalid_output',
        'Model parser rejected its raw response', 'commander', -5, 0);
INSERT INTO internal_steps (id, candidate_id, position, step_key, component, origin, full_prompt,
                            output_raw, rest)
VALUES (1, 1, 0, 'step-0', 'commander', 'model', 'You control the robot panda',
        '<think>easy</think><tool_call>sw3</tool_call>', '{"id":"step-0"}');
)sql");
  tx.commit();
}

/// FTS5's own check of one index against its content table: throws when they differ.
void checkSearchIndex(const std::string& path, const std::string& table) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec("INSERT INTO " + table + " (" + table + ", rank) VALUES ('integrity-check', 1)");
}

void setUserVersion(const std::string& path, int version) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA user_version = " + std::to_string(version));
}

TEST(Schema, ConnectionsTurnOffSqlitesAllocationCount) {
  // ctest runs each test in a process of its own: this archive is SQLite's first use here.
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  migrateArchive(path);
  ArchiveReader reader(path);
  EXPECT_EQ(reader.sessions().size(), 0u);
  EXPECT_EQ(sqlite3_memory_used(), 0)
      << "SQLite still counts every allocation, under its process-wide mutex";
}

TEST(Schema, CreatesAFreshArchiveAtTheCurrentVersion) {
  TempDir dir;
  const std::string path = dir.file("a.sqlite");
  EXPECT_EQ(migrateArchive(path), 0);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryText(path, "PRAGMA journal_mode"), "wal");
  for (const char* table :
       {"sessions", "exchanges", "blobs", "conversations", "steps", "candidates", "internal_steps",
        "replay_misses", "search_steps", "search_candidates", "search_internal_steps",
        "search_a2a_calls", "a2a_calls", "stream_events", "step_links"}) {
    EXPECT_EQ(queryInt(path, std::string("SELECT count(*) FROM sqlite_master WHERE type = "
                                         "'table' AND name = '") +
                                 table + "'"),
              1)
        << table;
  }
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE type = 'view'"), 2);
  for (const char* index :
       {"steps_replay_key", "exchanges_route", "replay_misses_session", "steps_session",
        "candidates_error", "exchanges_latency", "step_links_recorded"}) {
    EXPECT_EQ(queryInt(path, std::string("SELECT count(*) FROM sqlite_master WHERE type = "
                                         "'index' AND name = '") +
                                 index + "'"),
              1)
        << index;
  }
  // Opening it again finds nothing to do.
  EXPECT_EQ(migrateArchive(path), kSchemaVersion);
}

TEST(Schema, MigratesAVersion1ArchiveAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  createV1Archive(path);

  EXPECT_EQ(migrateArchive(path), 1);

  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM exchanges"), 2);
  EXPECT_EQ(queryText(path, "SELECT protocol FROM exchanges WHERE seq = 0"), "magma");
  EXPECT_EQ(queryText(path, "SELECT route FROM exchanges WHERE seq = 0"),
            protocol::magma::routeName(protocol::magma::Route::Responses));
  EXPECT_EQ(queryText(path, "SELECT protocol FROM exchanges WHERE seq = 1"), "http");
  EXPECT_EQ(queryInt(path, "SELECT decoder_version FROM exchanges WHERE seq = 0"), 0);
  EXPECT_EQ(queryInt(path, "SELECT exchange_count FROM sessions WHERE id = 1"), 2);
  EXPECT_EQ(queryInt(path, "SELECT failed_exchange_count FROM sessions WHERE id = 1"), 1);

  ArchiveReader reader(path);
  ASSERT_EQ(reader.sessions().size(), 1u);
  std::vector<ExchangeRow> rows = reader.exchanges(1, 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].error.value_or(""), "timeout");
  EXPECT_FALSE(rows[1].upstream_first_byte_ns.has_value());
  std::optional<ExchangeRow> first = reader.exchange(rows[0].id);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->request_body, "{}");
  EXPECT_EQ(first->response_body, "[]");
}

TEST(Schema, RecorderMigratesAVersion1ArchiveAndAppendsASession) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  createV1Archive(path);
  {
    Recorder recorder(path, testing::testSession("new"), testing::testOptions());
    EXPECT_EQ(recorder.sessionId(), 2);
    testing::submit(recorder, testing::httpExchange("GET", "/x"));
  }
  ArchiveReader reader(path);
  std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[1].name, "new");
  EXPECT_EQ(sessions[1].exchange_count, 1);
  EXPECT_EQ(reader.exchanges(2, 0, 10).size(), 1u);
}

TEST(Schema, MigratesAVersion2ArchiveAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.file("v2.sqlite");
  createV2Archive(path);

  EXPECT_EQ(migrateArchive(path), 2);

  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM replay_misses"), 0);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'exchanges_route'"), 1);
  // Nothing of version 2 changed.
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM exchanges"), 2);
  EXPECT_EQ(queryInt(path, "SELECT decoder_version FROM exchanges WHERE id = 1"), 1);
  EXPECT_EQ(queryInt(path, "SELECT exchange_count FROM sessions WHERE id = 1"), 2);

  ArchiveReader reader(path);
  EXPECT_EQ(reader.schemaVersion(), kSchemaVersion);
  std::vector<ReplayStepRef> steps;
  reader.forEachReplayStep(ReplaySelection{},
                           [&](const ReplayStepRef& step) { steps.push_back(step); });
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].step_id, 1);
  EXPECT_EQ(steps[0].source_id, 4);
  EXPECT_EQ(steps[0].replay_key, static_cast<std::uint64_t>(-9));
  EXPECT_EQ(steps[0].memory_hash, static_cast<std::uint64_t>(-5));
  EXPECT_EQ(steps[0].candidate_count, 1);
  EXPECT_EQ(steps[0].exchange_status, 200);
  EXPECT_EQ(steps[0].response_valid, std::optional<bool>(true));
  std::vector<ExchangeRow> health = reader.exchangesOfRoute(ReplaySelection{}, "health");
  ASSERT_EQ(health.size(), 1u);
  EXPECT_EQ(health[0].response_body, R"({"status":"ready"})");
  EXPECT_TRUE(reader.replayMisses(1).empty());

  // A replay session records its misses into the migrated file.
  {
    Recorder recorder(path, testing::testSession("replay"), testing::testOptions());
    ReplayMissRow miss;
    miss.route = "responses";
    miss.input = "{}";
    miss.differences = "[]";
    miss.policy = "error";
    miss.closest_step_id = 1;
    EXPECT_TRUE(recorder.tryRecordReplayMiss(miss));
  }
  std::vector<ReplayMissRow> misses = reader.replayMisses(2);
  ASSERT_EQ(misses.size(), 1u);
  EXPECT_EQ(misses[0].closest_step_id, std::optional<std::int64_t>(1));
}

TEST(Schema, MigratesAVersion3ArchiveAndIndexesItsText) {
  TempDir dir;
  const std::string path = dir.file("v3.sqlite");
  createV3Archive(path);

  EXPECT_EQ(migrateArchive(path), 3);

  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  for (const char* table : {"search_steps", "search_candidates", "search_internal_steps"}) {
    EXPECT_NO_THROW(checkSearchIndex(path, table)) << table;
  }
  // Nothing of version 3 changed.
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM steps"), 3);
  EXPECT_EQ(queryText(path, "SELECT instruction_content FROM steps WHERE id = 1"),
            "Please press the red button");

  // The rows written before the migration are found, each in its field.
  ArchiveReader reader(path);
  auto only = [&](const std::string& text) {
    SearchQuery query;
    query.text = text;
    std::vector<SearchHit> hits = reader.search(query);
    EXPECT_EQ(hits.size(), 1u) << text;
    return hits.empty() ? SearchHit{} : hits[0];
  };
  SearchHit hit = only("red button");
  EXPECT_EQ(hit.step_id, 1);
  EXPECT_EQ(hit.conversation_id, 1);
  EXPECT_EQ(hit.session_id, 1);
  EXPECT_EQ(hit.field, "instruction");
  EXPECT_EQ(hit.snippet, "Please press the [red] [button]");
  hit = only("such object");
  EXPECT_EQ(hit.step_id, 2);
  EXPECT_EQ(hit.field, "env_feedback");
  hit = only("pressing");
  EXPECT_EQ(hit.step_id, 1);
  EXPECT_EQ(hit.field, "say");
  hit = only("parser rejected");
  EXPECT_EQ(hit.step_id, 2);
  EXPECT_EQ(hit.field, "error");
  hit = only("control robot");
  EXPECT_EQ(hit.step_id, 1);
  EXPECT_EQ(hit.field, "full_prompt");
  hit = only("easy");
  EXPECT_EQ(hit.step_id, 1);
  EXPECT_EQ(hit.field, "output_raw");
  hit = only("blue");
  EXPECT_EQ(hit.step_id, 3);
  EXPECT_EQ(hit.session_id, 2);

  // The new indexes serve the filters on the old rows.
  SearchQuery errors;
  errors.error_code = "invalid_output";
  std::vector<SearchHit> failed = reader.search(errors);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].step_id, 2);
  SearchQuery second;
  second.session_id = 2;
  std::vector<SearchHit> of_second = reader.search(second);
  ASSERT_EQ(of_second.size(), 1u);
  EXPECT_EQ(of_second[0].step_id, 3);
  EXPECT_EQ(reader.exchangeIdsOfConversation(1), (std::vector<std::int64_t>{1, 2}));

  // A recorder appends to the migrated file and indexes what it writes.
  {
    Recorder recorder(path, testing::testSession("new"), testing::testOptions());
    const Json body = testing::request(
        "r9", {testing::input(1, "user", "Press the yellow button", testing::memoryOf("y", 0))});
    testing::submit(recorder,
                    testing::magmaExchange(
                        body, Json::array({testing::sayOutput("r9", 1, 0, testing::memoryOf("y", 2),
                                                              "Yellow pressed")})));
  }
  hit = only("yellow");
  EXPECT_EQ(hit.step_id, 4);
  EXPECT_EQ(hit.session_id, 3);
  for (const char* table : {"search_steps", "search_candidates", "search_internal_steps"}) {
    EXPECT_NO_THROW(checkSearchIndex(path, table)) << table;
  }
}

TEST(Schema, MigratesAVersion5ArchiveAndLinksItsSteps) {
  TempDir dir;
  const std::string path = dir.file("v5.sqlite");
  const Json body = testing::request(
      "r1", {testing::input(1, "user", "Press the red button", testing::memoryOf("r", 0))});
  {
    RecorderOptions options = testing::testOptions();
    options.compress_bodies = false;  // version 5 stored bodies verbatim
    Recorder recorder(path, testing::testSession("recorded"), options);
    testing::submit(recorder, testing::magmaExchange(
                                  body, Json::array({testing::sayOutput(
                                            "r1", 1, 0, testing::memoryOf("r", 1), "Pressed")})));
  }
  // Shape the file as version 5 wrote it: no step_links, bodies verbatim without sizes.
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    ASSERT_EQ(db.execAndGet("SELECT count(*) FROM exchanges WHERE request_body_codec IS NOT NULL "
                            "OR response_body_codec IS NOT NULL")
                  .getInt(),
              0);
    agentvcr::testing::shapeAsVersion(db, 5);
  }
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }), HasSubstr("[store.schema.old]"));

  EXPECT_EQ(migrateArchive(path), 5);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM steps"), 1);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM step_links"), 0);
  writeStepLinks(path, {{1, 1}});
  EXPECT_EQ(ArchiveReader(path).stepLinksOfSession(1).size(), 1u);
  // Rows from before version 7: verbatim bodies, sizes from their length.
  const std::optional<ExchangeRow> row = ArchiveReader(path).exchange(1);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->request_body, body.dump());
  EXPECT_EQ(row->request_body_size, static_cast<std::int64_t>(body.dump().size()));
}

TEST(Schema, RefusesAnArchiveFromANewerVersion) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  migrateArchive(path);
  setUserVersion(path, kSchemaVersion + 1);

  EXPECT_THAT(thrownMessage([&] { migrateArchive(path); }), HasSubstr("[store.schema.newer]"));
  EXPECT_THAT(thrownMessage(
                  [&] { Recorder recorder(path, testing::testSession(), testing::testOptions()); }),
              HasSubstr("[store.schema.newer]"));
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }),
              HasSubstr("[store.schema.newer]"));
  // Nothing was written to it.
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion + 1);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sessions"), 0);
}

TEST(Schema, RefusesASqliteFileThatIsNotAnArchive) {
  TempDir dir;
  const std::string path = dir.file("other.sqlite");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE notes (x TEXT)");
  }
  EXPECT_THAT(thrownMessage([&] { migrateArchive(path); }), HasSubstr("[store.schema.foreign]"));
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }),
              HasSubstr("[store.schema.foreign]"));
}

TEST(Schema, RefusesAFileThatIsNotSqlite) {
  TempDir dir;
  const std::string path = dir.file("text.sqlite");
  std::ofstream(path) << "this is not a database, just some text that is long enough......."
                         "................................................................";
  EXPECT_THAT(thrownMessage([&] { migrateArchive(path); }), HasSubstr("[store.open]"));
  EXPECT_THAT(thrownMessage(
                  [&] { Recorder recorder(path, testing::testSession(), testing::testOptions()); }),
              HasSubstr("[store.open]"));
}

TEST(Schema, ReaderAsksToMigrateAnOlderArchive) {
  TempDir dir;
  const std::string v1 = dir.file("v1.sqlite");
  createV1Archive(v1);
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(v1); }), HasSubstr("[store.schema.old]"));
  const std::string v2 = dir.file("v2.sqlite");
  createV2Archive(v2);
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(v2); }), HasSubstr("[store.schema.old]"));
  const std::string v3 = dir.file("v3.sqlite");
  createV3Archive(v3);
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(v3); }), HasSubstr("[store.schema.old]"));
}

TEST(Schema, ReaderRefusesAMissingFile) {
  TempDir dir;
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(dir.file("missing.sqlite")); }),
              HasSubstr("[store.open]"));
}

/// Two sessions of MAGMA steps and A2A calls of both wire versions, recorded by this build with
/// bodies verbatim (what archives before version 7 held).
void recordMixedSessions(const std::string& path) {
  RecorderOptions options = testing::testOptions();
  options.compress_bodies = false;
  for (const char* name : {"first", "second"}) {
    Recorder recorder(path, testing::testSession(name), options);
    const Json body =
        testing::request("r1", {testing::input(1, "user", "press sw1", testing::memoryOf("r", 0))});
    testing::submit(recorder, testing::magmaExchange(
                                  body, Json::array({testing::sayOutput(
                                            "r1", 1, 0, testing::memoryOf("r", 1), "Pressed")})));
    testing::submit(
        recorder,
        testing::httpExchange(
            "POST", "/a2a",
            R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","contextId":"c03","parts":[{"kind":"text","text":"hi"}]}}})",
            200,
            R"({"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t03","contextId":"c03","status":{"state":"completed"}}})"));
    testing::submit(
        recorder,
        testing::httpExchange(
            "POST", "/a2a",
            R"({"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m2","contextId":"c10","parts":[{"text":"and?"}]}}})",
            200,
            R"({"jsonrpc":"2.0","id":2,"result":{"task":{"id":"t10","contextId":"c10","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}})"));
  }
}

class MigrationFromOlderVersion : public ::testing::TestWithParam<int> {};

TEST_P(MigrationFromOlderVersion, GivesEverySessionAnIdentityAndKeepsEveryRow) {
  const int version = GetParam();
  TempDir dir;
  const std::string path = dir.file("v" + std::to_string(version) + ".sqlite");
  recordMixedSessions(path);
  const std::int64_t exchanges = queryInt(path, "SELECT count(*) FROM exchanges");
  const std::int64_t steps = queryInt(path, "SELECT count(*) FROM steps");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, version);
  }
  EXPECT_THAT(thrownMessage([&] { ArchiveReader reader(path); }), HasSubstr("[store.schema.old]"));

  EXPECT_EQ(migrateArchive(path), version);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  const ArchiveReader reader(path);
  const std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  for (const SessionRow& session : sessions) {
    EXPECT_THAT(session.uuid,
                ::testing::MatchesRegex(
                    "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
    EXPECT_EQ(session.node, "unknown");
    EXPECT_EQ(session.recorder_version, std::nullopt);
    EXPECT_EQ(session.derived_from, std::nullopt);
  }
  EXPECT_NE(sessions[0].uuid, sessions[1].uuid);
  EXPECT_EQ(reader.counts().exchanges, exchanges);
  EXPECT_EQ(reader.counts().steps, steps);
  // Timing points never measured stay unknown, not zero.
  EXPECT_EQ(queryInt(path,
                     "SELECT count(*) FROM exchanges WHERE request_ended_ns IS NOT NULL "
                     "OR upstream_sent_ns IS NOT NULL OR fault IS NOT NULL"),
            0);
  const std::optional<ExchangeRow> first = reader.exchange(1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->request_ended_ns, std::nullopt);

  if (version >= 5) {
    // Both spellings of a task state now read the same.
    EXPECT_EQ(queryText(path,
                        "SELECT group_concat(task_state_norm, ',') FROM (SELECT "
                        "task_state_norm FROM a2a_calls ORDER BY id)"),
              "completed,input-required,completed,input-required");
    EXPECT_EQ(queryText(path,
                        "SELECT group_concat(task_state, ',') FROM (SELECT task_state "
                        "FROM a2a_calls ORDER BY id)"),
              "completed,TASK_STATE_INPUT_REQUIRED,completed,TASK_STATE_INPUT_REQUIRED");
    EXPECT_EQ(queryInt(path,
                       "SELECT count(*) FROM conversations WHERE protocol = 'a2a' AND "
                       "ended_in = 'input-required'"),
              2);
  }

  // The migrated archive records on: new sessions get this build's identity.
  Recorder recorder(path, testing::testSession("after"), testing::testOptions());
  recorder.close();
  EXPECT_EQ(ArchiveReader(path).sessions().back().recorder_version, agentvcrVersion());
}

INSTANTIATE_TEST_SUITE_P(Versions2To10, MigrationFromOlderVersion, ::testing::Range(2, 11),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return "V" + std::to_string(param.param);
                         });

TEST(Schema, MigratesAVersion12ArchiveWhoseCardsWentOutAsRecorded) {
  TempDir dir;
  const std::string path = dir.file("v12.sqlite");
  recordMixedSessions(path);
  const std::int64_t exchanges = queryInt(path, "SELECT count(*) FROM exchanges");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, 12);
  }
  EXPECT_EQ(migrateArchive(path), 12);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM exchanges WHERE card_rewrite IS NULL"), exchanges);
  EXPECT_EQ(ArchiveReader(path).exchange(1)->card_rewrite, std::nullopt);
}

TEST(Schema, MigratesAVersion13ArchiveWhoseLastAnswerBytesWereNeverMeasured) {
  TempDir dir;
  const std::string path = dir.file("v13.sqlite");
  recordMixedSessions(path);
  const std::int64_t exchanges = queryInt(path, "SELECT count(*) FROM exchanges");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, 13);
  }
  EXPECT_EQ(migrateArchive(path), 13);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM exchanges WHERE upstream_last_byte_ns IS NULL"),
            exchanges);
  const std::optional<ExchangeRow> row = ArchiveReader(path).exchange(1);
  ASSERT_TRUE(row.has_value());
  ASSERT_TRUE(row->upstream_first_byte_ns.has_value());
  EXPECT_EQ(row->upstream_last_byte_ns, std::nullopt);
  // Neither share after the first byte is known: none is made up from the other points.
  const TimingSplit split = timingSplit(*row);
  EXPECT_EQ(split.agent_body, std::nullopt);
  EXPECT_EQ(split.relay, std::nullopt);
}

TEST(Schema, MigratesAVersion14ArchiveToOneThatLinksA2aCalls) {
  TempDir dir;
  const std::string path = dir.file("v14.sqlite");
  recordMixedSessions(path);
  const std::int64_t calls = queryInt(path, "SELECT count(*) FROM a2a_calls");
  ASSERT_GE(calls, 2);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, 14);
  }
  EXPECT_EQ(migrateArchive(path), 14);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM call_links"), 0);
  // The migrated archive links calls, and counts them among its session's links.
  writeCallLinks(path, {{2, 1}});
  const ArchiveReader reader(path);
  const std::int64_t session = reader.a2aCall(2)->session_id;
  EXPECT_EQ(reader.callLinksOfSession(session).size(), 1u);
  EXPECT_EQ(queryInt(path, "SELECT link_count FROM sessions WHERE id = " + std::to_string(session)),
            1);
}

TEST(Schema, MigratesAVersion15ArchiveItsMagmaBodiesIntoSegmentsByteForByte) {
  TempDir dir;
  const std::string path = dir.file("v15.sqlite");
  std::vector<protocol::Exchange> sent;
  for (int turn = 0; turn < 20; ++turn) {
    sent.push_back(testing::magmaExchange(
        testing::request("r" + std::to_string(turn),
                         {testing::input(1, "user", "Press sw3", testing::memoryOf("e", turn))}),
        Json::array({testing::sayOutput("r" + std::to_string(turn), 1, 0,
                                        testing::memoryOf("e", turn + 1), "Pressed")})));
  }
  sent.push_back(testing::httpExchange("POST", "/other", "plain", 200, "answer"));
  {
    Recorder recorder(path, testing::testSession(), testing::testOptions());
    for (const protocol::Exchange& ex : sent) {
      testing::submit(recorder, ex);
    }
  }
  const std::string uuid = queryText(path, "SELECT uuid FROM sessions");
  const std::int64_t steps = queryInt(path, "SELECT count(*) FROM steps");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    agentvcr::testing::shapeAsVersion(db, 15);
    // As an older recorder kept it: the third request against the second as a dictionary.
    const std::string& dictionary = sent[1].request_body;
    const std::string& body = sent[2].request_body;
    std::string frame(ZSTD_compressBound(body.size()), '\0');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    frame.resize(ZSTD_compress_usingDict(cctx, frame.data(), frame.size(), body.data(), body.size(),
                                         dictionary.data(), dictionary.size(), 1));
    ZSTD_freeCCtx(cctx);
    SQLite::Statement insert(db,
                             "INSERT INTO body_dictionaries (id, content, size) VALUES (7, ?, ?)");
    insert.bind(1, dictionary.data(), static_cast<int>(dictionary.size()));
    insert.bind(2, static_cast<std::int64_t>(dictionary.size()));
    insert.exec();
    SQLite::Statement update(db,
                             "UPDATE exchanges SET request_body = ?, request_body_codec = "
                             "'zstd', request_body_dictionary = 7 WHERE seq = 2");
    update.bind(1, frame.data(), static_cast<int>(frame.size()));
    update.exec();
  }
  ASSERT_EQ(queryText(path, "SELECT request_body_codec FROM exchanges WHERE seq = 2"), "zstd");
  const std::int64_t bytes_before =
      queryInt(path, "SELECT sum(length(request_body) + length(response_body)) FROM exchanges");

  EXPECT_EQ(migrateArchive(path), 15);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), kSchemaVersion);
  // Every MAGMA body is now in its route's segments, the dictionary gone; plain HTTP as it was.
  EXPECT_EQ(queryInt(path,
                     "SELECT count(*) FROM exchanges WHERE request_body_codec = "
                     "'zstd-segment' AND response_body_codec = 'zstd-segment'"),
            20);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM body_segments"), 2);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM body_dictionaries"), 0);
  EXPECT_EQ(queryText(path,
                      "SELECT coalesce(request_body_codec, 'none') FROM exchanges WHERE "
                      "seq = 20"),
            "none");
  EXPECT_LT(
      queryInt(path, "SELECT sum(length(request_body) + length(response_body)) FROM exchanges"),
      bytes_before / 4);
  // The same session, ids and rows, and every body byte for byte.
  EXPECT_EQ(queryText(path, "SELECT uuid FROM sessions"), uuid);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM steps"), steps);
  ArchiveReader reader(path);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const std::optional<ExchangeRow> row = reader.exchange(
        queryInt(path, "SELECT id FROM exchanges WHERE seq = " + std::to_string(i)));
    ASSERT_TRUE(row);
    EXPECT_EQ(row->request_body, sent[i].request_body) << "seq " << i;
    EXPECT_EQ(row->response_body, sent[i].response_body) << "seq " << i;
  }
}

TEST(SessionIdentity, ANewSessionGetsAUuidTheHostNameAndThisVersion) {
  TempDir dir;
  const std::string path = dir.file("archive.sqlite");
  {
    Recorder recorder(path, testing::testSession("plain"), testing::testOptions());
    SessionInfo named = testing::testSession("named");
    named.node = "lab-7";
    Recorder other(path, named, testing::testOptions());
  }
  const std::vector<SessionRow> sessions = ArchiveReader(path).sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].node, localNodeName());
  EXPECT_EQ(sessions[1].node, "lab-7");
  EXPECT_EQ(sessions[0].recorder_version, agentvcrVersion());
  EXPECT_NE(sessions[0].uuid, sessions[1].uuid);
  EXPECT_EQ(shortUuid(sessions[0].uuid), sessions[0].uuid.substr(0, 8));

  // A uuid is unique in an archive: a second session claiming one is refused.
  SessionInfo clash = testing::testSession("clash");
  clash.uuid = sessions[0].uuid;
  EXPECT_THROW(Recorder(path, clash, testing::testOptions()), std::exception);
}

}  // namespace
}  // namespace agentvcr::store
