#include "agentvcr/store/archive_reader.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include "a2a_reads.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/store/schema.hpp"
#include "body_dictionaries.hpp"
#include "decode.hpp"
#include "schema_internal.hpp"
#include "search.hpp"
#include "sqlite_support.hpp"
#include "step_link_reads.hpp"

namespace agentvcr::store {

using detail::bindInt;
using detail::fromDb;
using detail::optBool;
using detail::optInt;
using detail::optText;
using detail::storedBody;
using protocol::Json;

namespace {

constexpr const char* kSessionColumns = R"sql(
  SELECT id, name, mode, upstream, listen, started_ns, ended_ns, agent_health, agent_info,
         agent_id, agent_version, exchange_count, step_count, candidate_count,
         internal_step_count, conversation_count, error_candidate_count, failed_exchange_count,
         invalid_exchange_count
  FROM sessions)sql";

constexpr const char* kConversationColumns = R"sql(
  SELECT id, session_id, root_step_id, title, step_count, candidate_count, error_candidates,
         env_failures, max_depth, first_ns, last_ns, ended_in, protocol, context_id
  FROM conversations)sql";

constexpr const char* kStepColumns = R"sql(
  SELECT s.id, s.exchange_id, s.session_id, s.position, s.source_id, s.replay_key,
         s.instruction_type, s.instruction_content, s.env_feedback, s.env_failure,
         s.memory_hash, s.tools_hash, s.attributes_hash, s.extra_keys_hash, s.num_outputs,
         s.conversation_id, s.parent_candidate_id, p.step_id, s.parent_ambiguity, s.depth,
         (SELECT count(*) FROM candidates c WHERE c.step_id = s.id)
  FROM steps s LEFT JOIN candidates p ON p.id = s.parent_candidate_id)sql";

constexpr const char* kCandidateColumns = R"sql(
  SELECT c.id, c.step_id, c.candidate_index, c.status, c.say, c.tool_calls, c.decision_kind,
         c.error_code, c.error_message, c.error_component, c.memory_hash,
         c.internal_step_count,
         (SELECT count(*) FROM steps s WHERE s.parent_candidate_id = c.id)
  FROM candidates c)sql";

constexpr const char* kExchangeColumns = R"sql(
  SELECT id, session_id, seq, client_address, method, target, http_version, status,
         request_body_redacted, coalesce(request_body_size, length(request_body)),
         coalesce(response_body_size, length(response_body)),
         response_from_upstream, started_ns, upstream_first_byte_ns, ended_ns, outcome, error,
         protocol, route, magma_request_id, request_valid, response_valid, findings)sql";

/// Follows kExchangeColumns when a row's bodies and headers are wanted
/// (readExchangeWithPayload's columns 23 to 30).
constexpr const char* kExchangePayloadColumns =
    ", request_headers, request_body, response_headers, response_body, request_body_codec, "
    "response_body_codec, request_body_dictionary, response_body_dictionary";

std::int64_t sqlLimit(std::size_t limit) {
  if (limit > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
    return -1;  // no limit
  }
  return static_cast<std::int64_t>(limit);
}

SessionRow readSession(const SQLite::Statement& q) {
  SessionRow r;
  r.id = q.getColumn(0).getInt64();
  r.name = q.getColumn(1).getString();
  r.mode = q.getColumn(2).getString();
  r.upstream = q.getColumn(3).getString();
  r.listen = q.getColumn(4).getString();
  r.started_ns = q.getColumn(5).getInt64();
  r.ended_ns = optInt(q, 6);
  r.agent_health = optText(q, 7);
  r.agent_info = optText(q, 8);
  r.agent_id = optText(q, 9);
  r.agent_version = optText(q, 10);
  r.exchange_count = q.getColumn(11).getInt64();
  r.step_count = q.getColumn(12).getInt64();
  r.candidate_count = q.getColumn(13).getInt64();
  r.internal_step_count = q.getColumn(14).getInt64();
  r.conversation_count = q.getColumn(15).getInt64();
  r.error_candidate_count = q.getColumn(16).getInt64();
  r.failed_exchange_count = q.getColumn(17).getInt64();
  r.invalid_exchange_count = q.getColumn(18).getInt64();
  return r;
}

ConversationRow readConversation(const SQLite::Statement& q) {
  ConversationRow r;
  r.id = q.getColumn(0).getInt64();
  r.session_id = q.getColumn(1).getInt64();
  r.root_step_id = optInt(q, 2);
  r.title = optText(q, 3);
  r.step_count = q.getColumn(4).getInt64();
  r.candidate_count = q.getColumn(5).getInt64();
  r.error_candidates = q.getColumn(6).getInt64();
  r.env_failures = q.getColumn(7).getInt64();
  r.max_depth = q.getColumn(8).getInt64();
  r.first_ns = optInt(q, 9);
  r.last_ns = optInt(q, 10);
  r.ended_in = optText(q, 11);
  r.protocol = q.getColumn(12).getString();
  r.context_id = optText(q, 13);
  return r;
}

Json parseStored(const std::string& text, const char* what) {
  protocol::JsonParseResult parsed = protocol::parseJson(text);
  if (!parsed.value) {
    throw std::runtime_error(std::string("[store.read] stored ") + what +
                             " is not valid JSON: " + parsed.error.message);
  }
  return std::move(*parsed.value);
}

StepRow readStep(const SQLite::Statement& q) {
  StepRow r;
  r.id = q.getColumn(0).getInt64();
  r.exchange_id = q.getColumn(1).getInt64();
  r.session_id = q.getColumn(2).getInt64();
  r.position = q.getColumn(3).getInt64();
  r.source_id = q.getColumn(4).getInt64();
  r.replay_key = fromDb(q.getColumn(5).getInt64());
  r.instruction_type = q.getColumn(6).getString();
  r.instruction_content = q.getColumn(7).getString();
  if (std::optional<std::string> feedback = optText(q, 8)) {
    r.env_feedback = parseStored(*feedback, "env_feedback");
  }
  r.env_failure = optBool(q, 9);
  r.memory_hash = fromDb(q.getColumn(10).getInt64());
  r.tools_hash = fromDb(q.getColumn(11).getInt64());
  r.attributes_hash = fromDb(q.getColumn(12).getInt64());
  r.extra_keys_hash = fromDb(q.getColumn(13).getInt64());
  r.num_outputs = q.getColumn(14).getInt64();
  r.conversation_id = q.getColumn(15).getInt64();
  r.parent_candidate_id = optInt(q, 16);
  r.parent_step_id = optInt(q, 17);
  r.parent_ambiguity = q.getColumn(18).getInt64();
  r.depth = q.getColumn(19).getInt64();
  r.candidate_count = q.getColumn(20).getInt64();
  return r;
}

CandidateRow readCandidate(const SQLite::Statement& q) {
  CandidateRow r;
  r.id = q.getColumn(0).getInt64();
  r.step_id = q.getColumn(1).getInt64();
  r.candidate_index = q.getColumn(2).getInt64();
  r.status = q.getColumn(3).getString();
  r.say = optText(q, 4);
  r.tool_calls = optText(q, 5);
  r.decision_kind = optText(q, 6);
  r.error_code = optText(q, 7);
  r.error_message = optText(q, 8);
  r.error_component = optText(q, 9);
  r.memory_hash = fromDb(q.getColumn(10).getInt64());
  r.internal_step_count = q.getColumn(11).getInt64();
  r.child_count = q.getColumn(12).getInt64();
  return r;
}

/// Columns of kExchangeColumns.
ExchangeRow readExchange(const SQLite::Statement& q) {
  ExchangeRow r;
  r.id = q.getColumn(0).getInt64();
  r.session_id = q.getColumn(1).getInt64();
  r.seq = q.getColumn(2).getInt64();
  r.client_address = q.getColumn(3).getString();
  r.method = q.getColumn(4).getString();
  r.target = q.getColumn(5).getString();
  r.http_version = static_cast<unsigned>(q.getColumn(6).getInt64());
  r.status = q.getColumn(7).getInt();
  r.request_body_redacted = q.getColumn(8).getInt64() != 0;
  r.request_body_size = q.getColumn(9).getInt64();
  r.response_body_size = q.getColumn(10).getInt64();
  r.response_from_upstream = q.getColumn(11).getInt64() != 0;
  r.started_ns = q.getColumn(12).getInt64();
  r.upstream_first_byte_ns = optInt(q, 13);
  r.ended_ns = optInt(q, 14);
  r.outcome = q.getColumn(15).getString();
  r.error = optText(q, 16);
  r.protocol = q.getColumn(17).getString();
  r.route = q.getColumn(18).getString();
  r.magma_request_id = optText(q, 19);
  r.request_valid = optBool(q, 20);
  r.response_valid = optBool(q, 21);
  r.findings = optText(q, 22);
  return r;
}

/// Columns of kExchangeColumns, then kExchangePayloadColumns from index 23.
ExchangeRow readExchangeWithPayload(const SQLite::Statement& q, detail::DictionaryShelf& bodies) {
  ExchangeRow r = readExchange(q);
  r.has_payload = true;
  r.request_headers = detail::headersFromJson(q.getColumn(23).getString());
  r.request_body = bodies.unpackColumns(q, 24, 27, 29);
  r.response_headers = detail::headersFromJson(q.getColumn(25).getString());
  r.response_body = bodies.unpackColumns(q, 26, 28, 30);
  return r;
}

template <class Row, class Read>
std::vector<Row> readAll(SQLite::Statement& q, Read read) {
  std::vector<Row> rows;
  while (q.executeStep()) {
    rows.push_back(read(q));
  }
  return rows;
}

template <class Row, class Read>
std::optional<Row> readOne(SQLite::Statement& q, Read read) {
  if (!q.executeStep()) {
    return std::nullopt;
  }
  return read(q);
}

/// Depth-first order: each step followed by its subtree; siblings (and roots) by id.
std::vector<StepRow> treeOrder(std::vector<StepRow> rows) {
  std::unordered_set<std::int64_t> present;
  for (const StepRow& r : rows) {
    present.insert(r.id);
  }
  std::unordered_map<std::int64_t, std::vector<std::size_t>> children;
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < rows.size(); ++i) {  // rows are by id
    const StepRow& r = rows[i];
    if (r.parent_step_id && present.count(*r.parent_step_id) != 0) {
      children[*r.parent_step_id].push_back(i);
    } else {
      roots.push_back(i);
    }
  }
  std::vector<StepRow> ordered;
  ordered.reserve(rows.size());
  std::vector<std::size_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    auto it = children.find(rows[i].id);
    if (it != children.end()) {
      stack.insert(stack.end(), it->second.rbegin(), it->second.rend());
    }
    ordered.push_back(std::move(rows[i]));
  }
  return ordered;
}

InternalStepRow readInternalStep(const SQLite::Statement& q) {
  InternalStepRow r;
  r.id = q.getColumn(0).getInt64();
  r.candidate_id = q.getColumn(1).getInt64();
  r.position = q.getColumn(2).getInt64();
  r.step_key = optText(q, 3);
  r.component = optText(q, 4);
  r.origin = optText(q, 5);
  r.full_prompt = optText(q, 6);
  r.output_raw = optText(q, 7);
  Json body = parseStored(q.getColumn(8).getString(), "internal step");
  if (body.is_object()) {
    if (r.full_prompt) {
      body["full_prompt"] = *r.full_prompt;
    }
    if (r.output_raw) {
      body["output_raw"] = *r.output_raw;
    }
  }
  r.body = protocol::canonicalJson(body);
  return r;
}

/// Steps with what replay's index needs; the selection's WHERE, if any, follows.
constexpr const char* kReplayStepColumns = R"sql(
  SELECT s.id, s.exchange_id, s.session_id, s.conversation_id, s.position, s.source_id,
         s.replay_key, s.instruction_type, s.instruction_content, s.memory_hash, s.tools_hash,
         s.attributes_hash, s.extra_keys_hash, s.num_outputs,
         (SELECT count(*) FROM candidates c WHERE c.step_id = s.id), e.status, e.response_valid
  FROM steps s JOIN exchanges e ON e.id = s.exchange_id)sql";

ReplayStepRef readReplayStep(const SQLite::Statement& q) {
  ReplayStepRef r;
  r.step_id = q.getColumn(0).getInt64();
  r.exchange_id = q.getColumn(1).getInt64();
  r.session_id = q.getColumn(2).getInt64();
  r.conversation_id = q.getColumn(3).getInt64();
  r.position = q.getColumn(4).getInt64();
  r.source_id = q.getColumn(5).getInt64();
  r.replay_key = fromDb(q.getColumn(6).getInt64());
  r.instruction_type = q.getColumn(7).getString();
  r.instruction_content = q.getColumn(8).getString();
  r.memory_hash = fromDb(q.getColumn(9).getInt64());
  r.tools_hash = fromDb(q.getColumn(10).getInt64());
  r.attributes_hash = fromDb(q.getColumn(11).getInt64());
  r.extra_keys_hash = fromDb(q.getColumn(12).getInt64());
  r.num_outputs = q.getColumn(13).getInt64();
  r.candidate_count = q.getColumn(14).getInt64();
  r.exchange_status = q.getColumn(15).getInt();
  r.response_valid = optBool(q, 16);
  return r;
}

ReplayMissRow readReplayMiss(const SQLite::Statement& q) {
  ReplayMissRow r;
  r.id = q.getColumn(0).getInt64();
  r.session_id = q.getColumn(1).getInt64();
  r.at_ns = q.getColumn(2).getInt64();
  r.route = q.getColumn(3).getString();
  r.request_id = q.getColumn(4).getString();
  r.position = q.getColumn(5).getInt64();
  r.source_id = optInt(q, 6);
  r.replay_key = fromDb(q.getColumn(7).getInt64());
  r.input = q.getColumn(8).getString();
  r.closest_step_id = optInt(q, 9);
  r.differences = q.getColumn(10).getString();
  r.policy = q.getColumn(11).getString();
  return r;
}

}  // namespace

class ArchiveReader::Impl {
 public:
  Impl(const std::string& path, std::chrono::milliseconds busy_timeout)
      : db(detail::openDatabase(path, SQLite::OPEN_READONLY, busy_timeout)) {
    try {
      version = detail::schemaVersionOf(db);
    } catch (const SQLite::Exception& e) {
      throw std::runtime_error("[store.open] cannot read archive " + path + ": " + e.what());
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
  }

  SQLite::Statement prepare(const std::string& sql) {
    try {
      return SQLite::Statement(db, sql);
    } catch (const SQLite::Exception& e) {
      throw std::runtime_error(std::string("[store.read] ") + e.what());
    }
  }

  SQLite::Database db;
  int version = 0;
  detail::DictionaryShelf bodies{db};
  std::optional<SQLite::Statement> recorded_response;  // for recordedResponse()
};

namespace {

/// Runs `body`, turning SQLite errors into std::runtime_error "[store.read] ...".
template <class Body>
auto guarded(Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(std::string("[store.read] ") + e.what());
  }
}

}  // namespace

ArchiveReader::ArchiveReader(const std::string& path, std::chrono::milliseconds busy_timeout)
    : impl_(std::make_unique<Impl>(path, busy_timeout)) {}

ArchiveReader::~ArchiveReader() = default;
ArchiveReader::ArchiveReader(ArchiveReader&&) noexcept = default;
ArchiveReader& ArchiveReader::operator=(ArchiveReader&&) noexcept = default;

int ArchiveReader::schemaVersion() const {
  return impl_->version;
}

std::vector<SessionRow> ArchiveReader::sessions() const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kSessionColumns) + " ORDER BY id");
    return readAll<SessionRow>(q, readSession);
  });
}

std::optional<SessionRow> ArchiveReader::session(std::int64_t id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kSessionColumns) + " WHERE id = ?1");
    bindInt(q, 1, id);
    return readOne<SessionRow>(q, readSession);
  });
}

std::vector<ConversationRow> ArchiveReader::conversations(std::int64_t session_id,
                                                          std::int64_t after_id,
                                                          std::size_t limit) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kConversationColumns) +
                                         " WHERE session_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3");
    bindInt(q, 1, session_id);
    bindInt(q, 2, after_id);
    bindInt(q, 3, sqlLimit(limit));
    return readAll<ConversationRow>(q, readConversation);
  });
}

std::optional<ConversationRow> ArchiveReader::conversation(std::int64_t id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kConversationColumns) + " WHERE id = ?1");
    bindInt(q, 1, id);
    return readOne<ConversationRow>(q, readConversation);
  });
}

std::vector<StepRow> ArchiveReader::steps(std::int64_t conversation_id) const {
  return guarded([&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kStepColumns) + " WHERE s.conversation_id = ?1 ORDER BY s.id");
    bindInt(q, 1, conversation_id);
    return treeOrder(readAll<StepRow>(q, readStep));
  });
}

std::optional<StepRow> ArchiveReader::step(std::int64_t id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kStepColumns) + " WHERE s.id = ?1");
    bindInt(q, 1, id);
    return readOne<StepRow>(q, readStep);
  });
}

std::vector<StepRow> ArchiveReader::stepsOfExchange(std::int64_t exchange_id) const {
  return guarded([&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kStepColumns) + " WHERE s.exchange_id = ?1 ORDER BY s.position");
    bindInt(q, 1, exchange_id);
    return readAll<StepRow>(q, readStep);
  });
}

std::vector<StepRow> ArchiveReader::stepsWithReplayKey(std::uint64_t replay_key) const {
  return guarded([&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kStepColumns) + " WHERE s.replay_key = ?1 ORDER BY s.id");
    bindInt(q, 1, detail::toDb(replay_key));
    return readAll<StepRow>(q, readStep);
  });
}

std::vector<CandidateRow> ArchiveReader::candidates(std::int64_t step_id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kCandidateColumns) +
                                         " WHERE c.step_id = ?1 ORDER BY c.candidate_index");
    bindInt(q, 1, step_id);
    return readAll<CandidateRow>(q, readCandidate);
  });
}

std::optional<CandidateRow> ArchiveReader::candidate(std::int64_t id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(std::string(kCandidateColumns) + " WHERE c.id = ?1");
    bindInt(q, 1, id);
    return readOne<CandidateRow>(q, readCandidate);
  });
}

std::vector<InternalStepRow> ArchiveReader::internalSteps(std::int64_t candidate_id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT id, candidate_id, position, step_key, component, origin, full_prompt, output_raw,
             rest
      FROM internal_steps WHERE candidate_id = ?1 ORDER BY position)sql");
    bindInt(q, 1, candidate_id);
    return readAll<InternalStepRow>(q, readInternalStep);
  });
}

std::vector<ExchangeRow> ArchiveReader::exchanges(std::int64_t session_id, std::int64_t offset,
                                                  std::size_t limit) const {
  return guarded([&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kExchangeColumns) +
                       " FROM exchanges WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3");
    bindInt(q, 1, session_id);
    bindInt(q, 2, offset);
    bindInt(q, 3, sqlLimit(limit));
    return readAll<ExchangeRow>(q, [](const SQLite::Statement& s) { return readExchange(s); });
  });
}

std::optional<ExchangeRow> ArchiveReader::exchange(std::int64_t id) const {
  return guarded([&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kExchangeColumns) + std::string(kExchangePayloadColumns) +
                       " FROM exchanges "
                       "WHERE id = ?1");
    bindInt(q, 1, id);
    return readOne<ExchangeRow>(
        q, [&](const SQLite::Statement& s) { return readExchangeWithPayload(s, impl_->bodies); });
  });
}

std::optional<std::string> ArchiveReader::blob(std::uint64_t hash) const {
  return guarded([&]() -> std::optional<std::string> {
    SQLite::Statement q = impl_->prepare("SELECT text, codec FROM blobs WHERE hash = ?1");
    bindInt(q, 1, detail::toDb(hash));
    if (!q.executeStep()) {
      return std::nullopt;
    }
    return storedBody(q, 0, 1);
  });
}

std::optional<Json> ArchiveReader::inputJson(std::int64_t step_id) const {
  return guarded([&]() -> std::optional<Json> {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT s.source_id, s.instruction_type, s.instruction_content, s.num_outputs,
             t.text, a.text, m.text, x.text, m.codec
      FROM steps s
      JOIN blobs t ON t.hash = s.tools_hash
      JOIN blobs a ON a.hash = s.attributes_hash
      JOIN blobs m ON m.hash = s.memory_hash
      JOIN blobs x ON x.hash = s.extra_keys_hash
      WHERE s.id = ?1)sql");
    bindInt(q, 1, step_id);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    Json input = Json::object();
    input["id"] = q.getColumn(0).getInt64();
    input["instruction"] =
        Json{{"type", q.getColumn(1).getString()}, {"content", q.getColumn(2).getString()}};
    input["num_outputs"] = q.getColumn(3).getInt64();
    input["tools"] = parseStored(q.getColumn(4).getString(), "tools");
    input["attributes"] = parseStored(q.getColumn(5).getString(), "attributes");
    input["memory"] = parseStored(storedBody(q, 6, 8), "memory");
    input["extra_keys"] = parseStored(q.getColumn(7).getString(), "extra_keys");
    return input;
  });
}

std::optional<Json> ArchiveReader::outputJson(std::int64_t candidate_id) const {
  std::optional<Json> output = guarded([&]() -> std::optional<Json> {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT e.magma_request_id, s.source_id, c.candidate_index, c.status, c.say, c.tool_calls,
             c.error_code, c.error_message, c.error_component, m.text, m.codec
      FROM candidates c
      JOIN steps s ON s.id = c.step_id
      JOIN exchanges e ON e.id = s.exchange_id
      JOIN blobs m ON m.hash = c.memory_hash
      WHERE c.id = ?1)sql");
    bindInt(q, 1, candidate_id);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    Json out = Json::object();
    out["request_id"] = optText(q, 0).value_or("");
    out["source_id"] = q.getColumn(1).getInt64();
    out["candidate_index"] = q.getColumn(2).getInt64();
    const std::string status = q.getColumn(3).getString();
    out["status"] = status;
    out["memory"] = parseStored(storedBody(q, 9, 10), "memory");
    out["output"] = nullptr;
    out["error"] = nullptr;
    if (std::optional<std::string> calls = optText(q, 5)) {
      out["output"] = Json{{"say", optText(q, 4).value_or("")},
                           {"tool_calls", parseStored(*calls, "tool_calls")}};
    }
    if (std::optional<std::string> code = optText(q, 6)) {
      Json error = Json{{"code", *code}, {"message", optText(q, 7).value_or("")}};
      std::optional<std::string> component = optText(q, 8);
      error["component"] = component ? Json(*component) : Json(nullptr);
      out["error"] = std::move(error);
    }
    return out;
  });
  if (!output) {
    return output;
  }
  Json steps = Json::array();
  for (InternalStepRow& row : internalSteps(candidate_id)) {
    steps.push_back(parseStored(row.body, "internal step"));
  }
  (*output)["internal_steps"] = std::move(steps);
  return output;
}

void ArchiveReader::forEachReplayStep(
    const ReplaySelection& selection,
    const std::function<void(const ReplayStepRef&)>& visit) const {
  guarded([&] {
    // One pass over steps in id order (no sort): the exchange by primary key, the candidate
    // count from the candidates_step index, the id lists materialised once by SQLite.
    std::string sql = kReplayStepColumns;
    if (!selection.all()) {
      sql += R"sql(
  WHERE s.session_id IN (SELECT value FROM json_each(?1))
     OR s.conversation_id IN (SELECT value FROM json_each(?2)))sql";
    }
    sql += " ORDER BY s.id";
    SQLite::Statement q = impl_->prepare(sql);
    if (!selection.all()) {
      q.bind(1, detail::idList(selection.sessions));
      q.bind(2, detail::idList(selection.conversations));
    }
    while (q.executeStep()) {
      visit(readReplayStep(q));
    }
  });
}

std::vector<ExchangeRow> ArchiveReader::exchangesOfRoute(const ReplaySelection& selection,
                                                         const std::string& route) const {
  return guarded([&] {
    // exchanges_route (route, session_id) finds the rows without reading the others' bodies.
    std::string sql = std::string(kExchangeColumns) + kExchangePayloadColumns +
                      " FROM exchanges WHERE route = ?1";
    if (!selection.all()) {
      sql += R"sql(
  AND session_id IN (SELECT value FROM json_each(?2)
                     UNION SELECT session_id FROM conversations
                           WHERE id IN (SELECT value FROM json_each(?3))))sql";
    }
    sql += " ORDER BY id";
    SQLite::Statement q = impl_->prepare(sql);
    q.bind(1, route);
    if (!selection.all()) {
      q.bind(2, detail::idList(selection.sessions));
      q.bind(3, detail::idList(selection.conversations));
    }
    return readAll<ExchangeRow>(
        q, [&](const SQLite::Statement& s) { return readExchangeWithPayload(s, impl_->bodies); });
  });
}

std::optional<RecordedResponse> ArchiveReader::recordedResponse(std::int64_t exchange_id) const {
  return guarded([&]() -> std::optional<RecordedResponse> {
    const detail::StatementLease lease(impl_->recorded_response, impl_->db,
                                       "SELECT status, response_headers, response_body, "
                                       "response_body_codec, response_body_dictionary "
                                       "FROM exchanges WHERE id = ?1");
    SQLite::Statement& q = *lease;
    bindInt(q, 1, exchange_id);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    RecordedResponse r;
    r.status = q.getColumn(0).getInt();
    r.headers = detail::headersFromJson(q.getColumn(1).getString());
    r.body = impl_->bodies.unpackColumns(q, 2, 3, 4);
    return r;
  });
}

std::vector<ReplayMissRow> ArchiveReader::replayMisses(std::int64_t session_id) const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT id, session_id, at_ns, route, request_id, position, source_id, replay_key, input,
             closest_step_id, differences, policy
      FROM replay_misses WHERE session_id = ?1 ORDER BY id)sql");
    bindInt(q, 1, session_id);
    return readAll<ReplayMissRow>(q, readReplayMiss);
  });
}

std::vector<A2aCallRow> ArchiveReader::a2aCalls(std::int64_t conversation_id) const {
  return guarded([&] { return detail::a2aCallsOfConversation(impl_->db, conversation_id); });
}

std::vector<A2aCallRow> ArchiveReader::a2aCallsOfExchange(std::int64_t exchange_id) const {
  return guarded([&] { return detail::a2aCallsOfExchange(impl_->db, exchange_id); });
}

void ArchiveReader::forEachA2aCall(const ReplaySelection& selection,
                                   const std::function<void(const A2aCallRow&)>& visit) const {
  guarded([&] { detail::forEachA2aCall(impl_->db, selection, visit); });
}

std::vector<StreamEventRow> ArchiveReader::streamEvents(std::int64_t exchange_id) const {
  return guarded([&] { return detail::streamEventsOf(impl_->db, exchange_id); });
}

std::vector<StepLink> ArchiveReader::stepLinksOfSession(std::int64_t session_id) const {
  return guarded([&] { return detail::stepLinksOfSession(impl_->db, session_id); });
}

std::vector<EvaluationPair> ArchiveReader::evaluationPairs(std::int64_t conversation_id) const {
  return guarded([&] { return detail::evaluationPairsOf(impl_->db, conversation_id); });
}

std::vector<SearchHit> ArchiveReader::search(const SearchQuery& query) const {
  return guarded([&] { return detail::searchArchive(impl_->db, query); });
}

std::vector<std::int64_t> ArchiveReader::exchangeIdsOfConversation(
    std::int64_t conversation_id) const {
  return guarded([&] {
    // steps_conversation (conversation_id, id), then the few exchange ids sorted.
    SQLite::Statement q = impl_->prepare(
        "SELECT DISTINCT exchange_id FROM steps WHERE conversation_id = ?1 ORDER BY exchange_id");
    bindInt(q, 1, conversation_id);
    std::vector<std::int64_t> ids;
    while (q.executeStep()) {
      ids.push_back(q.getColumn(0).getInt64());
    }
    return ids;
  });
}

ArchiveCounts ArchiveReader::counts() const {
  return guarded([&] {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT count(*), coalesce(sum(exchange_count), 0), coalesce(sum(step_count), 0),
             coalesce(sum(candidate_count), 0), coalesce(sum(internal_step_count), 0),
             coalesce(sum(conversation_count), 0), (SELECT count(*) FROM blobs)
      FROM sessions)sql");
    ArchiveCounts c;
    if (q.executeStep()) {
      c.sessions = q.getColumn(0).getInt64();
      c.exchanges = q.getColumn(1).getInt64();
      c.steps = q.getColumn(2).getInt64();
      c.candidates = q.getColumn(3).getInt64();
      c.internal_steps = q.getColumn(4).getInt64();
      c.conversations = q.getColumn(5).getInt64();
      c.blobs = q.getColumn(6).getInt64();
    }
    return c;
  });
}

}  // namespace agentvcr::store
