#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agentvcr/store/rows.hpp"

namespace agentvcr::viewer {

/// A local SQLite archive that holds what the viewer pulled from one fleet archive, so that
/// replay, diff and export work on it as on any archive. One file per fleet archive (named after
/// its URI without the password, which never reaches the disk), reused across openings: a
/// session pulled once is read from the file the next time, unless the fleet archive holds more
/// of it than the file does (it was still being shipped when it was pulled).
class FleetCache {
 public:
  /// `cache_dir` is where the files live (the viewer passes its XDG cache folder).
  FleetCache(std::string cache_dir, std::string uri);

  const std::string& path() const { return path_; }

  /// The uuids of the sessions of `wanted` (as the fleet archive lists them) that the file does
  /// not hold, or holds as an older copy: fewer exchanges, or not ended where the fleet's has.
  std::vector<std::string> missing(const std::vector<store::SessionRow>& wanted) const;

  /// Called after each session is pulled: done so far, of total.
  using Progress = std::function<void(std::size_t done, std::size_t total)>;

  /// Pulls the sessions of `wanted` the file lacks, one at a time (so `progress` can tell), and
  /// returns the local ids of every session of `wanted`, pulled now or before, in the order of
  /// `wanted`. When the file holds an older copy of one, every session of `wanted` is pulled
  /// into a new generation of the file, which path() then names: windows open on the older one
  /// keep reading it. Throws fleet::PgError when the fleet archive cannot be read,
  /// std::runtime_error when the file cannot be written; the sessions pulled before the failure
  /// stay.
  std::vector<std::int64_t> open(const std::vector<store::SessionRow>& wanted,
                                 const Progress& progress = {});

 private:
  std::string uri_;
  std::string cache_dir_;
  std::string stem_;  ///< fleet-DIGEST, the files' name without the generation
  std::string path_;
};

}  // namespace agentvcr::viewer
