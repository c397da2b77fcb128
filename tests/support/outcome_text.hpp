#pragma once

// A replay answer as text, for tests that compare answers and show the difference.

#include <string>

#include "agentvcr/replay/replayer.hpp"

namespace agentvcr::testing {

/// All a caller gets of `outcome`'s reply (status, content type, headers, body, each stream
/// piece with its delay) and all replay reports about it (hits, forwarding, misses): two
/// outcomes with the same text are the same answer.
inline std::string outcomeText(const replay::ReplayOutcome& outcome) {
  const protocol::HttpReply& reply = outcome.reply;
  std::string text = std::to_string(reply.status) + " " + reply.content_type + "\n";
  for (const auto& [name, value] : reply.headers) {
    text += name + ": " + value + "\n";
  }
  text += "\n" + reply.body;
  for (const protocol::StreamPiece& piece : reply.stream) {
    text += "\n[piece after " + std::to_string(piece.delay.count()) + " ns]\n" + piece.bytes;
  }
  text +=
      "\n[" + std::to_string(outcome.hits) + " hits" + (outcome.forwarded ? ", forwarded]" : "]");
  for (const replay::MissReport& miss : outcome.misses) {
    text += "\n[miss " + miss.route + " " + miss.request_id + " #" + std::to_string(miss.position) +
            " key " + std::to_string(miss.replay_key) + " closest step " +
            std::to_string(miss.closest_step_id.value_or(-1)) + ": " + miss.reason + "]";
  }
  return text;
}

}  // namespace agentvcr::testing
