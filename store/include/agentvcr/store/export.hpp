#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
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

/// Which exchanges an export writes: the union of the listed sessions and the exchanges of the
/// listed conversations; everything when both lists are empty.
struct ExportSelection {
  std::vector<std::int64_t> sessions;
  std::vector<std::int64_t> conversations;
};

/// Exchange ids of `selection`, each once, by session then seq (recording order).
std::vector<std::int64_t> selectExchanges(const ArchiveReader& reader,
                                          const ExportSelection& selection);

/// The archive JSONL that `agentvcr import` reads back (docs/schema.md, Export, import and
/// merge): before the first exchange of each session a line {"session": {...}} with the
/// session row, then exportJsonl()'s exchange lines extended with "client_address",
/// "response_from_upstream", and for event streams "stream_events" [{position, at_ns, event,
/// id, data}], plus decoded "steps" and "a2a_calls" for readers. Returns the exchange lines
/// written; throws as exportJsonl() does.
std::size_t exportArchiveJsonl(const ArchiveReader& reader,
                               const std::vector<std::int64_t>& exchange_ids, std::ostream& out);

/// Writes a HAR 1.2 document (one JSON object, pretty-printed) of the exchanges listed, in
/// order: request URLs are the session's upstream followed by the target; a body that is not
/// UTF-8 is base64 text (response content.encoding "base64"; HAR has no encoding for
/// postData, so it carries the extension "_encoding": "base64"). agentvcr data travel in
/// fields starting with "_" (docs/schema.md, Export, import and merge). Returns the entries.
std::size_t exportHar(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                      const std::string& creator_version, std::ostream& out);

/// `text` as one POSIX shell word: inside single quotes, each ' written as '\''.
std::string shellQuote(const std::string& text);

/// A shell command that resends `exchange`'s request with curl to `upstream` (the session's
/// upstream base URL; "http://localhost" when empty): method, headers (except Host,
/// Content-Length, Connection and Transfer-Encoding, which curl sets) and the body byte for byte
/// (--data-binary; a body that is not UTF-8, holds NUL bytes or starts with '@', which curl would
/// take for a file name, is piped in through `base64 -d`). Redacted headers stay redacted. No
/// trailing newline.
std::string curlCommand(const ExchangeRow& exchange, const std::string& upstream);

/// Writes curlCommand() of each exchange, in order, to the session's upstream, each after a
/// "# exchange ..." comment line and followed by a blank line. Returns the commands written.
std::size_t exportCurl(const ArchiveReader& reader, const std::vector<std::int64_t>& exchange_ids,
                       std::ostream& out);

}  // namespace agentvcr::store
