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
#include "agentvcr/protocol/env_feedback.hpp"
#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_spans.hpp"
#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/schema.hpp"
#include "decode.hpp"
#include "schema_internal.hpp"
#include "search.hpp"
#include "session_lock.hpp"
#include "sqlite_support.hpp"
#include "step_link_reads.hpp"
#include "stored_bodies.hpp"

namespace agentvcr::store {

using detail::bindInt;
using detail::column;
using detail::columnIndex;
using detail::fromDb;
using detail::NamedColumns;
using protocol::Json;

namespace {

constexpr const char* kSessionColumns = R"sql(
  SELECT id, uuid, node, recorder_version, derived_from, name, mode, upstream, listen,
         started_ns, ended_ns, agent_health, agent_info, agent_id, agent_version, exchange_count, step_count, candidate_count,
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
         s.conversation_id, s.parent_candidate_id, p.step_id AS parent_step_id,
         s.parent_ambiguity, s.depth,
         (SELECT count(*) FROM candidates c WHERE c.step_id = s.id) AS candidate_count
  FROM steps s LEFT JOIN candidates p ON p.id = s.parent_candidate_id)sql";

constexpr const char* kCandidateColumns = R"sql(
  SELECT c.id, c.step_id, c.candidate_index, c.status, c.say, c.tool_calls, c.decision_kind,
         c.error_code, c.error_message, c.error_component, c.memory_hash,
         c.internal_step_count,
         (SELECT count(*) FROM steps s WHERE s.parent_candidate_id = c.id) AS child_count
  FROM candidates c)sql";

constexpr const char* kExchangeColumns = R"sql(
  SELECT id, session_id, seq, client_address, method, target, http_version, status,
         request_body_redacted,
         coalesce(request_body_size, length(request_body)) AS request_body_size,
         coalesce(response_body_size, length(response_body)) AS response_body_size,
         response_from_upstream, started_ns, request_ended_ns, upstream_sent_ns,
         upstream_first_byte_ns, upstream_last_byte_ns, ended_ns, outcome, error, fault,
         card_rewrite, protocol, route,
         magma_request_id, request_valid, response_valid, findings)sql";

/// The columns of blob `table` (an alias in the query) named as detail::BlobColumns::of(q, name)
/// reads them.
std::string blobSelect(const std::string& table, const std::string& name) {
  const std::string t = table.empty() ? std::string() : table + ".";
  return t + "text AS " + name + ", " + t + "codec AS " + name + "_codec, " + t +
         "body_exchange_id AS " + name + "_exchange, " + t + "body_side AS " + name + "_side, " +
         t + "body_at AS " + name + "_at, " + t + "body_end AS " + name + "_end";
}

/// Follows kExchangeColumns when a row's bodies and headers are wanted
/// (readExchangeWithPayload()).
constexpr const char* kExchangePayloadColumns =
    ", request_headers, response_headers, request_body, request_body_codec, "
    "request_body_dictionary, response_body, response_body_codec, response_body_dictionary, "
    "body_segment_id";

std::int64_t sqlLimit(std::size_t limit) {
  if (limit > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
    return -1;  // no limit
  }
  return static_cast<std::int64_t>(limit);
}

SessionRow readSession(const NamedColumns& c) {
  SessionRow r;
  r.id = c.get("id").getInt64();
  r.uuid = canonicalUuid(c.get("uuid").getString());  // however an older tool spelled it
  r.node = c.get("node").getString();
  r.recorder_version = c.optText("recorder_version");
  r.derived_from = c.optText("derived_from");
  r.name = c.get("name").getString();
  r.mode = c.get("mode").getString();
  r.upstream = c.get("upstream").getString();
  r.listen = c.get("listen").getString();
  r.started_ns = c.get("started_ns").getInt64();
  r.ended_ns = c.optInt("ended_ns");
  r.agent_health = c.optText("agent_health");
  r.agent_info = c.optText("agent_info");
  r.agent_id = c.optText("agent_id");
  r.agent_version = c.optText("agent_version");
  r.exchange_count = c.get("exchange_count").getInt64();
  r.step_count = c.get("step_count").getInt64();
  r.candidate_count = c.get("candidate_count").getInt64();
  r.internal_step_count = c.get("internal_step_count").getInt64();
  r.conversation_count = c.get("conversation_count").getInt64();
  r.error_candidate_count = c.get("error_candidate_count").getInt64();
  r.failed_exchange_count = c.get("failed_exchange_count").getInt64();
  r.invalid_exchange_count = c.get("invalid_exchange_count").getInt64();
  return r;
}

ConversationRow readConversation(const NamedColumns& c) {
  ConversationRow r;
  r.id = c.get("id").getInt64();
  r.session_id = c.get("session_id").getInt64();
  r.root_step_id = c.optInt("root_step_id");
  r.title = c.optText("title");
  r.step_count = c.get("step_count").getInt64();
  r.candidate_count = c.get("candidate_count").getInt64();
  r.error_candidates = c.get("error_candidates").getInt64();
  r.env_failures = c.get("env_failures").getInt64();
  r.max_depth = c.get("max_depth").getInt64();
  r.first_ns = c.optInt("first_ns");
  r.last_ns = c.optInt("last_ns");
  r.ended_in = c.optText("ended_in");
  r.protocol = c.get("protocol").getString();
  r.context_id = c.optText("context_id");
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

/// A step's columns but env_feedback, which stays text until parsed (readStep()).
StepRow readStepColumns(const NamedColumns& c) {
  StepRow r;
  r.id = c.get("id").getInt64();
  r.exchange_id = c.get("exchange_id").getInt64();
  r.session_id = c.get("session_id").getInt64();
  r.position = c.get("position").getInt64();
  r.source_id = c.get("source_id").getInt64();
  r.replay_key = fromDb(c.get("replay_key").getInt64());
  r.instruction_type = c.get("instruction_type").getString();
  r.instruction_content = c.get("instruction_content").getString();
  r.env_failure = c.optBool("env_failure");
  r.memory_hash = fromDb(c.get("memory_hash").getInt64());
  r.tools_hash = fromDb(c.get("tools_hash").getInt64());
  r.attributes_hash = fromDb(c.get("attributes_hash").getInt64());
  r.extra_keys_hash = fromDb(c.get("extra_keys_hash").getInt64());
  r.num_outputs = c.get("num_outputs").getInt64();
  r.conversation_id = c.get("conversation_id").getInt64();
  r.parent_candidate_id = c.optInt("parent_candidate_id");
  r.parent_step_id = c.optInt("parent_step_id");
  r.parent_ambiguity = c.get("parent_ambiguity").getInt64();
  r.depth = c.get("depth").getInt64();
  r.candidate_count = c.get("candidate_count").getInt64();
  return r;
}

/// Fills an env step's decoded feedback: as an archive before version 16 stored it, else decoded
/// again from its instruction, of which it is a pure function (no copy is kept).
void fillEnvFeedback(StepRow& r, const std::optional<std::string>& stored) {
  if (stored) {
    r.env_feedback = parseStored(*stored, "env_feedback");
  } else if (r.instruction_type == "env") {
    r.env_feedback = protocol::toJson(protocol::decodeEnvFeedback(r.instruction_content));
  }
}

StepRow readStep(const NamedColumns& c) {
  StepRow r = readStepColumns(c);
  fillEnvFeedback(r, c.optText("env_feedback"));
  return r;
}

CandidateRow readCandidate(const NamedColumns& c) {
  CandidateRow r;
  r.id = c.get("id").getInt64();
  r.step_id = c.get("step_id").getInt64();
  r.candidate_index = c.get("candidate_index").getInt64();
  r.status = c.get("status").getString();
  r.say = c.optText("say");
  r.tool_calls = c.optText("tool_calls");
  r.decision_kind = c.optText("decision_kind");
  r.error_code = c.optText("error_code");
  r.error_message = c.optText("error_message");
  r.error_component = c.optText("error_component");
  r.memory_hash = fromDb(c.get("memory_hash").getInt64());
  r.internal_step_count = c.get("internal_step_count").getInt64();
  r.child_count = c.get("child_count").getInt64();
  return r;
}

ExchangeRow readExchange(const NamedColumns& c) {
  ExchangeRow r;
  r.id = c.get("id").getInt64();
  r.session_id = c.get("session_id").getInt64();
  r.seq = c.get("seq").getInt64();
  r.client_address = c.get("client_address").getString();
  r.method = c.get("method").getString();
  r.target = c.get("target").getString();
  r.http_version = static_cast<unsigned>(c.get("http_version").getInt64());
  r.status = c.get("status").getInt();
  r.request_body_redacted = c.get("request_body_redacted").getInt64() != 0;
  r.request_body_size = c.get("request_body_size").getInt64();
  r.response_body_size = c.get("response_body_size").getInt64();
  r.response_from_upstream = c.get("response_from_upstream").getInt64() != 0;
  r.started_ns = c.get("started_ns").getInt64();
  r.request_ended_ns = c.optInt("request_ended_ns");
  r.upstream_sent_ns = c.optInt("upstream_sent_ns");
  r.upstream_first_byte_ns = c.optInt("upstream_first_byte_ns");
  r.upstream_last_byte_ns = c.optInt("upstream_last_byte_ns");
  r.ended_ns = c.optInt("ended_ns");
  r.outcome = c.get("outcome").getString();
  r.error = c.optText("error");
  r.fault = c.optText("fault");
  r.card_rewrite = c.optText("card_rewrite");
  r.protocol = c.get("protocol").getString();
  r.route = c.get("route").getString();
  r.magma_request_id = c.optText("magma_request_id");
  r.request_valid = c.optBool("request_valid");
  r.response_valid = c.optBool("response_valid");
  r.findings = c.optText("findings");
  return r;
}

/// Columns of kExchangeColumns and kExchangePayloadColumns.
ExchangeRow readExchangeWithPayload(const NamedColumns& c, detail::StoredBodies& bodies) {
  ExchangeRow r = readExchange(c);
  r.has_payload = true;
  r.request_headers = detail::headersFromJson(c.get("request_headers").getString());
  r.request_body = bodies.read(c.statement(), detail::BodySide::Request);
  r.response_headers = detail::headersFromJson(c.get("response_headers").getString());
  r.response_body = bodies.read(c.statement(), detail::BodySide::Response);
  return r;
}

template <class Row, class Read>
std::vector<Row> readAll(SQLite::Statement& q, Read read) {
  const NamedColumns columns(q);
  std::vector<Row> rows;
  while (q.executeStep()) {
    rows.push_back(read(columns));
  }
  return rows;
}

template <class Row, class Read>
std::optional<Row> readOne(SQLite::Statement& q, Read read) {
  if (!q.executeStep()) {
    return std::nullopt;
  }
  return read(NamedColumns(q));
}

/// Depth-first order, as positions in `rows` (StepRow or StepOutline, by id): each step followed
/// by its subtree; siblings (and roots) by id.
template <class Row>
std::vector<std::size_t> treeOrder(const std::vector<Row>& rows) {
  std::unordered_set<std::int64_t> present;
  for (const Row& r : rows) {
    present.insert(r.id);
  }
  std::unordered_map<std::int64_t, std::vector<std::size_t>> children;
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.parent_step_id && present.count(*r.parent_step_id) != 0) {
      children[*r.parent_step_id].push_back(i);
    } else {
      roots.push_back(i);
    }
  }
  std::vector<std::size_t> ordered;
  ordered.reserve(rows.size());
  std::vector<std::size_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    auto it = children.find(rows[i].id);
    if (it != children.end()) {
      stack.insert(stack.end(), it->second.rbegin(), it->second.rend());
    }
    ordered.push_back(i);
  }
  return ordered;
}

/// An internal step's row; its prompt read from `response_body` when the row keeps where the
/// body holds it instead of a copy (schema 16).
InternalStepRow readInternalStep(const NamedColumns& c, const std::string* response_body) {
  InternalStepRow r;
  r.id = c.get("id").getInt64();
  r.candidate_id = c.get("candidate_id").getInt64();
  r.position = c.get("position").getInt64();
  r.step_key = c.optText("step_key");
  r.component = c.optText("component");
  r.origin = c.optText("origin");
  r.full_prompt = c.optText("full_prompt");
  if (const std::optional<std::int64_t> at = c.optInt("full_prompt_at");
      at && !r.full_prompt && response_body != nullptr) {
    r.full_prompt = protocol::jsonStringAt(*response_body, static_cast<std::size_t>(*at));
    if (!r.full_prompt) {
      throw std::runtime_error("[store.body.corrupt] the prompt of internal step " +
                               std::to_string(r.id) +
                               " is not where its response body should "
                               "hold it");
    }
  }
  r.output_raw = c.optText("output_raw");
  Json body = parseStored(c.get("rest").getString(), "internal step");
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
  SELECT s.id AS step_id, s.exchange_id, s.session_id, s.conversation_id, s.position, s.depth,
         s.source_id, s.replay_key, s.instruction_type, s.instruction_content, s.memory_hash,
         s.tools_hash, s.attributes_hash, s.extra_keys_hash, s.num_outputs,
         (SELECT count(*) FROM candidates c WHERE c.step_id = s.id) AS candidate_count,
         e.status AS exchange_status, e.response_valid, e.started_ns, e.upstream_sent_ns,
         e.upstream_first_byte_ns,
         CASE WHEN instr(lower(e.request_headers), 'x-agentvcr-scope') > 0
              THEN e.request_headers END AS scoped_request_headers
  FROM steps s JOIN exchanges e ON e.id = s.exchange_id)sql";

ReplayStepRef readReplayStep(const NamedColumns& c) {
  ReplayStepRef r;
  r.step_id = c.get("step_id").getInt64();
  r.exchange_id = c.get("exchange_id").getInt64();
  r.session_id = c.get("session_id").getInt64();
  r.conversation_id = c.get("conversation_id").getInt64();
  r.position = c.get("position").getInt64();
  r.depth = c.get("depth").getInt64();
  r.source_id = c.get("source_id").getInt64();
  r.replay_key = fromDb(c.get("replay_key").getInt64());
  r.instruction_type = c.get("instruction_type").getString();
  r.instruction_content = c.get("instruction_content").getString();
  r.memory_hash = fromDb(c.get("memory_hash").getInt64());
  r.tools_hash = fromDb(c.get("tools_hash").getInt64());
  r.attributes_hash = fromDb(c.get("attributes_hash").getInt64());
  r.extra_keys_hash = fromDb(c.get("extra_keys_hash").getInt64());
  r.num_outputs = c.get("num_outputs").getInt64();
  r.candidate_count = c.get("candidate_count").getInt64();
  r.exchange_status = c.get("exchange_status").getInt();
  r.response_valid = c.optBool("response_valid");
  r.started_ns = c.get("started_ns").getInt64();
  r.upstream_sent_ns = c.optInt("upstream_sent_ns");
  r.upstream_first_byte_ns = c.optInt("upstream_first_byte_ns");
  // Only the few rows that may carry a scope have their headers read (the query's CASE).
  if (const std::optional<std::string> headers = c.optText("scoped_request_headers")) {
    r.scope = protocol::headerValue(detail::headersFromJson(*headers), protocol::kScopeHeader);
  }
  return r;
}

ReplayMissRow readReplayMiss(const NamedColumns& c) {
  ReplayMissRow r;
  r.id = c.get("id").getInt64();
  r.session_id = c.get("session_id").getInt64();
  r.at_ns = c.get("at_ns").getInt64();
  r.route = c.get("route").getString();
  r.request_id = c.get("request_id").getString();
  r.position = c.get("position").getInt64();
  r.source_id = c.optInt("source_id");
  r.replay_key = fromDb(c.get("replay_key").getInt64());
  r.input = c.get("input").getString();
  r.closest_step_id = c.optInt("closest_step_id");
  r.differences = c.get("differences").getString();
  r.policy = c.get("policy").getString();
  return r;
}

}  // namespace

class ArchiveReader::Impl {
 public:
  Impl(const std::string& archive_path, std::chrono::milliseconds busy_timeout)
      : path(archive_path),
        leaves_no_wal(archive_path),
        db(detail::openCurrentArchive(archive_path, busy_timeout)) {}

  /// Sets `row.state`, asking the session's lock (session_lock.hpp) whether its recorder runs.
  void tellState(SessionRow& row) {
    row.state = row.ended_ns ? SessionState::Ended
                             : detail::unendedSessionState(db, path, row.id, row.ended_ns);
  }

  SQLite::Statement prepare(const std::string& sql) {
    try {
      return SQLite::Statement(db, sql);
    } catch (const SQLite::Exception& e) {
      throw std::runtime_error(detail::readError(path, e));
    }
  }

  std::string path;
  detail::LeavesNoWal leaves_no_wal;  ///< before db: tidies after db has closed
  SQLite::Database db;
  int version = kSchemaVersion;
  detail::StoredBodies bodies{db};
  // Reads made once per step or per request, prepared on first use (StatementLease): compiling
  // them again on every call cost as much as the read.
  std::optional<detail::ReusedStatement> recorded_response;   // for recordedResponse()
  std::optional<detail::ReusedStatement> step_by_id;          // for step()
  std::optional<detail::ReusedStatement> candidates_of_step;  // for candidates()
};

namespace {

/// Runs `body`, turning SQLite errors into std::runtime_error "[store.read] PATH: ...".
template <class Body>
auto guarded(const std::string& path, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(detail::readError(path, e));
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
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kSessionColumns) + " ORDER BY id");
    std::vector<SessionRow> sessions = readAll<SessionRow>(q, readSession);
    for (SessionRow& session : sessions) {
      impl_->tellState(session);
    }
    return sessions;
  });
}

std::optional<SessionRow> ArchiveReader::session(std::int64_t id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kSessionColumns) + " WHERE id = :id");
    bindInt(q, ":id", id);
    std::optional<SessionRow> session = readOne<SessionRow>(q, readSession);
    if (session) {
      impl_->tellState(*session);
    }
    return session;
  });
}

std::vector<ConversationRow> ArchiveReader::conversations(std::int64_t session_id,
                                                          std::int64_t after_id,
                                                          std::size_t limit) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(
        std::string(kConversationColumns) +
        " WHERE session_id = :session_id AND id > :after_id ORDER BY id LIMIT :limit");
    bindInt(q, ":session_id", session_id);
    bindInt(q, ":after_id", after_id);
    bindInt(q, ":limit", sqlLimit(limit));
    return readAll<ConversationRow>(q, readConversation);
  });
}

std::optional<ConversationRow> ArchiveReader::conversation(std::int64_t id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kConversationColumns) + " WHERE id = :id");
    bindInt(q, ":id", id);
    return readOne<ConversationRow>(q, readConversation);
  });
}

std::vector<StepRow> ArchiveReader::steps(std::int64_t conversation_id) const {
  std::vector<StepRow> ordered;
  forEachStep(conversation_id, [&](StepRow&& step) { ordered.push_back(std::move(step)); });
  return ordered;
}

void ArchiveReader::forEachStep(std::int64_t conversation_id,
                                const std::function<void(StepRow&&)>& visit) const {
  std::vector<StepRow> rows;
  std::vector<std::optional<std::string>> feedback;  // each row's env_feedback, as stored
  guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(
        std::string(kStepColumns) + " WHERE s.conversation_id = :conversation_id ORDER BY s.id");
    bindInt(q, ":conversation_id", conversation_id);
    const NamedColumns columns(q);
    while (q.executeStep()) {
      rows.push_back(readStepColumns(columns));
      feedback.push_back(columns.optText("env_feedback"));
    }
  });
  for (const std::size_t i : treeOrder(rows)) {
    fillEnvFeedback(rows[i], feedback[i]);
    feedback[i].reset();
    visit(std::move(rows[i]));
  }
}

std::vector<StepOutline> ArchiveReader::stepOutlines(std::int64_t conversation_id) const {
  std::vector<StepOutline> rows = guarded(impl_->path, [&] {
    // The counts are index lookups (candidates_step, steps_parent), a few per step.
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT s.id, s.exchange_id, s.parent_candidate_id, p.step_id AS parent_step_id, s.depth,
             s.instruction_type = 'env' AS env, coalesce(s.env_failure, 0) AS env_failure,
             (SELECT count(*) FROM candidates c
              WHERE c.step_id = s.id AND c.status = 'error') AS error_candidates,
             (SELECT count(*) FROM candidates c
              WHERE c.step_id = s.id AND EXISTS (SELECT 1 FROM steps k
                                                 WHERE k.parent_candidate_id = c.id))
               AS forking_candidates
      FROM steps s LEFT JOIN candidates p ON p.id = s.parent_candidate_id
      WHERE s.conversation_id = :conversation_id ORDER BY s.id)sql");
    bindInt(q, ":conversation_id", conversation_id);
    return readAll<StepOutline>(q, [](const NamedColumns& c) {
      StepOutline r;
      r.id = c.get("id").getInt64();
      r.exchange_id = c.get("exchange_id").getInt64();
      r.parent_candidate_id = c.optInt("parent_candidate_id");
      r.parent_step_id = c.optInt("parent_step_id");
      r.depth = c.get("depth").getInt64();
      r.env = c.get("env").getInt() != 0;
      r.env_failure = c.get("env_failure").getInt() != 0;
      r.error_candidates = c.get("error_candidates").getInt();
      r.forking_candidates = c.get("forking_candidates").getInt();
      return r;
    });
  });
  std::vector<StepOutline> ordered;
  ordered.reserve(rows.size());
  for (const std::size_t i : treeOrder(rows)) {
    ordered.push_back(rows[i]);
  }
  return ordered;
}

std::optional<StepRow> ArchiveReader::step(std::int64_t id) const {
  return guarded(impl_->path, [&] {
    static const std::string sql = std::string(kStepColumns) + " WHERE s.id = :id";
    const detail::StatementLease lease(impl_->step_by_id, impl_->db, sql.c_str());
    bindInt(*lease, ":id", id);
    return readOne<StepRow>(*lease, readStep);
  });
}

std::vector<StepRow> ArchiveReader::stepsOfExchange(std::int64_t exchange_id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kStepColumns) +
                                         " WHERE s.exchange_id = :exchange_id ORDER BY s.position");
    bindInt(q, ":exchange_id", exchange_id);
    return readAll<StepRow>(q, readStep);
  });
}

std::vector<StepRow> ArchiveReader::envFailureSteps(std::int64_t session_id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kStepColumns) +
                       " WHERE s.session_id = :session_id AND s.env_failure = 1 ORDER BY s.id");
    bindInt(q, ":session_id", session_id);
    return readAll<StepRow>(q, readStep);
  });
}

std::vector<StepRow> ArchiveReader::stepsWithReplayKey(std::uint64_t replay_key) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kStepColumns) +
                                         " WHERE s.replay_key = :replay_key ORDER BY s.id");
    bindInt(q, ":replay_key", detail::toDb(replay_key));
    return readAll<StepRow>(q, readStep);
  });
}

std::vector<CandidateRow> ArchiveReader::candidates(std::int64_t step_id) const {
  return guarded(impl_->path, [&] {
    static const std::string sql =
        std::string(kCandidateColumns) + " WHERE c.step_id = :step_id ORDER BY c.candidate_index";
    const detail::StatementLease lease(impl_->candidates_of_step, impl_->db, sql.c_str());
    bindInt(*lease, ":step_id", step_id);
    return readAll<CandidateRow>(*lease, readCandidate);
  });
}

std::optional<CandidateRow> ArchiveReader::candidate(std::int64_t id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kCandidateColumns) + " WHERE c.id = :id");
    bindInt(q, ":id", id);
    return readOne<CandidateRow>(q, readCandidate);
  });
}

std::vector<InternalStepRow> ArchiveReader::internalSteps(std::int64_t candidate_id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT i.id, i.candidate_id, i.position, i.step_key, i.component, i.origin, i.full_prompt,
             i.full_prompt_at, i.output_raw, i.rest, s.exchange_id
      FROM internal_steps i
      JOIN candidates c ON c.id = i.candidate_id
      JOIN steps s ON s.id = c.step_id
      WHERE i.candidate_id = :candidate_id ORDER BY i.position)sql");
    bindInt(q, ":candidate_id", candidate_id);
    std::optional<std::string> response_body;  // read once, for the first prompt kept there
    return readAll<InternalStepRow>(q, [&](const NamedColumns& c) {
      if (!response_body && !c.optText("full_prompt") && c.optInt("full_prompt_at")) {
        response_body =
            impl_->bodies.read(c.get("exchange_id").getInt64(), detail::BodySide::Response);
      }
      return readInternalStep(c, response_body ? &*response_body : nullptr);
    });
  });
}

std::vector<ExchangeRow> ArchiveReader::exchanges(std::int64_t session_id, std::int64_t offset,
                                                  std::size_t limit) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(std::string(kExchangeColumns) +
                                         " FROM exchanges WHERE session_id = :session_id AND seq "
                                         ">= :offset ORDER BY seq LIMIT :limit");
    bindInt(q, ":session_id", session_id);
    bindInt(q, ":offset", offset);
    bindInt(q, ":limit", sqlLimit(limit));
    return readAll<ExchangeRow>(q, [](const NamedColumns& c) { return readExchange(c); });
  });
}

std::optional<ExchangeRow> ArchiveReader::exchange(std::int64_t id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q =
        impl_->prepare(std::string(kExchangeColumns) + std::string(kExchangePayloadColumns) +
                       " FROM exchanges "
                       "WHERE id = :id");
    bindInt(q, ":id", id);
    return readOne<ExchangeRow>(
        q, [&](const NamedColumns& c) { return readExchangeWithPayload(c, impl_->bodies); });
  });
}

std::optional<std::string> ArchiveReader::blob(std::uint64_t hash) const {
  return guarded(impl_->path, [&]() -> std::optional<std::string> {
    SQLite::Statement q =
        impl_->prepare("SELECT " + blobSelect("", "blob") + " FROM blobs WHERE hash = :hash");
    bindInt(q, ":hash", detail::toDb(hash));
    if (!q.executeStep()) {
      return std::nullopt;
    }
    return impl_->bodies.blob(q, detail::BlobColumns::of(q, "blob"));
  });
}

std::optional<Json> ArchiveReader::inputJson(std::int64_t step_id) const {
  return guarded(impl_->path, [&]() -> std::optional<Json> {
    SQLite::Statement q =
        impl_->prepare(R"sql(
      SELECT s.source_id, s.instruction_type, s.instruction_content, s.num_outputs, )sql" +
                       blobSelect("t", "tools") + ", " + blobSelect("a", "attributes") + ", " +
                       blobSelect("m", "memory") + ", " + blobSelect("x", "extra_keys") + R"sql(
      FROM steps s
      JOIN blobs t ON t.hash = s.tools_hash
      JOIN blobs a ON a.hash = s.attributes_hash
      JOIN blobs m ON m.hash = s.memory_hash
      JOIN blobs x ON x.hash = s.extra_keys_hash
      WHERE s.id = :step_id)sql");
    bindInt(q, ":step_id", step_id);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    Json input = Json::object();
    input["id"] = column(q, "source_id").getInt64();
    input["instruction"] = Json{{"type", column(q, "instruction_type").getString()},
                                {"content", column(q, "instruction_content").getString()}};
    input["num_outputs"] = column(q, "num_outputs").getInt64();
    // Any blob may be kept in a body: a memory, or a value equal to one (the same blob).
    for (const char* part : {"tools", "attributes", "memory", "extra_keys"}) {
      input[part] = parseStored(impl_->bodies.blob(q, detail::BlobColumns::of(q, part)), part);
    }
    return input;
  });
}

std::optional<Json> ArchiveReader::outputJson(std::int64_t candidate_id) const {
  std::optional<Json> output = guarded(impl_->path, [&]() -> std::optional<Json> {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT e.magma_request_id, s.source_id, c.candidate_index, c.status, c.say, c.tool_calls,
             c.error_code, c.error_message, c.error_component, )sql" +
                                         blobSelect("m", "memory") + R"sql(
      FROM candidates c
      JOIN steps s ON s.id = c.step_id
      JOIN exchanges e ON e.id = s.exchange_id
      JOIN blobs m ON m.hash = c.memory_hash
      WHERE c.id = :candidate_id)sql");
    bindInt(q, ":candidate_id", candidate_id);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    const NamedColumns c(q);
    Json out = Json::object();
    out["request_id"] = c.optText("magma_request_id").value_or("");
    out["source_id"] = c.get("source_id").getInt64();
    out["candidate_index"] = c.get("candidate_index").getInt64();
    const std::string status = c.get("status").getString();
    out["status"] = status;
    out["memory"] =
        parseStored(impl_->bodies.blob(q, detail::BlobColumns::of(q, "memory")), "memory");
    out["output"] = nullptr;
    out["error"] = nullptr;
    if (std::optional<std::string> calls = c.optText("tool_calls")) {
      out["output"] = Json{{"say", c.optText("say").value_or("")},
                           {"tool_calls", parseStored(*calls, "tool_calls")}};
    }
    if (std::optional<std::string> code = c.optText("error_code")) {
      Json error = Json{{"code", *code}, {"message", c.optText("error_message").value_or("")}};
      std::optional<std::string> component = c.optText("error_component");
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
  guarded(impl_->path, [&] {
    // One pass over steps in id order (no sort): the exchange by primary key, the candidate
    // count from the candidates_step index, the id lists materialised once by SQLite.
    std::string sql = kReplayStepColumns + (" WHERE " + detail::servableExchange("e"));
    if (!selection.all()) {
      sql += R"sql(
  AND (s.session_id IN (SELECT value FROM json_each(:session_ids))
       OR s.conversation_id IN (SELECT value FROM json_each(:conversation_ids))))sql";
    }
    sql += " ORDER BY s.id";
    SQLite::Statement q = impl_->prepare(sql);
    if (!selection.all()) {
      q.bind(":session_ids", detail::idList(selection.sessions));
      q.bind(":conversation_ids", detail::idList(selection.conversations));
    }
    const NamedColumns columns(q);
    while (q.executeStep()) {
      visit(readReplayStep(columns));
    }
  });
}

std::vector<ExchangeRow> ArchiveReader::exchangesOfRoute(const ReplaySelection& selection,
                                                         const std::string& route) const {
  return guarded(impl_->path, [&] {
    // exchanges_route (route, session_id) finds the rows without reading the others' bodies.
    std::string sql = std::string(kExchangeColumns) + kExchangePayloadColumns +
                      " FROM exchanges WHERE route = :route AND " +
                      detail::servableExchange("exchanges");
    if (!selection.all()) {
      sql += R"sql(
  AND session_id IN (SELECT value FROM json_each(:session_ids)
                     UNION SELECT session_id FROM conversations
                           WHERE id IN (SELECT value FROM json_each(:conversation_ids))))sql";
    }
    sql += " ORDER BY id";
    SQLite::Statement q = impl_->prepare(sql);
    q.bind(":route", route);
    if (!selection.all()) {
      q.bind(":session_ids", detail::idList(selection.sessions));
      q.bind(":conversation_ids", detail::idList(selection.conversations));
    }
    return readAll<ExchangeRow>(
        q, [&](const NamedColumns& c) { return readExchangeWithPayload(c, impl_->bodies); });
  });
}

std::optional<RecordedResponse> ArchiveReader::recordedResponse(std::int64_t exchange_id) const {
  return guarded(impl_->path, [&]() -> std::optional<RecordedResponse> {
    const detail::StatementLease lease(impl_->recorded_response, impl_->db,
                                       "SELECT id, status, response_headers, response_body, "
                                       "response_body_codec, response_body_dictionary, "
                                       "body_segment_id FROM exchanges WHERE id = :id");
    detail::ReusedStatement& q = *lease;
    bindInt(q, ":id", exchange_id);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    const NamedColumns c(q);
    RecordedResponse r;
    r.status = c.get("status").getInt();
    r.headers = detail::headersFromJson(c.get("response_headers").getString());
    r.body = impl_->bodies.read(q, detail::BodySide::Response);
    return r;
  });
}

std::vector<ReplayMissRow> ArchiveReader::replayMisses(std::int64_t session_id) const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT id, session_id, at_ns, route, request_id, position, source_id, replay_key, input,
             closest_step_id, differences, policy
      FROM replay_misses WHERE session_id = :session_id ORDER BY id)sql");
    bindInt(q, ":session_id", session_id);
    return readAll<ReplayMissRow>(q, readReplayMiss);
  });
}

std::vector<A2aCallRow> ArchiveReader::a2aCalls(std::int64_t conversation_id) const {
  return guarded(impl_->path,
                 [&] { return detail::a2aCallsOfConversation(impl_->db, conversation_id); });
}

std::optional<A2aCallRow> ArchiveReader::a2aCall(std::int64_t call_id) const {
  return guarded(impl_->path, [&] { return detail::a2aCallById(impl_->db, call_id); });
}

std::vector<A2aCallRow> ArchiveReader::a2aCallsOfExchange(std::int64_t exchange_id) const {
  return guarded(impl_->path, [&] { return detail::a2aCallsOfExchange(impl_->db, exchange_id); });
}

void ArchiveReader::forEachA2aCall(const ReplaySelection& selection,
                                   const std::function<void(const A2aCallRow&)>& visit) const {
  guarded(impl_->path, [&] { detail::forEachA2aCall(impl_->db, selection, visit); });
}

std::vector<StreamEventRow> ArchiveReader::streamEvents(std::int64_t exchange_id) const {
  return guarded(impl_->path, [&] { return detail::streamEventsOf(impl_->db, exchange_id); });
}

std::vector<StepLink> ArchiveReader::stepLinksOfSession(std::int64_t session_id) const {
  return guarded(impl_->path, [&] { return detail::stepLinksOfSession(impl_->db, session_id); });
}

std::vector<CallLink> ArchiveReader::callLinksOfSession(std::int64_t session_id) const {
  return guarded(impl_->path, [&] { return detail::callLinksOfSession(impl_->db, session_id); });
}

std::vector<EvaluationPair> ArchiveReader::evaluationPairs(std::int64_t conversation_id) const {
  return guarded(impl_->path,
                 [&] { return detail::evaluationPairsOf(impl_->db, conversation_id); });
}

std::optional<ForkOrigin> ArchiveReader::forkOrigin(std::int64_t conversation_id) const {
  const auto live = conversation(conversation_id);
  if (!live || !live->root_step_id) {
    return std::nullopt;
  }
  const auto session_row = session(live->session_id);
  if (!session_row || session_row->mode != "fork") {
    return std::nullopt;
  }
  for (const StepLink& link : stepLinksOfSession(live->session_id)) {
    if (link.step_id != *live->root_step_id) {
      continue;
    }
    auto reasked = step(link.recorded_step_id);
    if (!reasked) {
      return std::nullopt;
    }
    ForkOrigin origin{std::move(*reasked), {}};
    for (auto parent = origin.reasked.parent_step_id; parent;) {
      auto above = step(*parent);
      if (!above) {
        break;
      }
      parent = above->parent_step_id;
      origin.prefix.insert(origin.prefix.begin(), std::move(*above));
    }
    return origin;
  }
  return std::nullopt;
}

std::optional<A2aForkOrigin> ArchiveReader::a2aForkOrigin(std::int64_t conversation_id) const {
  const auto live = conversation(conversation_id);
  if (!live) {
    return std::nullopt;
  }
  const auto session_row = session(live->session_id);
  if (!session_row || session_row->mode != "fork") {
    return std::nullopt;
  }
  const std::vector<A2aCallRow> calls = a2aCalls(conversation_id);
  if (calls.empty()) {
    return std::nullopt;
  }
  for (const CallLink& link : callLinksOfSession(live->session_id)) {
    if (link.call_id != calls.front().id) {
      continue;
    }
    const std::optional<A2aCallRow> reasked = a2aCall(link.recorded_call_id);
    if (!reasked || !reasked->conversation_id) {
      return std::nullopt;
    }
    A2aForkOrigin origin{*reasked, {}};
    for (A2aCallRow& recorded : a2aCalls(*reasked->conversation_id)) {
      if (recorded.id == reasked->id) {
        break;
      }
      origin.prefix.push_back(std::move(recorded));
    }
    return origin;
  }
  return std::nullopt;
}

std::vector<SearchHit> ArchiveReader::search(const SearchQuery& query) const {
  return guarded(impl_->path, [&] { return detail::searchArchive(impl_->db, query); });
}

std::vector<std::int64_t> ArchiveReader::timelineNumbers(const std::vector<SearchHit>& hits) const {
  // The number of each step or call id, for every conversation read so far.
  std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::int64_t>> numbered;
  std::vector<std::int64_t> numbers;
  numbers.reserve(hits.size());
  for (const SearchHit& hit : hits) {
    if (hit.conversation_id == 0) {
      numbers.push_back(0);
      continue;
    }
    auto [it, fresh] = numbered.try_emplace(hit.conversation_id);
    std::unordered_map<std::int64_t, std::int64_t>& number_of = it->second;
    if (fresh) {
      std::int64_t number = 0;
      if (hit.a2a_call_id != 0) {
        for (const A2aCallRow& call : a2aCalls(hit.conversation_id)) {
          number_of.emplace(call.id, ++number);
        }
      } else {
        for (const StepOutline& step : stepOutlines(hit.conversation_id)) {
          number_of.emplace(step.id, ++number);
        }
      }
    }
    const auto found = number_of.find(hit.a2a_call_id != 0 ? hit.a2a_call_id : hit.step_id);
    numbers.push_back(found != number_of.end() ? found->second : 0);
  }
  return numbers;
}

std::vector<std::int64_t> ArchiveReader::exchangeIdsOfConversation(
    std::int64_t conversation_id) const {
  return guarded(impl_->path, [&] {
    // steps_conversation (conversation_id, id), then the few exchange ids sorted.
    SQLite::Statement q = impl_->prepare(
        "SELECT DISTINCT exchange_id FROM steps WHERE conversation_id = :conversation_id "
        "ORDER BY exchange_id");
    bindInt(q, ":conversation_id", conversation_id);
    const NamedColumns c(q);
    std::vector<std::int64_t> ids;
    while (q.executeStep()) {
      ids.push_back(c.get("exchange_id").getInt64());
    }
    return ids;
  });
}

std::vector<ExchangeRow> ArchiveReader::exchangesOfConversation(
    std::int64_t conversation_id) const {
  std::vector<ExchangeRow> rows;
  forEachExchangeOfConversation(conversation_id,
                                [&](ExchangeRow&& row) { rows.push_back(std::move(row)); });
  return rows;
}

void ArchiveReader::forEachExchangeOfConversation(
    std::int64_t conversation_id, const std::function<void(ExchangeRow&&)>& visit) const {
  guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(
        std::string(kExchangeColumns) +
        " FROM exchanges WHERE id IN (SELECT exchange_id FROM steps WHERE conversation_id = "
        ":conversation_id UNION SELECT exchange_id FROM a2a_calls WHERE conversation_id = "
        ":conversation_id) ORDER BY id");
    bindInt(q, ":conversation_id", conversation_id);
    const NamedColumns columns(q);
    while (q.executeStep()) {
      visit(readExchange(columns));
    }
  });
}

std::vector<TimedInternalStep> ArchiveReader::timedInternalSteps(
    std::int64_t conversation_id) const {
  return guarded(impl_->path, [&] {
    // The instr() test keeps json_extract() off the entries that hold no duration, which are
    // most of them, some with whole prompts in `rest`.
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT step_id, candidate_id, candidate_index, candidate_status, position, step_key,
             component, duration_ns FROM (
        SELECT c.step_id, i.candidate_id, c.candidate_index, c.status AS candidate_status,
               i.position, i.step_key, i.component,
               CASE WHEN json_type(i.rest, '$.duration_ms') IN ('integer', 'real')
                      THEN json_extract(i.rest, '$.duration_ms') * 1e6
                    WHEN json_type(i.rest, '$.duration_seconds') IN ('integer', 'real')
                      THEN json_extract(i.rest, '$.duration_seconds') * 1e9
               END AS duration_ns
        FROM steps s
        JOIN candidates c ON c.step_id = s.id
        JOIN internal_steps i ON i.candidate_id = c.id
        WHERE s.conversation_id = :conversation_id AND instr(i.rest, '"duration_') > 0)
      WHERE duration_ns >= 0
      ORDER BY step_id, candidate_index, position)sql");
    bindInt(q, ":conversation_id", conversation_id);
    return readAll<TimedInternalStep>(q, [](const NamedColumns& c) {
      TimedInternalStep r;
      r.step_id = c.get("step_id").getInt64();
      r.candidate_id = c.get("candidate_id").getInt64();
      r.candidate_index = c.get("candidate_index").getInt64();
      r.candidate_status = c.get("candidate_status").getString();
      r.position = c.get("position").getInt64();
      r.step_key = c.optText("step_key");
      r.component = c.optText("component");
      r.duration_ns = static_cast<std::int64_t>(c.get("duration_ns").getDouble());
      return r;
    });
  });
}

ArchiveCounts ArchiveReader::counts() const {
  return guarded(impl_->path, [&] {
    SQLite::Statement q = impl_->prepare(R"sql(
      SELECT count(*) AS sessions, coalesce(sum(exchange_count), 0) AS exchanges,
             coalesce(sum(step_count), 0) AS steps, coalesce(sum(candidate_count), 0) AS candidates,
             coalesce(sum(internal_step_count), 0) AS internal_steps,
             coalesce(sum(conversation_count), 0) AS conversations,
             (SELECT count(*) FROM blobs) AS blobs
      FROM sessions)sql");
    ArchiveCounts c;
    if (q.executeStep()) {
      c.sessions = column(q, "sessions").getInt64();
      c.exchanges = column(q, "exchanges").getInt64();
      c.steps = column(q, "steps").getInt64();
      c.candidates = column(q, "candidates").getInt64();
      c.internal_steps = column(q, "internal_steps").getInt64();
      c.conversations = column(q, "conversations").getInt64();
      c.blobs = column(q, "blobs").getInt64();
    }
    return c;
  });
}

}  // namespace agentvcr::store
