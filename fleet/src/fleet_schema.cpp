#include "agentvcr/fleet/fleet_schema.hpp"

#include <algorithm>
#include <string>

namespace agentvcr::fleet {
namespace {

// Any fixed number: the advisory lock every `agentvcr pg migrate` takes.
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(7236712331)";

// Version 1. Names and meanings follow the SQLite archive (docs/schema.md); keys are natural:
// (session_uuid, seq) for an exchange, plus the input position for a step, plus the candidate
// index for a candidate, and so on. A conversation is keyed by its number in its session (the
// order the recorder created them). Bodies stay zstd frames, their dictionaries keyed by
// content hash. Blobs keep their JSON text; `doc` holds it as jsonb when it parses.
constexpr const char* kFleetSchemaV1 = R"sql(
CREATE TABLE sessions (
  uuid                   uuid   PRIMARY KEY,
  node                   text   NOT NULL,
  recorder_version       text,
  derived_from           text,
  name                   text   NOT NULL,
  mode                   text   NOT NULL,
  upstream               text   NOT NULL,
  listen                 text   NOT NULL,
  started_ns             bigint NOT NULL,
  ended_ns               bigint,
  agent_health           text,
  agent_info             text,
  agent_id               text,
  agent_version          text,
  exchange_count         bigint NOT NULL,
  step_count             bigint NOT NULL,
  candidate_count        bigint NOT NULL,
  internal_step_count    bigint NOT NULL,
  conversation_count     bigint NOT NULL,
  error_candidate_count  bigint NOT NULL,
  failed_exchange_count  bigint NOT NULL,
  invalid_exchange_count bigint NOT NULL
);
CREATE INDEX sessions_node ON sessions(node, started_ns);
CREATE INDEX sessions_agent ON sessions(agent_id, agent_version);

CREATE TABLE body_dictionaries (
  hash    bigint PRIMARY KEY,
  content bytea  NOT NULL,
  codec   text,
  size    bigint NOT NULL
);

CREATE TABLE blobs (
  hash bigint PRIMARY KEY,
  text text   NOT NULL,
  doc  jsonb
);
CREATE INDEX blobs_doc ON blobs USING gin (doc jsonb_path_ops);

CREATE TABLE exchanges (
  session_uuid             uuid     NOT NULL,
  seq                      bigint   NOT NULL,
  client_address           text     NOT NULL,
  method                   text     NOT NULL,
  target                   text     NOT NULL,
  http_version             integer  NOT NULL,
  status                   integer  NOT NULL,
  request_headers          text     NOT NULL,
  request_body             bytea    NOT NULL,
  request_body_codec       text,
  request_body_dictionary  bigint,
  request_body_size        bigint,
  request_body_redacted    boolean  NOT NULL,
  response_headers         text     NOT NULL,
  response_body            bytea    NOT NULL,
  response_body_codec      text,
  response_body_dictionary bigint,
  response_body_size       bigint,
  response_from_upstream   boolean  NOT NULL,
  started_ns               bigint   NOT NULL,
  request_ended_ns         bigint,
  upstream_sent_ns         bigint,
  upstream_first_byte_ns   bigint,
  ended_ns                 bigint,
  outcome                  text     NOT NULL,
  error                    text,
  fault                    text,
  protocol                 text     NOT NULL,
  route                    text     NOT NULL,
  magma_request_id         text,
  request_valid            boolean,
  response_valid           boolean,
  findings                 text,
  decoder_version          integer  NOT NULL,
  PRIMARY KEY (session_uuid, seq)
);
CREATE INDEX exchanges_started ON exchanges(started_ns);

CREATE TABLE conversations (
  session_uuid     uuid   NOT NULL,
  number           bigint NOT NULL,
  root_seq         bigint,
  root_position    bigint,
  title            text,
  step_count       bigint NOT NULL,
  candidate_count  bigint NOT NULL,
  error_candidates bigint NOT NULL,
  env_failures     bigint NOT NULL,
  max_depth        bigint NOT NULL,
  first_ns         bigint,
  last_ns          bigint,
  ended_in         text,
  protocol         text   NOT NULL,
  context_id       text,
  PRIMARY KEY (session_uuid, number)
);

CREATE TABLE steps (
  session_uuid           uuid    NOT NULL,
  seq                    bigint  NOT NULL,
  position               integer NOT NULL,
  source_id              bigint  NOT NULL,
  replay_key             bigint  NOT NULL,
  instruction_type       text    NOT NULL,
  instruction_content    text    NOT NULL,
  env_feedback           jsonb,
  env_failure            boolean,
  memory_hash            bigint  NOT NULL,
  tools_hash             bigint  NOT NULL,
  attributes_hash        bigint  NOT NULL,
  extra_keys_hash        bigint  NOT NULL,
  num_outputs            integer NOT NULL,
  conversation           bigint,
  parent_seq             bigint,
  parent_position        integer,
  parent_candidate_index integer,
  parent_ambiguity       integer NOT NULL,
  depth                  integer NOT NULL,
  PRIMARY KEY (session_uuid, seq, position)
);
CREATE INDEX steps_conversation ON steps(session_uuid, conversation);

CREATE TABLE candidates (
  session_uuid        uuid    NOT NULL,
  seq                 bigint  NOT NULL,
  position            integer NOT NULL,
  candidate_index     integer NOT NULL,
  status              text    NOT NULL,
  say                 text,
  tool_calls          jsonb,
  decision_kind       text,
  error_code          text,
  error_message       text,
  error_component     text,
  memory_hash         bigint  NOT NULL,
  internal_step_count integer NOT NULL,
  PRIMARY KEY (session_uuid, seq, position, candidate_index)
);

CREATE TABLE internal_steps (
  session_uuid    uuid    NOT NULL,
  seq             bigint  NOT NULL,
  input_position  integer NOT NULL,
  candidate_index integer NOT NULL,
  position        integer NOT NULL,
  step_key        text,
  component       text,
  origin          text,
  full_prompt     text,
  output_raw      text,
  rest            text    NOT NULL,
  PRIMARY KEY (session_uuid, seq, input_position, candidate_index, position)
);

CREATE TABLE a2a_calls (
  session_uuid    uuid    NOT NULL,
  seq             bigint  NOT NULL,
  position        integer NOT NULL,
  wire_version    text    NOT NULL,
  method          text,
  rpc_id          text,
  task_id         text,
  context_id      text,
  skill_id        text,
  message_id      text,
  task_state      text,
  task_state_norm text,
  result_kind     text,
  artifacts       text,
  history         text,
  request_text    text,
  response_text   text,
  error_code      integer,
  error_message   text,
  error_data      text,
  retry_after     double precision,
  replay_key      bigint  NOT NULL,
  conversation    bigint,
  PRIMARY KEY (session_uuid, seq, position)
);
CREATE INDEX a2a_calls_skill ON a2a_calls(skill_id, error_code);

CREATE TABLE stream_events (
  session_uuid uuid    NOT NULL,
  seq          bigint  NOT NULL,
  position     integer NOT NULL,
  at_ns        bigint  NOT NULL,
  event        text,
  event_id     text,
  data         text    NOT NULL,
  PRIMARY KEY (session_uuid, seq, position)
);

CREATE TABLE step_links (
  session_uuid          uuid    NOT NULL,
  seq                   bigint  NOT NULL,
  position              integer NOT NULL,
  recorded_session_uuid uuid    NOT NULL,
  recorded_seq          bigint  NOT NULL,
  recorded_position     integer NOT NULL,
  PRIMARY KEY (session_uuid, seq, position)
);

CREATE TABLE replay_misses (
  session_uuid         uuid    NOT NULL,
  number               bigint  NOT NULL,
  at_ns                bigint  NOT NULL,
  route                text    NOT NULL,
  request_id           text    NOT NULL,
  position             integer NOT NULL,
  source_id            bigint,
  replay_key           bigint  NOT NULL,
  input                text    NOT NULL,
  closest_session_uuid uuid,
  closest_seq          bigint,
  closest_position     integer,
  differences          text    NOT NULL,
  policy               text    NOT NULL,
  PRIMARY KEY (session_uuid, number)
);

-- How far each session was shipped, committed with the rows it counts: how many of its
-- exchanges (they are numbered from 0: the next seq to ship), replay misses and step links.
CREATE TABLE ship_positions (
  session_uuid uuid        PRIMARY KEY,
  exchanges    bigint      NOT NULL,
  misses       bigint      NOT NULL,
  links        bigint      NOT NULL,
  shipped_at   timestamptz NOT NULL DEFAULT now()
);

-- A blob's JSON as jsonb, or NULL when it does not parse (a blob is kept whatever it holds).
CREATE FUNCTION agentvcr_jsonb_or_null(text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN $1::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
)sql";

// Version 2: the tables that grow with every exchange are partitioned by month, so that
// `agentvcr pg prune` drops old months whole instead of deleting row by row. A session's rows
// are filed under the UTC month it started (`session_month`, part of each key because
// PostgreSQL wants the partition key in every unique index), so a month holds whole sessions.
// `agentvcr_months` lists the months that have partitions; agentvcr_file_month() adds one.
// Existing rows move into their months.
constexpr const char* kFleetSchemaV2 = R"sql(
CREATE TABLE agentvcr_months (month date PRIMARY KEY);

CREATE FUNCTION agentvcr_month(started_ns bigint) RETURNS date
LANGUAGE sql IMMUTABLE AS $$
  SELECT date_trunc('month', to_timestamp(started_ns / 1e9) AT TIME ZONE 'UTC')::date
$$;

CREATE FUNCTION agentvcr_monthly_tables() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT c.relname::text FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
  WHERE c.relnamespace = current_schema()::regnamespace ORDER BY 1
$$;

CREATE FUNCTION agentvcr_month_partition(t text, m date) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT t || to_char(m, '"_y"YYYY"m"MM')
$$;

-- Makes the partitions of month `m` unless they exist, and returns `m`. Checked without a lock
-- first: every batch asks, and the month nearly always exists. The lock is the one shippers
-- share while they write and `agentvcr pg prune` takes alone. It runs as the tables' owner, so
-- that a shipper's role needs no right to create tables.
CREATE FUNCTION agentvcr_file_month(m date) RETURNS date
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  t text;
BEGIN
  IF EXISTS (SELECT 1 FROM agentvcr_months WHERE month = m) THEN
    RETURN m;
  END IF;
  PERFORM pg_advisory_xact_lock(7236712332);
  IF EXISTS (SELECT 1 FROM agentvcr_months WHERE month = m) THEN
    RETURN m;
  END IF;
  FOR t IN SELECT agentvcr_monthly_tables() LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                   agentvcr_month_partition(t, m), t, m, (m + interval '1 month')::date);
  END LOOP;
  INSERT INTO agentvcr_months VALUES (m);
  RETURN m;
END $$;

-- Drops the partitions of month `m`, and every row they held.
CREATE FUNCTION agentvcr_drop_month(m date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t text;
BEGIN
  FOR t IN SELECT agentvcr_monthly_tables() LOOP
    EXECUTE format('DROP TABLE IF EXISTS %I', agentvcr_month_partition(t, m));
  END LOOP;
  DELETE FROM agentvcr_months WHERE month = m;
END $$;

DO $$
DECLARE
  t record;
  i record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
      ('exchanges', 'session_uuid, seq'),
      ('steps', 'session_uuid, seq, position'),
      ('candidates', 'session_uuid, seq, position, candidate_index'),
      ('internal_steps', 'session_uuid, seq, input_position, candidate_index, position'),
      ('a2a_calls', 'session_uuid, seq, position'),
      ('stream_events', 'session_uuid, seq, position')) AS v(name, key) LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t.name, t.name || '_v1');
    FOR i IN SELECT indexname FROM pg_indexes
             WHERE schemaname = current_schema() AND tablename = t.name || '_v1' LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', i.indexname, i.indexname || '_v1');
    END LOOP;
    EXECUTE format('CREATE TABLE %I (LIKE %I, session_month date NOT NULL, '
                   'PRIMARY KEY (%s, session_month)) PARTITION BY RANGE (session_month)',
                   t.name, t.name || '_v1', t.key);
  END LOOP;
  PERFORM agentvcr_file_month(m) FROM (SELECT DISTINCT agentvcr_month(started_ns) FROM sessions)
    AS months(m);
  FOR t IN SELECT agentvcr_monthly_tables() AS name LOOP
    EXECUTE format('INSERT INTO %I SELECT o.*, agentvcr_month(s.started_ns) FROM %I o '
                   'JOIN sessions s ON s.uuid = o.session_uuid', t.name, t.name || '_v1');
    EXECUTE format('DROP TABLE %I', t.name || '_v1');
  END LOOP;
END $$;

CREATE INDEX exchanges_started ON exchanges(started_ns);
CREATE INDEX steps_conversation ON steps(session_uuid, conversation);
CREATE INDEX a2a_calls_skill ON a2a_calls(skill_id, error_code);
)sql";

// Version 3: a fleet archive that ships every byte and keeps what it cannot store, and that does
// not take back what it pruned (docs/fleet.md).
// - `escaped`, on every table with text: where PostgreSQL's text or jsonb cannot hold a value
//   (a NUL byte, bytes that are not UTF-8, the JSON escape of NUL, a number beyond numeric), the
//   column holds a readable form and `escaped` maps its name to the exact bytes in hex.
// - `quarantine`: what PostgreSQL refused all the same, with its error, so that the rest ships.
// - `pruned_sessions`: the tombstones `agentvcr pg prune` leaves, which shippers check.
// - `ship_positions.session_digest`: the session row a shipper last wrote, so that one with
//   nothing new writes nothing.
// - agentvcr_monthly_tables() names agentvcr's own tables (version 2's took every partitioned
//   table of the schema).
constexpr const char* kFleetSchemaV3 = R"sql(
ALTER TABLE sessions ADD COLUMN escaped jsonb;
ALTER TABLE exchanges ADD COLUMN escaped jsonb;
ALTER TABLE conversations ADD COLUMN escaped jsonb;
ALTER TABLE steps ADD COLUMN escaped jsonb;
ALTER TABLE candidates ADD COLUMN escaped jsonb;
ALTER TABLE internal_steps ADD COLUMN escaped jsonb;
ALTER TABLE a2a_calls ADD COLUMN escaped jsonb;
ALTER TABLE stream_events ADD COLUMN escaped jsonb;
ALTER TABLE replay_misses ADD COLUMN escaped jsonb;
ALTER TABLE blobs ADD COLUMN escaped jsonb;

CREATE TABLE quarantine (
  session_uuid   text        NOT NULL,  -- text: a session whose uuid is not one lands here too
  kind           text        NOT NULL,  -- session, exchange, conversation, replay_miss,
                                        -- step_links, blob, body_dictionary
  number         bigint      NOT NULL,  -- the exchange's seq, the conversation's or miss's
                                        -- number, the blob's hash; -1 for a whole session
  sqlstate       text,
  error          text        NOT NULL,
  quarantined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_uuid, kind, number)
);

CREATE TABLE pruned_sessions (
  uuid       uuid        PRIMARY KEY,
  started_ns bigint      NOT NULL,
  pruned_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE ship_positions ADD COLUMN session_digest bigint;

-- agentvcr's own monthly tables, named: a partitioned table of someone else's in the same
-- schema is never touched.
CREATE OR REPLACE FUNCTION agentvcr_monthly_tables() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT t FROM unnest(ARRAY['a2a_calls', 'candidates', 'exchanges', 'internal_steps', 'steps',
                             'stream_events']) AS t
  WHERE EXISTS (SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
                WHERE c.relname = t AND c.relnamespace = current_schema()::regnamespace)
  ORDER BY 1
$$;
)sql";

// Version 4: exchanges.card_rewrite, as in the SQLite archive's schema 13 (an agent card the
// recorder pointed at itself on its way to the client).
constexpr const char* kFleetSchemaV4 = R"sql(
ALTER TABLE exchanges ADD COLUMN card_rewrite text;
)sql";

// Version 5: sessions.interrupted, which the shipper sets when the recorder of a session it ships
// stopped without ending it (store::SessionState::Interrupted): only the recording machine can
// see the recorder's lock, so the fleet archive learns it from there.
constexpr const char* kFleetSchemaV5 = R"sql(
ALTER TABLE sessions ADD COLUMN interrupted boolean NOT NULL DEFAULT false;
)sql";

// Version 6: exchanges.upstream_last_byte_ns, as in the SQLite archive's schema 14 (the last
// byte of the agent's answer); rows shipped before stay NULL, never measured.
constexpr const char* kFleetSchemaV6 = R"sql(
ALTER TABLE exchanges ADD COLUMN upstream_last_byte_ns bigint;
)sql";

// Version 7: step_links.kind, 'step' or 'call': the SQLite archive's call_links (schema 15),
// an A2A call a fork or an evaluation sent again, tied to the recorded call it continues. A
// call is named as a step is, by its exchange's seq and its position, and an exchange holds
// steps or calls, never both, so one table keeps both kinds under the same key.
constexpr const char* kFleetSchemaV7 = R"sql(
ALTER TABLE step_links ADD COLUMN kind text NOT NULL DEFAULT 'step';
)sql";

// Version 8: what the fleet keeps of a full-history agent grows with what is new, as the SQLite
// archive does (schema 16). A memory of kCompressFrom bytes or more is kept packed, one zstd frame
// against a body dictionary (the keyframe of the segment whose body held it), instead of as text
// and jsonb: `text` and `doc` are NULL then, and exactly one of `text` and `packed` is there. An
// internal step's prompt is kept as where its response body holds it (`full_prompt_at`, the
// offset of its JSON string literal) instead of whole, with what it adds to its parent's prompt
// in `prompt_new`. A body dictionary may itself be compressed against another
// (`body_dictionaries.dictionary`): a segment's keyframe against the one before it.
constexpr const char* kFleetSchemaV8 = R"sql(
ALTER TABLE body_dictionaries ADD COLUMN dictionary bigint;
CREATE INDEX body_dictionaries_dictionary ON body_dictionaries(dictionary)
  WHERE dictionary IS NOT NULL;
ALTER TABLE blobs ALTER COLUMN text DROP NOT NULL;
ALTER TABLE blobs ADD COLUMN packed bytea, ADD COLUMN codec text, ADD COLUMN dictionary bigint;
ALTER TABLE blobs ADD CONSTRAINT blobs_text_or_packed CHECK ((text IS NULL) <> (packed IS NULL));
CREATE INDEX blobs_dictionary ON blobs(dictionary) WHERE dictionary IS NOT NULL;
ALTER TABLE internal_steps ADD COLUMN full_prompt_at bigint, ADD COLUMN prompt_new text;
)sql";

struct Migration {
  int to_version;
  const char* sql;
};

constexpr Migration kMigrations[] = {{1, kFleetSchemaV1}, {2, kFleetSchemaV2}, {3, kFleetSchemaV3},
                                     {4, kFleetSchemaV4}, {5, kFleetSchemaV5}, {6, kFleetSchemaV6},
                                     {7, kFleetSchemaV7}, {8, kFleetSchemaV8}};

bool hasVersionTable(PgConnection& conn) {
  return conn.exec("SELECT to_regclass('agentvcr_fleet_schema') IS NOT NULL").text(0, 0) == "t";
}

FleetSchemaError newerSchema(const PgConnection& conn, int version) {
  return FleetSchemaError("[fleet.schema.newer] " + conn.redactedUri() +
                          " holds fleet schema version " + std::to_string(version) +
                          "; this agentvcr knows up to version " +
                          std::to_string(kFleetSchemaVersion) + ": use a newer agentvcr");
}

std::string migrateCommand(const PgConnection& conn) {
  return "agentvcr pg migrate --db '" + conn.redactedUri() + "'";
}

}  // namespace

int fleetSchemaVersion(PgConnection& conn) {
  if (!hasVersionTable(conn)) {
    return 0;
  }
  PgResult r = conn.exec("SELECT version FROM agentvcr_fleet_schema");
  return r.rows() == 0 ? 0 : static_cast<int>(r.integer(0, 0));
}

int migrateFleet(PgConnection& conn, int to_version) {
  static_assert(kFleetSchemaVersion == 8, "add a migration for the new version");
  return conn.transaction([&] {
    conn.exec(kMigrationLock);
    conn.exec("CREATE TABLE IF NOT EXISTS agentvcr_fleet_schema (version integer NOT NULL)");
    const int before = fleetSchemaVersion(conn);
    if (before > kFleetSchemaVersion) {
      throw newerSchema(conn, before);
    }
    const int after = std::max(before, to_version);
    for (const Migration& m : kMigrations) {
      if (m.to_version > before && m.to_version <= after) {
        conn.exec(m.sql);
      }
    }
    conn.exec("DELETE FROM agentvcr_fleet_schema");
    conn.exec("INSERT INTO agentvcr_fleet_schema VALUES (" + std::to_string(after) + ")");
    return before;
  });
}

void requireFleetSchema(PgConnection& conn) {
  const int version = fleetSchemaVersion(conn);
  if (version == 0) {
    throw FleetSchemaError("[fleet.schema.missing] " + conn.redactedUri() +
                           " holds no agentvcr fleet archive yet: run " + migrateCommand(conn));
  }
  if (version < kFleetSchemaVersion) {
    throw FleetSchemaError("[fleet.schema.older] " + conn.redactedUri() +
                           " holds fleet schema version " + std::to_string(version) +
                           "; this agentvcr writes version " + std::to_string(kFleetSchemaVersion) +
                           ": run " + migrateCommand(conn));
  }
  if (version > kFleetSchemaVersion) {
    throw newerSchema(conn, version);
  }
}

}  // namespace agentvcr::fleet
