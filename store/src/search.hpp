#pragma once

// Search over an archive (ArchiveReader::search): the full-text indexes of schema versions 4 and
// 10 and the step filters. Private to the store.

#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::store::detail {

/// The user's words as an FTS5 query that cannot be a syntax error: words split on ASCII
/// whitespace, each one an FTS5 string in double quotes (a `"` in it doubled, NUL bytes
/// dropped), a trailing `*` (or several) kept outside the quotes as a prefix query, a word of
/// stars only dropped; joined by spaces, FTS5's implicit AND. Empty when no word is left.
/// `prefix_query`, when given, tells whether some word is a prefix.
std::string ftsQueryOf(const std::string& text, bool* prefix_query = nullptr);

/// ArchiveReader::search on a connection to an archive of the current version. Throws
/// SQLite::Exception.
std::vector<SearchHit> searchArchive(SQLite::Database& db, const SearchQuery& query);

/// Whether `query` can find A2A calls: it has no condition on MAGMA candidates.
bool searchesA2aCalls(const SearchQuery& query);

/// The first `query.limit` A2A calls, by id, that pass its session and latency filters and,
/// unless `words` (ftsQueryOf the text) is empty, hold all the words in one of their texts.
/// Defined in search_a2a.cpp.
std::vector<SearchHit> searchA2aCalls(SQLite::Database& db, const SearchQuery& query,
                                      const std::string& words);

}  // namespace agentvcr::store::detail
