// The A2A half of ArchiveReader::search: calls found through search_a2a_calls (schema version
// 10), by session and by their exchange's latency.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "search.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

/// The searched columns of search_a2a_calls, in the order that breaks a tie in rank.
struct A2aField {
  const char* field;   ///< SearchHit::field
  const char* column;  ///< the FTS5 column
  int column_index;
};

const A2aField kA2aFields[] = {
    {"a2a_request", "request_text", 0},
    {"a2a_response", "response_text", 1},
    {"a2a_error", "error_message", 2},
};

/// SQL conditions on `a2a_calls c` (and `exchanges e`, joined when the latency is asked) for the
/// filters that apply to calls.
std::string callFilterSql(const SearchQuery& q) {
  std::string sql;
  if (q.session_id) {
    sql += " AND c.session_id = :session";
  }
  if (q.min_latency_ns) {
    sql += " AND e.ended_ns - e.started_ns >= :min_latency";
  }
  return sql;
}

std::string callJoinSql(const SearchQuery& q) {
  return q.min_latency_ns ? " JOIN exchanges e ON e.id = c.exchange_id" : "";
}

void bindCallFilters(SQLite::Statement& st, const SearchQuery& q) {
  if (q.session_id) {
    st.bind(":session", static_cast<std::int64_t>(*q.session_id));
  }
  if (q.min_latency_ns) {
    st.bind(":min_latency", static_cast<std::int64_t>(*q.min_latency_ns));
  }
  st.bind(":limit", static_cast<std::int64_t>(q.limit));
}

/// The hit of a row with the call's id, exchange_id, conversation_id and session_id.
SearchHit callHit(const NamedColumns& c) {
  SearchHit hit;
  hit.a2a_call_id = c.get("id").getInt64();
  hit.exchange_id = c.get("exchange_id").getInt64();
  hit.conversation_id = c.optInt("conversation_id").value_or(0);
  hit.session_id = c.get("session_id").getInt64();
  return hit;
}

/// No text: the calls that pass the filters, in id order.
std::vector<SearchHit> listCalls(SQLite::Database& db, const SearchQuery& query) {
  SQLite::Statement st(db,
                       "SELECT c.id, c.exchange_id, c.conversation_id, c.session_id "
                       "FROM a2a_calls c" +
                           callJoinSql(query) + " WHERE 1" + callFilterSql(query) +
                           " ORDER BY c.id LIMIT :limit");
  bindCallFilters(st, query);
  const NamedColumns c(st);
  std::vector<SearchHit> hits;
  while (st.executeStep()) {
    hits.push_back(callHit(c));
  }
  return hits;
}

/// A call that matched in some column, with its best column so far.
struct MatchedCall {
  SearchHit hit;
  double rank = 0;
};

/// Text: each column's first `limit` matches (all words in that column) that pass the filters,
/// merged by call id; a call matched in several columns keeps its best ranked one (bm25, lower
/// is better; ties to the earlier column). The first `limit` ids of the union are among each
/// column's first `limit`, so the merge loses none.
std::vector<SearchHit> matchCalls(SQLite::Database& db, const SearchQuery& query,
                                  const std::string& words) {
  std::map<std::int64_t, MatchedCall> calls;
  for (const A2aField& field : kA2aFields) {
    SQLite::Statement st(
        db,
        "SELECT c.id, c.exchange_id, c.conversation_id, c.session_id, search_a2a_calls.rank, "
        "snippet(search_a2a_calls, " +
            std::to_string(field.column_index) +
            ", '[', ']', '…', 16) AS snippet "
            "FROM search_a2a_calls JOIN a2a_calls c ON c.id = search_a2a_calls.rowid" +
            callJoinSql(query) + " WHERE search_a2a_calls MATCH :match" + callFilterSql(query) +
            " ORDER BY search_a2a_calls.rowid LIMIT :limit");
    st.bind(":match", std::string("{") + field.column + "} : (" + words + ")");
    bindCallFilters(st, query);
    const NamedColumns c(st);
    while (st.executeStep()) {
      const double rank = c.get("rank").getDouble();
      auto [it, inserted] = calls.try_emplace(c.get("id").getInt64());
      MatchedCall& call = it->second;
      if (inserted || rank < call.rank) {
        call.hit = callHit(c);
        call.hit.field = field.field;
        call.hit.snippet = c.optText("snippet").value_or("");
        call.rank = rank;
      }
    }
  }
  std::vector<SearchHit> hits;
  for (auto& [id, call] : calls) {
    if (hits.size() >= query.limit) {
      break;
    }
    hits.push_back(std::move(call.hit));
  }
  return hits;
}

}  // namespace

bool searchesA2aCalls(const SearchQuery& query) {
  return !query.tool && !query.robot && !query.status && !query.error_code;
}

std::vector<SearchHit> searchA2aCalls(SQLite::Database& db, const SearchQuery& query,
                                      const std::string& words) {
  if (!searchesA2aCalls(query) || query.limit == 0) {
    return {};
  }
  return words.empty() ? listCalls(db, query) : matchCalls(db, query, words);
}

}  // namespace agentvcr::store::detail
