#include "agentvcr/fleet/pull.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include "agentvcr/fleet/fleet_schema.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/protocol/canonical.hpp"
#include "agentvcr/store/identity.hpp"
#include "escaped_values.hpp"
#include "session_rows.hpp"

namespace agentvcr::fleet {
namespace {

constexpr int kPage = 256;

/// The bytes of a bytea value in PostgreSQL's hex output (\x0a1b...).
std::string bytesOf(std::string_view hex) {
  std::optional<std::string> bytes =
      hex.starts_with("\\x") ? protocol::hexDecode(hex.substr(2)) : std::nullopt;
  if (!bytes) {
    throw std::runtime_error("[fleet.pull] bytea is not in hex output");
  }
  return std::move(*bytes);
}

/// The fleet archive's sessions, for store::copySessions().
class FleetSource : public store::SessionSource {
 public:
  FleetSource(PgConnection& conn, const PullOptions& options) : conn_(conn), options_(options) {}

  std::vector<store::SessionRow> sessions() override {
    std::string sql =
        std::string("SELECT ") + detail::kSessionColumns + " FROM sessions WHERE true";
    std::vector<std::optional<std::string>> params;
    auto placeholder = [&](std::string value) {
      params.emplace_back(std::move(value));
      return "$" + std::to_string(params.size());
    };
    if (!options_.sessions.empty()) {
      sql += " AND (false";
      for (const std::string& session : options_.sessions) {
        const std::optional<std::string> prefix = store::uuidPrefix(session);
        if (!prefix) {
          throw std::runtime_error("[fleet.pull] --session '" + session +
                                   "' names no session: give its uuid, or its first 8 "
                                   "hexadecimal digits or more");
        }
        const auto [lowest, highest] = store::uuidBounds(*prefix);
        sql += " OR uuid BETWEEN " + placeholder(lowest) + "::uuid AND " + placeholder(highest) +
               "::uuid";
      }
      sql += ")";
    }
    if (!options_.nodes.empty()) {
      sql += " AND (false";
      for (const std::string& node : options_.nodes) {
        sql += " OR node = " + placeholder(node);
      }
      sql += ")";
    }
    if (options_.since) {
      // Compared as numeric: a time past 2262 does not fit nanoseconds in a bigint.
      sql += " AND started_ns >= extract(epoch FROM " + placeholder(*options_.since) +
             "::timestamptz) * 1e9";
    }
    sql += " ORDER BY started_ns, uuid";
    PgResult r = conn_.exec(sql, params);
    std::vector<store::SessionRow> out;
    for (int i = 0; i < r.rows(); ++i) {
      out.push_back(detail::sessionOf(r, i));
    }
    return out;
  }

  void exchanges(const store::SessionRow& session,
                 const std::function<void(const store::ExchangeRow&,
                                          const std::vector<std::int64_t>&)>& each) override {
    for (std::int64_t next = 0;;) {
      PgResult r = conn_.exec(R"sql(
        SELECT seq, client_address, method, target, http_version, status, request_headers,
               request_body, request_body_codec, request_body_dictionary, response_headers,
               response_body, response_body_codec, response_body_dictionary,
               response_from_upstream, started_ns, request_ended_ns, upstream_sent_ns,
               upstream_first_byte_ns, ended_ns, outcome, error, fault, escaped::text,
               card_rewrite, upstream_last_byte_ns
        FROM exchanges WHERE session_uuid = $1 AND seq >= $2 ORDER BY seq LIMIT $3)sql",
                              {session.uuid, std::to_string(next), std::to_string(kPage)});
      if (r.rows() == 0) {
        return;
      }
      const auto times = eventTimes(session.uuid, r.integer(0, 0), r.integer(r.rows() - 1, 0));
      for (int i = 0; i < r.rows(); ++i) {
        const detail::EscapedValues escaped(r.optionalText(i, 23));
        store::ExchangeRow row;
        row.seq = r.integer(i, 0);
        row.client_address = escaped.exact("client_address", r.text(i, 1));
        row.method = escaped.exact("method", r.text(i, 2));
        row.target = escaped.exact("target", r.text(i, 3));
        row.http_version = static_cast<unsigned>(r.integer(i, 4));
        row.status = static_cast<int>(r.integer(i, 5));
        row.request_headers = store::storedHeaders(escaped.exact("request_headers", r.text(i, 6)));
        row.request_body = body(r, i, 7);
        row.response_headers =
            store::storedHeaders(escaped.exact("response_headers", r.text(i, 10)));
        row.response_body = body(r, i, 11);
        row.response_from_upstream = r.text(i, 14) == "t";
        row.started_ns = r.integer(i, 15);
        row.request_ended_ns = r.optionalInteger(i, 16);
        row.upstream_sent_ns = r.optionalInteger(i, 17);
        row.upstream_first_byte_ns = r.optionalInteger(i, 18);
        row.ended_ns = r.optionalInteger(i, 19);
        row.outcome = escaped.exact("outcome", r.text(i, 20));
        row.error = escaped.exact("error", r.optionalText(i, 21));
        row.fault = escaped.exact("fault", r.optionalText(i, 22));
        row.card_rewrite = escaped.exact("card_rewrite", r.optionalText(i, 24));
        row.upstream_last_byte_ns = r.optionalInteger(i, 25);
        const auto found = times.find(row.seq);
        each(row, found == times.end() ? std::vector<std::int64_t>{} : found->second);
        next = row.seq + 1;
      }
    }
  }

  std::vector<store::CopiedLink> links(const store::SessionRow& session) override {
    PgResult r = conn_.exec(R"sql(
      SELECT seq, position, recorded_session_uuid::text, recorded_seq, recorded_position, kind
      FROM step_links WHERE session_uuid = $1 ORDER BY kind DESC, seq, position)sql",
                            {session.uuid});
    std::vector<store::CopiedLink> links;
    for (int i = 0; i < r.rows(); ++i) {
      links.push_back({{session.uuid, r.integer(i, 0), r.integer(i, 1)},
                       {std::string(r.text(i, 2)), r.integer(i, 3), r.integer(i, 4)},
                       r.text(i, 5) == "call" ? store::LinkKind::Call : store::LinkKind::Step});
    }
    return links;
  }

  std::vector<store::CopiedMiss> replayMisses(const store::SessionRow& session) override {
    PgResult r = conn_.exec(R"sql(
      SELECT at_ns, route, request_id, position, source_id, replay_key, input,
             closest_session_uuid::text, closest_seq, closest_position, differences, policy,
             escaped::text
      FROM replay_misses WHERE session_uuid = $1 ORDER BY number)sql",
                            {session.uuid});
    std::vector<store::CopiedMiss> misses;
    for (int i = 0; i < r.rows(); ++i) {
      const detail::EscapedValues escaped(r.optionalText(i, 12));
      store::CopiedMiss m;
      m.miss.at_ns = r.integer(i, 0);
      m.miss.route = escaped.exact("route", r.text(i, 1));
      m.miss.request_id = escaped.exact("request_id", r.text(i, 2));
      m.miss.position = r.integer(i, 3);
      m.miss.source_id = r.optionalInteger(i, 4);
      m.miss.replay_key = static_cast<std::uint64_t>(r.integer(i, 5));
      m.miss.input = escaped.exact("input", r.text(i, 6));
      if (!r.isNull(i, 7)) {
        m.closest = store::StepKey{std::string(r.text(i, 7)), r.integer(i, 8), r.integer(i, 9)};
      }
      m.miss.differences = escaped.exact("differences", r.text(i, 10));
      m.miss.policy = escaped.exact("policy", r.text(i, 11));
      misses.push_back(std::move(m));
    }
    return misses;
  }

 private:
  /// Stream event arrival times of the exchanges `first`..`last` of a session, by seq.
  std::map<std::int64_t, std::vector<std::int64_t>> eventTimes(const std::string& uuid,
                                                               std::int64_t first,
                                                               std::int64_t last) {
    PgResult r = conn_.exec(
        "SELECT seq, at_ns FROM stream_events WHERE session_uuid = $1 AND seq BETWEEN $2 AND $3 "
        "ORDER BY seq, position",
        {uuid, std::to_string(first), std::to_string(last)});
    std::map<std::int64_t, std::vector<std::int64_t>> times;
    for (int i = 0; i < r.rows(); ++i) {
      times[r.integer(i, 0)].push_back(r.integer(i, 1));
    }
    return times;
  }

  /// The body in columns `at` (bytes), `at + 1` (codec) and `at + 2` (dictionary hash).
  std::string body(const PgResult& r, int row, int at) {
    const std::string stored = bytesOf(r.text(row, at));
    const std::optional<std::string> codec = r.optionalText(row, at + 1);
    if (r.isNull(row, at + 2)) {
      return store::unpackStoredBody(stored, codec);
    }
    return store::unpackStoredBody(stored, codec, dictionary(r.integer(row, at + 2)));
  }

  /// A dictionary's content as relayed, read about once per pull: the bodies of a segment's
  /// run share their keyframe, and follow one another. At most kKeptDictionaryBytes are kept, a
  /// long pull forgetting them all when it reaches that.
  const std::string& dictionary(std::int64_t hash, int depth = 0) {
    auto known = dictionaries_.find(hash);
    if (known != dictionaries_.end()) {
      return known->second;
    }
    if (kept_dictionary_bytes_ >= kKeptDictionaryBytes) {
      dictionaries_.clear();
      kept_dictionary_bytes_ = 0;
    }
    PgResult r =
        conn_.exec("SELECT content, codec, dictionary FROM body_dictionaries WHERE hash = $1",
                   {std::to_string(hash)});
    if (r.rows() == 0) {
      throw std::runtime_error("[fleet.pull] body dictionary " + std::to_string(hash) +
                               " is missing from " + conn_.redactedUri());
    }
    // A keyframe is compressed against the one before it: a chain of at most 15, which a
    // damaged archive must not turn into a loop.
    if (!r.isNull(0, 2) && depth >= kLongestDictionaryChain) {
      throw std::runtime_error("[fleet.pull] body dictionary " + std::to_string(hash) + " of " +
                               conn_.redactedUri() + " depends on a chain of more than " +
                               std::to_string(kLongestDictionaryChain) + " dictionaries");
    }
    std::string unpacked =
        r.isNull(0, 2) ? store::unpackStoredBody(bytesOf(r.text(0, 0)), r.optionalText(0, 1))
                       : store::unpackStoredBody(bytesOf(r.text(0, 0)), r.optionalText(0, 1),
                                                 dictionary(r.integer(0, 2), depth + 1));
    std::string& content = dictionaries_[hash] = std::move(unpacked);
    kept_dictionary_bytes_ += content.size();
    return content;
  }

  static constexpr std::size_t kKeptDictionaryBytes = 64u << 20;
  static constexpr int kLongestDictionaryChain = 16;

  PgConnection& conn_;
  const PullOptions& options_;
  std::map<std::int64_t, std::string> dictionaries_;
  std::size_t kept_dictionary_bytes_ = 0;
};

}  // namespace

store::CopyResult pull(const PullOptions& options) {
  PgConnection conn(options.uri);
  requireFleetSchema(conn);
  // One snapshot for the whole pull: a session being shipped meanwhile is copied as it stood.
  return conn.transaction(
      [&] {
        FleetSource source(conn, options);
        store::MergeOptions merge;
        merge.as_new = options.as_new;
        return store::copySessions(source, options.db_path, merge);
      },
      PgConnection::Finish::Commit, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
}

}  // namespace agentvcr::fleet
