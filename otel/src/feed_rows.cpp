#include "feed_rows.hpp"

namespace agentvcr::otel::detail {

FeedRows::FeedRows(const store::FeedBatch& batch, std::string_view table) {
  for (const store::FeedTable& t : batch.tables) {
    if (t.table == table) {
      table_ = &t;
    }
  }
}

const store::FeedValue* FeedRows::value(std::size_t row, std::string_view column) const {
  const std::size_t at = table_->column(column);
  return at == table_->columns.size() ? nullptr : &table_->rows.at(row).at(at);
}

std::optional<std::int64_t> FeedRows::integer(std::size_t row, std::string_view column) const {
  const store::FeedValue* v = value(row, column);
  if (const auto* i = v == nullptr ? nullptr : std::get_if<std::int64_t>(v)) {
    return *i;
  }
  return std::nullopt;
}

std::optional<std::string> FeedRows::text(std::size_t row, std::string_view column) const {
  const store::FeedValue* v = value(row, column);
  if (const auto* s = v == nullptr ? nullptr : std::get_if<std::string>(v)) {
    return *s;
  }
  return std::nullopt;
}

}  // namespace agentvcr::otel::detail
