//===- AllocatorTest.cpp - Tests of the runtime's caching allocator -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Checks lazyrt_alloc/lazyrt_free through the C ABI only: alignment, reuse
// of cached blocks, size classes, the byte counters, the cache limit, thread
// safety and out-of-memory reporting.
//
// The allocator is one process-wide instance shared with every other test in
// this binary, so each test works with differences of the counters, starts
// from an empty cache (lazyrt_trim_cache) and restores the cache limit.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

/// The cache limit the allocator starts with (see Runtime.h).
uint64_t defaultCacheLimit() {
  if (const char *limit = std::getenv("LAZYC_CACHE_BYTES"))
    return std::strtoull(limit, nullptr, 10);
  return uint64_t(1) << 30;
}

/// The size class Runtime.h/Allocator.cpp document, written independently:
/// 64 bytes for anything up to 64, otherwise the smallest of
/// {1, 1.25, 1.5, 1.75} * 2^k that holds `bytes`, rounded up to 64 bytes.
uint64_t documentedClass(uint64_t bytes) {
  if (bytes <= 64)
    return 64;
  uint64_t best = UINT64_MAX;
  for (unsigned k = 6; k < 62; ++k)
    for (uint64_t quarters = 4; quarters < 8; ++quarters) {
      uint64_t size = (uint64_t(1) << k) / 4 * quarters;
      if (size >= bytes && size < best)
        best = size;
    }
  return (best + 63) / 64 * 64;
}

class AllocatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    lazyrt_set_cache_limit(defaultCacheLimit());
    lazyrt_trim_cache();
  }
  void TearDown() override {
    lazyrt_set_cache_limit(defaultCacheLimit());
    lazyrt_trim_cache();
  }
};

TEST_F(AllocatorTest, EveryBlockIs64ByteAligned) {
  EXPECT_EQ(LAZYRT_ALIGNMENT, 64);
  const size_t sizes[] = {0,
                          1,
                          3,
                          7,
                          63,
                          64,
                          65,
                          100,
                          127,
                          129,
                          255,
                          1000,
                          1023,
                          4095,
                          4097,
                          12345,
                          65537,
                          1 << 20,
                          (1 << 20) + 1,
                          3 * (1 << 20) + 7};
  std::vector<void *> blocks;
  // Twice: the second round is served from the cache.
  for (int round = 0; round < 2; ++round) {
    for (size_t size : sizes) {
      void *block = lazyrt_alloc(size);
      ASSERT_NE(block, nullptr) << "size " << size;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u)
          << "size " << size << " round " << round;
      // The whole block is writable.
      if (size)
        std::memset(block, 0xAB, size);
      blocks.push_back(block);
    }
    for (void *block : blocks)
      lazyrt_free(block);
    blocks.clear();
  }
}

TEST_F(AllocatorTest, ZeroBytesGivesUniqueBlocks) {
  std::set<void *> seen;
  std::vector<void *> blocks;
  for (int i = 0; i < 16; ++i) {
    void *block = lazyrt_alloc(0);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u);
    EXPECT_TRUE(seen.insert(block).second) << "block returned twice";
    blocks.push_back(block);
  }
  for (void *block : blocks)
    lazyrt_free(block);
}

TEST_F(AllocatorTest, FreeingNullIsIgnored) {
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  lazyrt_free(nullptr);
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.bytes_cached, before.bytes_cached);
}

TEST_F(AllocatorTest, FreedBlockIsReusedForTheSameSize) {
  void *first = lazyrt_alloc(5000);
  ASSERT_NE(first, nullptr);
  lazyrt_free(first);
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  EXPECT_EQ(before.bytes_cached, documentedClass(5000));

  void *second = lazyrt_alloc(5000);
  ASSERT_NE(second, nullptr);
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(second, first);
  EXPECT_EQ(after.allocations, before.allocations + 1);
  EXPECT_EQ(after.reuses, before.reuses + 1);
  EXPECT_EQ(after.bytes_cached, 0u);
  lazyrt_free(second);
}

TEST_F(AllocatorTest, FreshAllocationIsNotAReuse) {
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  void *block = lazyrt_alloc(777);
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.allocations, before.allocations + 1);
  EXPECT_EQ(after.reuses, before.reuses);
  lazyrt_free(block);
}

TEST_F(AllocatorTest, SizeClassesMatchTheDocumentedRule) {
  // The bytes_in_use increment of one allocation is its class size.
  for (uint64_t size : {0ull,
                        1ull,
                        64ull,
                        65ull,
                        100ull,
                        128ull,
                        129ull,
                        160ull,
                        161ull,
                        1000ull,
                        1024ull,
                        1025ull,
                        1100ull,
                        1280ull,
                        1281ull,
                        1792ull,
                        1793ull,
                        5000ull,
                        (1ull << 20) - 1,
                        1ull << 20,
                        (1ull << 20) + 1,
                        3ull << 20,
                        4ull << 20}) {
    lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
    void *block = lazyrt_alloc(size);
    ASSERT_NE(block, nullptr);
    lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
    uint64_t classBytes = after.bytes_in_use - before.bytes_in_use;
    EXPECT_EQ(classBytes, documentedClass(size)) << "size " << size;
    EXPECT_GE(classBytes, size);
    // "at most 25% is wasted" (plus rounding to 64 bytes).
    EXPECT_LE(classBytes, size + size / 4 + 64) << "size " << size;
    lazyrt_free(block);
  }
}

TEST_F(AllocatorTest, NearbySizesShareAClass) {
  // 1000 and 1020 bytes both round to the 1024-byte class.
  void *block = lazyrt_alloc(1000);
  lazyrt_free(block);
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  void *again = lazyrt_alloc(1020);
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.reuses, before.reuses + 1);
  EXPECT_EQ(again, block);
  lazyrt_free(again);

  // 1100 bytes is in the next class (1280): no reuse of the 1024 block.
  block = lazyrt_alloc(1000);
  lazyrt_free(block);
  before = lazyrt_get_allocator_stats();
  again = lazyrt_alloc(1100);
  after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.reuses, before.reuses);
  EXPECT_EQ(after.bytes_in_use - before.bytes_in_use, 1280u);
  lazyrt_free(again);
}

TEST_F(AllocatorTest, DistantSizesDoNotShareAClass) {
  void *small = lazyrt_alloc(1 << 20);
  ASSERT_NE(small, nullptr);
  lazyrt_free(small);
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  void *large = lazyrt_alloc(4 << 20);
  ASSERT_NE(large, nullptr);
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.reuses, before.reuses);
  EXPECT_NE(large, small);
  // The 1 MiB block stays cached.
  EXPECT_EQ(after.bytes_cached, uint64_t(1) << 20);
  // The whole 4 MiB are usable.
  std::memset(large, 1, 4 << 20);
  lazyrt_free(large);
}

TEST_F(AllocatorTest, BytesInUseAndPeak) {
  lazyrt_allocator_stats start = lazyrt_get_allocator_stats();
  // Larger than anything allocated so far, so the peak must move.
  uint64_t big = start.peak_bytes_in_use + (8u << 20);
  void *a = lazyrt_alloc(big);
  ASSERT_NE(a, nullptr);
  void *b = lazyrt_alloc(3000);
  ASSERT_NE(b, nullptr);
  lazyrt_allocator_stats during = lazyrt_get_allocator_stats();
  uint64_t expected =
      start.bytes_in_use + documentedClass(big) + documentedClass(3000);
  EXPECT_EQ(during.bytes_in_use, expected);
  EXPECT_EQ(during.peak_bytes_in_use, expected);

  lazyrt_free(b);
  lazyrt_allocator_stats afterB = lazyrt_get_allocator_stats();
  EXPECT_EQ(afterB.bytes_in_use, start.bytes_in_use + documentedClass(big));
  EXPECT_EQ(afterB.peak_bytes_in_use, expected) << "the peak never decreases";
  EXPECT_EQ(afterB.bytes_cached, documentedClass(3000));

  lazyrt_free(a);
  lazyrt_allocator_stats end = lazyrt_get_allocator_stats();
  EXPECT_EQ(end.bytes_in_use, start.bytes_in_use);
  EXPECT_EQ(end.peak_bytes_in_use, expected);
  EXPECT_EQ(end.bytes_cached, documentedClass(3000) + documentedClass(big));
}

TEST_F(AllocatorTest, PeakRestartsFromBytesInUse) {
  void *a = lazyrt_alloc(1 << 20);
  ASSERT_NE(a, nullptr);
  lazyrt_free(a);
  lazyrt_reset_peak_bytes_in_use();
  lazyrt_allocator_stats reset = lazyrt_get_allocator_stats();
  EXPECT_EQ(reset.peak_bytes_in_use, reset.bytes_in_use);
  void *b = lazyrt_alloc(1000);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(lazyrt_get_allocator_stats().peak_bytes_in_use,
            reset.bytes_in_use + documentedClass(1000));
  lazyrt_free(b);
}

TEST_F(AllocatorTest, TrimEmptiesTheCache) {
  std::vector<void *> blocks;
  for (size_t size : {100, 1000, 10000, 100000})
    blocks.push_back(lazyrt_alloc(size));
  for (void *block : blocks)
    lazyrt_free(block);
  EXPECT_GT(lazyrt_get_allocator_stats().bytes_cached, 0u);
  lazyrt_trim_cache();
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.bytes_cached, 0u);
  // Nothing left to reuse.
  void *block = lazyrt_alloc(1000);
  EXPECT_EQ(lazyrt_get_allocator_stats().reuses, after.reuses);
  lazyrt_free(block);
}

TEST_F(AllocatorTest, CacheLimitZeroEmptiesTheCache) {
  std::vector<void *> blocks;
  for (size_t size : {100, 1000, 10000, 100000, 1000000})
    blocks.push_back(lazyrt_alloc(size));
  for (void *block : blocks)
    lazyrt_free(block);
  EXPECT_EQ(lazyrt_get_allocator_stats().bytes_cached,
            documentedClass(100) + documentedClass(1000) +
                documentedClass(10000) + documentedClass(100000) +
                documentedClass(1000000));

  lazyrt_set_cache_limit(0);
  EXPECT_EQ(lazyrt_get_allocator_stats().bytes_cached, 0u);

  // With no cache, a freed block is released at once and never reused.
  void *block = lazyrt_alloc(4096);
  lazyrt_free(block);
  EXPECT_EQ(lazyrt_get_allocator_stats().bytes_cached, 0u);
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  block = lazyrt_alloc(4096);
  EXPECT_EQ(lazyrt_get_allocator_stats().reuses, before.reuses);
  lazyrt_free(block);
}

TEST_F(AllocatorTest, CacheLimitEvictsLargestFirst) {
  // Cache 64 KiB + 4 KiB + 256 B, then allow only 8 KiB: the 64 KiB block
  // goes, the smaller ones stay.
  void *large = lazyrt_alloc(64 << 10);
  void *medium = lazyrt_alloc(4 << 10);
  void *small = lazyrt_alloc(256);
  lazyrt_free(large);
  lazyrt_free(medium);
  lazyrt_free(small);
  lazyrt_set_cache_limit(8 << 10);
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.bytes_cached, uint64_t((4 << 10) + 256));

  // Freeing beyond the limit evicts too.
  void *another = lazyrt_alloc(16 << 10);
  lazyrt_free(another);
  EXPECT_LE(lazyrt_get_allocator_stats().bytes_cached, uint64_t(8 << 10));

  // The medium block is still reusable.
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  void *again = lazyrt_alloc(4 << 10);
  EXPECT_EQ(lazyrt_get_allocator_stats().reuses, before.reuses + 1);
  EXPECT_EQ(again, medium);
  lazyrt_free(again);
}

TEST_F(AllocatorTest, ConcurrentAllocAndFree) {
  lazyrt_allocator_stats start = lazyrt_get_allocator_stats();
  constexpr int kThreads = 4, kIterations = 10000;
  std::vector<std::thread> threads;
  std::vector<int> corrupted(kThreads, 0), failed(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &corrupted, &failed] {
      std::mt19937 engine(1234 + t);
      std::uniform_int_distribution<size_t> size(0, 20000);
      // Keep a few blocks alive at a time, stamped with this thread's id, so
      // a block handed to two threads at once shows up as corruption.
      struct Live {
        unsigned char *data;
        size_t bytes;
        unsigned char stamp;
      };
      std::vector<Live> live;
      for (int i = 0; i < kIterations; ++i) {
        size_t bytes = size(engine);
        auto *data = static_cast<unsigned char *>(lazyrt_alloc(bytes));
        if (!data || reinterpret_cast<uintptr_t>(data) % 64 != 0) {
          ++failed[t];
          continue;
        }
        unsigned char stamp = static_cast<unsigned char>(t * 64 + i % 64);
        std::memset(data, stamp, bytes);
        live.push_back({data, bytes, stamp});
        if (live.size() > 8 || (engine() & 1)) {
          size_t victim = engine() % live.size();
          Live block = live[victim];
          for (size_t j = 0; j < block.bytes; ++j)
            if (block.data[j] != block.stamp) {
              ++corrupted[t];
              break;
            }
          lazyrt_free(block.data);
          live.erase(live.begin() + victim);
        }
      }
      for (Live &block : live)
        lazyrt_free(block.data);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t;
    EXPECT_EQ(corrupted[t], 0) << "thread " << t;
  }
  lazyrt_allocator_stats end = lazyrt_get_allocator_stats();
  EXPECT_EQ(end.bytes_in_use, start.bytes_in_use);
  EXPECT_EQ(end.allocations, start.allocations + kThreads * kIterations);
  EXPECT_GT(end.reuses, start.reuses);
}

TEST_F(AllocatorTest, OutOfMemoryReturnsNullWithAMessage) {
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  void *block = lazyrt_alloc(size_t(1) << 60);
  EXPECT_EQ(block, nullptr);
  std::string message = lazyrt_get_last_error();
  EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(uint64_t(1) << 60)), std::string::npos)
      << message;
  lazyrt_allocator_stats after = lazyrt_get_allocator_stats();
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  // The allocator still works afterwards.
  void *small = lazyrt_alloc(16);
  EXPECT_NE(small, nullptr);
  lazyrt_free(small);
}

TEST_F(AllocatorTest, LastErrorIsPerThread) {
  EXPECT_EQ(lazyrt_alloc(size_t(1) << 60), nullptr);
  std::string other = "unset";
  std::thread([&] { other = lazyrt_get_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(lazyrt_get_last_error()), "");
}

// Sizes near SIZE_MAX (e.g. a negative size converted to size_t) must fail
// like any other impossible request. (Regression: sizeClass looped forever,
// its candidate sizes wrapping around 2^64.) The alarm turns a hang into a
// failure.
TEST(AllocatorDeathTest, HugeRequestFailsInsteadOfHanging) {
  EXPECT_EXIT(
      {
        alarm(5);
        void *block = lazyrt_alloc(SIZE_MAX);
        std::exit(block == nullptr ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(AllocatorEntryPointsTest, MlirAllocFunctionsUseTheAllocator) {
  lazyrt_allocator_stats before = lazyrt_get_allocator_stats();
  void *a = _mlir_memref_to_llvm_alloc(100);
  void *b = _mlir_memref_to_llvm_aligned_alloc(16, 100);
  void *c = _mlir_memref_to_llvm_aligned_alloc(64, 100);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  for (void *block : {a, b, c})
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u);
  lazyrt_allocator_stats during = lazyrt_get_allocator_stats();
  EXPECT_EQ(during.allocations, before.allocations + 3);
  EXPECT_EQ(during.bytes_in_use, before.bytes_in_use + 3 * 128);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  EXPECT_EQ(lazyrt_get_allocator_stats().bytes_in_use, before.bytes_in_use);

  // Alignments beyond 64 bytes are refused with a message.
  EXPECT_EQ(_mlir_memref_to_llvm_aligned_alloc(128, 100), nullptr);
  EXPECT_NE(std::string(lazyrt_get_last_error()).find("alignment 128"),
            std::string::npos)
      << lazyrt_get_last_error();
}

} // namespace
