#include "session_rows.hpp"

namespace agentvcr::fleet::detail {

store::SessionRow sessionOf(const PgResult& r, int i) {
  store::SessionRow s;
  s.uuid = std::string(r.text(i, 0));
  s.node = std::string(r.text(i, 1));
  s.recorder_version = r.optionalText(i, 2);
  s.derived_from = r.optionalText(i, 3);
  s.name = std::string(r.text(i, 4));
  s.mode = std::string(r.text(i, 5));
  s.upstream = std::string(r.text(i, 6));
  s.listen = std::string(r.text(i, 7));
  s.started_ns = r.integer(i, 8);
  s.ended_ns = r.optionalInteger(i, 9);
  s.agent_health = r.optionalText(i, 10);
  s.agent_info = r.optionalText(i, 11);
  s.agent_id = r.optionalText(i, 12);
  s.agent_version = r.optionalText(i, 13);
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
