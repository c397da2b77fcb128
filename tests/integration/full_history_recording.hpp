#pragma once

// A full-history agent's conversation recorded straight through the store, for the fleet tests
// that need body segments, keyframes and memories kept in bodies.

#include <string>

#include "agentvcr/store/recorder.hpp"
#include "store_test_support.hpp"

namespace agentvcr::testing {

/// Records, into a new archive at `db_path`, one conversation of `steps` steps whose memory keeps
/// every turn (tagged `tag`): a full-history agent's, in body segments of 16 exchanges.
inline void recordFullHistory(const std::string& db_path, const std::string& tag, int steps) {
  namespace st = store::testing;
  store::Recorder recorder(db_path, st::testSession(), st::testOptions());
  for (int k = 0; k < steps; ++k) {
    const std::string id = "r" + std::to_string(k);
    st::submit(
        recorder,
        st::magmaExchange(
            st::request(id, {st::input(1, k == 0 ? "user" : "env", "turn " + std::to_string(k),
                                       st::memoryOf(tag, 2 * k))}),
            protocol::Json::array({st::sayOutput(id, 1, 0, st::memoryOf(tag, 2 * k + 1),
                                                 "said " + std::to_string(k))})));
  }
}

}  // namespace agentvcr::testing
