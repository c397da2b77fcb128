#include "body_dictionaries.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>

#include <zstd.h>

#include "sqlite_support.hpp"

namespace agentvcr::store::detail {
namespace {

/// The magic number that opens a trained zstd dictionary. zstd would read a body starting so
/// as one, so such a body is never made a dictionary (JSON bodies never start so).
constexpr unsigned char kTrainedDictionaryMagic[4] = {0x37, 0xA4, 0x30, 0xEC};

bool usableAsDictionary(std::string_view body) {
  return body.size() >= kCompressFrom && body.size() <= kLargestDictionary &&
         std::memcmp(body.data(), kTrainedDictionaryMagic, sizeof kTrainedDictionaryMagic) != 0;
}

/// A dictionary helps when the body shrinks to an eighth: less means the stream moved on.
bool compressesWell(std::size_t frame, std::size_t body) {
  return frame <= body / 8;
}

}  // namespace

struct DictionaryPacker::Dictionary {
  std::int64_t id = 0;
  ZSTD_CDict* cdict = nullptr;

  Dictionary(std::int64_t dictionary_id, std::string_view content)
      : id(dictionary_id), cdict(ZSTD_createCDict(content.data(), content.size(), 1)) {
    if (cdict == nullptr) {
      throw std::bad_alloc();
    }
  }

  ~Dictionary() { ZSTD_freeCDict(cdict); }

  Dictionary(const Dictionary&) = delete;
  Dictionary& operator=(const Dictionary&) = delete;
};

struct DictionaryPacker::Context {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();

  ~Context() { ZSTD_freeCCtx(cctx); }
};

DictionaryPacker::DictionaryPacker(SQLite::Database& db)
    : db_(db),
      insert_(
          db,
          "INSERT INTO body_dictionaries (content, codec, size) VALUES (:content, :codec, :size)"),
      context_(std::make_unique<Context>()) {
  if (context_->cctx == nullptr) {
    throw std::bad_alloc();
  }
}

DictionaryPacker::~DictionaryPacker() = default;

PackedBody DictionaryPacker::pack(std::string_view body, const std::string& stream) {
  if (stream.empty() || !usableAsDictionary(body)) {
    return PackedBody{plain_.pack(body), std::nullopt};
  }
  std::string frame(ZSTD_compressBound(body.size()), '\0');
  auto compressWith = [&](const Dictionary& dictionary) -> std::size_t {
    return ZSTD_compress_usingCDict(context_->cctx, frame.data(), frame.size(), body.data(),
                                    body.size(), dictionary.cdict);
  };
  auto found = current_.find(stream);
  if (found != current_.end()) {
    const std::size_t size = compressWith(*found->second.dictionary);
    if (ZSTD_isError(size) == 0 && compressesWell(size, body.size())) {
      frame.resize(size);
      return PackedBody{std::move(frame), found->second.dictionary->id};
    }
  }
  const Dictionary& dictionary = promote(body, stream);
  const std::size_t size = compressWith(dictionary);
  if (ZSTD_isError(size) != 0) {
    return PackedBody{plain_.pack(body), std::nullopt};
  }
  frame.resize(size);
  return PackedBody{std::move(frame), dictionary.id};
}

const DictionaryPacker::Dictionary& DictionaryPacker::promote(std::string_view body,
                                                              const std::string& stream) {
  const std::optional<std::string> content = plain_.pack(body);
  static const std::optional<std::string> kZstd{std::string(kZstdCodec)};
  static const std::optional<std::string> kVerbatim;
  const std::string verbatim = content ? std::string() : std::string(body);
  bindBlob(insert_, ":content", content ? *content : verbatim);
  bindOptText(insert_, ":codec", content ? kZstd : kVerbatim);
  bindInt(insert_, ":size", static_cast<std::int64_t>(body.size()));
  execOnce(insert_);
  auto dictionary = std::make_shared<const Dictionary>(db_.getLastInsertRowid(), body);
  Current& current = current_[stream];
  current = Current{std::move(dictionary), false};
  return *current.dictionary;
}

void DictionaryPacker::committed() {
  for (auto& [stream, current] : current_) {
    current.committed = true;
  }
}

void DictionaryPacker::rolledBack() {
  std::erase_if(current_, [](const auto& entry) { return !entry.second.committed; });
}

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
  if (auto found = kept_.find(id); found != kept_.end()) {
    recency_.splice(recency_.begin(), recency_, found->second.recency);
    return found->second.content;
  }
  Content content = read(id);
  recency_.push_front(id);
  kept_.emplace(id, Kept{content, recency_.begin()});
  kept_bytes_ += content->size();
  while (kept_bytes_ > kKeptBytes && recency_.size() > 1) {
    const auto oldest = kept_.find(recency_.back());
    kept_bytes_ -= oldest->second.content->size();
    kept_.erase(oldest);
    recency_.pop_back();
  }
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
