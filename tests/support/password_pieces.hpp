#pragma once

// What a test looks for when it checks that a password never shows: the parts of it that would
// still give it away.

#include <cctype>
#include <string>
#include <vector>

namespace agentvcr::testing {

/// The runs of letters and digits of `password` that are long enough to recognise (3 or more):
/// no part of the password may survive in anything printed.
inline std::vector<std::string> passwordPieces(const std::string& password) {
  std::vector<std::string> pieces;
  std::string piece;
  for (const char c : password + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      piece += c;
      continue;
    }
    if (piece.size() >= 3) {
      pieces.push_back(piece);
    }
    piece.clear();
  }
  return pieces;
}

}  // namespace agentvcr::testing
