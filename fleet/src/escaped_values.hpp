#pragma once

// Reading back what the shipper escaped (copy_text.hpp): a row's `escaped` column maps the
// columns PostgreSQL could not hold exactly to their bytes in hex.

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace agentvcr::fleet::detail {

class EscapedValues {
 public:
  /// From the `escaped` column's JSON text; nullopt (SQL NULL): nothing was escaped. Throws
  /// std::runtime_error "[fleet.pull] ..." for a value that is not what the shipper writes.
  explicit EscapedValues(const std::optional<std::string>& escaped);

  /// The exact value of `column`: its escaped bytes, or `stored` when it was stored as it is.
  std::string exact(std::string_view column, std::string_view stored) const;
  std::optional<std::string> exact(std::string_view column,
                                   const std::optional<std::string>& stored) const;

 private:
  std::map<std::string, std::string, std::less<>> bytes_;
};

}  // namespace agentvcr::fleet::detail
