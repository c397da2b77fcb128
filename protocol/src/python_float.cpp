#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "agentvcr/protocol/python_json.hpp"
#include "python_dump.hpp"

namespace agentvcr::protocol {
namespace detail {

void appendPythonFloat(std::string& out, double value, bool allow_nan) {
  if (!std::isfinite(value)) {
    if (!allow_nan) {
      out += "null";
    } else if (std::isnan(value)) {
      out += "NaN";
    } else {
      out += value > 0 ? "Infinity" : "-Infinity";
    }
    return;
  }
  std::array<char, 64> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                              std::chars_format::scientific);
  // Shortest round-trip scientific form: "[-]d[.ddd]e(+|-)XX".
  std::string_view text(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
  bool negative = text.front() == '-';
  if (negative) {
    text.remove_prefix(1);
  }
  std::size_t e_pos = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e_pos)) {
    if (c != '.') {
      digits += c;
    }
  }
  int exponent = std::atoi(std::string(text.substr(e_pos + 1)).c_str());
  // As in CPython's format_float_short: the value is 0.<digits> * 10^decimal_point.
  int decimal_point = exponent + 1;
  int count = static_cast<int>(digits.size());

  if (negative) {
    out += '-';
  }
  if (decimal_point > -4 && decimal_point <= 16) {
    if (decimal_point <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decimal_point), '0');
      out += digits;
    } else if (decimal_point >= count) {
      out += digits;
      out.append(static_cast<std::size_t>(decimal_point - count), '0');
      out += ".0";
    } else {
      out.append(digits, 0, static_cast<std::size_t>(decimal_point));
      out += '.';
      out.append(digits, static_cast<std::size_t>(decimal_point));
    }
    return;
  }
  out += digits.front();
  if (count > 1) {
    out += '.';
    out.append(digits, 1);
  }
  int shown = decimal_point - 1;
  out += shown < 0 ? "e-" : "e+";
  int magnitude = std::abs(shown);
  if (magnitude < 10) {
    out += '0';
  }
  out += std::to_string(magnitude);
}

}  // namespace detail

std::string pythonFloatRepr(double value) {
  std::string out;
  detail::appendPythonFloat(out, value, /*allow_nan=*/true);
  return out;
}

}  // namespace agentvcr::protocol
