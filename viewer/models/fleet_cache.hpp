#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace agentvcr::viewer {

/// A local SQLite archive that holds what the viewer pulled from one fleet archive, so that
/// replay, diff and export work on it as on any archive. One file per fleet archive (named after
/// its URI without the password, which never reaches the disk), reused across openings: a
/// session pulled once is read from the file the next time.
class FleetCache {
 public:
  /// `cache_dir` is where the files live (the viewer passes its XDG cache folder).
  FleetCache(std::string cache_dir, std::string uri);

  const std::string& path() const { return path_; }

  /// The uuids of `wanted` the file does not hold yet.
  std::vector<std::string> missing(const std::vector<std::string>& wanted) const;

  /// Called after each session is pulled: done so far, of total.
  using Progress = std::function<void(std::size_t done, std::size_t total)>;

  /// Pulls the sessions of `wanted` the file lacks, one at a time (so `progress` can tell), and
  /// returns the local ids of every session of `wanted`, pulled now or before, in the order of
  /// `wanted`. Throws fleet::PgError when the fleet archive cannot be read, std::runtime_error
  /// when the file cannot be written; the sessions pulled before the failure stay.
  std::vector<std::int64_t> open(const std::vector<std::string>& wanted,
                                 const Progress& progress = {});

 private:
  std::string uri_;
  std::string path_;
};

}  // namespace agentvcr::viewer
