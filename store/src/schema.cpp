#include "agentvcr/store/schema.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>
#include <unistd.h>

#include "agentvcr/protocol/a2a.hpp"
#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/protocol/magma.hpp"
#include "agentvcr/store/identity.hpp"
#include "schema_internal.hpp"
#include "sqlite_support.hpp"
#include "yielding_vfs.hpp"

namespace agentvcr::store {
namespace detail {
namespace {

// Version 1: the raw recording. Kept verbatim forever: it is how old files were created.
constexpr const char* kSchemaV1 = R"sql(
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
)sql";

// Version 2: MAGMA decoding (steps, candidates, internal steps), conversation threading,
// content-addressed blobs, validation flags, agent identity and per-session counters.
constexpr const char* kSchemaV2 = R"sql(
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
)sql";

// Version 3: replay. `replay_misses` records what a replay session could not answer;
// `exchanges_route` serves replay's lookups of the health, info and coaching exchanges without
// reading every recorded body.
constexpr const char* kSchemaV3 = R"sql(
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
)sql";

// Version 4: search. Full-text indexes over what a person searches for, as FTS5 tables with
// external content: the text stays in its own table (no copy; prompts are the biggest text of
// an archive) and each index row's rowid is the id of the row it indexes. The writer adds the
// index rows in the batch's transaction; 'rebuild' indexes the rows written before this step.
// `steps_session` serves the session filter and bounds a search to a session's steps;
// `candidates_error`, partial, serves the status and error-code filters and costs a write only
// for an error candidate (`status` is in it so that it covers those queries: SQLite does not
// take the value from the index's WHERE); `exchanges_latency` finds the slow exchanges of the
// latency filter.
constexpr const char* kSchemaV4 = R"sql(
CREATE VIRTUAL TABLE search_steps USING fts5(
  instruction_content, content='steps', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE search_candidates USING fts5(
  say, error_message, content='candidates', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE search_internal_steps USING fts5(
  full_prompt, output_raw, content='internal_steps', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
INSERT INTO search_steps(search_steps) VALUES ('rebuild');
INSERT INTO search_candidates(search_candidates) VALUES ('rebuild');
INSERT INTO search_internal_steps(search_internal_steps) VALUES ('rebuild');

CREATE INDEX steps_session ON steps(session_id, id);
CREATE INDEX candidates_error ON candidates(step_id, error_code, status) WHERE status = 'error';
CREATE INDEX exchanges_latency ON exchanges(ended_ns - started_ns);
)sql";

// Version 5: A2A JSON-RPC and event streams. `a2a_calls` holds one row per JSON-RPC call (a
// batch gives several per exchange) with the fields a person filters on; the bodies stay in
// `exchanges`. A2A conversations are rows of `conversations` with protocol 'a2a', threaded by
// `context_id`. `stream_events` keeps every event of a text/event-stream response with the time
// it arrived, whatever the protocol.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE conversations ADD COLUMN protocol TEXT NOT NULL DEFAULT 'magma';
ALTER TABLE conversations ADD COLUMN context_id TEXT;
CREATE INDEX conversations_context ON conversations(session_id, context_id)
  WHERE context_id IS NOT NULL;

CREATE TABLE a2a_calls (
  id              INTEGER PRIMARY KEY,
  exchange_id     INTEGER NOT NULL REFERENCES exchanges(id),
  session_id      INTEGER NOT NULL REFERENCES sessions(id),
  position        INTEGER NOT NULL,
  wire_version    TEXT    NOT NULL,
  method          TEXT,
  rpc_id          TEXT,
  task_id         TEXT,
  context_id      TEXT,
  skill_id        TEXT,
  message_id      TEXT,
  task_state      TEXT,
  result_kind     TEXT,
  artifacts       TEXT,
  history         TEXT,
  request_text    TEXT,
  response_text   TEXT,
  error_code      INTEGER,
  error_message   TEXT,
  error_data      TEXT,
  retry_after     REAL,
  replay_key      INTEGER NOT NULL,
  conversation_id INTEGER REFERENCES conversations(id)
);
CREATE UNIQUE INDEX a2a_calls_exchange ON a2a_calls(exchange_id, position);
CREATE INDEX a2a_calls_conversation ON a2a_calls(conversation_id, id);
CREATE INDEX a2a_calls_task ON a2a_calls(session_id, task_id) WHERE task_id IS NOT NULL;

CREATE TABLE stream_events (
  id          INTEGER PRIMARY KEY,
  exchange_id INTEGER NOT NULL REFERENCES exchanges(id),
  position    INTEGER NOT NULL,
  at_ns       INTEGER NOT NULL,
  event       TEXT,
  event_id    TEXT,
  data        TEXT    NOT NULL
);
CREATE UNIQUE INDEX stream_events_exchange ON stream_events(exchange_id, position);
)sql";

// Version 6: evaluation. `step_links` ties each step an `agentvcr eval` run stored to the
// recorded step it re-asked, so that a recorded conversation and its re-evaluation can be put
// side by side; the index finds the evaluations of a recorded step.
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE step_links (
  step_id          INTEGER PRIMARY KEY REFERENCES steps(id),
  recorded_step_id INTEGER NOT NULL REFERENCES steps(id)
);
CREATE INDEX step_links_recorded ON step_links(recorded_step_id);
)sql";

// Version 7: compressed bodies (body_compression.hpp). A body of 256 bytes or more is kept as a
// zstd frame when that saves an eighth; the codec columns say which, and the size columns keep
// the length on the wire. Rows written before are verbatim with NULL sizes (readers fall back on
// length()).
constexpr const char* kSchemaV7 = R"sql(
ALTER TABLE exchanges ADD COLUMN request_body_codec TEXT;
ALTER TABLE exchanges ADD COLUMN response_body_codec TEXT;
ALTER TABLE exchanges ADD COLUMN request_body_size INTEGER;
ALTER TABLE exchanges ADD COLUMN response_body_size INTEGER;
)sql";

// Version 8: capture first, index behind. The recorder commits each exchange as it was relayed
// (redacted, compressed) with indexed = 0, and decodes it into steps, calls and search rows
// afterwards; `response_arrivals` keeps an event stream's piece times until then. A row still at
// 0 after a crash is indexed the next time a recorder or `agentvcr migrate` opens the archive.
constexpr const char* kSchemaV8 = R"sql(
ALTER TABLE exchanges ADD COLUMN indexed INTEGER NOT NULL DEFAULT 1;
ALTER TABLE exchanges ADD COLUMN response_arrivals TEXT;
CREATE INDEX exchanges_unindexed ON exchanges(id) WHERE indexed = 0;
)sql";

// Version 9: smaller archives. MAGMA bodies are compressed against an earlier body of their
// stream, kept in `body_dictionaries` (body_dictionaries.hpp); the *_body_dictionary columns
// name it. A step's input memory and a candidate's returned memory are distinct on nearly every
// step of an episode, so the indexer keeps them as zstd frames like bodies; `blobs.codec` says
// which ('zstd' or NULL). Tools, attributes and extra keys stay verbatim. step_inputs cannot
// decompress: it gives a compressed memory as null and says so in `memory_compressed`.
constexpr const char* kSchemaV9 = R"sql(
CREATE TABLE body_dictionaries (
  id      INTEGER PRIMARY KEY,
  content BLOB    NOT NULL,
  codec   TEXT,
  size    INTEGER NOT NULL
);
ALTER TABLE exchanges ADD COLUMN request_body_dictionary INTEGER
  REFERENCES body_dictionaries(id);
ALTER TABLE exchanges ADD COLUMN response_body_dictionary INTEGER
  REFERENCES body_dictionaries(id);
ALTER TABLE blobs ADD COLUMN codec TEXT;
DROP VIEW step_inputs;
CREATE VIEW step_inputs AS
SELECT s.id AS step_id,
       json_object('id', s.source_id,
                   'instruction', json_object('type', s.instruction_type,
                                              'content', s.instruction_content),
                   'tools', json(t.text), 'attributes', json(a.text),
                   'memory', json(CASE WHEN m.codec IS NULL THEN m.text END),
                   'num_outputs', s.num_outputs, 'extra_keys', json(x.text)) AS input,
       m.codec IS NOT NULL AS memory_compressed
FROM steps s
JOIN blobs t ON t.hash = s.tools_hash
JOIN blobs a ON a.hash = s.attributes_hash
JOIN blobs m ON m.hash = s.memory_hash
JOIN blobs x ON x.hash = s.extra_keys_hash;
)sql";

// Version 10: A2A calls searchable, and less for the capture to write. `search_a2a_calls`
// indexes the text of each call (what was asked, what came back, the error) like the MAGMA
// tables; 'rebuild' indexes the calls written before this step. `exchanges_latency` now holds
// indexed exchanges only: a capture commit adds rows whose latencies fall anywhere in the
// index, so it dirtied a page of it per exchange (and the checkpoint copied each one); the index
// thread, which sets `indexed`, adds them instead, behind the capture. Search only looks at
// indexed exchanges anyway: steps and calls exist only for those.
constexpr const char* kSchemaV10 = R"sql(
DROP INDEX exchanges_latency;
CREATE INDEX exchanges_latency ON exchanges(ended_ns - started_ns) WHERE indexed = 1;
CREATE VIRTUAL TABLE search_a2a_calls USING fts5(
  request_text, response_text, error_message, content='a2a_calls', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
INSERT INTO search_a2a_calls(search_a2a_calls) VALUES ('rebuild');
)sql";

// Version 11: identities that survive copying, the timing points of the relay, injected faults
// and one vocabulary of A2A task states. Rows written before get their uuid, and their
// task_state_norm, from afterV11; their node is `unknown`; their version, derivation and the two
// new timing points stay NULL (never measured). `exchanges_fault` is partial: exchanges without a
// fault, nearly all of them, cost the capture nothing.
constexpr const char* kSchemaV11 = R"sql(
ALTER TABLE sessions ADD COLUMN uuid TEXT;
ALTER TABLE sessions ADD COLUMN node TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE sessions ADD COLUMN recorder_version TEXT;
ALTER TABLE sessions ADD COLUMN derived_from TEXT;
ALTER TABLE exchanges ADD COLUMN request_ended_ns INTEGER;
ALTER TABLE exchanges ADD COLUMN upstream_sent_ns INTEGER;
ALTER TABLE exchanges ADD COLUMN fault TEXT;
CREATE INDEX exchanges_fault ON exchanges(session_id, fault) WHERE fault IS NOT NULL;
ALTER TABLE a2a_calls ADD COLUMN task_state_norm TEXT;
CREATE INDEX a2a_calls_state ON a2a_calls(session_id, task_state_norm);
)sql";

/// SQL function agentvcr_mint_uuid(): a fresh uuid per row (mintUuid()).
void mintUuidInSql(sqlite3_context* context, int /*argc*/, sqlite3_value** /*argv*/) {
  try {
    const std::string uuid = mintUuid();
    sqlite3_result_text(context, uuid.data(), static_cast<int>(uuid.size()), SQLITE_TRANSIENT);
  } catch (const std::exception& e) {
    sqlite3_result_error(context, e.what(), -1);  // no exception may cross SQLite's C frames
  }
}

/// SQL function agentvcr_task_state(TEXT): protocol::a2a::normalTaskState, NULL for NULL.
void normalTaskStateInSql(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  if (text == nullptr) {
    sqlite3_result_null(context);
    return;
  }
  const std::string_view state = protocol::a2a::normalTaskState(
      std::string_view(text, static_cast<std::size_t>(sqlite3_value_bytes(argv[0]))));
  // The normal names are string literals: SQLite may keep pointing at them.
  sqlite3_result_text(context, state.data(), static_cast<int>(state.size()), SQLITE_STATIC);
}

/// Fills the identity and normal states of rows written before version 11, through the C++ that
/// computes them for new rows, called from SQL once per row.
void afterV11(SQLite::Database& db) {
  sqlite3* handle = db.getHandle();
  if (sqlite3_create_function_v2(handle, "agentvcr_mint_uuid", 0, SQLITE_UTF8, nullptr,
                                 &mintUuidInSql, nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_create_function_v2(handle, "agentvcr_task_state", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, &normalTaskStateInSql,
                                 nullptr, nullptr, nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("cannot register the migration's functions: ") +
                             sqlite3_errmsg(handle));
  }
  db.exec(R"sql(
    UPDATE sessions SET uuid = agentvcr_mint_uuid() WHERE uuid IS NULL;
    CREATE UNIQUE INDEX sessions_uuid ON sessions(uuid);
    UPDATE a2a_calls SET task_state_norm = agentvcr_task_state(task_state)
      WHERE task_state IS NOT NULL;
    UPDATE conversations SET ended_in = agentvcr_task_state(ended_in)
      WHERE protocol = 'a2a' AND ended_in IS NOT NULL AND ended_in <> 'error';
  )sql");
}

/// Fills what v1 rows lack: protocol and route from method and target, session counters.
void afterV2(SQLite::Database& db) {
  SQLite::Statement select(db, "SELECT id, method, target FROM exchanges");
  SQLite::Statement update(
      db, "UPDATE exchanges SET protocol = :protocol, route = :route WHERE id = :id");
  const NamedColumns c(select);
  while (select.executeStep()) {
    std::string method = c.get("method").getString();
    std::string target = c.get("target").getString();
    auto route = protocol::magma::routeOf(method, target);
    update.bind(":protocol", std::string(route == protocol::magma::Route::None ? "http" : "magma"));
    update.bind(":route", std::string(protocol::magma::routeName(route)));
    bindInt(update, ":id", c.get("id").getInt64());
    execOnce(update);
  }
  SQLite::Statement counters(db, R"sql(
    UPDATE sessions SET
      exchange_count = (SELECT count(*) FROM exchanges e WHERE e.session_id = sessions.id),
      failed_exchange_count = (SELECT count(*) FROM exchanges e WHERE e.session_id = sessions.id
                               AND (e.outcome <> :complete OR e.status >= 400)))sql");
  counters.bind(":complete",
                std::string(protocol::outcomeName(protocol::ExchangeOutcome::Complete)));
  execOnce(counters);
}

// Version 12: what changed, for the readers that follow an archive while it is written (the
// fleet shipper, the live OTLP exporter: store/change_feed.hpp). Every write such a reader must
// see moves its session's feed_tick one past the archive's highest, so that a reader asks only
// for the sessions whose tick passed the last one it saw: its polling costs what changed, not
// what the archive holds. The writers update a session's row once per batch they commit, so the
// triggers run once per batch. A session counts its replay misses (a trigger) and its step links
// (writeStepLinks(), which may replace a link).
constexpr const char* kSchemaV12 = R"sql(
ALTER TABLE sessions ADD COLUMN feed_tick INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN miss_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN link_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET feed_tick = id,
  miss_count = (SELECT count(*) FROM replay_misses m WHERE m.session_id = sessions.id),
  link_count = (SELECT count(*) FROM step_links l JOIN steps s ON s.id = l.step_id
                WHERE s.session_id = sessions.id);
CREATE INDEX sessions_feed_tick ON sessions(feed_tick);
CREATE TRIGGER sessions_fed_insert AFTER INSERT ON sessions BEGIN
  UPDATE sessions SET feed_tick = (SELECT max(feed_tick) FROM sessions) + 1 WHERE id = NEW.id;
END;
CREATE TRIGGER sessions_fed_update AFTER UPDATE OF
    name, mode, upstream, listen, started_ns, ended_ns, agent_health, agent_info, agent_id,
    agent_version, exchange_count, step_count, candidate_count, internal_step_count,
    conversation_count, error_candidate_count, failed_exchange_count, invalid_exchange_count, uuid,
    node, recorder_version, derived_from, miss_count, link_count
  ON sessions BEGIN
  UPDATE sessions SET feed_tick = (SELECT max(feed_tick) FROM sessions) + 1 WHERE id = NEW.id;
END;
CREATE TRIGGER replay_misses_counted AFTER INSERT ON replay_misses BEGIN
  UPDATE sessions SET miss_count = miss_count + 1 WHERE id = NEW.session_id;
END;
)sql";

// Version 13: the note of an answer the recorder changed on its way to the client (an agent card
// pointed at the recorder: docs/record.md, "Agent cards"); the archive keeps the agent's bytes.
constexpr const char* kSchemaV13 = R"sql(
ALTER TABLE exchanges ADD COLUMN card_rewrite TEXT;
)sql";

// Version 14: the last byte of the agent's answer, read by the relay: it splits the time after
// the first byte into the agent writing its answer and agentvcr relaying it (store::timingSplit).
// Rows already there get NULL: never measured.
constexpr const char* kSchemaV14 = R"sql(
ALTER TABLE exchanges ADD COLUMN upstream_last_byte_ns INTEGER;
)sql";

// Version 15: A2A calls linked as steps are. `call_links` ties each A2A call a fork or an
// evaluation sent again to the recorded call it continues (store/step_links.hpp); a session's
// link_count counts both kinds, so that the change feed ships them alike.
constexpr const char* kSchemaV15 = R"sql(
CREATE TABLE call_links (
  call_id          INTEGER PRIMARY KEY REFERENCES a2a_calls(id),
  recorded_call_id INTEGER NOT NULL REFERENCES a2a_calls(id)
);
CREATE INDEX call_links_recorded ON call_links(recorded_call_id);
)sql";

// Version 16: an archive that keeps what is new. MAGMA bodies as segments of one zstd stream
// per route (body_segments.hpp): a segment's frame starts from the keyframe of the segment it
// names, or from nothing. An internal step's prompt read from the response body that holds it
// (`full_prompt_at`), and searched by what it adds to the prompt it continues (`prompt_new`,
// `prompt_parent_id`: prompt_deltas.hpp). A memory kept as a reference into the body that holds
// it (`blobs.codec = 'body'`). convertToVersion16() converts the rows already there.
constexpr const char* kSchemaV16 = R"sql(
CREATE TABLE body_segments (
  id                INTEGER PRIMARY KEY,
  prefix_segment_id INTEGER REFERENCES body_segments(id)
);
ALTER TABLE exchanges ADD COLUMN body_segment_id INTEGER REFERENCES body_segments(id);
CREATE INDEX exchanges_body_segment ON exchanges(body_segment_id, id)
  WHERE body_segment_id IS NOT NULL;
ALTER TABLE internal_steps ADD COLUMN full_prompt_at INTEGER;
ALTER TABLE internal_steps ADD COLUMN prompt_new TEXT;
ALTER TABLE internal_steps ADD COLUMN prompt_parent_id INTEGER;
CREATE INDEX internal_steps_prompt_parent ON internal_steps(prompt_parent_id)
  WHERE prompt_parent_id IS NOT NULL;
ALTER TABLE blobs ADD COLUMN body_exchange_id INTEGER;
ALTER TABLE blobs ADD COLUMN body_side INTEGER;
ALTER TABLE blobs ADD COLUMN body_at INTEGER;
ALTER TABLE blobs ADD COLUMN body_end INTEGER;
DROP TABLE search_internal_steps;
CREATE VIRTUAL TABLE search_internal_steps USING fts5(
  prompt_new, output_raw, content='internal_steps', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
)sql";

struct Migration {
  int to_version;
  const char* sql;
  void (*after)(SQLite::Database&);
};

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list = {
      {1, kSchemaV1, nullptr},     {2, kSchemaV2, &afterV2},
      {3, kSchemaV3, nullptr},     {4, kSchemaV4, nullptr},
      {5, kSchemaV5, nullptr},     {6, kSchemaV6, nullptr},
      {7, kSchemaV7, nullptr},     {8, kSchemaV8, nullptr},
      {9, kSchemaV9, nullptr},     {10, kSchemaV10, nullptr},
      {11, kSchemaV11, &afterV11}, {12, kSchemaV12, nullptr},
      {13, kSchemaV13, nullptr},   {14, kSchemaV14, nullptr},
      {15, kSchemaV15, nullptr},   {16, kSchemaV16, &convertToVersion16},
  };
  return list;
}

bool hasUserTables(SQLite::Database& db) {
  SQLite::Statement q(
      db, "SELECT count(*) AS tables FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'");
  q.executeStep();
  return column(q, "tables").getInt64() > 0;
}

}  // namespace

int schemaVersionOf(SQLite::Database& db) {
  SQLite::Statement q(db, "PRAGMA user_version");
  q.executeStep();
  return column(q, "user_version").getInt();
}

int prepareArchive(SQLite::Database& db, const std::string& path) {
  static_assert(kSchemaVersion == 16, "add a migration step for the new version");
  // journal_mode cannot change inside a transaction; it is persistent once set.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA foreign_keys = ON");

  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  // Read the version under the write lock: two processes opening a new file at once migrate it
  // once.
  const int before = schemaVersionOf(db);
  if (before > kSchemaVersion) {
    throw std::runtime_error("[store.schema.newer] " + path + " has archive schema version " +
                             std::to_string(before) + "; this agentvcr reads up to version " +
                             std::to_string(kSchemaVersion) + ": use a newer agentvcr");
  }
  if (before == 0 && hasUserTables(db)) {
    throw std::runtime_error("[store.schema.foreign] " + path +
                             " is a SQLite database but not an agentvcr archive");
  }
  if (before < 0) {
    throw std::runtime_error("[store.schema.foreign] " + path + " has schema version " +
                             std::to_string(before));
  }
  if (before == kSchemaVersion) {
    return before;  // nothing to write; the transaction rolls back harmlessly
  }
  for (const Migration& m : migrations()) {
    if (m.to_version <= before) {
      continue;
    }
    db.exec(m.sql);
    if (m.after != nullptr) {
      m.after(db);
    }
  }
  db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  tx.commit();
  return before;
}

SQLite::Database openDatabase(const std::string& path, int flags,
                              std::chrono::milliseconds busy_timeout, Vfs vfs) {
  // SQLite counts every allocation under one process-wide mutex, for sqlite3_memory_used(),
  // which agentvcr never asks; the recorder's threads allocate constantly. The count can only
  // be turned off before SQLite initializes: on the first connection (later, SQLite refuses
  // and nothing changes).
  static const int memory_statistics_off = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)memory_statistics_off;
  try {
    // After the line above: finding the default VFS to wrap initializes SQLite.
    const char* vfs_name = vfs == Vfs::Yielding ? yieldingVfsName() : nullptr;
    return SQLite::Database(path.c_str(), flags, static_cast<int>(busy_timeout.count()), vfs_name);
  } catch (const std::exception& e) {
    throw std::runtime_error("[store.open] cannot open archive " + path + ": " + e.what());
  }
}

LeavesNoWal::~LeavesNoWal() {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(path_ + "-shm", error)) {
    return;  // nothing made, or read immutable
  }
  const std::uintmax_t log_bytes = fs::file_size(path_ + "-wal", error);
  if (!error && log_bytes != 0) {
    return;  // committed pages not yet in the file: a writer's to move, not a reader's
  }
  try {
    // Without OPEN_CREATE: a file removed meanwhile is not made again. The read opens the log.
    SQLite::Database tidy(path_, SQLite::OPEN_READWRITE);
    tidy.exec("PRAGMA schema_version");
  } catch (const std::exception&) {
    // A damaged file fails the read after the log was opened: closing still removes it.
  }
}

std::string damageHint(const std::string& path, const SQLite::Exception& error) {
  const int primary = error.getErrorCode() & 0xff;
  if (primary != SQLITE_CORRUPT && primary != SQLITE_NOTADB) {
    return {};
  }
  return " (the file is damaged: restore a copy, or save what it still holds with `sqlite3 " +
         path + " .recover | sqlite3 recovered.sqlite`)";
}

std::string readError(const std::string& path, const SQLite::Exception& error) {
  return "[store.read] " + path + ": " + error.what() + damageHint(path, error);
}

namespace {

/// `path` as a SQLite URI that opens it immutable: percent-escaped where a URI needs it.
std::string immutableUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += '%';
      uri += kHex[static_cast<unsigned char>(c) >> 4];
      uri += kHex[static_cast<unsigned char>(c) & 0xF];
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

/// True when no writer has `path` open and none can: its folder is not writable by this process
/// and it has no write-ahead log. SQLite then cannot make the shared-memory file WAL needs, and
/// reads the file as the immutable file it is.
bool unwritableAndClosed(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::absolute(path).parent_path();
  std::error_code error;
  return fs::is_regular_file(path, error) && access(folder.c_str(), W_OK) != 0 &&
         !fs::exists(path + "-wal", error);
}

}  // namespace

SQLite::Database openCurrentArchive(const std::string& path,
                                    std::chrono::milliseconds busy_timeout) {
  // SQLite's "unable to open database file" would not say that the name is the problem.
  if (std::error_code error; !std::filesystem::exists(path, error)) {
    throw std::runtime_error("[store.open] no archive at " + path +
                             ": check --db (`agentvcr record` or `demo` makes one)");
  }
  SQLite::Database db =
      unwritableAndClosed(path)
          ? openDatabase(immutableUri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI, busy_timeout)
          : openDatabase(path, SQLite::OPEN_READONLY, busy_timeout);
  int version = 0;
  try {
    version = schemaVersionOf(db);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("[store.open] cannot read archive " + path + ": " + e.what() +
                             damageHint(path, e));
  }
  if (version > kSchemaVersion) {
    throw std::runtime_error("[store.schema.newer] " + path + " has archive schema version " +
                             std::to_string(version) + "; this agentvcr reads up to version " +
                             std::to_string(kSchemaVersion) + ": use a newer agentvcr");
  }
  if (version == 0) {
    throw std::runtime_error("[store.schema.foreign] " + path + " is not an agentvcr archive");
  }
  if (version < kSchemaVersion) {
    throw std::runtime_error("[store.schema.old] " + path + " has archive schema version " +
                             std::to_string(version) + "; this agentvcr reads version " +
                             std::to_string(kSchemaVersion) + ": run `agentvcr migrate --db " +
                             path + "` first");
  }
  return db;
}

}  // namespace detail

int migrateArchive(const std::string& path, std::chrono::milliseconds busy_timeout) {
  SQLite::Database db =
      detail::openDatabase(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, busy_timeout);
  try {
    return detail::prepareArchive(db, path);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("[store.open] cannot prepare archive " + path + ": " + e.what());
  }
}

}  // namespace agentvcr::store
