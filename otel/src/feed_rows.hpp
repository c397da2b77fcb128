#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agentvcr/store/change_feed.hpp"

namespace agentvcr::otel::detail {

/// One table of a feed batch read by column name; a table the batch lacks reads as empty.
class FeedRows {
 public:
  FeedRows(const store::FeedBatch& batch, std::string_view table);

  std::size_t size() const { return table_ == nullptr ? 0 : table_->rows.size(); }

  /// The value in `column` of row `row`; nullopt when NULL, of another type, or no such column.
  std::optional<std::int64_t> integer(std::size_t row, std::string_view column) const;
  std::optional<std::string> text(std::size_t row, std::string_view column) const;

 private:
  const store::FeedValue* value(std::size_t row, std::string_view column) const;

  const store::FeedTable* table_ = nullptr;
};

}  // namespace agentvcr::otel::detail
