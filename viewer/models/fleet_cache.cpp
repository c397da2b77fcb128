#include "models/fleet_cache.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <QCryptographicHash>

#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/pull.hpp"
#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {
namespace {

/// Local session ids by uuid; empty when the file does not exist yet.
std::map<std::string, std::int64_t> localSessions(const std::string& path) {
  std::map<std::string, std::int64_t> ids;
  if (!std::filesystem::exists(path)) {
    return ids;
  }
  for (const auto& session : store::ArchiveReader(path).sessions()) {
    ids.emplace(session.uuid, session.id);
  }
  return ids;
}

}  // namespace

FleetCache::FleetCache(std::string cache_dir, std::string uri) : uri_(std::move(uri)) {
  // Named by a digest of the URI without its password: two users of one database share
  // nothing secret through the file name, and one database always maps to one file.
  const std::string redacted = fleet::redactedUri(uri_);
  const QByteArray digest =
      QCryptographicHash::hash(QByteArray::fromStdString(redacted), QCryptographicHash::Sha256)
          .toHex()
          .left(16);
  std::filesystem::create_directories(cache_dir);
  path_ =
      (std::filesystem::path(cache_dir) / ("fleet-" + digest.toStdString() + ".sqlite")).string();
}

std::vector<std::string> FleetCache::missing(const std::vector<std::string>& wanted) const {
  const auto held = localSessions(path_);
  std::vector<std::string> absent;
  std::copy_if(wanted.begin(), wanted.end(), std::back_inserter(absent),
               [&](const std::string& uuid) { return held.count(uuid) == 0; });
  return absent;
}

std::vector<std::int64_t> FleetCache::open(const std::vector<std::string>& wanted,
                                           const Progress& progress) {
  const std::vector<std::string> absent = missing(wanted);
  for (std::size_t done = 0; done < absent.size(); ++done) {
    fleet::PullOptions options;
    options.uri = uri_;
    options.db_path = path_;
    options.sessions = {absent[done]};
    fleet::pull(options);
    if (progress) {
      progress(done + 1, absent.size());
    }
  }
  const auto held = localSessions(path_);
  std::vector<std::int64_t> ids;
  for (const std::string& uuid : wanted) {
    if (const auto found = held.find(uuid); found != held.end()) {
      ids.push_back(found->second);
    }
  }
  return ids;
}

}  // namespace agentvcr::viewer
