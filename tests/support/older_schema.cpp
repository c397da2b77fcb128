#include "older_schema.hpp"

#include <stdexcept>
#include <string>

namespace agentvcr::testing {

void shapeAsVersion(SQLite::Database& db, int version) {
  if (version < 5 || version > 9) {
    throw std::invalid_argument("shapeAsVersion: no shape for version " + std::to_string(version));
  }
  // Version 10: A2A calls searchable; the latency index over every exchange.
  db.exec(R"sql(
    DROP TABLE search_a2a_calls;
    DROP INDEX exchanges_latency;
    CREATE INDEX exchanges_latency ON exchanges(ended_ns - started_ns))sql");
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
  db.exec("PRAGMA user_version = " + std::to_string(version));
}

}  // namespace agentvcr::testing
