#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace agentvcr::sim::a2a {

/// The account plans of Magisterium. Only paid plans may use A2A.
enum class Plan { Free, Pro, Organization, Enterprise };

/// "free", "pro", "organization", "enterprise".
const char* planName(Plan plan);
std::optional<Plan> planFromName(std::string_view name);

inline bool isPaid(Plan plan) {
  return plan != Plan::Free;
}

/// The bearer tokens the mock accepts, each with the plan of its user. A token is its own
/// user: quotas are counted per token.
class TokenTable {
 public:
  void add(std::string token, Plan plan) { plans_[std::move(token)] = plan; }

  std::optional<Plan> find(std::string_view token) const;

  std::size_t size() const { return plans_.size(); }

 private:
  std::map<std::string, Plan, std::less<>> plans_;
};

/// The outcome of parseTokensFile(): a table, or what is wrong and on which line.
struct TokensFileLoad {
  std::optional<TokenTable> table;
  std::string error;
};

/// Reads a tokens file: one `TOKEN [PLAN]` per line, PLAN one of free, pro, organization,
/// enterprise (pro when left out); blank lines and lines starting with `#` are skipped. A token
/// given twice, an unknown plan or a third word is an error naming the line.
TokensFileLoad parseTokensFile(std::string_view text);

}  // namespace agentvcr::sim::a2a
