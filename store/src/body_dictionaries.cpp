#include "body_dictionaries.hpp"

#include <memory>
#include <stdexcept>

#include "sqlite_support.hpp"

namespace agentvcr::store::detail {

DictionaryShelf::DictionaryShelf(SQLite::Database& db) : db_(db) {}

DictionaryShelf::~DictionaryShelf() = default;

std::string DictionaryShelf::unpack(std::string_view stored,
                                    const std::optional<std::string>& codec,
                                    std::optional<std::int64_t> dictionary) {
  if (!dictionary) {
    return unpackBody(stored, codec);
  }
  const Content content = load(*dictionary);
  return unpackBody(stored, codec, *content);
}

std::string DictionaryShelf::unpackColumns(const SQLite::Statement& q, int body, int codec,
                                           int dictionary) {
  const SQLite::Column column = q.getColumn(body);
  const std::string_view stored(static_cast<const char*>(column.getBlob()),
                                static_cast<std::size_t>(column.getBytes()));
  return unpack(stored, optText(q, codec), optInt(q, dictionary));
}

DictionaryShelf::Content DictionaryShelf::load(std::int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Content kept = kept_.find(id)) {
    return kept;
  }
  Content content = read(id);
  kept_.keep(id, content);
  return content;
}

DictionaryShelf::Content DictionaryShelf::read(std::int64_t id) {
  const StatementLease lease(select_, db_,
                             "SELECT content, codec FROM body_dictionaries WHERE id = :id");
  ReusedStatement& q = *lease;
  bindInt(q, ":id", id);
  if (!q.executeStep()) {
    throw std::runtime_error("[store.body.dictionary] body dictionary " + std::to_string(id) +
                             " is missing from the archive");
  }
  return std::make_shared<const std::string>(
      storedBody(q, columnIndex(q, "content"), columnIndex(q, "codec")));
}

}  // namespace agentvcr::store::detail
