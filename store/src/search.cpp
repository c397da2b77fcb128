#include "search.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "agentvcr/protocol/canonical.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

constexpr std::int64_t kNoLowerBound = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kNoUpperBound = std::numeric_limits<std::int64_t>::max();

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// Inclusive range of ids of one table; empty when lo > hi.
struct IdWindow {
  std::int64_t lo = kNoLowerBound;
  std::int64_t hi = kNoUpperBound;

  bool empty() const { return lo > hi; }
};

/// Both ends of a window from a `SELECT (lower) AS lo, (upper) AS hi` query; empty when either
/// is NULL.
IdWindow readWindow(SQLite::Statement& q) {
  IdWindow w{1, 0};
  if (q.executeStep()) {
    const SQLite::Column lo = column(q, "lo");
    const SQLite::Column hi = column(q, "hi");
    if (!lo.isNull() && !hi.isNull()) {
      w.lo = lo.getInt64();
      w.hi = hi.getInt64();
    }
  }
  return w;
}

/// One searched field: its FTS5 table, the column (for the column filter, rank and snippet()),
/// and how an index row leads to its step. Rows come in rowid order; since an exchange's steps,
/// then its candidates in input order, then each candidate's internal steps are inserted in
/// that order, the step ids of each stream never decrease.
struct FieldSpec {
  const char* field;   ///< SearchHit::field; the steps' one is resolved per step (user or env)
  const char* table;   ///< the FTS5 table
  const char* column;  ///< the FTS5 column
  int column_index;
  int window;        ///< which IdWindow bounds its rowids: 0 steps, 1 candidates, 2 internal
  const char* rows;  ///< SQL: step_id and rowid of the matches, by rowid
};

/// In this order, which is also the tie-break between equally ranked fields.
const FieldSpec kFields[] = {
    {"instruction", "search_steps", "instruction_content", 0, 0, R"sql(
      SELECT rowid AS step_id, rowid FROM search_steps
      WHERE search_steps MATCH :match AND rowid BETWEEN :lo AND :hi ORDER BY rowid)sql"},
    {"say", "search_candidates", "say", 0, 1, R"sql(
      SELECT c.step_id, search_candidates.rowid AS rowid
      FROM search_candidates JOIN candidates c ON c.id = search_candidates.rowid
      WHERE search_candidates MATCH :match AND search_candidates.rowid BETWEEN :lo AND :hi
      ORDER BY search_candidates.rowid)sql"},
    {"error", "search_candidates", "error_message", 1, 1, R"sql(
      SELECT c.step_id, search_candidates.rowid AS rowid
      FROM search_candidates JOIN candidates c ON c.id = search_candidates.rowid
      WHERE search_candidates MATCH :match AND search_candidates.rowid BETWEEN :lo AND :hi
      ORDER BY search_candidates.rowid)sql"},
    {"output_raw", "search_internal_steps", "output_raw", 1, 2, R"sql(
      SELECT c.step_id, search_internal_steps.rowid AS rowid
      FROM search_internal_steps
      JOIN internal_steps i ON i.id = search_internal_steps.rowid
      JOIN candidates c ON c.id = i.candidate_id
      WHERE search_internal_steps MATCH :match AND search_internal_steps.rowid BETWEEN :lo AND :hi
      ORDER BY search_internal_steps.rowid)sql"},
    {"full_prompt", "search_internal_steps", "prompt_new", 0, 2, R"sql(
      SELECT c.step_id, search_internal_steps.rowid AS rowid
      FROM search_internal_steps
      JOIN internal_steps i ON i.id = search_internal_steps.rowid
      JOIN candidates c ON c.id = i.candidate_id
      WHERE search_internal_steps MATCH :match AND search_internal_steps.rowid BETWEEN :lo AND :hi
      ORDER BY search_internal_steps.rowid)sql"},
};

constexpr std::size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

/// The MATCH expression of one field: the words, restricted to its column when its table has
/// two (all words must then be in that one column).
std::string fieldMatch(const FieldSpec& spec, const std::string& words) {
  if (spec.window == 0) {
    return words;  // search_steps has one column
  }
  return std::string("{") + spec.column + "} : (" + words + ")";
}

/// Above this many exchanges as slow as asked, the latency is checked step by step (the
/// exchange's row by primary key); at most this many, their ids are read once from
/// exchanges_latency and the check is a set lookup.
constexpr std::size_t kFewSlowExchanges = 10000;

/// What a search computes once before reading steps.
struct SearchPlan {
  /// Bounds of the steps that may match: those of the session, narrowed to the first and last
  /// step with an error candidate (of that code) and to those of the slow exchanges.
  IdWindow steps;
  bool wants_error = false;  ///< status "error" or an error code: candidates_error applies
  /// The exchanges at least min_latency_ns long, when there are few of them.
  std::optional<std::unordered_set<std::int64_t>> slow_exchanges;
};

/// SQL conditions on `steps s` for the filters of `q`, each bound by name (bindFilters). Tool
/// and robot names are first looked for as substrings of the stored canonical JSON (cheap; no
/// false negative since the writer stores canonical text), then compared exactly.
std::string filterSql(const SearchQuery& q, const SearchPlan& plan) {
  std::string sql;
  if (q.session_id) {
    sql += " AND s.session_id = :session";
  }
  if (q.tool) {
    sql += R"sql(
      AND EXISTS (SELECT 1 FROM candidates c, json_each(c.tool_calls) j
                  WHERE c.step_id = s.id AND instr(c.tool_calls, :tool_json) > 0
                    AND j.value ->> '$.name' = :tool))sql";
  }
  if (q.robot) {
    sql += R"sql(
      AND EXISTS (SELECT 1 FROM candidates c, json_each(c.tool_calls) j
                  WHERE c.step_id = s.id AND instr(c.tool_calls, :robot_json) > 0
                    AND j.value ->> '$.target_robot_name' = :robot))sql";
  }
  if (q.status) {
    sql += R"sql(
      AND EXISTS (SELECT 1 FROM candidates c WHERE c.step_id = s.id AND c.status = :status))sql";
  }
  if (q.error_code) {
    sql += R"sql(
      AND EXISTS (SELECT 1 FROM candidates c
                  WHERE c.step_id = s.id AND c.status = 'error'
                    AND c.error_code = :error_code))sql";
  }
  if (q.min_latency_ns && !plan.slow_exchanges) {
    sql += R"sql(
      AND EXISTS (SELECT 1 FROM exchanges e
                  WHERE e.id = s.exchange_id AND e.ended_ns - e.started_ns >= :min_latency))sql";
  }
  return sql;
}

void bindFilters(SQLite::Statement& st, const SearchQuery& q, const SearchPlan& plan) {
  if (q.session_id) {
    st.bind(":session", static_cast<std::int64_t>(*q.session_id));
  }
  if (q.tool) {
    st.bind(":tool", *q.tool);
    st.bind(":tool_json", protocol::canonicalJson(protocol::Json(*q.tool)));
  }
  if (q.robot) {
    st.bind(":robot", *q.robot);
    st.bind(":robot_json",
            "\"target_robot_name\":" + protocol::canonicalJson(protocol::Json(*q.robot)));
  }
  if (q.status) {
    st.bind(":status", *q.status);
  }
  if (q.error_code) {
    st.bind(":error_code", *q.error_code);
  }
  if (q.min_latency_ns && !plan.slow_exchanges) {
    st.bind(":min_latency", static_cast<std::int64_t>(*q.min_latency_ns));
  }
}

/// Whether a step passes every filter, and what a hit says about it: one primary-key lookup
/// plus the filters' EXISTS probes (each an index range on candidates(step_id, ...) or the
/// exchange's primary key) or the set of slow exchanges.
class StepCheck {
 public:
  StepCheck(SQLite::Database& db, const SearchQuery& q, const SearchPlan& plan)
      : plan_(plan),
        st_(db,
            "SELECT s.conversation_id, s.session_id, s.instruction_type, s.exchange_id "
            "FROM steps s WHERE s.id = :step" +
                filterSql(q, plan)),
        conversation_id_(columnIndex(st_, "conversation_id")),
        session_id_(columnIndex(st_, "session_id")),
        instruction_type_(columnIndex(st_, "instruction_type")),
        exchange_id_(columnIndex(st_, "exchange_id")) {
    bindFilters(st_, q, plan);
  }

  /// The hit (without field and snippet) when step `step_id` passes; `is_env` tells which
  /// field its instruction is.
  std::optional<SearchHit> check(std::int64_t step_id, bool& is_env) {
    st_.bind(":step", static_cast<std::int64_t>(step_id));
    std::optional<SearchHit> hit;
    if (st_.executeStep() &&
        (!plan_.slow_exchanges ||
         plan_.slow_exchanges->count(st_.getColumn(exchange_id_).getInt64()) != 0)) {
      hit.emplace();
      hit->step_id = step_id;
      hit->exchange_id = st_.getColumn(exchange_id_).getInt64();
      hit->conversation_id = st_.getColumn(conversation_id_).getInt64();
      hit->session_id = st_.getColumn(session_id_).getInt64();
      is_env = st_.getColumn(instruction_type_).getString() == "env";
    }
    st_.reset();
    return hit;
  }

 private:
  const SearchPlan& plan_;
  SQLite::Statement st_;
  // st_'s columns, looked up once: check() runs for every candidate step.
  int conversation_id_;
  int session_id_;
  int instruction_type_;
  int exchange_id_;
};

/// No text: the steps that pass the filters, in id order, read from the narrowest index that
/// yields them: the partial index of error candidates (in step order) when the query asks for
/// an error, else the steps of the few slow exchanges (sorted), else the session's index range,
/// else the steps table itself. Stops at `limit`.
std::vector<SearchHit> searchFiltersOnly(SQLite::Database& db, const SearchQuery& query,
                                         const SearchPlan& plan) {
  std::string sql;
  const bool wants_error = plan.wants_error;
  if (wants_error) {
    // candidates_error (step_id, error_code, status) WHERE status = 'error': the literal
    // matters, a bound status would not let SQLite use the partial index.
    sql = "SELECT step_id FROM candidates WHERE status = 'error'";
    if (query.error_code) {
      sql += " AND error_code = :error_code";
    }
    sql += " AND step_id BETWEEN :lo AND :hi ORDER BY step_id";
  } else if (plan.slow_exchanges) {
    sql = R"sql(
      SELECT id AS step_id FROM steps
      WHERE exchange_id IN (SELECT value FROM json_each(:exchanges))
        AND id BETWEEN :lo AND :hi ORDER BY id)sql";
  } else if (query.session_id) {
    sql =
        "SELECT id AS step_id FROM steps WHERE session_id = :session AND id BETWEEN :lo AND :hi "
        "ORDER BY id";
  } else {
    sql = "SELECT id AS step_id FROM steps WHERE id BETWEEN :lo AND :hi ORDER BY id";
  }
  SQLite::Statement driver(db, sql);
  driver.bind(":lo", static_cast<std::int64_t>(plan.steps.lo));
  driver.bind(":hi", static_cast<std::int64_t>(plan.steps.hi));
  if (wants_error) {
    if (query.error_code) {
      driver.bind(":error_code", *query.error_code);
    }
  } else if (plan.slow_exchanges) {
    driver.bind(":exchanges", idList(std::vector<std::int64_t>(plan.slow_exchanges->begin(),
                                                               plan.slow_exchanges->end())));
  } else if (query.session_id) {
    driver.bind(":session", static_cast<std::int64_t>(*query.session_id));
  }

  StepCheck check(db, query, plan);
  const int step_id_column = columnIndex(driver, "step_id");
  std::vector<SearchHit> hits;
  std::optional<std::int64_t> last;
  while (hits.size() < query.limit && driver.executeStep()) {
    const std::int64_t step_id = driver.getColumn(step_id_column).getInt64();
    if (last == step_id) {
      continue;  // several error candidates of one step
    }
    last = step_id;
    bool is_env = false;
    if (std::optional<SearchHit> hit = check.check(step_id, is_env)) {
      hits.push_back(std::move(*hit));
    }
  }
  return hits;
}

/// The matches of one field, in rowid order, advanced one row at a time.
class FieldStream {
 public:
  FieldStream(SQLite::Database& db, const FieldSpec& spec, const std::string& match,
              const IdWindow& window)
      : query_(db, spec.rows),
        step_id_column_(columnIndex(query_, "step_id")),
        rowid_column_(columnIndex(query_, "rowid")) {
    query_.bind(":match", match);  // copied
    query_.bind(":lo", static_cast<std::int64_t>(window.lo));
    query_.bind(":hi", static_cast<std::int64_t>(window.hi));
    next();
  }

  void next() {
    has_row_ = query_.executeStep();
    if (has_row_) {
      step_id_ = query_.getColumn(step_id_column_).getInt64();
      rowid_ = query_.getColumn(rowid_column_).getInt64();
    }
  }

  bool hasRow() const { return has_row_; }

  std::int64_t stepId() const { return step_id_; }

  std::int64_t rowid() const { return rowid_; }

 private:
  SQLite::Statement query_;
  int step_id_column_;
  int rowid_column_;
  bool has_row_ = false;
  std::int64_t step_id_ = 0;
  std::int64_t rowid_ = 0;
};

/// How many later internal steps continue the prompt of internal step `id`, directly or through
/// others (`prompt_parent_id`): the later steps whose prompts repeat what it added.
std::int64_t laterRepeats(SQLite::Database& db, std::int64_t id) {
  SQLite::Statement q(db, R"sql(
    WITH RECURSIVE later(id) AS (
      SELECT id FROM internal_steps WHERE prompt_parent_id = :id
      UNION ALL
      SELECT i.id FROM internal_steps i JOIN later l ON i.prompt_parent_id = l.id)
    SELECT count(*) FROM later)sql");
  q.bind(":id", id);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

/// One index row of a field that matched.
struct FieldMatch {
  std::size_t field = 0;  ///< into kFields
  std::int64_t rowid = 0;
};

/// A step that passed the filters and matched the text, with every row that matched.
struct MatchedStep {
  SearchHit hit;  ///< without field and snippet yet
  bool is_env = false;
  std::vector<FieldMatch> matches;
};

/// The best field of each matched step (the lowest bm25 among its rows; ties go to the earlier
/// field of kFields) and a snippet of that row: one query per field over the rows the steps
/// matched. FTS5 evaluates a MATCH from scratch at each execution (bm25 counts the rows of each
/// word, a prefix query merges the doclists of all its terms), so this is never done per row:
/// the field's matches are read once over the range of those rowids, and the `+rowid` filter,
/// applied before the result columns and not offered to FTS5 as a constraint, makes rank and
/// snippet() run for the listed rows only.
std::vector<SearchHit> finishHits(SQLite::Database& db, const std::vector<std::string>& matches,
                                  std::vector<MatchedStep>& steps) {
  struct RowText {
    double rank = 0;
    std::string snippet;
  };

  std::vector<std::unordered_map<std::int64_t, RowText>> rows(kFieldCount);
  std::vector<std::vector<std::int64_t>> listed(kFieldCount);
  for (const MatchedStep& step : steps) {
    for (const FieldMatch& m : step.matches) {
      listed[m.field].push_back(m.rowid);
    }
  }
  for (std::size_t f = 0; f < kFieldCount; ++f) {
    if (listed[f].empty()) {
      continue;
    }
    const std::string table = kFields[f].table;
    SQLite::Statement q(db, "SELECT rowid, rank, snippet(" + table +
                                ", :column, '[', ']', '…', 16) AS snippet FROM " + table +
                                " WHERE " + table +
                                " MATCH :match AND rowid BETWEEN :lo AND :hi"
                                " AND +rowid IN (SELECT value FROM json_each(:rows))");
    q.bind(":column", kFields[f].column_index);
    q.bind(":match", matches[f]);
    q.bind(":lo", static_cast<std::int64_t>(*std::min_element(listed[f].begin(), listed[f].end())));
    q.bind(":hi", static_cast<std::int64_t>(*std::max_element(listed[f].begin(), listed[f].end())));
    q.bind(":rows", idList(listed[f]));
    const NamedColumns c(q);
    while (q.executeStep()) {
      RowText& row = rows[f][c.get("rowid").getInt64()];
      row.rank = c.get("rank").getDouble();
      if (std::optional<std::string> snippet = c.optText("snippet")) {
        row.snippet = std::move(*snippet);
      }
    }
  }

  std::vector<SearchHit> hits;
  hits.reserve(steps.size());
  for (MatchedStep& step : steps) {
    const RowText* best = nullptr;
    std::size_t best_field = 0;
    std::int64_t best_rowid = 0;
    // A prompt renders its step's own input: a match there and in another field of the step is
    // the other field's (a prompt is indexed by what it adds, and so short a text ranks high).
    auto isPrompt = [](std::size_t field) {
      return std::string_view(kFields[field].field) == "full_prompt";
    };
    auto better = [&](const RowText& row, std::size_t field) {
      if (best == nullptr) {
        return true;
      }
      if (isPrompt(field) != isPrompt(best_field)) {
        return !isPrompt(field);
      }
      return row.rank < best->rank || (row.rank == best->rank && field < best_field);
    };
    for (const FieldMatch& m : step.matches) {
      auto it = rows[m.field].find(m.rowid);
      if (it == rows[m.field].end()) {
        continue;  // cannot happen: the row matched
      }
      const RowText& row = it->second;
      if (better(row, m.field)) {
        best = &row;
        best_field = m.field;
        best_rowid = m.rowid;
      }
    }
    if (best == nullptr) {
      best_field = step.matches.front().field;
    } else {
      step.hit.snippet = best->snippet;
    }
    step.hit.field = best_field == 0 && step.is_env ? "env_feedback" : kFields[best_field].field;
    if (best != nullptr && step.hit.field == "full_prompt") {
      step.hit.repeated_by = laterRepeats(db, best_rowid);
    }
    hits.push_back(std::move(step.hit));
  }
  return hits;
}

/// At most this many steps with an error candidate (or of slow exchanges), the text is looked
/// for in each of them (five probes of the indexes, a seek per word) rather than by reading the
/// text's matches until enough pass the filter.
constexpr std::size_t kFewDriverSteps = 2000;

/// The steps an index yields for the error or latency filter, in id order, when there are at
/// most kFewDriverSteps of them; empty (no value) otherwise or without such a filter.
std::optional<std::vector<std::int64_t>> fewDriverSteps(SQLite::Database& db,
                                                        const SearchQuery& query,
                                                        const SearchPlan& plan) {
  std::string sql;
  if (plan.wants_error) {
    sql = "SELECT DISTINCT step_id FROM candidates WHERE status = 'error'";
    if (query.error_code) {
      sql += " AND error_code = :error_code";
    }
    sql += " AND step_id BETWEEN :lo AND :hi ORDER BY step_id LIMIT :limit";
  } else if (plan.slow_exchanges) {
    sql = R"sql(
      SELECT id AS step_id FROM steps
      WHERE exchange_id IN (SELECT value FROM json_each(:exchanges))
        AND id BETWEEN :lo AND :hi ORDER BY id LIMIT :limit)sql";
  } else {
    return std::nullopt;
  }
  SQLite::Statement q(db, sql);
  q.bind(":lo", static_cast<std::int64_t>(plan.steps.lo));
  q.bind(":hi", static_cast<std::int64_t>(plan.steps.hi));
  q.bind(":limit", static_cast<std::int64_t>(kFewDriverSteps + 1));
  if (plan.wants_error) {
    if (query.error_code) {
      q.bind(":error_code", *query.error_code);
    }
  } else {
    q.bind(":exchanges", idList(std::vector<std::int64_t>(plan.slow_exchanges->begin(),
                                                          plan.slow_exchanges->end())));
  }
  const int step_id_column = columnIndex(q, "step_id");
  std::vector<std::int64_t> steps;
  while (q.executeStep()) {
    steps.push_back(q.getColumn(step_id_column).getInt64());
  }
  if (steps.size() > kFewDriverSteps) {
    return std::nullopt;
  }
  return steps;
}

/// Text with a selective indexed filter: for each of the few steps the filter's index yields
/// (in id order) that pass the other filters, the five fields' matches among that step's own
/// rows (FTS5 with a rowid range), until `limit` steps matched.
std::vector<MatchedStep> matchInSteps(SQLite::Database& db, const SearchQuery& query,
                                      const std::vector<std::string>& matches,
                                      const SearchPlan& plan,
                                      const std::vector<std::int64_t>& step_ids) {
  SQLite::Statement rows(db, R"sql(
    SELECT (SELECT min(id) FROM candidates WHERE step_id = :step) AS lo,
           (SELECT max(id) FROM candidates WHERE step_id = :step) AS hi)sql");
  SQLite::Statement internal(db, R"sql(
    SELECT min(id) AS lo, max(id) AS hi FROM internal_steps
    WHERE candidate_id BETWEEN :lo AND :hi)sql");
  SQLite::Statement text(db, R"sql(
    SELECT 0 AS field, rowid FROM search_steps WHERE search_steps MATCH :m0 AND rowid = :step
    UNION ALL
    SELECT 1, rowid FROM search_candidates
    WHERE search_candidates MATCH :m1 AND rowid BETWEEN :c_lo AND :c_hi
    UNION ALL
    SELECT 2, rowid FROM search_candidates
    WHERE search_candidates MATCH :m2 AND rowid BETWEEN :c_lo AND :c_hi
    UNION ALL
    SELECT 3, rowid FROM search_internal_steps
    WHERE search_internal_steps MATCH :m3 AND rowid BETWEEN :i_lo AND :i_hi
    UNION ALL
    SELECT 4, rowid FROM search_internal_steps
    WHERE search_internal_steps MATCH :m4 AND rowid BETWEEN :i_lo AND :i_hi)sql");
  for (std::size_t f = 0; f < kFieldCount; ++f) {
    text.bind(":m" + std::to_string(f), matches[f]);
  }

  const int field_column = columnIndex(text, "field");
  const int rowid_column = columnIndex(text, "rowid");
  StepCheck check(db, query, plan);
  std::vector<MatchedStep> found;
  for (std::int64_t step_id : step_ids) {
    if (found.size() >= query.limit) {
      break;
    }
    MatchedStep step;
    std::optional<SearchHit> hit = check.check(step_id, step.is_env);
    if (!hit) {
      continue;
    }
    rows.bind(":step", static_cast<std::int64_t>(step_id));
    const IdWindow candidates = readWindow(rows);
    rows.reset();
    IdWindow internal_steps{1, 0};
    if (!candidates.empty()) {
      internal.bind(":lo", static_cast<std::int64_t>(candidates.lo));
      internal.bind(":hi", static_cast<std::int64_t>(candidates.hi));
      internal_steps = readWindow(internal);
      internal.reset();
    }
    text.bind(":step", static_cast<std::int64_t>(step_id));
    text.bind(":c_lo", static_cast<std::int64_t>(candidates.lo));
    text.bind(":c_hi", static_cast<std::int64_t>(candidates.hi));
    text.bind(":i_lo", static_cast<std::int64_t>(internal_steps.lo));
    text.bind(":i_hi", static_cast<std::int64_t>(internal_steps.hi));
    while (text.executeStep()) {
      step.matches.push_back(
          FieldMatch{static_cast<std::size_t>(text.getColumn(field_column).getInt()),
                     text.getColumn(rowid_column).getInt64()});
    }
    text.reset();
    if (!step.matches.empty()) {
      step.hit = std::move(*hit);
      found.push_back(std::move(step));
    }
  }
  return found;
}

/// Text (and filters): the five fields' match streams merged by step id. A step is complete
/// when every stream has moved past it; it then passes the filters or not, and reading stops
/// once `limit` steps passed.
std::vector<MatchedStep> matchByStreams(SQLite::Database& db, const SearchQuery& query,
                                        const std::vector<std::string>& matches,
                                        const SearchPlan& plan) {
  const IdWindow& steps = plan.steps;
  IdWindow windows[3] = {steps, {}, {}};
  if (steps.lo != kNoLowerBound || steps.hi != kNoUpperBound) {
    // The candidates and internal steps of those steps: their ids grow with their step's id.
    SQLite::Statement candidates(db, R"sql(
      SELECT (SELECT id FROM candidates WHERE step_id >= :lo
              ORDER BY step_id, candidate_index LIMIT 1) AS lo,
             (SELECT id FROM candidates WHERE step_id <= :hi
              ORDER BY step_id DESC, candidate_index DESC LIMIT 1) AS hi)sql");
    candidates.bind(":lo", static_cast<std::int64_t>(steps.lo));
    candidates.bind(":hi", static_cast<std::int64_t>(steps.hi));
    windows[1] = readWindow(candidates);
    if (!windows[1].empty()) {
      SQLite::Statement internal(db, R"sql(
        SELECT (SELECT id FROM internal_steps WHERE candidate_id >= :lo
                ORDER BY candidate_id, position LIMIT 1) AS lo,
               (SELECT id FROM internal_steps WHERE candidate_id <= :hi
                ORDER BY candidate_id DESC, position DESC LIMIT 1) AS hi)sql");
      internal.bind(":lo", static_cast<std::int64_t>(windows[1].lo));
      internal.bind(":hi", static_cast<std::int64_t>(windows[1].hi));
      windows[2] = readWindow(internal);
    } else {
      windows[2] = windows[1];
    }
  }

  std::vector<std::unique_ptr<FieldStream>> streams;
  for (std::size_t f = 0; f < kFieldCount; ++f) {
    const IdWindow& window = windows[kFields[f].window];
    if (window.empty()) {
      streams.push_back(nullptr);
      continue;
    }
    streams.push_back(std::make_unique<FieldStream>(db, kFields[f], matches[f], window));
  }

  StepCheck check(db, query, plan);
  std::vector<MatchedStep> found;
  std::optional<std::int64_t> finished;  // the last step completed
  std::optional<std::int64_t> current;   // the step being gathered
  std::vector<FieldMatch> current_matches;
  auto complete = [&] {
    finished = current;
    MatchedStep step;
    std::optional<SearchHit> hit = check.check(*current, step.is_env);
    if (hit) {
      step.hit = std::move(*hit);
      step.matches = std::move(current_matches);
      found.push_back(std::move(step));
    }
    current.reset();
    current_matches.clear();
  };
  while (found.size() < query.limit) {
    FieldStream* next = nullptr;
    std::size_t next_field = 0;
    for (std::size_t f = 0; f < streams.size(); ++f) {
      FieldStream* s = streams[f].get();
      if (s != nullptr && s->hasRow() && (next == nullptr || s->stepId() < next->stepId())) {
        next = s;
        next_field = f;
      }
    }
    if (next == nullptr) {
      if (current) {
        complete();
      }
      break;
    }
    const std::int64_t step_id = next->stepId();
    const FieldMatch m{next_field, next->rowid()};
    next->next();
    if (finished && step_id <= *finished) {
      continue;  // only if a stream's step ids went down; never counted twice
    }
    if (current && *current != step_id) {
      complete();
      if (found.size() >= query.limit) {
        break;
      }
    }
    current = step_id;
    current_matches.push_back(m);
  }
  return found;
}

/// Text (and filters): the matched steps, by the cheaper of the two ways, then their hits.
std::vector<SearchHit> searchText(SQLite::Database& db, const SearchQuery& query,
                                  const std::string& words, bool prefix, const SearchPlan& plan) {
  std::vector<std::string> matches;
  for (const FieldSpec& spec : kFields) {
    matches.push_back(fieldMatch(spec, words));
  }
  std::vector<MatchedStep> steps;
  std::optional<std::vector<std::int64_t>> few;
  // A prefix query merges the doclists of all its terms at every execution: never per step.
  if (!prefix) {
    few = fewDriverSteps(db, query, plan);
  }
  if (few) {
    steps = matchInSteps(db, query, matches, plan, *few);
  } else {
    steps = matchByStreams(db, query, matches, plan);
  }
  return finishHits(db, matches, steps);
}

}  // namespace

std::string ftsQueryOf(const std::string& text, bool* prefix_query) {
  std::string out;
  if (prefix_query != nullptr) {
    *prefix_query = false;
  }
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) {
      ++i;
    }
    const std::size_t start = i;
    while (i < text.size() && !isSpace(text[i])) {
      ++i;
    }
    std::size_t end = i;
    bool prefix = false;
    while (end > start && text[end - 1] == '*') {
      --end;
      prefix = true;
    }
    std::string word;
    for (std::size_t k = start; k < end; ++k) {
      if (text[k] == '\0') {
        continue;  // FTS5 reads its query up to a NUL
      }
      if (text[k] == '"') {
        word += '"';
      }
      word += text[k];
    }
    if (word.empty()) {
      continue;
    }
    if (!out.empty()) {
      out += ' ';
    }
    out += '"';
    out += word;
    out += '"';
    if (prefix) {
      out += '*';
      if (prefix_query != nullptr) {
        *prefix_query = true;
      }
    }
  }
  return out;
}

namespace {

/// The first `query.limit` steps, by id, that match `words` (ftsQueryOf the text; empty: no text
/// condition) and pass the filters.
std::vector<SearchHit> searchSteps(SQLite::Database& db, const SearchQuery& query,
                                   const std::string& words, bool prefix) {
  SearchPlan plan;
  if (query.session_id) {
    SQLite::Statement range(db, R"sql(
      SELECT (SELECT min(id) FROM steps WHERE session_id = :session) AS lo,
             (SELECT max(id) FROM steps WHERE session_id = :session) AS hi)sql");
    range.bind(":session", static_cast<std::int64_t>(*query.session_id));
    plan.steps = readWindow(range);
    if (plan.steps.empty()) {
      return {};
    }
  }
  plan.wants_error = query.error_code || query.status == std::string("error");
  if (plan.wants_error) {
    // The first and last step with such an error candidate, from candidates_error (the
    // partial index holds error candidates only).
    std::string code = query.error_code ? " AND error_code = :error_code" : "";
    SQLite::Statement range(db,
                            "SELECT (SELECT step_id FROM candidates WHERE status = 'error'" + code +
                                " AND step_id >= :lo ORDER BY step_id LIMIT 1) AS lo, "
                                "(SELECT step_id FROM candidates WHERE status = 'error'" +
                                code + " AND step_id <= :hi ORDER BY step_id DESC LIMIT 1) AS hi");
    range.bind(":lo", static_cast<std::int64_t>(plan.steps.lo));
    range.bind(":hi", static_cast<std::int64_t>(plan.steps.hi));
    if (query.error_code) {
      range.bind(":error_code", *query.error_code);
    }
    plan.steps = readWindow(range);
    if (plan.steps.empty()) {
      return {};
    }
  }
  if (query.min_latency_ns) {
    // exchanges_latency (indexed exchanges only, as the condition must say for SQLite to use
    // it): an index range, stopped after kFewSlowExchanges + 1 rows.
    SQLite::Statement slow(db, R"sql(
      SELECT id FROM exchanges WHERE ended_ns - started_ns >= :min_latency AND indexed = 1
      LIMIT :limit)sql");
    const int id_column = columnIndex(slow, "id");
    slow.bind(":min_latency", static_cast<std::int64_t>(*query.min_latency_ns));
    slow.bind(":limit", static_cast<std::int64_t>(kFewSlowExchanges + 1));
    std::unordered_set<std::int64_t> ids;
    while (slow.executeStep()) {
      ids.insert(slow.getColumn(id_column).getInt64());
    }
    if (ids.empty()) {
      return {};
    }
    if (ids.size() <= kFewSlowExchanges) {
      SQLite::Statement range(db, R"sql(
        SELECT min(id) AS lo, max(id) AS hi FROM steps
        WHERE exchange_id IN (SELECT value FROM json_each(:exchanges))
          AND id BETWEEN :lo AND :hi)sql");
      range.bind(":exchanges", idList(std::vector<std::int64_t>(ids.begin(), ids.end())));
      range.bind(":lo", static_cast<std::int64_t>(plan.steps.lo));
      range.bind(":hi", static_cast<std::int64_t>(plan.steps.hi));
      plan.steps = readWindow(range);
      if (plan.steps.empty()) {
        return {};
      }
      plan.slow_exchanges = std::move(ids);
    }
  }
  if (words.empty()) {
    return searchFiltersOnly(db, query, plan);
  }
  return searchText(db, query, words, prefix, plan);
}

/// Steps and calls in the order of their exchanges (each list keeps its own order), the first
/// `limit` of them.
std::vector<SearchHit> mergedByExchange(std::vector<SearchHit> steps, std::vector<SearchHit> calls,
                                        std::size_t limit) {
  if (calls.empty()) {
    return steps;
  }
  std::vector<SearchHit> hits;
  hits.reserve(steps.size() + calls.size());
  std::merge(std::make_move_iterator(steps.begin()), std::make_move_iterator(steps.end()),
             std::make_move_iterator(calls.begin()), std::make_move_iterator(calls.end()),
             std::back_inserter(hits),
             [](const SearchHit& a, const SearchHit& b) { return a.exchange_id < b.exchange_id; });
  if (hits.size() > limit) {
    hits.resize(limit);
  }
  return hits;
}

}  // namespace

std::vector<SearchHit> searchArchive(SQLite::Database& db, const SearchQuery& query) {
  if (query.limit == 0) {
    return {};
  }
  bool has_text = false;
  for (char c : query.text) {
    has_text = has_text || !isSpace(c);
  }
  bool prefix = false;
  const std::string words = ftsQueryOf(query.text, &prefix);
  if (has_text && words.empty()) {
    return {};  // only stars: no word to look for
  }
  return mergedByExchange(searchSteps(db, query, words, prefix), searchA2aCalls(db, query, words),
                          query.limit);
}

}  // namespace agentvcr::store::detail
