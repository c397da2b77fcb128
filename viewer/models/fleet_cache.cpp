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

/// Local sessions by uuid; empty when the file does not exist yet.
std::map<std::string, store::SessionRow> localSessions(const std::string& path) {
  std::map<std::string, store::SessionRow> held;
  if (!std::filesystem::exists(path)) {
    return held;
  }
  for (auto& session : store::ArchiveReader(path).sessions()) {
    held.emplace(session.uuid, std::move(session));
  }
  return held;
}

/// True when the fleet archive holds more of `fleet`'s session than the local copy `local`.
bool olderThan(const store::SessionRow& local, const store::SessionRow& fleet) {
  return local.exchange_count < fleet.exchange_count ||
         (!local.ended_ns.has_value() && fleet.ended_ns.has_value());
}

/// The generation of a cache file: 0 for STEM.sqlite, N for STEM.N.sqlite, -1 for another file.
int generationOf(const std::string& name, const std::string& stem) {
  if (name == stem + ".sqlite") {
    return 0;
  }
  const std::string prefix = stem + ".";
  if (!name.starts_with(prefix) || !name.ends_with(".sqlite")) {
    return -1;
  }
  const std::string number = name.substr(prefix.size(), name.size() - prefix.size() - 7);
  return !number.empty() && number.find_first_not_of("0123456789") == std::string::npos
             ? std::stoi(number)
             : -1;
}

/// The newest generation of the cache files named `stem` in `dir`, and its path.
std::pair<int, std::string> newestGeneration(const std::string& dir, const std::string& stem) {
  int newest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    newest = std::max(newest, generationOf(entry.path().filename().string(), stem));
  }
  const std::string name =
      newest == 0 ? stem + ".sqlite" : stem + "." + std::to_string(newest) + ".sqlite";
  return {newest, (std::filesystem::path(dir) / name).string()};
}

}  // namespace

FleetCache::FleetCache(std::string cache_dir, std::string uri)
    : uri_(std::move(uri)), cache_dir_(std::move(cache_dir)) {
  // Named by a digest of the URI without its password: two users of one database share
  // nothing secret through the file name, and one database always maps to one file.
  const std::string redacted = fleet::redactedUri(uri_);
  const QByteArray digest =
      QCryptographicHash::hash(QByteArray::fromStdString(redacted), QCryptographicHash::Sha256)
          .toHex()
          .left(16);
  std::filesystem::create_directories(cache_dir_);
  stem_ = "fleet-" + digest.toStdString();
  path_ = newestGeneration(cache_dir_, stem_).second;
}

std::vector<std::string> FleetCache::missing(const std::vector<store::SessionRow>& wanted) const {
  const auto held = localSessions(path_);
  std::vector<std::string> absent;
  for (const store::SessionRow& session : wanted) {
    const auto local = held.find(session.uuid);
    if (local == held.end() || olderThan(local->second, session)) {
      absent.push_back(session.uuid);
    }
  }
  return absent;
}

std::vector<std::int64_t> FleetCache::open(const std::vector<store::SessionRow>& wanted,
                                           const Progress& progress) {
  std::vector<std::string> absent = missing(wanted);
  const auto before = localSessions(path_);
  const bool refresh = std::any_of(absent.begin(), absent.end(),
                                   [&](const std::string& uuid) { return before.count(uuid) > 0; });
  if (refresh) {
    // A session's rows cannot be replaced in place: a new generation holds the fresh copies.
    const int next = newestGeneration(cache_dir_, stem_).first + 1;
    path_ = (std::filesystem::path(cache_dir_) / (stem_ + "." + std::to_string(next) + ".sqlite"))
                .string();
    absent.clear();
    for (const store::SessionRow& session : wanted) {
      absent.push_back(session.uuid);
    }
  }
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
  for (const store::SessionRow& session : wanted) {
    if (const auto found = held.find(session.uuid); found != held.end()) {
      ids.push_back(found->second.id);
    }
  }
  return ids;
}

}  // namespace agentvcr::viewer
