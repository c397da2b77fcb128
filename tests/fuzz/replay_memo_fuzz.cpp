// Fuzz target: replay's request memo against replay without it. At its first input it writes
// two small generated archives (tests/support/generated_archive.hpp): MAGMA steps whose
// memories, tools and extra keys hold ids of their own; A2A calls of every id type, a batch, a
// stream, calls recorded in scopes, calls of the HTTP+JSON binding. Each input is a sequence of
// requests sent, in order, to two fresh replayers, one without the memo and one with a memo
// small enough to forget; A2A requests also to such a pair under --a2a-ignore-message-id. Every
// reply (status, content type, headers, body, stream pieces, hits and misses) with the memo
// must be the one without it.
//
// Input: requests separated by "\xff\xff" (a pair no UTF-8 text holds). A request is a route
// byte, an ids byte, and a body in which `$0` .. `$9` stand for ids; an empty body repeats the
// previous one, so that a sequence sends one body with other ids. The route byte's low four bits
// pick the route (kRoutes; a GET of the HTTP+JSON binding takes its target from the body, a
// rewind its query), its next two bits the X-Agentvcr-Scope the request is sent in (none, or
// one of kScopes). An ids byte below 0x80 gives ids a valid request may carry: `$0` a non-empty
// string, `$1` .. `$9` distinct integers; from 0x80 on, each is any of kAnyIds (other types,
// out of range, escapes, what JSON refuses).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "agentvcr/protocol/scope.hpp"
#include "agentvcr/replay/replayer.hpp"
#include "fuzz_input.hpp"
#include "generated_archive.hpp"
#include "outcome_text.hpp"
#include "temp_dir.hpp"

using namespace agentvcr;

namespace {

constexpr std::string_view kSeparator = "\xff\xff";

/// A few recorded requests' worth: a sequence of distinct ones makes the memo forget.
constexpr std::size_t kMemoBytes = 8 << 10;

constexpr std::array<std::string_view, 6> kValidRequestIds = {
    R"("r-1")", R"("\u00e9t\u00e9")", R"("x\"y")", R"("5")", R"("m-1")", R"("d9c4d0b3f1a04e3c")"};

constexpr std::array<std::string_view, 12> kValidIds = {
    "0",      "1",  "7", "-1", "42", "900", "9223372036854775807", "-9223372036854775808",
    "123456", "-0", "2", "3"};

constexpr std::array<std::string_view, 32> kAnyIds = {R"("r-1")",
                                                      R"("")",
                                                      R"("\u00e9")",
                                                      R"("x\"y")",
                                                      R"("\ud800")",
                                                      R"("5")",
                                                      "0",
                                                      "1",
                                                      "-1",
                                                      "-0",
                                                      "01",
                                                      "1.0",
                                                      "1e2",
                                                      "2.5",
                                                      "-3",
                                                      "9223372036854775807",
                                                      "9223372036854775808",
                                                      "-9223372036854775808",
                                                      "-9223372036854775809",
                                                      "18446744073709551616",
                                                      "1e400",
                                                      "true",
                                                      "false",
                                                      "null",
                                                      "[1]",
                                                      "{}",
                                                      " 5 ",
                                                      "NaN",
                                                      R"("m-1")",
                                                      "1E+2",
                                                      "-",
                                                      R"("\u0000")"};

/// The ids byte's id for `$digit`.
std::string_view idFor(unsigned char ids, int digit) {
  if (ids >= 0x80) {
    return kAnyIds[(ids + 11u * static_cast<unsigned>(digit)) % kAnyIds.size()];
  }
  if (digit == 0) {
    return kValidRequestIds[ids % kValidRequestIds.size()];
  }
  // Consecutive entries of kValidIds: distinct for the nine digits.
  return kValidIds[(ids + static_cast<unsigned>(digit)) % kValidIds.size()];
}

std::string withIds(std::string_view body, unsigned char ids) {
  std::string text;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '$' && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '9') {
      text += idFor(ids, body[i + 1] - '0');
      ++i;
    } else {
      text += body[i];
    }
  }
  return text;
}

constexpr std::array<std::string_view, 3> kScopes = {"suite-a", "suite-b", "suite-c"};

/// Routes past the first six: the HTTP+JSON binding's, and the rewind.
enum Route : unsigned {
  kRestSend = 6,
  kRestGet,
  kRestPushConfig,
  kRestStream,
  kRewind,
  kRouteCount
};

constexpr std::string_view kRewindPath = "/_agentvcr/replay/rewind";

protocol::HttpRequest requestFor(unsigned char route_byte, std::string body) {
  protocol::Headers json = {{"Host", "127.0.0.1:8080"}, {"Content-Type", "application/json"}};
  if (const unsigned scope = (route_byte >> 4) & 3u; scope != 0) {
    json.push_back({std::string(protocol::kScopeHeader), std::string(kScopes[scope - 1])});
  }
  protocol::Headers rest = json;
  rest.push_back({"A2A-Version", "1.0"});
  switch ((route_byte & 0x0fu) % kRouteCount) {
    case kRestSend:
      return {"POST", "/message:send", rest, std::move(body)};
    case kRestGet:
      return {"GET", body.starts_with('/') ? body : "/tasks/task-r1" + body, rest, ""};
    case kRestPushConfig:
      return {"POST", "/tasks/task-r1/pushNotificationConfigs", rest, std::move(body)};
    case kRestStream:
      return {"POST", "/message:stream", rest, std::move(body)};
    case kRewind:
      return {"POST", std::string(kRewindPath) + body, {}, ""};
    default:
      break;
  }
  switch ((route_byte & 0x0fu) % kRouteCount) {
    case 0:
      return {"POST", "/v1/responses", json, std::move(body)};
    case 1:
      return {"POST", testing::kA2aEndpoint, json, std::move(body)};
    case 2:
      return {"POST", "/v1/responses?trace=1", json, std::move(body)};
    case 3:
      return {"POST", "/rpc", json, std::move(body)};  // A2A known by its body only
    case 4:
      return {"POST", std::string(testing::kA2aEndpoint) + "?page=2", json, std::move(body)};
    default:
      return {"GET", testing::kA2aCardPath, {{"Host", "127.0.0.1:9"}}, ""};
  }
}

/// The archives, written at the first input: the MAGMA steps, and apart the A2A calls, so that
/// each replayer loads only what its requests need.
struct Archives {
  std::string magma;
  std::string a2a;
};

const Archives& archives() {
  static const testing::TempDir dir;
  static const Archives paths = [] {
    Archives written{dir.file("magma.sqlite"), dir.file("a2a.sqlite")};
    testing::writeGeneratedArchive(written.magma,
                                   {.magma_steps = 24, .a2a_calls = false, .seed = 3});
    testing::writeGeneratedArchive(written.a2a, {.magma_steps = 0, .seed = 3});
    return written;
  }();
  return paths;
}

/// Two fresh replayers over one archive, without the memo and with it, made at their first
/// request: their cursors and memos start empty, so an input replays alone.
class Twins {
 public:
  Twins(std::string path, bool ignore_message_id)
      : path_(std::move(path)), ignore_message_id_(ignore_message_id) {}

  /// Asks both; aborts, naming `property`, unless they answer alike.
  void ask(const protocol::HttpRequest& request, const char* property) {
    if (!plain_) {
      plain_.emplace(path_, options(0));
      memo_.emplace(path_, options(kMemoBytes));
    }
    const std::string expected = testing::outcomeText(plain_->handle(request));
    fuzz::require(testing::outcomeText(memo_->handle(request)) == expected, property);
  }

  /// Rewinds both; their replies, the status route's, differ in the memo's counters.
  void rewind(const protocol::HttpRequest& request) {
    if (plain_) {
      plain_->handle(request);
      memo_->handle(request);
    }
  }

 private:
  replay::ReplayOptions options(std::size_t memo_bytes) const {
    replay::ReplayOptions options;
    options.memo_bytes = memo_bytes;
    options.a2a_ignore_message_id = ignore_message_id_;
    return options;
  }

  const std::string path_;
  const bool ignore_message_id_;
  std::optional<replay::Replayer> plain_;
  std::optional<replay::Replayer> memo_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Twins magma(archives().magma, false);
  Twins a2a(archives().a2a, false);
  Twins a2a_ignoring(archives().a2a, true);

  std::string_view rest = fuzz::asText(data, size);
  std::string_view body;
  while (!rest.empty()) {
    const std::size_t end = rest.find(kSeparator);
    const std::string_view record = rest.substr(0, end);
    rest =
        end == std::string_view::npos ? std::string_view() : rest.substr(end + kSeparator.size());
    if (record.size() < 2) {
      continue;
    }
    if (record.size() > 2) {
      body = record.substr(2);
    }
    const protocol::HttpRequest request =
        requestFor(static_cast<unsigned char>(record[0]),
                   withIds(body, static_cast<unsigned char>(record[1])));
    if (request.target.starts_with(kRewindPath)) {
      magma.rewind(request);
      a2a.rewind(request);
      a2a_ignoring.rewind(request);
    } else if (request.target.starts_with("/v1/responses")) {
      magma.ask(request, "the memo answers as replay without it");
    } else {
      a2a.ask(request, "the memo answers A2A calls as replay without it");
      a2a_ignoring.ask(request,
                       "the memo answers as replay without it when messageIds are not keyed");
    }
  }
  return 0;
}
