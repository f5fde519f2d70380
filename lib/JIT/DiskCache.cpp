//===- DiskCache.cpp - Compiled code kept across processes ----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the persistent compile cache. An entry is one file,
// <hash of the key>.lzc:
//
//   "lazyc-cc"  magic, 8 bytes
//   u32         entry format (kFormat)
//   u32         key bytes
//   u64         code bytes
//   u64         xxh3-64 of the code
//   key, code
//
// (little endian). The full key is kept so that a file reached through a
// colliding name, or copied from another machine or build, is recognized.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

using namespace lazyc;
using namespace lazyc::jit;

namespace endian = llvm::support::endian;

static constexpr llvm::StringLiteral kMagic = "lazyc-cc";
static constexpr uint32_t kFormat = 1;
static constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8;
static constexpr uint64_t kDefaultCapacity = uint64_t(1) << 30;
/// A temporary file older than this was left by a writer that died.
static constexpr auto kStaleTemporary = std::chrono::hours(1);

llvm::StringRef DiskCache::compilerBuild() {
  static const std::string build =
      std::string("lazyc ") + LAZYC_VERSION_STRING + " build " +
#include "CompilerBuildId.inc"
      ;
  return build;
}

/// "1073741824", "512M", "2G": bytes with an optional binary suffix.
static std::optional<uint64_t> parseBytes(llvm::StringRef text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (llvm::toLower(text.back())) {
    case 'k':
      scale = uint64_t(1) << 10;
      break;
    case 'm':
      scale = uint64_t(1) << 20;
      break;
    case 'g':
      scale = uint64_t(1) << 30;
      break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  uint64_t value;
  if (text.getAsInteger(10, value) || value == 0)
    return std::nullopt;
  return value * scale;
}

DiskCache *DiskCache::forProcess() {
  static DiskCache *cache = []() -> DiskCache * {
    std::string directory;
    if (const char *configured = std::getenv("LAZYC_CACHE_DIR")) {
      if (!*configured)
        return nullptr;
      directory = configured;
    } else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
      directory = std::string(xdg) + "/lazyc";
    } else if (const char *home = std::getenv("HOME"); home && *home) {
      directory = std::string(home) + "/.cache/lazyc";
    } else {
      return nullptr;
    }
    uint64_t capacity = kDefaultCapacity;
    if (const char *bytes = std::getenv("LAZYC_CACHE_DIR_BYTES")) {
      if (std::optional<uint64_t> parsed = parseBytes(bytes))
        capacity = *parsed;
      else
        llvm::errs() << "lazyc: LAZYC_CACHE_DIR_BYTES='" << bytes
                     << "' is not a size (bytes, or with K, M or G); using "
                        "1G\n";
    }
    if (std::error_code error = llvm::sys::fs::create_directories(directory)) {
      llvm::errs() << "lazyc: cannot create the compile cache directory "
                   << directory << " (" << error.message()
                   << "); compiled code is not cached\n";
      return nullptr;
    }
    return new DiskCache(directory, capacity);
  }();
  return cache;
}

DiskCache::DiskCache(std::string directory, uint64_t capacityBytes)
    : root(std::move(directory)), capacity(capacityBytes) {
  if (std::error_code error = llvm::sys::fs::create_directories(root)) {
    note("cannot create the compile cache directory " + root + " (" +
         error.message() + "); compiled code is not cached");
    counts.writable = false;
  }
}

std::string DiskCache::entryPath(llvm::StringRef key) const {
  llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(key));
  return root + "/" + llvm::utohexstr(hash.high64, /*LowerCase=*/true, 16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, 16) + ".lzc";
}

void DiskCache::note(const std::string &message) const {
  llvm::errs() << "lazyc: " << message << "\n";
}

DiskCache::Stats DiskCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counts;
}

/// What in `stored` differs from `expected`, both keys of lines "<what>
/// ...": "another lazyc build", "another LLVM", ...
static std::string keyDifference(llvm::StringRef stored,
                                 llvm::StringRef expected) {
  llvm::SmallVector<llvm::StringRef> storedLines, expectedLines;
  stored.split(storedLines, '\n');
  expected.split(expectedLines, '\n');
  for (size_t i = 0; i < expectedLines.size(); ++i)
    if (i >= storedLines.size() || storedLines[i] != expectedLines[i]) {
      llvm::StringRef what = expectedLines[i].split(' ').first;
      return what == "code" ? "other code (a colliding file name)"
                            : "another " + what.str();
    }
  return "another key";
}

DiskCache::Lookup DiskCache::load(llvm::StringRef key,
                                  std::unique_ptr<llvm::MemoryBuffer> &code) {
  std::string path = entryPath(key);
  std::lock_guard<std::mutex> lock(mutex);
  auto reject = [&](const std::string &why) {
    ++counts.rejected;
    note("ignoring compile cache entry " + path + ": " + why +
         "; compiling again and rewriting it");
    return Lookup::Rejected;
  };

  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file) {
    std::error_code error = llvm::errorToErrorCode(file.takeError());
    if (error == std::errc::no_such_file_or_directory) {
      ++counts.misses;
      return Lookup::Missing;
    }
    return reject("cannot open it (" + error.message() + ")");
  }
  auto contents = llvm::MemoryBuffer::getOpenFile(
      *file, path, /*FileSize=*/-1, /*RequiresNullTerminator=*/false);
  // Marks the entry recently used (best effort: the file may be another
  // user's).
  (void)llvm::sys::fs::setLastAccessAndModificationTime(
      *file, std::chrono::system_clock::now());
  llvm::sys::fs::closeFile(*file);
  if (!contents)
    return reject("cannot read it (" + contents.getError().message() + ")");

  llvm::StringRef bytes = (*contents)->getBuffer();
  if (bytes.size() < kHeaderBytes)
    return reject("it is truncated (" + std::to_string(bytes.size()) +
                  " bytes, shorter than its header)");
  if (!bytes.starts_with(kMagic))
    return reject("it is not a lazyc compile cache entry");
  const char *header = bytes.data() + kMagic.size();
  uint32_t format = endian::read32le(header);
  uint32_t keyBytes = endian::read32le(header + 4);
  uint64_t codeBytes = endian::read64le(header + 8);
  uint64_t checksum = endian::read64le(header + 16);
  if (format != kFormat)
    return reject("it has entry format " + std::to_string(format) +
                  ", this lazyc reads " + std::to_string(kFormat));
  uint64_t expected = kHeaderBytes + uint64_t(keyBytes) + codeBytes;
  if (codeBytes > bytes.size() || bytes.size() != expected)
    return reject("it is " +
                  std::string(bytes.size() < expected
                                  ? "truncated"
                                  : "longer than its header says") +
                  " (" + std::to_string(bytes.size()) + " bytes, expected " +
                  std::to_string(expected) + ")");
  llvm::StringRef storedKey = bytes.substr(kHeaderBytes, keyBytes);
  if (storedKey != key)
    return reject("it was written for " + keyDifference(storedKey, key));
  llvm::StringRef storedCode = bytes.substr(kHeaderBytes + keyBytes);
  if (llvm::xxh3_64bits(storedCode) != checksum)
    return reject("its checksum does not match (corrupted)");
  code = llvm::MemoryBuffer::getMemBufferCopy(storedCode, path);
  ++counts.hits;
  return Lookup::Hit;
}

bool DiskCache::store(llvm::StringRef key, llvm::StringRef code) {
  std::string path = entryPath(key);
  std::lock_guard<std::mutex> lock(mutex);
  if (!counts.writable)
    return false;
  auto stopWriting = [&](const std::string &what, std::error_code error) {
    counts.writable = false;
    note("cannot write the compile cache in " + root + " (" + what + ": " +
         error.message() +
         "); compiled code is no longer cached by this "
         "process");
    return false;
  };

  int fd;
  llvm::SmallString<256> temporary;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          path + ".%%%%%%%%.tmp", fd, temporary))
    return stopWriting("creating a file", error);
  char header[kHeaderBytes];
  std::memcpy(header, kMagic.data(), kMagic.size());
  endian::write32le(header + 8, kFormat);
  endian::write32le(header + 12, static_cast<uint32_t>(key.size()));
  endian::write64le(header + 16, code.size());
  endian::write64le(header + 24, llvm::xxh3_64bits(code));
  std::error_code error;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(header, sizeof(header));
    os << key << code;
    os.close();
    error = os.error();
    os.clear_error();
  }
  if (!error)
    error = llvm::sys::fs::rename(temporary, path);
  if (error) {
    llvm::sys::fs::remove(temporary);
    return stopWriting("writing " + path, error);
  }
  ++counts.writes;
  if (knownBytes >= 0)
    knownBytes += static_cast<int64_t>(kHeaderBytes + key.size() + code.size());
  if (knownBytes < 0 || static_cast<uint64_t>(knownBytes) > capacity)
    evict();
  return true;
}

void DiskCache::evict() {
  struct Entry {
    std::string path;
    uint64_t bytes;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(root, error), end;
       it != end && !error; it.increment(error)) {
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (!status || status->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.ends_with(".tmp")) {
      if (now - status->getLastModificationTime() > kStaleTemporary)
        llvm::sys::fs::remove(it->path());
      continue;
    }
    if (!name.ends_with(".lzc"))
      continue;
    entries.push_back(
        {it->path(), status->getSize(), status->getLastModificationTime()});
    total += status->getSize();
  }
  if (total > capacity) {
    llvm::sort(entries,
               [](const Entry &a, const Entry &b) { return a.used < b.used; });
    for (const Entry &entry : entries) {
      if (total <= capacity / 4 * 3)
        break;
      // Another process may have removed it first; either way it is gone.
      llvm::sys::fs::remove(entry.path);
      total -= entry.bytes;
      ++counts.evictions;
    }
  }
  knownBytes = static_cast<int64_t>(total);
}
