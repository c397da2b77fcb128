#include "body_segments.hpp"

#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include <zstd.h>

namespace agentvcr::store::detail {
namespace {

struct SegmentCCtxDeleter {
  void operator()(ZSTD_CCtx* cctx) const noexcept { ZSTD_freeCCtx(cctx); }
};

struct SegmentDCtxDeleter {
  void operator()(ZSTD_DCtx* dctx) const noexcept { ZSTD_freeDCtx(dctx); }
};

/// The largest window a reader accepts: what the writer uses, with room for a later writer's.
constexpr int kLargestReadWindowLog = 27;

void check(std::size_t code, const char* what) {
  if (ZSTD_isError(code) != 0) {
    throw std::runtime_error(std::string("[store.body.segment] ") + what + ": " +
                             ZSTD_getErrorName(code));
  }
}

int kindOf(BodySide side) {
  return side == BodySide::Request ? 0 : 1;
}

}  // namespace

struct SegmentPacker::Stream {
  std::unique_ptr<ZSTD_CCtx, SegmentCCtxDeleter> cctx{ZSTD_createCCtx()};
  std::int64_t segment_id = 0;  ///< 0: no segment yet
  std::size_t exchanges = 0;    ///< in the current segment
  std::size_t bytes = 0;        ///< of bodies in the current segment
  std::size_t segments_since_anchor = 0;
  std::string prefix;    ///< the previous segment's keyframe: the current frame refers to it
  std::string keyframe;  ///< the current segment's first request and answer, back to back
};

SegmentPacker::SegmentPacker(SQLite::Database& db)
    : db_(db), insert_(db, "INSERT INTO body_segments (prefix_segment_id) VALUES (:prefix)") {}

SegmentPacker::~SegmentPacker() = default;

std::optional<SegmentedBodies> SegmentPacker::pack(std::string_view request,
                                                   std::string_view response,
                                                   const std::string& stream) {
  if (request.size() > kLargestSegmentedBody || response.size() > kLargestSegmentedBody) {
    return std::nullopt;
  }
  const bool request_in = request.size() >= kCompressFrom;
  const bool response_in = response.size() >= kCompressFrom;
  if (!request_in && !response_in) {
    return std::nullopt;
  }
  pending_ = stream;
  auto found = streams_.find(stream);
  Stream* s = found != streams_.end() ? found->second.get() : nullptr;
  const std::size_t bytes = (request_in ? request.size() : 0) + (response_in ? response.size() : 0);
  if (s == nullptr || s->segment_id == 0 || s->exchanges >= kExchangesPerSegment ||
      (s->exchanges > 0 && s->bytes + bytes > kSegmentBytes)) {
    s = &startSegment(stream);
  }
  SegmentedBodies out;
  out.segment_id = s->segment_id;
  if (request_in) {
    out.request_blocks = flush(*s, request);
  }
  if (response_in) {
    out.response_blocks = flush(*s, response);
  }
  if (s->exchanges == 0) {
    s->keyframe.reserve(bytes);
    s->keyframe.append(request_in ? request : std::string_view())
        .append(response_in ? response : std::string_view());
  }
  ++s->exchanges;
  s->bytes += bytes;
  return out;
}

SegmentPacker::Stream& SegmentPacker::startSegment(const std::string& stream) {
  std::unique_ptr<Stream>& slot = streams_[stream];
  if (!slot) {
    slot = std::make_unique<Stream>();
    if (!slot->cctx) {
      throw std::bad_alloc();
    }
  }
  Stream& s = *slot;
  const bool anchor = s.segment_id == 0 || s.segments_since_anchor + 1 >= kSegmentsPerAnchor;
  bindOptInt(insert_, ":prefix", anchor ? std::nullopt : std::optional<std::int64_t>(s.segment_id));
  execOnce(insert_);
  ZSTD_CCtx* cctx = s.cctx.get();
  check(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters), "reset");
  check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1), "level");
  check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, kSegmentWindowLog), "window");
  if (anchor) {
    s.prefix.clear();
    s.segments_since_anchor = 0;
  } else {
    s.prefix = std::move(s.keyframe);
    ++s.segments_since_anchor;
    // The frame refers to these bytes until it ends: `prefix` is not touched before the next
    // segment.
    check(ZSTD_CCtx_refPrefix(cctx, s.prefix.data(), s.prefix.size()), "prefix");
  }
  s.keyframe.clear();
  s.segment_id = db_.getLastInsertRowid();
  s.exchanges = 0;
  s.bytes = 0;
  return s;
}

std::string SegmentPacker::flush(Stream& s, std::string_view body) {
  std::string out(ZSTD_compressBound(body.size()) + 64, '\0');
  ZSTD_inBuffer in{body.data(), body.size(), 0};
  ZSTD_outBuffer sink{out.data(), out.size(), 0};
  for (;;) {
    const std::size_t left = ZSTD_compressStream2(s.cctx.get(), &sink, &in, ZSTD_e_flush);
    check(left, "compress");
    if (left == 0 && in.pos == in.size) {
      break;
    }
    if (sink.pos == sink.size) {
      out.resize(out.size() * 2);
      sink.dst = out.data();
      sink.size = out.size();
    }
  }
  out.resize(sink.pos);
  return out;
}

void SegmentPacker::confirmed() {
  pending_.clear();
}

void SegmentPacker::abandoned() {
  if (!pending_.empty()) {
    streams_.erase(pending_);
    pending_.clear();
  }
}

void SegmentPacker::rolledBack() {
  streams_.clear();
  pending_.clear();
}

struct SegmentShelf::Live {
  std::unique_ptr<ZSTD_DCtx, SegmentDCtxDeleter> dctx{ZSTD_createDCtx()};
  std::int64_t segment_id = 0;  ///< 0: nothing to go on from
  std::int64_t last_id = 0;     ///< the last exchange whose bodies it gave
  Bytes prefix;                 ///< the frame refers to these bytes until it ends
};

SegmentShelf::SegmentShelf(SQLite::Database& db) : db_(db) {}

SegmentShelf::~SegmentShelf() = default;

std::string SegmentShelf::body(std::int64_t segment_id, std::int64_t exchange_id, BodySide side) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  const Key key{exchange_id, kindOf(side)};
  Bytes bytes = kept_.find(key);
  if (!bytes) {
    decode(segment_id, exchange_id);
    bytes = kept_.find(key);
  }
  if (!bytes) {
    throw std::runtime_error("[store.body.segment] the body of exchange " +
                             std::to_string(exchange_id) + " is not in body segment " +
                             std::to_string(segment_id));
  }
  return *bytes;
}

SegmentShelf::Bytes SegmentShelf::keyframe(std::int64_t segment_id) {
  const Key key{segment_id, 2};
  if (Bytes bytes = kept_.find(key)) {
    return bytes;
  }
  decode(segment_id, std::nullopt);
  if (Bytes bytes = kept_.find(key)) {
    return bytes;
  }
  throw std::runtime_error("[store.body.segment] body segment " + std::to_string(segment_id) +
                           " holds no exchange");
}

void SegmentShelf::decode(std::int64_t segment_id, std::optional<std::int64_t> last_id) {
  if (!live_) {
    live_ = std::make_unique<Live>();
    if (!live_->dctx) {
      throw std::bad_alloc();
    }
  }
  Live& live = *live_;
  // A later body of the segment decoded last: go on from where the decoder stopped.
  const bool goes_on = last_id && live.segment_id == segment_id && *last_id > live.last_id;
  if (!goes_on) {
    std::optional<std::int64_t> prefix_id;
    {
      const StatementLease lease(segment_, db_,
                                 "SELECT prefix_segment_id FROM body_segments WHERE id = :id");
      ReusedStatement& q = *lease;
      bindInt(q, ":id", segment_id);
      if (!q.executeStep()) {
        throw std::runtime_error("[store.body.segment] body segment " + std::to_string(segment_id) +
                                 " is missing from the archive");
      }
      prefix_id = optInt(q, 0);
    }
    // Each segment refers to an earlier one: a damaged archive cannot send a read round a loop.
    if (prefix_id && *prefix_id >= segment_id) {
      throw std::runtime_error("[store.body.corrupt] body segment " + std::to_string(segment_id) +
                               " refers to a later segment");
    }
    // First: the keyframe's own decode uses the decoder too.
    Bytes prefix = prefix_id ? keyframe(*prefix_id) : nullptr;
    live.segment_id = 0;
    ZSTD_DCtx* dctx = live.dctx.get();
    check(ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters), "reset");
    check(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, kLargestReadWindowLog), "window");
    if (prefix) {
      check(ZSTD_DCtx_refPrefix(dctx, prefix->data(), prefix->size()), "prefix");
    }
    live.prefix = std::move(prefix);
    live.last_id = std::numeric_limits<std::int64_t>::min();
  }

  struct Piece {
    Key key;
    std::size_t size;
  };

  std::vector<Piece> pieces;
  std::string input;
  std::size_t total = 0;
  {
    const StatementLease lease(blocks_, db_, R"sql(
      SELECT id, request_body, request_body_codec, request_body_size,
             response_body, response_body_codec, response_body_size
      FROM exchanges WHERE body_segment_id = :segment AND id > :after AND id <= :last
      ORDER BY id LIMIT :limit)sql");
    ReusedStatement& q = *lease;
    bindInt(q, ":segment", segment_id);
    bindInt(q, ":after", live.last_id);
    bindInt(q, ":last", last_id.value_or(std::numeric_limits<std::int64_t>::max()));
    bindInt(q, ":limit", last_id ? -1 : 1);
    while (q.executeStep()) {
      const std::int64_t id = q.getColumn(0).getInt64();
      for (int side = 0; side < 2; ++side) {
        const int at = 1 + side * 3;
        const std::optional<std::string> codec = optText(q, at + 1);
        if (!codec || *codec != kSegmentCodec) {
          continue;
        }
        const SQLite::Column blocks = q.getColumn(at);
        input.append(static_cast<const char*>(blocks.getBlob()),
                     static_cast<std::size_t>(blocks.getBytes()));
        const std::optional<std::int64_t> size = optInt(q, at + 2);
        if (!size || *size < 0) {
          throw std::runtime_error("[store.body.corrupt] a segmented body of exchange " +
                                   std::to_string(id) + " has no size");
        }
        pieces.push_back(Piece{Key{id, side}, static_cast<std::size_t>(*size)});
        total += static_cast<std::size_t>(*size);
      }
    }
  }

  live.segment_id = 0;  // until the blocks are spent: a failed decode leaves nothing to go on
  std::string output(total, '\0');
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  ZSTD_outBuffer sink{output.data(), output.size(), 0};
  while (in.pos < in.size) {
    const std::size_t read = in.pos;
    const std::size_t written = sink.pos;
    const std::size_t code = ZSTD_decompressStream(live.dctx.get(), &sink, &in);
    if (ZSTD_isError(code) != 0) {
      throw std::runtime_error("[store.body.corrupt] body segment " + std::to_string(segment_id) +
                               " does not decode: " + ZSTD_getErrorName(code));
    }
    // Stuck with output left to give: the blocks hold more than the bodies' sizes say.
    if (in.pos == read && sink.pos == written) {
      throw std::runtime_error("[store.body.corrupt] body segment " + std::to_string(segment_id) +
                               " holds more than its bodies");
    }
  }
  if (sink.pos != total) {
    throw std::runtime_error("[store.body.corrupt] body segment " + std::to_string(segment_id) +
                             " decodes to " + std::to_string(sink.pos) + " bytes, its bodies to " +
                             std::to_string(total));
  }
  live.segment_id = segment_id;
  if (!pieces.empty()) {
    live.last_id = pieces.back().key.id;
  }
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    kept_.keep(pieces[i].key, std::make_shared<const std::string>(output, at, pieces[i].size));
    at += pieces[i].size;
  }
  if (!goes_on && !pieces.empty()) {
    // The first exchange's bodies, back to back, as the writer kept them for the next segment.
    const std::int64_t first = pieces.front().key.id;
    std::size_t end = 0;
    for (const Piece& piece : pieces) {
      if (piece.key.id != first) {
        break;
      }
      end += piece.size;
    }
    kept_.keep(Key{segment_id, 2}, std::make_shared<const std::string>(output, 0, end));
  }
}

}  // namespace agentvcr::store::detail
