#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::store {

/// Writes one JSON object per exchange, in order, to `out`: the exchanges listed, by id (an id
/// with no exchange is skipped). Each line: {"id","session_id","seq","method","target",
/// "http_version","status","outcome","error","started_ns","upstream_first_byte_ns","ended_ns",
/// "protocol","route","request_headers":[[name,value],...],"request_body","response_headers",
/// "response_body"}, keys in that order, raw UTF-8, "\n" after each line. A body that is valid
/// UTF-8 is a JSON string, otherwise {"base64":"..."} (RFC 4648, padded); unknown values
/// (error, upstream_first_byte_ns, ended_ns) are null. Secrets are already redacted in the
/// archive. Returns the number of lines written. Throws std::runtime_error when reading fails
/// ("[store.read] ...") or `out` fails ("[store.export] ...").
std::size_t exportJsonl(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                        std::ostream& out);

}  // namespace agentvcr::store
