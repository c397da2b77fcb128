#include "body_compression.hpp"

#include <memory>
#include <new>
#include <stdexcept>

#include <zstd.h>

#include "agentvcr/store/transfer.hpp"

namespace agentvcr::store::detail {
namespace {

/// Above the relay's largest recorded body (256 MiB by default, configurable): a frame that
/// claims more is damaged, and allocating for it would be the damage spreading.
constexpr unsigned long long kLargestBody = 4ULL << 30;

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* dctx) const noexcept { ZSTD_freeDCtx(dctx); }
};

/// This thread's decompression context. ZSTD_decompress() would create and initialise one per
/// call, which costs several times more than decoding a 2 KB body.
ZSTD_DCtx& threadDecompressor() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
  if (!dctx) {
    throw std::bad_alloc();
  }
  return *dctx;
}

}  // namespace

struct BodyCompressor::Context {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();

  ~Context() { ZSTD_freeCCtx(cctx); }
};

BodyCompressor::BodyCompressor(int level) : context_(std::make_unique<Context>()), level_(level) {
  if (context_->cctx == nullptr) {
    throw std::bad_alloc();
  }
}

BodyCompressor::~BodyCompressor() = default;

namespace {

/// `frame` cut to the `size` bytes a compression call wrote, when that saves at least an eighth
/// of `body`; a failure keeps the body verbatim too.
std::optional<std::string> worthKeeping(std::string frame, std::size_t size,
                                        std::string_view body) {
  if (ZSTD_isError(size) != 0 || size > body.size() - body.size() / 8) {
    return std::nullopt;
  }
  frame.resize(size);
  return frame;
}

/// The window a frame packed against a dictionary uses: wide enough for the dictionary and the
/// body together, so that the body reaches back to the start of the dictionary.
constexpr int kDictionaryWindowLog = 23;

}  // namespace

std::optional<std::string> BodyCompressor::pack(std::string_view body) {
  if (body.size() < kCompressFrom) {
    return std::nullopt;
  }
  std::string frame(ZSTD_compressBound(body.size()), '\0');
  const std::size_t size = ZSTD_compressCCtx(context_->cctx, frame.data(), frame.size(),
                                             body.data(), body.size(), level_);
  return worthKeeping(std::move(frame), size, body);
}

std::optional<std::string> BodyCompressor::packAgainst(std::string_view body,
                                                       std::string_view dictionary) {
  if (body.size() < kCompressFrom) {
    return std::nullopt;
  }
  ZSTD_CCtx* cctx = context_->cctx;
  // The prefix holds for one frame; the parameters stay until reset, so they are reset after.
  std::size_t status = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level_);
  if (ZSTD_isError(status) == 0) {
    status = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, kDictionaryWindowLog);
  }
  if (ZSTD_isError(status) == 0) {
    status = ZSTD_CCtx_refPrefix(cctx, dictionary.data(), dictionary.size());
  }
  std::string frame(ZSTD_compressBound(body.size()), '\0');
  const std::size_t size =
      ZSTD_isError(status) != 0
          ? status
          : ZSTD_compress2(cctx, frame.data(), frame.size(), body.data(), body.size());
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  return worthKeeping(std::move(frame), size, body);
}

namespace {

/// Decodes `stored`; `dictionary` null: a frame compressed alone.
std::string decode(std::string_view stored, const std::optional<std::string>& codec,
                   const std::string_view* dictionary) {
  if (!codec) {
    return std::string(stored);
  }
  if (*codec != kZstdCodec) {
    throw std::runtime_error("[store.body.codec] body stored with codec '" + *codec +
                             "', which this agentvcr does not know");
  }
  const unsigned long long size = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
    throw std::runtime_error("[store.body.corrupt] stored body is not a zstd frame");
  }
  if (size > kLargestBody) {  // the writer never stores one this big: the header is damaged
    throw std::runtime_error("[store.body.corrupt] stored body claims " + std::to_string(size) +
                             " bytes");
  }
  std::string body(static_cast<std::size_t>(size), '\0');
  // A raw-content dictionary only primes the window: referencing it costs nothing, where
  // preparing a ZSTD_DDict from it costs more than the decode and keeps tens of KB.
  const std::size_t got = dictionary != nullptr
                              ? ZSTD_decompress_usingDict(&threadDecompressor(), body.data(),
                                                          body.size(), stored.data(), stored.size(),
                                                          dictionary->data(), dictionary->size())
                              : ZSTD_decompressDCtx(&threadDecompressor(), body.data(), body.size(),
                                                    stored.data(), stored.size());
  if (ZSTD_isError(got) != 0 || got != body.size()) {
    throw std::runtime_error(std::string("[store.body.corrupt] stored body does not decode: ") +
                             (ZSTD_isError(got) != 0 ? ZSTD_getErrorName(got) : "short frame"));
  }
  return body;
}

}  // namespace

std::string unpackBody(std::string_view stored, const std::optional<std::string>& codec) {
  return decode(stored, codec, nullptr);
}

std::string unpackBody(std::string_view stored, const std::optional<std::string>& codec,
                       std::string_view dictionary) {
  return decode(stored, codec, &dictionary);
}

}  // namespace agentvcr::store::detail

namespace agentvcr::store {

std::string unpackStoredBody(std::string_view stored, const std::optional<std::string>& codec,
                             std::optional<std::string_view> dictionary) {
  return dictionary ? detail::unpackBody(stored, codec, *dictionary)
                    : detail::unpackBody(stored, codec);
}

}  // namespace agentvcr::store
