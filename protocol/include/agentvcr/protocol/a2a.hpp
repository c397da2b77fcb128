#pragma once

// A2A JSON-RPC (a2a-protocol.md): recognising it on the wire, the fields the archive keeps per
// call, the replay key, and re-stamping a recorded answer with a live request's id. Pure
// functions over bodies already read; no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/protocol/json_text.hpp"

namespace agentvcr::protocol::a2a {

/// The two wire dialects (§5): v0.3 (`message/send`, `kind` fields, lower-case enums, which
/// Magisterium speaks) and v1.0 (`SendMessage`, `A2A-Version: 1.0`, `TASK_STATE_*` enums).
enum class WireVersion { V03, V10 };

/// "0.3" or "1.0".
const char* wireVersionName(WireVersion version);

/// GET paths of an agent card: `/.well-known/agent.json` (v0.2) and
/// `/.well-known/agent-card.json` (v0.3), query ignored.
bool isAgentCardPath(std::string_view target);

/// True for a JSON-RPC 2.0 request or response body: an object whose `jsonrpc` is "2.0", or a
/// non-empty array of such objects (a batch).
bool isJsonRpc(const Json& body);

/// True for the method names of the v1.0 binding (`SendMessage`, `GetTask`...).
bool isV10Method(std::string_view method);

/// v1.0's name for a v0.3 method (`message/send` gives `SendMessage`); empty when `v03_method`
/// is not a v0.3 method.
std::string_view v10MethodName(std::string_view v03_method);

/// Every method name of both bindings: the v0.3 names, then the v1.0 names. What a client sends
/// outside it is its own invention (metrics count it as "other").
const std::vector<std::string_view>& knownMethodNames();

/// Whether an `A2A-Version` value asks for v1.0: any `1.x`. Empty (no header) means 0.3.
bool asksForV10(std::string_view a2a_version_header);

/// The `@type` of a v1.0 error's ErrorInfo detail, and its `domain` for A2A's own errors.
inline constexpr std::string_view kErrorInfoType = "type.googleapis.com/google.rpc.ErrorInfo";
inline constexpr std::string_view kErrorDomain = "a2a-protocol.org";

/// The ErrorInfo `reason` v1.0 names a JSON-RPC error `code` by: its error type in upper snake
/// case without "Error" (`-32001` TASK_NOT_FOUND, `-32602` INVALID_PARAMS); empty for a code
/// v1.0 does not define.
std::string_view errorReason(int code);

/// A call of v1.0's HTTP+JSON binding, named by its method and path: the JSON-RPC method it
/// stands for (`SendMessage`, `GetTask`, …) and what the path carries.
struct RestRoute {
  std::string_view method;
  bool streams = false;   ///< the answer is an event stream (message:stream, :subscribe)
  std::string task_id;    ///< `/tasks/{id}…`, percent-decoded
  std::string config_id;  ///< `…/pushNotificationConfigs/{configId}`
  std::string tenant;     ///< the optional first segment, `/{tenant}/message:send`
};

/// The route of `http_method` and `path` (relative to the HTTP+JSON interface's URL, without
/// the query): `POST /message:send`, `/message:stream`, `GET /tasks/{id}`,
/// `POST /tasks/{id}:cancel`, `GET /tasks`, `POST` or `GET /tasks/{id}:subscribe`, the
/// push-notification config routes and `GET /extendedAgentCard`, each with an optional
/// `/{tenant}` first. None for any other.
std::optional<RestRoute> restRouteOf(std::string_view http_method, std::string_view path);

/// The route of a recorded request whose interface URL is unknown: the route that the tail of
/// `path` names (`/api/v1/rest/tasks/t1:cancel` is CancelTask). A route as generic as
/// `GET /tasks` or `GET /tasks/{id}` counts only when `a2a_hint` says the exchange is A2A (an
/// A2A-Version header, an application/a2a+json body).
std::optional<RestRoute> restRouteIn(std::string_view http_method, std::string_view path,
                                     bool a2a_hint);

/// restRouteIn() of a request, A2A's signs read from its headers (and the response's
/// Content-Type, when there is one): an `A2A-Version` header, an application/a2a+json body.
std::optional<RestRoute> restRouteOfRequest(std::string_view http_method, std::string_view target,
                                            const Headers& request_headers,
                                            std::string_view response_content_type = {});

/// The JSON-RPC error code v1.0 gives the ErrorInfo `reason` (errorReason's inverse).
std::optional<int> errorCodeOfReason(std::string_view reason);

/// `text` with its %XX escapes decoded; '+' read as a space when `plus_is_space` (a query's
/// form encoding), kept in a path.
std::string percentDecoded(std::string_view text, bool plus_is_space = false);

/// How an error travels in the HTTP+JSON binding: the HTTP status and the google.rpc status
/// name of a JSON-RPC error code (the specification's section 5.4 table).
struct RestStatus {
  int http_status = 500;
  std::string_view name;  ///< NOT_FOUND, FAILED_PRECONDITION, INVALID_ARGUMENT, INTERNAL
};

RestStatus restStatusOf(int jsonrpc_code);

/// A task state in one vocabulary for both dialects: the v0.3 names (`submitted`, `working`,
/// `input-required`, `auth-required`, `completed`, `failed`, `canceled`, `rejected`,
/// `unknown`). v1.0's `TASK_STATE_INPUT_REQUIRED` gives `input-required`; `TASK_STATE_UNSPECIFIED`,
/// the British `cancelled` and any other text give `unknown`.
std::string_view normalTaskState(std::string_view wire_state);

/// What the archive keeps of one JSON-RPC call and its answer. Ids and texts are as sent; JSON
/// values (`rpc_id`, `artifacts`, `history`, `error_data`) are compact JSON text.
struct Call {
  std::size_t position = 0;  ///< index in a batch; 0 for a single call
  WireVersion wire_version = WireVersion::V03;
  std::optional<std::string> method;
  std::optional<std::string> rpc_id;  ///< JSON text of the request id (`1`, `"a"`, `null`)
  std::optional<std::string> task_id;
  std::optional<std::string> context_id;
  std::optional<std::string> skill_id;
  std::optional<std::string> message_id;
  std::optional<std::string> task_state;   ///< as on the wire: `completed`, `TASK_STATE_FAILED`
  std::optional<std::string> result_kind;  ///< task, message, status-update, artifact-update
  std::optional<std::string> artifacts;
  std::optional<std::string> history;
  std::optional<std::string> request_text;   ///< the text parts the caller sent
  std::optional<std::string> response_text;  ///< the text parts of the answer
  std::optional<std::int64_t> error_code;
  std::optional<std::string> error_message;
  std::optional<std::string> error_data;
  std::optional<double> retry_after;  ///< `error.data.retryAfter`, seconds
  std::uint64_t replay_key = 0;
};

/// The pieces of an exchange that A2A decoding reads.
struct CallExchange {
  std::string_view http_method;
  std::string_view target;
  std::string_view a2a_version_header;  ///< empty when absent
  std::string_view request_body;
  std::string_view response_body;
  /// The `data` of each event when the response was an event stream; empty otherwise.
  std::vector<std::string_view> stream_data;
  int http_status = 0;  ///< read by the HTTP+JSON binding, whose errors travel in it
};

/// The calls of an exchange: one per request object (a batch gives several), answered from
/// the response (matched by id, else by position) or from the stream's events (later events
/// update the state; artifact updates are merged by artifactId). A request that is not
/// JSON-RPC but whose response is (a parse error answered by the agent) gives one call with
/// only the answer's fields. Never throws; what cannot be read stays empty.
std::vector<Call> decodeCalls(const CallExchange& exchange);

/// The query of an HTTP+JSON request as params: decoded, `pageSize` and `historyLength` as
/// integers and `includeArtifacts` as a boolean where the text is one.
Json restQueryParams(std::string_view target);

/// The JSON-RPC v1.0 call object (`{"method", "params"}`, no id) an HTTP+JSON request on
/// `route` stands for: params from the path's ids, the query (`target`'s) and `body`'s members.
/// Both the recorder's decoding and replay's keys read a REST call through it.
Json restCallObject(const RestRoute& route, std::string_view target, const Json& body);

/// The one call of an HTTP+JSON exchange on `route`, read as the JSON-RPC v1.0 call it stands
/// for: params from the path, the query and the body; a 2xx body (or each event) as its
/// result; an error's google.rpc.Status as its error, the code from the ErrorInfo reason.
Call decodeRestCall(const CallExchange& exchange, const RestRoute& route);

/// What the replay key leaves out besides the JSON-RPC `id`.
struct KeyOptions {
  /// Also ignore `params.message.messageId`: clients that mint a fresh one per call.
  bool ignore_message_id = false;
};

/// The replay key of one request object: the stable hash of the HTTP method, path (query
/// ignored), JSON-RPC method and canonical params, without the JSON-RPC id (clients restart
/// ids at 1) and, optionally, the message id.
std::uint64_t callKey(std::string_view http_method, std::string_view target,
                      const Json& request_object, const KeyOptions& options = {});

/// One `id` of a recorded JSON-RPC answer that re-stamping replaces: where its value lies in
/// the answer's text, and which live call's id takes its place.
struct RecordedId {
  std::size_t begin = 0;  ///< the value's bytes [begin, end) in the answer's text
  std::size_t end = 0;
  /// The position in the live batch of the call whose id replaces it; none: the live request's
  /// own id.
  std::optional<std::size_t> position;
};

/// The ids re-stamping replaces in `response` (a JSON-RPC response object or a batch of them),
/// in text order: the object's `id`; in a batch, the `id` of each answer whose id a call of the
/// `recorded_request` batch had, the first such call giving the position (a batch's answers
/// come in any order). Nullopt when `response` is not JSON.
std::optional<std::vector<RecordedId>> recordedIdsOf(std::string_view response,
                                                     const Json& recorded_request);

/// The text that replaces a recorded id (`recorded_text`) for `live_request`: the id of the
/// live call at `position` (or of the live request itself), compact, in its JSON type; the
/// recorded id when the live request has no call there.
std::string liveIdText(std::optional<std::size_t> position, std::string_view recorded_text,
                       const Json& live_request);

/// `response` (a JSON-RPC response object or a batch of them) with each id recordedIdsOf()
/// finds replaced by its liveIdText(). Every other byte is the agent's (whitespace, member
/// order, number spellings, escapes). Returns nullopt when `response` is not JSON.
std::optional<std::string> restampIds(std::string_view response, const Json& recorded_request,
                                      const Json& live_request);

/// One event's data with its `id` replaced by `live_id` (the whole JSON-RPC `id`), every other
/// byte kept; the data unchanged when it is not a JSON object.
std::string restampEventData(std::string_view data, const Json& live_id);

/// The answer to a `tasks/get` for `live_id` made of a task a recorded answer returned: its
/// `result` (in a batch, the `result` of the answer at `position`), with `history` cut to its
/// last `history_length` messages when given. The task's bytes are the agent's but for the
/// messages cut. Nullopt when no task object lies there.
std::optional<std::string> recordedTaskAnswer(std::string_view recorded_answer,
                                              std::size_t position, const Json& live_id,
                                              std::optional<std::size_t> history_length);

/// Where the answer to a request carries agent cards: the one definition of "this exchange
/// carries a card" that the recorder and replay share, so that every card one points at
/// agentvcr, the other does too.
struct CardCarrier {
  enum class Kind {
    None,
    /// The whole body: a GET (or HEAD) of a card path, of v1.0's `…/extendedAgentCard` or of
    /// v0.3's `/v1/card`.
    Body,
    /// The `result` of the JSON-RPC answer to `GetExtendedAgentCard` or
    /// `agent/getAuthenticatedExtendedCard`, alone or in a batch.
    JsonRpcResult,
  };
  Kind kind = Kind::None;
  /// A batch: the ids of its extended-card calls, whose answers (matched by id, as a batch's
  /// answers come in any order) carry the cards. Empty for a single call.
  std::vector<Json> batch_card_ids{};

  explicit operator bool() const { return kind != Kind::None; }
};

CardCarrier cardCarrierOf(std::string_view http_method, std::string_view target,
                          std::string_view body);

/// Where a card's interface URLs move. URLs under `from` ("http://agent:9000/base": same
/// scheme, host and port, path below) get `to` in place of `from`; the others stay. An empty
/// `from` takes every absolute URL, and `to` replaces its scheme and authority only.
struct CardRebase {
  std::string_view from;
  std::string_view to;
};

struct RebasedUrl {
  std::string from;
  std::string to;
};

enum class CardRewriteResult {
  Unchanged,  ///< not a card, or no interface URL to move
  Signed,     ///< a signed card (`signatures`): left as it is, or its signature would break
  Rewritten,
};

struct CardRewrite {
  CardRewriteResult result = CardRewriteResult::Unchanged;
  /// Rewritten: the whole answer, the agent's bytes with each moved URL's string written anew
  /// (whitespace, member order, number spellings and escapes stay the agent's).
  std::string body;
  std::vector<RebasedUrl> urls;  ///< in the order they come in the answer

  /// What the archive keeps of it: `{"urls":[{"from":…,"to":…}]}` or `{"left":"signed"}`.
  std::string note() const;
};

/// The entity tag of a rewritten card's bytes (their XXH3, quoted), for an answer whose agent
/// tagged its own bytes: the client gets a tag of what it got.
std::string rewrittenCardTag(std::string_view body);

/// `answer` with the cards it carries (`carrier`) pointed elsewhere: the URLs of their JSON-RPC
/// and HTTP+JSON interfaces (`url`, `additionalInterfaces[]`, `supportedInterfaces[]`) moved as
/// `rebase` says. gRPC interfaces and every other URL (provider, icon, documentation, OAuth)
/// are never touched, and a signed card is left as signed.
CardRewrite rebaseCard(std::string_view answer, const CardCarrier& carrier,
                       const CardRebase& rebase);

}  // namespace agentvcr::protocol::a2a
