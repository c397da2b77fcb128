#pragma once

// Shapes a current archive as an older agentvcr wrote it, so migration tests start from the
// real thing: an archive recorded now, then stripped of what later versions added.

#include <SQLiteCpp/Database.h>

namespace agentvcr::testing {

/// Removes what versions after `version` (5 to 9) added and sets user_version to it. Version 5
/// and 6 archives stored bodies verbatim: record the file with compression off for those.
void shapeAsVersion(SQLite::Database& db, int version);

}  // namespace agentvcr::testing
