#include "older_schema.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::testing {

namespace {

// Removes what versions 3 to 11 added, down to `version`.
void shapeBelowVersion11(SQLite::Database& db, int version) {
  // Version 11: identities, timing points, faults, normal A2A states. A conversation ended in
  // its last call's state as on the wire.
  db.exec(R"sql(
    UPDATE conversations SET ended_in = (
      SELECT c.task_state FROM a2a_calls c WHERE c.conversation_id = conversations.id
      AND c.task_state IS NOT NULL ORDER BY c.id DESC LIMIT 1)
    WHERE protocol = 'a2a' AND ended_in IS NOT NULL AND ended_in <> 'error';
    DROP INDEX sessions_uuid;
    DROP INDEX exchanges_fault;
    DROP INDEX a2a_calls_state;
    ALTER TABLE sessions DROP COLUMN uuid;
    ALTER TABLE sessions DROP COLUMN node;
    ALTER TABLE sessions DROP COLUMN recorder_version;
    ALTER TABLE sessions DROP COLUMN derived_from;
    ALTER TABLE exchanges DROP COLUMN request_ended_ns;
    ALTER TABLE exchanges DROP COLUMN upstream_sent_ns;
    ALTER TABLE exchanges DROP COLUMN fault;
    ALTER TABLE a2a_calls DROP COLUMN task_state_norm)sql");
  if (version < 10) {
    // Version 10: A2A calls searchable; the latency index over every exchange.
    db.exec(R"sql(
      DROP TABLE search_a2a_calls;
      DROP INDEX exchanges_latency;
      CREATE INDEX exchanges_latency ON exchanges(ended_ns - started_ns))sql");
  }
  if (version < 9) {
    // Version 9: body dictionaries and compressed memories. The view before it read every blob
    // as text.
    db.exec(R"sql(
      ALTER TABLE exchanges DROP COLUMN request_body_dictionary;
      ALTER TABLE exchanges DROP COLUMN response_body_dictionary;
      DROP TABLE body_dictionaries;
      DROP VIEW step_inputs;
      ALTER TABLE blobs DROP COLUMN codec;
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
      JOIN blobs x ON x.hash = s.extra_keys_hash)sql");
  }
  if (version < 8) {  // capture first, index behind
    db.exec(R"sql(
      DROP INDEX exchanges_unindexed;
      ALTER TABLE exchanges DROP COLUMN indexed;
      ALTER TABLE exchanges DROP COLUMN response_arrivals)sql");
  }
  if (version < 7) {  // compressed bodies
    db.exec(R"sql(
      ALTER TABLE exchanges DROP COLUMN request_body_codec;
      ALTER TABLE exchanges DROP COLUMN response_body_codec;
      ALTER TABLE exchanges DROP COLUMN request_body_size;
      ALTER TABLE exchanges DROP COLUMN response_body_size)sql");
  }
  if (version < 6) {  // eval links
    db.exec("DROP TABLE step_links");
  }
  if (version < 5) {
    // Version 5: A2A calls, event streams and A2A conversations. Before it, an A2A exchange was
    // plain HTTP.
    db.exec(R"sql(
      DROP TABLE stream_events;
      DROP TABLE a2a_calls;
      DELETE FROM conversations WHERE protocol = 'a2a';
      UPDATE sessions SET conversation_count =
        (SELECT count(*) FROM conversations c WHERE c.session_id = sessions.id);
      UPDATE exchanges SET protocol = 'http', route = 'none' WHERE protocol = 'a2a';
      DROP INDEX conversations_context;
      ALTER TABLE conversations DROP COLUMN protocol;
      ALTER TABLE conversations DROP COLUMN context_id)sql");
  }
  if (version < 4) {  // search
    db.exec(R"sql(
      DROP TABLE search_steps;
      DROP TABLE search_candidates;
      DROP TABLE search_internal_steps;
      DROP INDEX steps_session;
      DROP INDEX candidates_error;
      DROP INDEX exchanges_latency)sql");
  }
  if (version < 3) {  // replay misses
    db.exec(R"sql(
      DROP TABLE replay_misses;
      DROP INDEX exchanges_route)sql");
  }
}

/// Runs `sql` (two parameters: a text, then an id) for each (id, text) of `rows`.
void writeTexts(SQLite::Database& db, const char* sql,
                const std::vector<std::pair<std::int64_t, std::string>>& rows) {
  SQLite::Statement update(db, sql);
  for (const auto& [id, text] : rows) {
    update.bind(1, text);
    update.bind(2, id);
    update.exec();
    update.reset();
  }
}

/// Version 16 keeps MAGMA bodies as segments; an older recorder kept each body whole. Every
/// segmented body goes back into its row verbatim, as the current reader reads it.
void unsegmentBodies(SQLite::Database& db) {
  std::vector<std::int64_t> ids;
  SQLite::Statement segmented(db, "SELECT id FROM exchanges WHERE body_segment_id IS NOT NULL");
  while (segmented.executeStep()) {
    ids.push_back(segmented.getColumn(0).getInt64());
  }
  if (ids.empty()) {
    return;
  }
  // Every body read before any is rewritten: a segment's later bodies need its first ones.
  std::vector<store::ExchangeRow> rows;
  {
    store::ArchiveReader reader(db.getFilename());
    for (const std::int64_t id : ids) {
      rows.push_back(*reader.exchange(id));
    }
  }
  SQLite::Statement update(db, R"sql(
    UPDATE exchanges SET request_body = ?, request_body_codec = NULL, response_body = ?,
      response_body_codec = NULL, body_segment_id = NULL WHERE id = ?)sql");
  for (const store::ExchangeRow& row : rows) {
    update.bind(1, row.request_body.data(), static_cast<int>(row.request_body.size()));
    update.bind(2, row.response_body.data(), static_cast<int>(row.response_body.size()));
    update.bind(3, row.id);
    update.exec();
    update.reset();
  }
}

/// Version 16 reads a prompt from the response body that holds it; an older recorder copied it
/// into its row.
void copyPrompts(SQLite::Database& db) {
  std::vector<std::pair<std::int64_t, std::string>> prompts;
  {
    store::ArchiveReader reader(db.getFilename());
    SQLite::Statement candidates(
        db, "SELECT DISTINCT candidate_id FROM internal_steps WHERE full_prompt_at IS NOT NULL");
    while (candidates.executeStep()) {
      for (const store::InternalStepRow& row :
           reader.internalSteps(candidates.getColumn(0).getInt64())) {
        if (row.full_prompt) {
          prompts.emplace_back(row.id, *row.full_prompt);
        }
      }
    }
  }
  writeTexts(db, "UPDATE internal_steps SET full_prompt = ? WHERE id = ?", prompts);
}

/// Version 16 reads a memory from a body that holds it; an older recorder kept its text.
void copyMemories(SQLite::Database& db) {
  std::vector<std::pair<std::int64_t, std::string>> memories;
  {
    store::ArchiveReader reader(db.getFilename());
    SQLite::Statement q(db, "SELECT hash FROM blobs WHERE codec = 'body'");
    while (q.executeStep()) {
      const std::int64_t hash = q.getColumn(0).getInt64();
      memories.emplace_back(hash, *reader.blob(static_cast<std::uint64_t>(hash)));
    }
  }
  writeTexts(db, "UPDATE blobs SET text = ?, codec = NULL WHERE hash = ?", memories);
}

/// Version 16 decodes an env step's feedback on read; an older recorder kept it as JSON.
void copyEnvFeedback(SQLite::Database& db) {
  std::vector<std::pair<std::int64_t, std::string>> feedback;
  {
    SQLite::Statement q(db,
                        "SELECT id, instruction_content FROM steps WHERE instruction_type = "
                        "'env' AND env_feedback IS NULL");
    while (q.executeStep()) {
      feedback.emplace_back(q.getColumn(0).getInt64(),
                            protocol::dumpCompact(protocol::toJson(
                                protocol::decodeEnvFeedback(q.getColumn(1).getString()))));
    }
  }
  writeTexts(db, "UPDATE steps SET env_feedback = ? WHERE id = ?", feedback);
}

}  // namespace

void shapeAsVersion(SQLite::Database& db, int version) {
  if (version < 2 || version > 15) {
    throw std::invalid_argument("shapeAsVersion: no shape for version " + std::to_string(version));
  }
  // Version 16: bodies as segments, prompts and memories read from their bodies, prompts
  // searched by what is new.
  copyPrompts(db);
  copyMemories(db);
  copyEnvFeedback(db);
  unsegmentBodies(db);
  db.exec(R"sql(
    DROP INDEX exchanges_body_segment;
    ALTER TABLE exchanges DROP COLUMN body_segment_id;
    DROP TABLE body_segments;
    DROP TABLE search_internal_steps;
    DROP INDEX internal_steps_prompt_parent;
    ALTER TABLE internal_steps DROP COLUMN full_prompt_at;
    ALTER TABLE internal_steps DROP COLUMN prompt_new;
    ALTER TABLE internal_steps DROP COLUMN prompt_parent_id;
    ALTER TABLE blobs DROP COLUMN body_exchange_id;
    ALTER TABLE blobs DROP COLUMN body_side;
    ALTER TABLE blobs DROP COLUMN body_at;
    ALTER TABLE blobs DROP COLUMN body_end;
    CREATE VIRTUAL TABLE search_internal_steps USING fts5(
      full_prompt, output_raw, content='internal_steps', content_rowid='id',
      tokenize='unicode61 remove_diacritics 2');
    INSERT INTO search_internal_steps(search_internal_steps) VALUES ('rebuild'))sql");
  if (version == 15) {
    db.exec("PRAGMA user_version = 15");
    return;
  }
  // Version 15: A2A call links.
  db.exec("DROP TABLE call_links");
  if (version < 14) {  // the last byte of the agent's answer
    db.exec("ALTER TABLE exchanges DROP COLUMN upstream_last_byte_ns");
  }
  if (version < 13) {  // the note of a card the recorder rewrote
    db.exec("ALTER TABLE exchanges DROP COLUMN card_rewrite");
  }
  if (version < 12) {  // the change feed's tick and counters
    db.exec(R"sql(
      DROP TRIGGER sessions_fed_insert;
      DROP TRIGGER sessions_fed_update;
      DROP TRIGGER replay_misses_counted;
      DROP INDEX sessions_feed_tick;
      ALTER TABLE sessions DROP COLUMN feed_tick;
      ALTER TABLE sessions DROP COLUMN miss_count;
      ALTER TABLE sessions DROP COLUMN link_count)sql");
  }
  if (version < 11) {
    shapeBelowVersion11(db, version);
  }
  db.exec("PRAGMA user_version = " + std::to_string(version));
}

}  // namespace agentvcr::testing
