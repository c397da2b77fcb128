#pragma once

#include <filesystem>
#include <string>

namespace agentvcr::testing {

/// A fresh directory under the system temp folder, removed with everything in it when the
/// object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace agentvcr::testing
