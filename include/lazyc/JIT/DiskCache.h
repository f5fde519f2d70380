//===- DiskCache.h - Compiled code kept across processes --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares DiskCache: the persistent compile cache. Targets store
// the code they generate (an object file on the CPU) under a key naming
// everything that code depends on: the lowered function's input IR, lazyc's
// version and build (a hash of the compiler's sources), LLVM's version, the
// target (triple, CPU, features) and the compile options. A later process
// that compiles the same function loads it instead (as JAX's persistent
// compilation cache).
//
// Nothing on disk is trusted: each entry repeats its full key and carries a
// checksum of its code, and an entry that is truncated, corrupted, written
// for another key (another lazyc, LLVM or CPU) or unreadable is ignored with
// a one-line note and rewritten. Entries are written to a temporary file and
// renamed into place, so concurrent processes never see half an entry. The
// directory is capped in size, least recently used entries first out; a
// directory that cannot be written (read-only, full disk) degrades to no
// caching, with one note.
//
// Environment: LAZYC_CACHE_DIR (default $XDG_CACHE_HOME/lazyc, else
// ~/.cache/lazyc; set to the empty string to turn the cache off) and
// LAZYC_CACHE_DIR_BYTES (the cap, default 1 GiB).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_JIT_DISKCACHE_H
#define LAZYC_JIT_DISKCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace lazyc::jit {

class DiskCache {
public:
  /// The cache LAZYC_CACHE_DIR names (see above), or null when it is off or
  /// its directory cannot be created (noted once).
  static DiskCache *forProcess();

  /// A cache in `directory` (created when missing) of at most
  /// `capacityBytes`.
  DiskCache(std::string directory, uint64_t capacityBytes);

  const std::string &directory() const { return root; }

  /// The file holding the entry of `key`.
  std::string entryPath(llvm::StringRef key) const;

  /// What a lookup found.
  enum class Lookup { Hit, Missing, Rejected };

  /// The code stored under `key` (Hit), nothing (Missing), or nothing
  /// because the entry there was not trusted (Rejected, with a note on
  /// stderr naming the file and why).
  Lookup load(llvm::StringRef key, std::unique_ptr<llvm::MemoryBuffer> &code);

  /// Stores `code` under `key`; returns whether it was written. The first
  /// failure (no permission, full disk) turns writing off for this cache,
  /// with a note.
  bool store(llvm::StringRef key, llvm::StringRef code);

  /// What this cache did so far.
  struct Stats {
    uint64_t hits = 0, misses = 0, rejected = 0, writes = 0, evictions = 0;
    bool writable = true;
  };
  Stats stats() const;

  /// Identifies this build of lazyc's compiler: the lazyc version and a hash
  /// of the sources that decide generated code (and of LLVM's version).
  static llvm::StringRef compilerBuild();

private:
  /// Removes least recently used entries until the directory holds at most
  /// 3/4 of the cap (and temporary files a crashed writer left behind).
  void evict();
  void note(const std::string &message) const;

  std::string root;
  uint64_t capacity;
  mutable std::mutex mutex; ///< Guards the fields below and the directory.
  Stats counts;
  /// Bytes in the directory when last scanned plus those written since; -1
  /// before the first scan.
  int64_t knownBytes = -1;
};

} // namespace lazyc::jit

#endif // LAZYC_JIT_DISKCACHE_H
