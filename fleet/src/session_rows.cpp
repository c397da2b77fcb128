#include "session_rows.hpp"

#include "escaped_values.hpp"

namespace agentvcr::fleet::detail {

store::SessionRow sessionOf(const PgResult& r, int i) {
  const EscapedValues escaped(r.optionalText(i, 22));
  store::SessionRow s;
  s.uuid = std::string(r.text(i, 0));
  s.node = escaped.exact("node", r.text(i, 1));
  s.recorder_version = escaped.exact("recorder_version", r.optionalText(i, 2));
  s.derived_from = escaped.exact("derived_from", r.optionalText(i, 3));
  s.name = escaped.exact("name", r.text(i, 4));
  s.mode = escaped.exact("mode", r.text(i, 5));
  s.upstream = escaped.exact("upstream", r.text(i, 6));
  s.listen = escaped.exact("listen", r.text(i, 7));
  s.started_ns = r.integer(i, 8);
  s.ended_ns = r.optionalInteger(i, 9);
  // A recorder's liveness is a lock on the machine that records (store/src/session_lock.hpp):
  // the shipper there says when the recorder died before the end. Otherwise a session without an
  // end may still be recording, or its shipper stopped before it could tell.
  if (s.ended_ns) {
    s.state = store::SessionState::Ended;
  } else {
    s.state =
        r.text(i, 23) == "t" ? store::SessionState::Interrupted : store::SessionState::Unknown;
  }
  s.agent_health = escaped.exact("agent_health", r.optionalText(i, 10));
  s.agent_info = escaped.exact("agent_info", r.optionalText(i, 11));
  s.agent_id = escaped.exact("agent_id", r.optionalText(i, 12));
  s.agent_version = escaped.exact("agent_version", r.optionalText(i, 13));
  s.exchange_count = r.integer(i, 14);
  s.step_count = r.integer(i, 15);
  s.candidate_count = r.integer(i, 16);
  s.internal_step_count = r.integer(i, 17);
  s.conversation_count = r.integer(i, 18);
  s.error_candidate_count = r.integer(i, 19);
  s.failed_exchange_count = r.integer(i, 20);
  s.invalid_exchange_count = r.integer(i, 21);
  return s;
}

}  // namespace agentvcr::fleet::detail
