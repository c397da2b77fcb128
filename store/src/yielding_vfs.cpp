#include "yielding_vfs.hpp"

#include <atomic>
#include <stdexcept>

#include <sqlite3.h>

#include "agentvcr/store/background_thread.hpp"

namespace agentvcr::store::detail {
namespace {

constexpr const char* kVfsName = "agentvcr-yielding";

/// SQLite's default VFS when this one was registered: every call but xOpen goes to it.
sqlite3_vfs* default_vfs = nullptr;

std::atomic<std::uint64_t> yields{0};

thread_local bool writes_keep_the_core = false;

/// A file of this VFS: SQLite's own file object, with the default VFS's file right after it
/// (szOsFile covers both).
struct YieldingFile {
  sqlite3_file base;
  sqlite3_file* inner;
};

sqlite3_file* innerOf(sqlite3_file* file) {
  return reinterpret_cast<YieldingFile*>(file)->inner;
}

int yieldingClose(sqlite3_file* file) {
  return innerOf(file)->pMethods->xClose(innerOf(file));
}

int yieldingRead(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
  return innerOf(file)->pMethods->xRead(innerOf(file), data, amount, offset);
}

int yieldingWrite(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  const int rc = innerOf(file)->pMethods->xWrite(innerOf(file), data, amount, offset);
  // Per thread: each of the recorder's threads writes through its own connection's calls.
  thread_local std::uint64_t writes = 0;
  if (++writes % kWritesBetweenYields == 0 && !writes_keep_the_core) {
    yieldToWaitingThreads();
    yields.fetch_add(1, std::memory_order_relaxed);
  }
  return rc;
}

int yieldingTruncate(sqlite3_file* file, sqlite3_int64 size) {
  return innerOf(file)->pMethods->xTruncate(innerOf(file), size);
}

int yieldingSync(sqlite3_file* file, int flags) {
  return innerOf(file)->pMethods->xSync(innerOf(file), flags);
}

int yieldingFileSize(sqlite3_file* file, sqlite3_int64* size) {
  return innerOf(file)->pMethods->xFileSize(innerOf(file), size);
}

int yieldingLock(sqlite3_file* file, int level) {
  return innerOf(file)->pMethods->xLock(innerOf(file), level);
}

int yieldingUnlock(sqlite3_file* file, int level) {
  return innerOf(file)->pMethods->xUnlock(innerOf(file), level);
}

int yieldingCheckReservedLock(sqlite3_file* file, int* reserved) {
  return innerOf(file)->pMethods->xCheckReservedLock(innerOf(file), reserved);
}

int yieldingFileControl(sqlite3_file* file, int op, void* arg) {
  return innerOf(file)->pMethods->xFileControl(innerOf(file), op, arg);
}

int yieldingSectorSize(sqlite3_file* file) {
  return innerOf(file)->pMethods->xSectorSize(innerOf(file));
}

int yieldingDeviceCharacteristics(sqlite3_file* file) {
  return innerOf(file)->pMethods->xDeviceCharacteristics(innerOf(file));
}

int yieldingShmMap(sqlite3_file* file, int page, int page_size, int extend,
                   volatile void** mapped) {
  return innerOf(file)->pMethods->xShmMap(innerOf(file), page, page_size, extend, mapped);
}

int yieldingShmLock(sqlite3_file* file, int offset, int n, int flags) {
  return innerOf(file)->pMethods->xShmLock(innerOf(file), offset, n, flags);
}

void yieldingShmBarrier(sqlite3_file* file) {
  innerOf(file)->pMethods->xShmBarrier(innerOf(file));
}

int yieldingShmUnmap(sqlite3_file* file, int delete_flag) {
  return innerOf(file)->pMethods->xShmUnmap(innerOf(file), delete_flag);
}

int yieldingFetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** pages) {
  return innerOf(file)->pMethods->xFetch(innerOf(file), offset, amount, pages);
}

int yieldingUnfetch(sqlite3_file* file, sqlite3_int64 offset, void* pages) {
  return innerOf(file)->pMethods->xUnfetch(innerOf(file), offset, pages);
}

// Version 3, as the default (unix) VFS's files are: the WAL needs the shared-memory methods,
// and memory-mapped reads the fetch ones.
const sqlite3_io_methods kMethods = {
    3,
    yieldingClose,
    yieldingRead,
    yieldingWrite,
    yieldingTruncate,
    yieldingSync,
    yieldingFileSize,
    yieldingLock,
    yieldingUnlock,
    yieldingCheckReservedLock,
    yieldingFileControl,
    yieldingSectorSize,
    yieldingDeviceCharacteristics,
    yieldingShmMap,
    yieldingShmLock,
    yieldingShmBarrier,
    yieldingShmUnmap,
    yieldingFetch,
    yieldingUnfetch,
};

int yieldingOpen(sqlite3_vfs* /*vfs*/, sqlite3_filename name, sqlite3_file* file, int flags,
                 int* out_flags) {
  auto* self = reinterpret_cast<YieldingFile*>(file);
  self->inner = reinterpret_cast<sqlite3_file*>(self + 1);
  const int rc = default_vfs->xOpen(default_vfs, name, self->inner, flags, out_flags);
  // SQLite closes a file whose pMethods is set, even when opening it failed.
  self->base.pMethods = self->inner->pMethods != nullptr ? &kMethods : nullptr;
  return rc;
}

sqlite3_vfs registerVfs() {
  default_vfs = sqlite3_vfs_find(nullptr);
  if (default_vfs == nullptr) {
    throw std::runtime_error("[store.open] SQLite has no default VFS");
  }
  // Everything but opening a file is the default VFS's own, with its own data.
  sqlite3_vfs vfs = *default_vfs;
  vfs.szOsFile = static_cast<int>(sizeof(YieldingFile)) + default_vfs->szOsFile;
  vfs.pNext = nullptr;
  vfs.zName = kVfsName;
  vfs.xOpen = yieldingOpen;
  return vfs;
}

}  // namespace

const char* yieldingVfsName() {
  static sqlite3_vfs vfs = registerVfs();
  static const int registered = sqlite3_vfs_register(&vfs, /*makeDflt=*/0);
  if (registered != SQLITE_OK) {
    throw std::runtime_error("[store.open] cannot register SQLite VFS " + std::string(kVfsName));
  }
  return kVfsName;
}

std::uint64_t yieldingVfsYields() {
  return yields.load(std::memory_order_relaxed);
}

WritesKeepTheCore::WritesKeepTheCore() : kept_before_(writes_keep_the_core) {
  writes_keep_the_core = true;
}

WritesKeepTheCore::~WritesKeepTheCore() {
  writes_keep_the_core = kept_before_;
}

}  // namespace agentvcr::store::detail
