#include "stored_bodies.hpp"

#include <optional>
#include <stdexcept>

#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

BodyColumns BodyColumns::of(const SQLite::Statement& q, BodySide side) {
  const bool request = side == BodySide::Request;
  return BodyColumns{
      side,
      columnIndex(q, "id"),
      columnIndex(q, request ? "request_body" : "response_body"),
      columnIndex(q, request ? "request_body_codec" : "response_body_codec"),
      columnIndex(q, request ? "request_body_dictionary" : "response_body_dictionary"),
      columnIndex(q, "body_segment_id"),
  };
}

std::string StoredBodies::read(const SQLite::Statement& q, const BodyColumns& columns) {
  const std::optional<std::string> codec = optText(q, columns.codec);
  if (codec && *codec == kSegmentCodec) {
    const std::optional<std::int64_t> segment = optInt(q, columns.segment);
    if (!segment) {
      throw std::runtime_error("[store.body.corrupt] a segmented body of exchange " +
                               std::to_string(q.getColumn(columns.id).getInt64()) +
                               " names no segment");
    }
    return segments_.body(*segment, q.getColumn(columns.id).getInt64(), columns.side);
  }
  return dictionaries_.unpackColumns(q, columns.body, columns.codec, columns.dictionary);
}

BlobColumns BlobColumns::of(const SQLite::Statement& q, const std::string& prefix) {
  return BlobColumns{columnIndex(q, prefix),
                     columnIndex(q, prefix + "_codec"),
                     columnIndex(q, prefix + "_exchange"),
                     columnIndex(q, prefix + "_side"),
                     columnIndex(q, prefix + "_at"),
                     columnIndex(q, prefix + "_end")};
}

std::string StoredBodies::blob(const SQLite::Statement& q, const BlobColumns& columns) {
  const std::optional<std::string> codec = optText(q, columns.codec);
  if (!codec || *codec != kBodyBlobCodec) {
    return storedBody(q, columns.text, columns.codec);
  }
  return valueInBody(optInt(q, columns.exchange), optInt(q, columns.side), optInt(q, columns.at),
                     optInt(q, columns.end));
}

std::string StoredBodies::valueInBody(std::optional<std::int64_t> exchange_id,
                                      std::optional<std::int64_t> side,
                                      std::optional<std::int64_t> at,
                                      std::optional<std::int64_t> end) {
  const std::optional<std::string> body =
      exchange_id && side ? read(*exchange_id, *side == 1 ? BodySide::Response : BodySide::Request)
                          : std::nullopt;
  std::optional<protocol::Json> value;
  if (body && at && end && *at >= 0 && *at <= *end &&
      static_cast<std::size_t>(*end) <= body->size()) {
    value =
        protocol::parseJson(std::string_view(*body).substr(static_cast<std::size_t>(*at),
                                                           static_cast<std::size_t>(*end - *at)))
            .value;
  }
  if (!value) {
    throw std::runtime_error("[store.body.corrupt] a value kept in the body of exchange " +
                             (exchange_id ? std::to_string(*exchange_id) : std::string("?")) +
                             " is not where the archive says");
  }
  return protocol::canonicalJson(*value);
}

std::optional<std::string> StoredBodies::read(std::int64_t exchange_id, BodySide side) {
  const StatementLease lease(
      by_id_, db_,
      "SELECT id, request_body, request_body_codec, request_body_dictionary, "
      "response_body, response_body_codec, response_body_dictionary, "
      "body_segment_id FROM exchanges WHERE id = :id");
  ReusedStatement& q = *lease;
  bindInt(q, ":id", exchange_id);
  if (!q.executeStep()) {
    return std::nullopt;
  }
  return read(q, side);
}

}  // namespace agentvcr::store::detail
