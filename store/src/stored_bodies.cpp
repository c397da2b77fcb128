#include "stored_bodies.hpp"

#include <optional>
#include <stdexcept>

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
