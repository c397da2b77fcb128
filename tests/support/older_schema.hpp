#pragma once

// Shapes a current archive as an older agentvcr wrote it, so migration tests start from the
// real thing: an archive recorded now, then stripped of what later versions added.

#include <SQLiteCpp/Database.h>

namespace agentvcr::testing {

/// Removes what versions after `version` (2 to 15) added and sets user_version to it. Archives
/// before version 7 stored bodies verbatim: record the file with compression off for those.
/// Before version 8, nothing was captured ahead of its index: close the recorder first.
void shapeAsVersion(SQLite::Database& db, int version);

}  // namespace agentvcr::testing
