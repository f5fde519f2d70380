//===- DiskCacheTest.cpp - The persistent compile cache -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The persistent compile cache trusts nothing on disk: a stored entry comes
// back byte for byte; a corrupted, truncated, foreign or unrelated file is
// rejected with a note and then rewritten; the directory stays under its cap
// with the least recently used entries evicted first; a directory that
// cannot be written (read-only, full disk) degrades to no caching. (Two
// processes sharing a cache, in sequence and in parallel, are lit tests:
// test/tools/lazyc-run/compile-cache.mlir.)
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/DiskCache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace lazyc;
using namespace lazyc::jit;
using Lookup = DiskCache::Lookup;

namespace {

/// A key shaped like the CPU target's: a line per thing the code depends on.
std::string keyFor(const std::string &build, const std::string &code) {
  return "lazyc 0.1.0 build " + build +
         "\nLLVM 22.1.8\ntarget x86_64-pc-linux-gnu znver4 +avx2\n"
         "options -O3\ncode @trace " +
         code;
}

/// `bytes` bytes of varied content.
std::string objectCode(size_t bytes, char seed) {
  std::string code(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i)
    code[i] = static_cast<char>(seed + i * 7);
  return code;
}

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("lazyc-disk-cache-test", path));
    directory = std::string(path);
  }
  void TearDown() override {
    chmod(directory.c_str(), 0755);
    llvm::sys::fs::remove_directories(directory);
  }

  std::string readFile(const std::string &path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(bool(buffer)) << path;
    return buffer ? (*buffer)->getBuffer().str() : "";
  }
  void writeFile(const std::string &path, const std::string &bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  /// Files in the directory whose names end in `suffix`.
  std::vector<std::string> files(llvm::StringRef suffix) {
    std::vector<std::string> names;
    std::error_code error;
    for (llvm::sys::fs::directory_iterator it(directory, error), end;
         it != end && !error; it.increment(error))
      if (llvm::StringRef(it->path()).ends_with(suffix))
        names.push_back(it->path());
    return names;
  }

  /// Looks `key` up, expecting `expected`; returns the code found.
  std::string lookUp(DiskCache &cache, const std::string &key,
                     Lookup expected) {
    std::unique_ptr<llvm::MemoryBuffer> code;
    EXPECT_EQ(cache.load(key, code), expected);
    EXPECT_EQ(bool(code), expected == Lookup::Hit);
    return code ? code->getBuffer().str() : "";
  }

  std::string directory;
};

TEST_F(DiskCacheTest, StoredCodeComesBackByteForByte) {
  DiskCache cache(directory, 1 << 20);
  std::string key = keyFor("a", "1");
  std::string code = objectCode(5000, 3);
  lookUp(cache, key, Lookup::Missing);
  EXPECT_TRUE(cache.store(key, code));
  EXPECT_EQ(lookUp(cache, key, Lookup::Hit), code);
  // Another key, in another file.
  lookUp(cache, keyFor("a", "2"), Lookup::Missing);
  EXPECT_NE(cache.entryPath(key), cache.entryPath(keyFor("a", "2")));

  // A second cache object on the directory (as another process) finds it.
  DiskCache other(directory, 1 << 20);
  EXPECT_EQ(lookUp(other, key, Lookup::Hit), code);

  DiskCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.writes, 1u);
  EXPECT_EQ(stats.rejected, 0u);
  EXPECT_TRUE(files(".tmp").empty());
}

TEST_F(DiskCacheTest, CorruptedEntryIsRejectedAndRewritten) {
  DiskCache cache(directory, 1 << 20);
  std::string key = keyFor("a", "1");
  std::string code = objectCode(4096, 5);
  ASSERT_TRUE(cache.store(key, code));
  std::string path = cache.entryPath(key);
  std::string bytes = readFile(path);
  bytes[bytes.size() - 100] ^= 0x20; // one bit of the code
  writeFile(path, bytes);

  testing::internal::CaptureStderr();
  lookUp(cache, key, Lookup::Rejected);
  std::string note = testing::internal::GetCapturedStderr();
  EXPECT_NE(note.find("ignoring compile cache entry " + path +
                      ": its checksum does not match (corrupted); compiling "
                      "again and rewriting it"),
            std::string::npos)
      << note;
  EXPECT_EQ(std::count(note.begin(), note.end(), '\n'), 1) << note;

  ASSERT_TRUE(cache.store(key, code));
  EXPECT_EQ(lookUp(cache, key, Lookup::Hit), code);
  EXPECT_EQ(cache.stats().rejected, 1u);
}

TEST_F(DiskCacheTest, TruncatedEntriesAreRejected) {
  DiskCache cache(directory, 1 << 20);
  std::string key = keyFor("a", "1");
  ASSERT_TRUE(cache.store(key, objectCode(3000, 1)));
  std::string path = cache.entryPath(key);
  std::string bytes = readFile(path);
  // Cut in the code, in the key, in the header, and to nothing.
  for (size_t length : {bytes.size() - 1, size_t(60), size_t(20), size_t(0)}) {
    writeFile(path, bytes.substr(0, length));
    testing::internal::CaptureStderr();
    lookUp(cache, key, Lookup::Rejected);
    std::string note = testing::internal::GetCapturedStderr();
    EXPECT_NE(note.find("it is truncated"), std::string::npos)
        << length << ": " << note;
  }
  // Extra bytes at the end are no better.
  writeFile(path, bytes + "x");
  testing::internal::CaptureStderr();
  lookUp(cache, key, Lookup::Rejected);
  EXPECT_NE(testing::internal::GetCapturedStderr().find(
                "it is longer than its header says"),
            std::string::npos);
}

TEST_F(DiskCacheTest, EntriesOfAnotherBuildOrMachineAreRejected) {
  DiskCache cache(directory, 1 << 20);
  std::string ours = keyFor("ours", "1");
  // Each entry written for another key, found under our key's file name (as
  // after a hash collision or a copied cache directory).
  struct Case {
    std::string key;
    const char *says;
  } cases[] = {
      {keyFor("theirs", "1"), "written for another lazyc"},
      {"lazyc 0.1.0 build ours\nLLVM 21.1.0\n", "written for another LLVM"},
      {"lazyc 0.1.0 build ours\nLLVM 22.1.8\ntarget aarch64 neoverse-v2\n",
       "written for another target"},
      {keyFor("ours", "2"), "written for other code"},
  };
  for (const Case &c : cases) {
    DiskCache scratch(directory + "/scratch", 1 << 20);
    ASSERT_TRUE(scratch.store(c.key, objectCode(100, 9)));
    ASSERT_FALSE(llvm::sys::fs::copy_file(scratch.entryPath(c.key),
                                          cache.entryPath(ours)));
    testing::internal::CaptureStderr();
    lookUp(cache, ours, Lookup::Rejected);
    std::string note = testing::internal::GetCapturedStderr();
    EXPECT_NE(note.find(c.says), std::string::npos) << note;
  }
  // A file that is no cache entry at all.
  writeFile(cache.entryPath(ours), std::string(200, 'z'));
  testing::internal::CaptureStderr();
  lookUp(cache, ours, Lookup::Rejected);
  EXPECT_NE(testing::internal::GetCapturedStderr().find(
                "it is not a lazyc compile cache entry"),
            std::string::npos);
}

TEST_F(DiskCacheTest, LeastRecentlyUsedEntriesAreEvictedPastTheCap) {
  // 8 entries of about 2.2 KiB under a 12 KiB cap.
  DiskCache cache(directory, 12 << 10);
  auto past = [](int minutes) {
    return std::chrono::system_clock::now() - std::chrono::minutes(minutes);
  };
  auto age = [&](const std::string &path, int minutes) {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
        path, fd, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append));
    ASSERT_FALSE(
        llvm::sys::fs::setLastAccessAndModificationTime(fd, past(minutes)));
    llvm::sys::fs::closeFile(fd);
  };
  std::vector<std::string> keys;
  for (int i = 0; i < 5; ++i) {
    keys.push_back(keyFor("a", std::to_string(i)));
    ASSERT_TRUE(cache.store(keys.back(), objectCode(2000, char(i))));
    age(cache.entryPath(keys.back()), 100 - i); // entry 0 is the oldest
  }
  // Entry 0 is used again: now it is the most recent.
  lookUp(cache, keys[0], Lookup::Hit);
  // A writer that died long ago left a temporary file.
  std::string stale = directory + "/dead.12345678.tmp";
  writeFile(stale, "partial");
  age(stale, 120);

  for (int i = 5; i < 8; ++i) {
    keys.push_back(keyFor("a", std::to_string(i)));
    ASSERT_TRUE(cache.store(keys.back(), objectCode(2000, char(i))));
  }
  uint64_t total = 0;
  for (const std::string &path : files(".lzc")) {
    uint64_t size;
    ASSERT_FALSE(llvm::sys::fs::file_size(path, size));
    total += size;
  }
  EXPECT_LE(total, uint64_t(12) << 10);
  EXPECT_GT(cache.stats().evictions, 0u);
  EXPECT_FALSE(llvm::sys::fs::exists(stale));
  // The oldest unused entries went first; the one used again and the
  // newest stayed.
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryPath(keys[1])));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(keys[0])));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(keys[7])));
}

TEST_F(DiskCacheTest, AFullDiskTurnsWritingOff) {
  DiskCache cache(directory, 1 << 20);
  std::string stored = keyFor("a", "stored");
  ASSERT_TRUE(cache.store(stored, objectCode(100, 1)));

  // Writes past 1 KiB fail (EFBIG) as on a full disk.
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = 1024;
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  testing::internal::CaptureStderr();
  bool written = cache.store(keyFor("a", "big"), objectCode(4096, 2));
  bool writtenAfter = cache.store(keyFor("a", "small"), objectCode(10, 3));
  std::string note = testing::internal::GetCapturedStderr();
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);

  EXPECT_FALSE(written);
  EXPECT_FALSE(writtenAfter); // no more tries
  EXPECT_FALSE(cache.stats().writable);
  EXPECT_NE(note.find("cannot write the compile cache in " + directory),
            std::string::npos)
      << note;
  EXPECT_EQ(std::count(note.begin(), note.end(), '\n'), 1) << note;
  EXPECT_TRUE(files(".tmp").empty());
  lookUp(cache, keyFor("a", "big"), Lookup::Missing);
  // What was stored before still loads.
  EXPECT_EQ(lookUp(cache, stored, Lookup::Hit), objectCode(100, 1));
}

TEST_F(DiskCacheTest, AReadOnlyDirectoryIsReadButNotWritten) {
  // Under /tmp: the user the child becomes must reach the directory (a test
  // runner's TMPDIR may be private to root).
  llvm::SmallString<128> shared;
  llvm::sys::fs::createUniquePath("/tmp/lazyc-read-only-cache-%%%%%%%%", shared,
                                  /*MakeAbsolute=*/false);
  ASSERT_FALSE(llvm::sys::fs::create_directory(shared));
  llvm::scope_exit removeShared([&] {
    chmod(shared.c_str(), 0755);
    llvm::sys::fs::remove_directories(shared);
  });
  std::string readOnly = std::string(shared);
  std::string key = keyFor("a", "1");
  {
    DiskCache writer(readOnly, 1 << 20);
    ASSERT_TRUE(writer.store(key, objectCode(500, 4)));
  }
  // Entries are private to their user (0600); this one is shared.
  ASSERT_EQ(chmod(DiskCache(readOnly, 1 << 20).entryPath(key).c_str(), 0644),
            0);
  ASSERT_EQ(chmod(readOnly.c_str(), 0555), 0);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // In a child process that, when run as root (who may write anywhere),
  // first becomes the unprivileged user "nobody".
  EXPECT_EXIT(
      {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
          std::_Exit(2);
        DiskCache cache(readOnly, 1 << 20);
        std::unique_ptr<llvm::MemoryBuffer> code;
        bool hit = cache.load(key, code) == Lookup::Hit &&
                   code->getBuffer() == objectCode(500, 4);
        bool written = cache.store(keyFor("a", "2"), objectCode(500, 5));
        std::_Exit(hit && !written && !cache.stats().writable ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "cannot write the compile cache in");
}

} // namespace
