#pragma once

// How the archive keeps request and response bodies (docs/schema.md, Bodies). MAGMA bodies carry
// the same memory, tools and attributes on every step, and JSON compresses well: a body of
// kCompressFrom bytes or more is stored as one zstd frame when that saves at least an eighth,
// otherwise verbatim. `exchanges.request_body_codec` / `response_body_codec` say which ('zstd'
// or NULL), and `request_body_size` / `response_body_size` keep the length on the wire.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agentvcr::store::detail {

/// The codec name stored in the *_body_codec columns.
inline constexpr std::string_view kZstdCodec = "zstd";

/// Bodies shorter than this are stored verbatim: a zstd frame's own overhead eats the saving.
inline constexpr std::size_t kCompressFrom = 256;

/// Compresses bodies for one writer. Keeps its zstd context between calls (creating one costs
/// more than compressing a 2 KB body). Not thread-safe: one per writer thread.
class BodyCompressor {
 public:
  explicit BodyCompressor(int level = 1);
  ~BodyCompressor();
  BodyCompressor(const BodyCompressor&) = delete;
  BodyCompressor& operator=(const BodyCompressor&) = delete;

  /// `body` as one zstd frame when that is worth it (see above); nullopt: store it verbatim.
  std::optional<std::string> pack(std::string_view body);

  /// The same, compressed against the raw-content `dictionary`, bytes the body is likely to
  /// repeat (unpackBody() with that dictionary reads it back).
  std::optional<std::string> packAgainst(std::string_view body, std::string_view dictionary);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  int level_;
};

/// The body stored as `stored` with `codec` (NULL, or "zstd"). Throws std::runtime_error
/// "[store.body.corrupt] ..." when a zstd frame does not decode, and "[store.body.codec] ..." for
/// a codec this agentvcr does not know.
std::string unpackBody(std::string_view stored, const std::optional<std::string>& codec);

/// The same for a frame compressed against the raw-content `dictionary`, an earlier body
/// (body_dictionaries.hpp).
std::string unpackBody(std::string_view stored, const std::optional<std::string>& codec,
                       std::string_view dictionary);

}  // namespace agentvcr::store::detail
