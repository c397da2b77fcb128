// Migration 16's data step: an older archive converted in place to keep what is new, as the
// recorder now writes it (docs/schema.md, "Versions and migrations").

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "agentvcr/protocol/json_spans.hpp"
#include "body_segments.hpp"
#include "decode.hpp"
#include "prompt_deltas.hpp"
#include "schema_internal.hpp"
#include "sqlite_support.hpp"
#include "stored_bodies.hpp"

namespace agentvcr::store::detail {
namespace {

/// Each MAGMA body an older recorder kept (verbatim, a frame of its own, or a frame against a
/// dictionary) joins its session and route's segments, and the dictionaries no row names any
/// more go. A body that does not decode stays as it was, with its dictionary.
void segmentBodies(SQLite::Database& db, StoredBodies& bodies) {
  std::vector<std::int64_t> ids;
  {
    SQLite::Statement q(
        db, "SELECT id FROM exchanges WHERE protocol = 'magma' ORDER BY session_id, id");
    while (q.executeStep()) {
      ids.push_back(q.getColumn(0).getInt64());
    }
  }
  SQLite::Statement read(db, std::string("SELECT id, session_id, route, ") + kStoredBodyColumns +
                                 " FROM exchanges WHERE id = :id");
  const BodyColumns request = BodyColumns::of(read, BodySide::Request);
  const BodyColumns response = BodyColumns::of(read, BodySide::Response);
  SQLite::Statement update(db, R"sql(
    UPDATE exchanges SET request_body = :request, request_body_codec = :request_codec,
      request_body_dictionary = NULL, request_body_size = :request_size,
      response_body = :response, response_body_codec = :response_codec,
      response_body_dictionary = NULL, response_body_size = :response_size,
      body_segment_id = :segment
    WHERE id = :id)sql");
  static const std::optional<std::string> segment_codec{std::string(kSegmentCodec)};
  static const std::optional<std::string> verbatim;
  std::unique_ptr<SegmentPacker> packer;  // one per session: its streams end with it
  std::int64_t session = -1;
  for (const std::int64_t id : ids) {
    bindInt(read, ":id", id);
    if (!read.executeStep()) {
      read.reset();
      continue;
    }
    std::string request_body;
    std::string response_body;
    try {
      request_body = bodies.read(read, request);
      response_body = bodies.read(read, response);
    } catch (const std::runtime_error&) {
      read.reset();
      continue;
    }
    if (read.getColumn(1).getInt64() != session || !packer) {
      session = read.getColumn(1).getInt64();
      packer = std::make_unique<SegmentPacker>(db);
    }
    const std::string route = read.getColumn(2).getString();
    read.reset();
    const std::optional<SegmentedBodies> packed = packer->pack(request_body, response_body, route);
    if (!packed) {
      continue;  // too large for a segment, or short: it stays as it was
    }
    bindBlob(update, ":request", packed->request_blocks ? *packed->request_blocks : request_body);
    bindBlob(update, ":response",
             packed->response_blocks ? *packed->response_blocks : response_body);
    bindOptText(update, ":request_codec", packed->request_blocks ? segment_codec : verbatim);
    bindOptText(update, ":response_codec", packed->response_blocks ? segment_codec : verbatim);
    bindInt(update, ":request_size", static_cast<std::int64_t>(request_body.size()));
    bindInt(update, ":response_size", static_cast<std::int64_t>(response_body.size()));
    bindInt(update, ":segment", packed->segment_id);
    bindInt(update, ":id", id);
    execOnce(update);
    packer->confirmed();
  }
  db.exec(R"sql(
    DELETE FROM body_dictionaries WHERE id NOT IN (
      SELECT request_body_dictionary FROM exchanges WHERE request_body_dictionary IS NOT NULL
      UNION SELECT response_body_dictionary FROM exchanges
      WHERE response_body_dictionary IS NOT NULL))sql");
}

/// Where one exchange's response body holds each prompt: (candidate's place in the response,
/// internal step's place in the candidate) -> offset of the literal.
std::map<std::pair<std::size_t, std::size_t>, std::size_t> promptLiterals(std::string_view body) {
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> at;
  static constexpr protocol::JsonPathStep kPrompts[] = {
      {""}, {"internal_steps"}, {""}, {"full_prompt"}};
  protocol::findJsonValues(body, kPrompts,
                           [&](std::span<const std::size_t> indexes, protocol::JsonSpan span) {
                             at[{indexes[0], indexes[1]}] = span.begin;
                           });
  return at;
}

/// Each internal step's prompt becomes a reference into its response body, where the body holds
/// exactly that text, and gets its new part and the step it continues (prompt_deltas.hpp).
void referencePrompts(SQLite::Database& db, StoredBodies& bodies) {
  struct Row {
    std::int64_t id;
    std::int64_t candidate_id;
    std::size_t position;
    std::optional<std::int64_t> parent_candidate_id;
    std::int64_t exchange_id;
    std::size_t candidate_place;  // in its response's array
    std::string instruction;
  };

  std::vector<Row> rows;
  {
    // Candidates are written in the order of their response's array.
    SQLite::Statement q(db, R"sql(
      SELECT i.id, i.candidate_id, i.position, s.parent_candidate_id, s.exchange_id,
             (SELECT count(*) FROM candidates c2 JOIN steps s2 ON s2.id = c2.step_id
              WHERE s2.exchange_id = s.exchange_id AND c2.id < c.id) AS place,
             s.instruction_content
      FROM internal_steps i
      JOIN candidates c ON c.id = i.candidate_id
      JOIN steps s ON s.id = c.step_id
      WHERE i.full_prompt IS NOT NULL
      ORDER BY i.candidate_id, i.position)sql");
    while (q.executeStep()) {
      rows.push_back(Row{q.getColumn(0).getInt64(), q.getColumn(1).getInt64(),
                         static_cast<std::size_t>(q.getColumn(2).getInt64()), optInt(q, 3),
                         q.getColumn(4).getInt64(),
                         static_cast<std::size_t>(q.getColumn(5).getInt64()),
                         q.getColumn(6).getString()});
    }
  }
  SQLite::Statement prompt_of(db, "SELECT full_prompt FROM internal_steps WHERE id = :id");
  SQLite::Statement body_of(
      db, std::string("SELECT id, ") + kStoredBodyColumns + " FROM exchanges WHERE id = :id");
  const BodyColumns response = BodyColumns::of(body_of, BodySide::Response);
  SQLite::Statement update(db, R"sql(
    UPDATE internal_steps SET full_prompt = :full_prompt, full_prompt_at = :at,
      prompt_new = :prompt_new, prompt_parent_id = :parent
    WHERE id = :id)sql");
  PromptMemory memory;
  std::optional<std::int64_t> exchange;
  std::string body;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> literals;
  std::int64_t candidate = -1;
  std::vector<std::pair<std::int64_t, std::optional<std::string>>> kept;
  for (const Row& row : rows) {
    if (row.candidate_id != candidate) {
      memory.keep(candidate, std::move(kept));
      kept.clear();
      candidate = row.candidate_id;
    }
    bindInt(prompt_of, ":id", row.id);
    prompt_of.executeStep();
    std::string prompt = prompt_of.getColumn(0).getString();
    prompt_of.reset();
    if (exchange != row.exchange_id) {
      exchange = row.exchange_id;
      body.clear();
      bindInt(body_of, ":id", row.exchange_id);
      if (body_of.executeStep()) {
        try {
          body = bodies.read(body_of, response);
        } catch (const std::runtime_error&) {
          body.clear();  // the prompt stays a copy
        }
      }
      body_of.reset();
      literals = promptLiterals(body);
    }
    std::optional<std::int64_t> at;
    if (auto literal = literals.find({row.candidate_place, row.position});
        literal != literals.end() && protocol::jsonStringAt(body, literal->second) == prompt) {
      at = static_cast<std::int64_t>(literal->second);
    }
    const std::optional<PromptMemory::Kept> parent =
        row.parent_candidate_id ? memory.find(*row.parent_candidate_id, row.position)
                                : std::nullopt;
    const PromptDelta delta =
        parent ? promptDelta(*parent->prompt, prompt) : PromptDelta{std::nullopt, 0, prompt.size()};
    const std::string prompt_new = newPromptText(prompt, delta, row.instruction);
    static const std::optional<std::string> kNoText;
    const std::optional<std::string> copy = at ? kNoText : std::optional<std::string>(prompt);
    bindOptText(update, ":full_prompt", copy);
    bindOptInt(update, ":at", at);
    bindText(update, ":prompt_new", prompt_new);
    bindOptInt(update, ":parent",
               parent ? std::optional<std::int64_t>(parent->internal_step_id) : std::nullopt);
    bindInt(update, ":id", row.id);
    execOnce(update);
    if (kept.size() < row.position) {
      kept.resize(row.position, {0, std::nullopt});
    }
    kept.emplace_back(row.id, std::move(prompt));
  }
}

/// Each memory becomes a reference into the first body that holds it (referenceMemories()),
/// where the value there reads back to its text.
void referenceMemoryBlobs(SQLite::Database& db, StoredBodies& bodies) {
  std::vector<std::int64_t> exchanges;
  {
    SQLite::Statement q(db, "SELECT DISTINCT exchange_id FROM steps ORDER BY exchange_id");
    while (q.executeStep()) {
      exchanges.push_back(q.getColumn(0).getInt64());
    }
  }
  SQLite::Statement steps(db, "SELECT position, memory_hash FROM steps WHERE exchange_id = :id");
  // Candidates are written in the order of their response's array.
  SQLite::Statement candidates(db, R"sql(
    SELECT c.memory_hash FROM candidates c JOIN steps s ON s.id = c.step_id
    WHERE s.exchange_id = :id ORDER BY c.id)sql");
  SQLite::Statement blob(db, R"sql(
    SELECT text AS blob, codec AS blob_codec, body_exchange_id AS blob_exchange,
           body_side AS blob_side, body_at AS blob_at, body_end AS blob_end
    FROM blobs WHERE hash = :hash)sql");
  const BlobColumns blob_columns = BlobColumns::of(blob, "blob");
  SQLite::Statement update(db, R"sql(
    UPDATE blobs SET text = '', codec = :codec, body_exchange_id = :exchange, body_side = :side,
      body_at = :at, body_end = :end
    WHERE hash = :hash)sql");
  static const std::string codec(kBodyBlobCodec);
  for (const std::int64_t id : exchanges) {
    DecodedExchange d;
    std::vector<std::uint64_t> memories;
    bindInt(steps, ":id", id);
    while (steps.executeStep()) {
      const auto position = static_cast<std::size_t>(steps.getColumn(0).getInt64());
      d.steps.resize(std::max(d.steps.size(), position + 1));
      d.steps[position].memory_hash = fromDb(steps.getColumn(1).getInt64());
      memories.push_back(d.steps[position].memory_hash);
    }
    steps.reset();
    bindInt(candidates, ":id", id);
    while (candidates.executeStep()) {
      DecodedCandidate& c = d.candidates.emplace_back();
      c.response_position = d.candidates.size() - 1;
      c.memory_hash = fromDb(candidates.getColumn(0).getInt64());
      memories.push_back(c.memory_hash);
    }
    candidates.reset();
    for (const std::uint64_t hash : memories) {
      bindInt(blob, ":hash", toDb(hash));
      if (blob.executeStep() && optText(blob, blob_columns.codec) != std::string(kBodyBlobCodec)) {
        try {
          d.blobs.push_back(
              BlobText{hash, bodies.blob(blob, blob_columns), true, std::nullopt, std::nullopt});
        } catch (const std::runtime_error&) {
          // a memory that does not decode stays as it is
        }
      }
      blob.reset();
    }
    if (d.blobs.empty()) {
      continue;
    }
    try {
      d.exchange.request_body = bodies.read(id, BodySide::Request).value_or("");
      d.exchange.response_body = bodies.read(id, BodySide::Response).value_or("");
    } catch (const std::runtime_error&) {
      continue;  // its bodies do not decode: its memories stay copies
    }
    referenceMemories(d, [](std::uint64_t) { return true; });
    for (const BlobText& b : d.blobs) {
      if (!b.in_body) {
        continue;
      }
      bindText(update, ":codec", codec);
      bindInt(update, ":exchange", id);
      bindInt(update, ":side", b.in_body->response ? 1 : 0);
      bindInt(update, ":at", static_cast<std::int64_t>(b.in_body->begin));
      bindInt(update, ":end", static_cast<std::int64_t>(b.in_body->end));
      bindInt(update, ":hash", toDb(b.hash));
      execOnce(update);
    }
  }
}

}  // namespace

void convertToVersion16(SQLite::Database& db) {
  StoredBodies bodies(db);
  segmentBodies(db, bodies);
  referencePrompts(db, bodies);
  referenceMemoryBlobs(db, bodies);
  // An env step's decoded feedback is decoded again from its instruction whenever it is read.
  db.exec("UPDATE steps SET env_feedback = NULL WHERE env_feedback IS NOT NULL");
  db.exec("INSERT INTO search_internal_steps(search_internal_steps) VALUES ('rebuild')");
}

}  // namespace agentvcr::store::detail
