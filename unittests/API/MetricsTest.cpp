//===- MetricsTest.cpp - What lazyc did, counted --------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The metrics report beyond the plain counters: the time distribution type
// on hand-computed samples, the distributions counting one event per
// compile, kernel run and copy, the top materializations naming the user's
// line, and cache misses counted by reason, one constructed miss per
// reason.
//
//===----------------------------------------------------------------------===//

#include "Engine/Counters.h"
#include "Engine/Explain.h"
#include "lazyc/API/NodeAccess.h"
#include "lazyc/Trace/Trace.h"
#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

using namespace lazyc;

namespace {

constexpr uint64_t kNanosPerMs = 1000000;

TEST(TimeDistributionTest, PercentilesOfOneToAHundredAreTheirRanks) {
  engine::TimeRecorder recorder;
  std::vector<uint64_t> ms(100);
  std::iota(ms.begin(), ms.end(), 1);
  std::shuffle(ms.begin(), ms.end(), std::mt19937(7)); // Order is no matter.
  for (uint64_t value : ms)
    recorder.record(value * kNanosPerMs);
  TimeDistribution d = recorder.snapshot();
  EXPECT_EQ(d.count, 100u);
  EXPECT_DOUBLE_EQ(d.totalMs, 5050);
  EXPECT_DOUBLE_EQ(d.minMs, 1);
  EXPECT_DOUBLE_EQ(d.medianMs, 50);
  EXPECT_DOUBLE_EQ(d.p90Ms, 90);
  EXPECT_DOUBLE_EQ(d.p99Ms, 99);
  EXPECT_DOUBLE_EQ(d.maxMs, 100);
}

TEST(TimeDistributionTest, NearestRankOnFewSamples) {
  engine::TimeRecorder recorder;
  for (double ms : {3.0, 1.0, 10.0, 2.0})
    recorder.recordMs(ms);
  TimeDistribution d = recorder.snapshot();
  EXPECT_EQ(d.count, 4u);
  EXPECT_DOUBLE_EQ(d.totalMs, 16);
  EXPECT_DOUBLE_EQ(d.minMs, 1);
  // Sorted 1 2 3 10: the 2nd (ceil 50% of 4), then the 4th for both tails.
  EXPECT_DOUBLE_EQ(d.medianMs, 2);
  EXPECT_DOUBLE_EQ(d.p90Ms, 10);
  EXPECT_DOUBLE_EQ(d.p99Ms, 10);
  EXPECT_DOUBLE_EQ(d.maxMs, 10);

  engine::TimeRecorder one;
  one.recordMs(0.25);
  TimeDistribution single = one.snapshot();
  EXPECT_EQ(single.count, 1u);
  for (double value : {single.totalMs, single.minMs, single.medianMs,
                       single.p90Ms, single.p99Ms, single.maxMs})
    EXPECT_DOUBLE_EQ(value, 0.25);

  TimeDistribution none = engine::TimeRecorder().snapshot();
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.maxMs, 0);
  EXPECT_EQ(none.medianMs, 0);
}

TEST(TimeDistributionTest, PercentilesAreOfTheLastWindowTheRestOfAll) {
  engine::TimeRecorder recorder;
  for (uint64_t ms = 1; ms <= 3000; ++ms)
    recorder.record(ms * kNanosPerMs);
  TimeDistribution d = recorder.snapshot();
  EXPECT_EQ(d.count, 3000u);
  EXPECT_DOUBLE_EQ(d.totalMs, 3000.0 * 3001 / 2);
  EXPECT_DOUBLE_EQ(d.minMs, 1);
  EXPECT_DOUBLE_EQ(d.maxMs, 3000);
  // The window holds 1977..3000: ranks 512, 922 and 1014 of those.
  ASSERT_EQ(Metrics::kPercentileWindow, 1024u);
  EXPECT_DOUBLE_EQ(d.medianMs, 1976 + 512);
  EXPECT_DOUBLE_EQ(d.p90Ms, 1976 + 922);
  EXPECT_DOUBLE_EQ(d.p99Ms, 1976 + 1014);

  recorder.reset();
  EXPECT_EQ(recorder.snapshot().count, 0u);
  recorder.recordMs(5);
  EXPECT_DOUBLE_EQ(recorder.snapshot().minMs, 5);
  EXPECT_DOUBLE_EQ(recorder.snapshot().medianMs, 5);
}

class MetricsTest : public ::testing::Test {
protected:
  void SetUp() override {
    lazyc::sync();
    clearCache();
    resetMetrics();
  }
  static std::string at(unsigned line) {
    return "MetricsTest.cpp:" + std::to_string(line);
  }
};

TEST_F(MetricsTest, DistributionsCountEachCompileRunAndCopy) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {4});
  for (int i = 0; i < 5; ++i)
    (void)(x * 2.0f).toVector<float>();
  Metrics m = metrics();
  EXPECT_EQ(m.kernelsRun, 5u);
  EXPECT_EQ(m.kernelRuns.count, 5u);
  EXPECT_EQ(m.tracesCompiled, 1u);
  EXPECT_EQ(m.compiles.count, 1u);
  EXPECT_EQ(m.compileCodegen.count, 1u);
  // Code loaded from the disk cache ran no pipeline.
  EXPECT_EQ(m.compilePipeline.count + m.diskCacheHits, 1u);
  EXPECT_NEAR(m.compiles.totalMs, m.compileMs, 0.01 + m.compileMs * 0.01);
  EXPECT_EQ(m.transfersToDevice.count, 1u);
  EXPECT_EQ(m.bytesToDevice, 16u);
  // A CPU buffer is read where it is.
  EXPECT_EQ(m.transfersToHost.count, 0u);
  for (const TimeDistribution &d : {m.kernelRuns, m.compiles}) {
    EXPECT_LE(d.minMs, d.medianMs);
    EXPECT_LE(d.medianMs, d.p90Ms);
    EXPECT_LE(d.p90Ms, d.p99Ms);
    EXPECT_LE(d.p99Ms, d.maxMs);
    EXPECT_LE(d.maxMs, d.totalMs);
  }

  resetMetrics();
  m = metrics();
  EXPECT_EQ(m.kernelRuns.count, 0u);
  EXPECT_EQ(m.compiles.count, 0u);
  EXPECT_EQ(m.transfersToDevice.count, 0u);
  EXPECT_EQ(m.bytesToDevice, 0u);
  EXPECT_TRUE(m.topMaterializations.empty());
  EXPECT_TRUE(m.cacheMissReasons.empty());
  EXPECT_TRUE(m.topCacheMisses.empty());
}

TEST_F(MetricsTest, TopMaterializationsNameTheUsersLine) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  unsigned readLine = 0;
  for (int i = 0; i < 3; ++i) {
    readLine = __LINE__ + 1;
    (void)(x + 1.0f).toVector<float>();
  }
  unsigned itemLine = __LINE__ + 1;
  (void)sum(x, {0}).item<float>();
  // Printing cannot see the user's line: it names the op that made the
  // value, and that op's line.
  unsigned printLine = __LINE__ + 1;
  Tensor printed = x * 3.0f;
  std::ostringstream os;
  os << printed;

  std::vector<CountedCause> top = metrics().topMaterializations;
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].what, at(readLine) + " (toVector)");
  EXPECT_EQ(top[0].count, 3u);
  // Ties in name order.
  std::vector<std::string> once = {top[1].what, top[2].what};
  std::sort(once.begin(), once.end());
  EXPECT_EQ(once[0], at(itemLine) + " (item)");
  EXPECT_EQ(once[1], at(printLine) + " (print, of `mul`)");
  EXPECT_EQ(top[1].count, 1u);
  EXPECT_EQ(top[2].count, 1u);
  EXPECT_NE(metricsReport().find("  " + at(readLine) + " (toVector) x 3\n"),
            std::string::npos)
      << metricsReport();
}

/// The misses counted since the start of the test: each reason once.
void expectOnlyMiss(const char *reason, unsigned line) {
  Metrics m = metrics();
  ASSERT_EQ(m.cacheMissReasons.size(), 1u) << metricsReport();
  EXPECT_EQ(m.cacheMissReasons[0].what, reason);
  EXPECT_EQ(m.cacheMissReasons[0].count, 1u);
  ASSERT_EQ(m.topCacheMisses.size(), 1u);
  EXPECT_EQ(m.topCacheMisses[0].what,
            std::string(reason) + ": MetricsTest.cpp:" + std::to_string(line) +
                " (toVector)");
}

TEST_F(MetricsTest, MissNothingCached) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  unsigned line = __LINE__ + 1;
  (void)exp(x).toVector<float>();
  expectOnlyMiss("nothing cached", line);
}

TEST_F(MetricsTest, MissNewStructure) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  (void)(x + x).toVector<float>();
  resetMetrics();
  unsigned line = __LINE__ + 1;
  (void)(x - x).toVector<float>();
  expectOnlyMiss("new structure", line);
}

TEST_F(MetricsTest, MissDtypeChanged) {
  Tensor f = Tensor::fromVector<float>({1, 2}, {2});
  Tensor d = Tensor::fromVector<double>({1, 2}, {2});
  (void)sqrt(f).toVector<float>();
  resetMetrics();
  unsigned line = __LINE__ + 1;
  (void)sqrt(d).toVector<double>();
  expectOnlyMiss("dtype changed", line);
}

TEST_F(MetricsTest, MissShapeChangedInRank) {
  // Another rank is another structure; another size of the same rank is
  // "sizes changed" (below).
  Tensor vector = Tensor::fromVector<float>({1, 2, 3, 4}, {4});
  Tensor matrix = Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2});
  (void)exp(vector).toVector<float>();
  resetMetrics();
  unsigned line = __LINE__ + 1;
  (void)exp(matrix).toVector<float>();
  expectOnlyMiss("shape changed", line);
}

TEST_F(MetricsTest, MissSizesChanged) {
  unsigned line = 0;
  for (int64_t n : {4, 5}) {
    if (n == 5)
      resetMetrics();
    line = __LINE__ + 1;
    (void)(exp(ones({n, 3})) * 2.0f).toVector<float>();
  }
  expectOnlyMiss("sizes changed", line);
  EXPECT_GE(metrics().sizesMadeDynamic, 1u);
}

TEST_F(MetricsTest, MissLiteralChanged) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  unsigned line = 0;
  for (int i = 1; i <= 3; ++i) {
    if (i == 2)
      resetMetrics();
    line = __LINE__ + 1;
    (void)(x * static_cast<float>(i)).toVector<float>();
  }
  // The third value reuses the promoted function.
  expectOnlyMiss("literal changed", line);
  EXPECT_EQ(metrics().cacheHits, 1u);
}

TEST_F(MetricsTest, MissAttributesChanged) {
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2});
  (void)sum(x, {0}).toVector<float>();
  resetMetrics();
  unsigned line = __LINE__ + 1;
  (void)sum(x, {1}).toVector<float>();
  expectOnlyMiss("attributes changed", line);
}

TEST_F(MetricsTest, MissOutputsChanged) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  {
    Tensor held = exp(x); // Held: written out.
    (void)(held * 2.0f).toVector<float>();
  }
  resetMetrics();
  Tensor y = exp(x) * 2.0f; // The temporary exp(x) is gone when y is read.
  unsigned line = __LINE__ + 1;
  (void)y.toVector<float>();
  expectOnlyMiss("outputs changed", line);
}

TEST_F(MetricsTest, MissInPlaceUpdateChanged) {
  Variable w(Tensor::fromVector<float>({1, 2}, {2}), "w");
  w.assignAdd(ones({2}));
  lazyc::sync();
  resetMetrics();
  Tensor old = w.read(); // Keeps the old value: it is not overwritten.
  w.assignAdd(ones({2}));
  lazyc::sync();
  Metrics m = metrics();
  ASSERT_EQ(m.cacheMissReasons.size(), 1u) << metricsReport();
  EXPECT_EQ(m.cacheMissReasons[0].what, "in-place update changed");
}

TEST_F(MetricsTest, MissOtherMode) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  (void)tanh(x).toVector<float>();
  resetMetrics();
  {
    EagerScope eager;
    (void)tanh(x);
  }
  Metrics m = metrics();
  ASSERT_EQ(m.cacheMissReasons.size(), 1u) << metricsReport();
  EXPECT_EQ(m.cacheMissReasons[0].what, "other mode");
}

TEST(MissReasonTest, DeviceChanged) {
  // White-box: the API cannot put values on the GPU yet.
  auto pendingOn = [](Device device) {
    Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
    detail::TensorAccess::node(x)->device = device;
    return x * 2.0f + 1.0f;
  };
  Tensor onCpu = pendingOn(Device::cpu());
  Tensor onGpu = pendingOn(Device::cuda());
  explain::TraceSummary cached = explain::summarize(
      trace::extractTrace({detail::TensorAccess::node(onCpu).get()}));
  explain::TraceSummary now = explain::summarize(
      trace::extractTrace({detail::TensorAccess::node(onGpu).get()}));
  std::string text;
  EXPECT_EQ(explain::classifyStructuralMiss(now, {&cached}, false, &text),
            explain::MissReason::DeviceChanged);
  EXPECT_NE(text.find("lives on cuda:0, the cached one on cpu"),
            std::string::npos)
      << text;
  EXPECT_EQ(explain::classifyStructuralMiss(now, {&cached}, false),
            explain::MissReason::DeviceChanged);
  EXPECT_STREQ(explain::missReasonName(explain::MissReason::DeviceChanged),
               "device changed");
}

TEST_F(MetricsTest, DiskCacheLoadsCountAsCompiledTraces) {
  // The suite runs with the disk cache off (lit.cfg.py), and a process reads
  // LAZYC_CACHE_DIR once: this runs in a child process of its own (a fresh
  // one, re-executed) that sets it before its first compile.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        char pattern[] = "/tmp/lazyc-metrics-cache-XXXXXX";
        bool made = ::mkdtemp(pattern) != nullptr;
        setenv("LAZYC_CACHE_DIR", pattern, 1);
        Tensor x = Tensor::fromVector<float>({1, 2}, {2});
        (void)(x * 3.0f).toVector<float>();
        Metrics first = metrics();
        clearCache(); // In memory only.
        (void)(x * 3.0f).toVector<float>();
        Metrics m = metrics();
        std::string report = metricsReport();
        std::filesystem::remove_all(pattern);
        bool ok = made && first.diskCacheWrites == 1 &&
                  first.diskCacheHits == 0 && m.tracesCompiled == 2 &&
                  m.diskCacheHits == 1 && m.diskCacheWrites == 1 &&
                  m.diskCacheRejected == 0 &&
                  m.compilePipeline.count == 1 && // The load ran no pipeline.
                  m.compileCodegen.count == 2 &&
                  report.find("disk cache          1 loaded, 1 written, "
                              "0 rejected\n") != std::string::npos;
        std::cerr << report << "\n";
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "disk cache");
}

TEST_F(MetricsTest, TheReportPrintsEverySection) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  (void)exp(x).toVector<float>();
  std::string report = metricsReport();
  std::ostringstream printed;
  printed << metrics();
  EXPECT_EQ(printed.str(), report);
  EXPECT_EQ(report.rfind("lazyc metrics:\n  ops recorded", 0), 0u) << report;
  for (const char *section :
       {"\n  traces compiled     1\n", "\n  cache hits / misses 0 / 1\n",
        "\ntimes (median, p90, p99 of the last 1024):\n",
        "\n  compile                 1 ", "\n  kernel run              1 ",
        "\n  copy to device          1 ",
        "\n  copy to host            0         0         0         0         0"
        "         0         0\n",
        "\ntop materializations:\n",
        "\ncache misses by reason:\n"
        "  nothing cached x 1\n",
        "\ntop cache misses:\n  nothing cached: MetricsTest.cpp:"})
    EXPECT_NE(report.find(section), std::string::npos) << section << " in\n"
                                                       << report;
  EXPECT_NE(report.back(), '\n'); // Programs print `metrics() << "\n"`.
}

} // namespace

namespace {

/// stderr while `compile` compiles a new trace, with LAZYC_PROGRESS set to
/// `setting` (null: unset; the tests' stderr is not a terminal).
std::string progressOf(const char *setting, float seed) {
  if (setting)
    setenv("LAZYC_PROGRESS", setting, 1);
  else
    unsetenv("LAZYC_PROGRESS");
  testing::internal::CaptureStderr();
  // A structure of its own per call: the seed is a literal of a new shape.
  Tensor x = full({3, static_cast<int64_t>(seed)}, seed);
  (void)tanh(x * 2.0f + 1.0f).toVector<float>();
  std::string printed = testing::internal::GetCapturedStderr();
  unsetenv("LAZYC_PROGRESS");
  return printed;
}

} // namespace

// A compile that runs past LAZYC_PROGRESS seconds shows each stage as it
// starts and then its total; 0 turns it off, and where stderr is not a
// terminal it is off unless the variable is set.
TEST(CompileProgressTest, StagesAndTotalPastTheThreshold) {
  std::string shown = progressOf("1e-9", 5);
  EXPECT_NE(shown.find("lazyc: compiling a trace of"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find(": bufferize ("), std::string::npos) << shown;
  EXPECT_NE(shown.find(": translate to LLVM IR ("), std::string::npos) << shown;
  EXPECT_NE(shown.find("lazyc: compiled a trace of"), std::string::npos)
      << shown;
  EXPECT_EQ(progressOf("0", 6), "");
  EXPECT_EQ(progressOf(nullptr, 7), "");
  EXPECT_EQ(progressOf("1000", 9), "");
}
