//===- FunctionCacheTest.cpp - Which function serves a trace --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The function cache's selection rules on hand-built traces, with a stand-in
// compiler that records what it was asked for: nothing is compiled. (The
// disk cache sits inside the CPU target: unittests/JIT/DiskCacheTest.cpp.)
//
//===----------------------------------------------------------------------===//

#include "Engine/FunctionCache.h"
#include "Engine/Engine.h"
#include "Trace/NodeBuilders.h"

#include "lazyc/API/Compile.h"
#include "lazyc/API/Error.h"
#include "lazyc/API/Metrics.h"
#include "lazyc/Trace/Trace.h"

#include "llvm/ADT/ScopeExit.h"

#include "gtest/gtest.h"

#include <future>
#include <stdexcept>

using namespace lazyc;
using namespace lazyc::engine;
using namespace lazyc::trace;
using namespace lazyc::trace::build;

namespace {

/// A compiled function that is never called.
class StandInFunction : public jit::CompiledFunction {
public:
  llvm::Error call(llvm::ArrayRef<jit::BufferView>,
                   llvm::ArrayRef<jit::BufferView>) const override {
    return llvm::Error::success();
  }
};

/// What the cache asked the compiler for.
struct CompileRequest {
  std::vector<bool> promoted;
  bool allSizesDynamic;
  std::vector<bool> dynamicSizes;
};

/// A FunctionCache with a stand-in compiler; `failDynamic` makes compiles
/// with sizes left to the call fail, as a gap in dynamic-size support does.
struct CacheUnderTest {
  std::vector<CompileRequest> compiles;
  int backgroundCompiles = 0;
  bool failDynamic = false;
  std::promise<std::shared_ptr<jit::CompiledFunction>> background;
  FunctionCache cache;

  explicit CacheUnderTest(size_t capacity = 64)
      : cache(compilers(), capacity) {}

  Compilers compilers() {
    Compilers result;
    result.compile = [this](const Trace &, const std::vector<bool> &promoted,
                            bool allSizesDynamic,
                            const std::vector<bool> &dynamicSizes) {
      if (failDynamic && llvm::is_contained(dynamicSizes, true))
        throw Error("add", "dynamic sizes unsupported here");
      compiles.push_back({promoted, allSizesDynamic, dynamicSizes});
      return std::make_shared<StandInFunction>();
    };
    result.compileInBackground = [this](const Trace &) {
      ++backgroundCompiles;
      return PendingFunction(background.get_future().share());
    };
    return result;
  }

  Selection select(const Trace &trace, SelectMode mode = SelectMode::Lazy) {
    std::vector<double> literals;
    for (int32_t index : trace.literals)
      literals.push_back(trace.nodes[index]->scalar);
    return cache.select(trace, literals, mode,
                        {{Cause::Sync, "test.cpp", 1, nullptr},
                         [] { return std::string("sync at test.cpp:1"); }});
  }
};

/// The trace computing `requested`. It points into the graph: keep
/// `requested` alive while the trace is used.
Trace traceOf(const NodePtr &requested, bool eager = false) {
  return extractTrace({requested.get()}, eager);
}

/// x * scale + 1 on a Float32 vector of `size`.
NodePtr scaled(int64_t size, double scale, DType dtype = DType::Float32) {
  NodePtr x = computed(dtype, {size});
  NodePtr product = elementwise(OpKind::Mul, {x, literal(scale, dtype)});
  return elementwise(OpKind::Add, {product, literal(1.0, dtype)});
}

/// A convolution of images [1, channels, size, size] with 4 filters
/// [4, channels, 3, 3].
NodePtr convolution(int64_t channels, int64_t size) {
  NodePtr images = computed(DType::Float32, {1, channels, size, size});
  NodePtr filters = computed(DType::Float32, {4, channels, 3, 3});
  return pending(OpKind::Conv2d, DType::Float32, {1, 4, size - 2, size - 2},
                 {images, filters}, [](Node &n) {
                   n.ints = {1, 1};
                   n.ints2 = {1, 1};
                   n.ints3 = {0, 0, 0, 0};
                 });
}

/// Sizes of `trace` (numbered as traceSizes()) that differ from `first`'s.
std::vector<bool> differingSizes(const Trace &first, const Trace &trace) {
  std::vector<int64_t> a, b;
  traceSizes(first, a);
  traceSizes(trace, b);
  std::vector<bool> differ(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    differ[i] = a[i] != b[i];
  return differ;
}

TEST(FunctionCacheTest, CompilesAStructureOnceWithItsLiteralsBakedIn) {
  CacheUnderTest t;
  resetMetrics();
  Selection first = t.select(traceOf(scaled(8, 2.0)));
  ASSERT_TRUE(first.function);
  EXPECT_EQ(first.miss, explain::MissReason::NothingCached);
  ASSERT_EQ(t.compiles.size(), 1u);
  EXPECT_EQ(t.compiles[0].promoted, std::vector<bool>{});
  EXPECT_FALSE(t.compiles[0].allSizesDynamic);
  EXPECT_FALSE(first.readsSizes);

  Selection again = t.select(traceOf(scaled(8, 2.0)));
  EXPECT_EQ(again.function, first.function);
  EXPECT_FALSE(again.miss);
  EXPECT_EQ(t.compiles.size(), 1u);
  EXPECT_EQ(metrics().cacheHits, 1u);
  EXPECT_EQ(metrics().cacheMisses, 1u);
}

TEST(FunctionCacheTest, PromotesTheLiteralsThatVaryOnce) {
  CacheUnderTest t;
  Selection baked = t.select(traceOf(scaled(8, 2.0)));
  Selection promoted = t.select(traceOf(scaled(8, 3.0)));
  EXPECT_EQ(promoted.miss, explain::MissReason::ConstantsChanged);
  ASSERT_EQ(t.compiles.size(), 2u);
  // The scale varied, the 1 did not: only the scale is an argument.
  EXPECT_EQ(t.compiles[1].promoted, (std::vector<bool>{true, false}));
  EXPECT_EQ(promoted.promoted, (std::vector<bool>{true, false}));
  EXPECT_NE(promoted.function, baked.function);

  // Any other scale runs on the promoted function; the first one still
  // runs on the baked function.
  Selection other = t.select(traceOf(scaled(8, 5.0)));
  EXPECT_EQ(other.function, promoted.function);
  EXPECT_EQ(other.promoted, (std::vector<bool>{true, false}));
  EXPECT_EQ(t.select(traceOf(scaled(8, 2.0))).function, baked.function);
  EXPECT_EQ(t.compiles.size(), 2u);
}

TEST(FunctionCacheTest, NegativeZeroIsAnotherLiteral) {
  CacheUnderTest t;
  t.select(traceOf(scaled(8, 0.0)));
  Selection negative = t.select(traceOf(scaled(8, -0.0)));
  EXPECT_EQ(negative.miss, explain::MissReason::ConstantsChanged);
  EXPECT_EQ(t.compiles.size(), 2u);
}

TEST(FunctionCacheTest, OtherSizesShareOneShapeGenericFunction) {
  CacheUnderTest t;
  resetMetrics();
  NodePtr eight = scaled(8, 2.0), twelve = scaled(12, 2.0);
  Trace first = traceOf(eight);
  Selection exact = t.select(first);
  Trace wider = traceOf(twelve);
  Selection generic = t.select(wider);
  EXPECT_EQ(generic.miss, explain::MissReason::SizesChanged);
  ASSERT_EQ(t.compiles.size(), 2u);
  EXPECT_FALSE(t.compiles[1].allSizesDynamic);
  EXPECT_EQ(t.compiles[1].dynamicSizes, differingSizes(first, wider));
  EXPECT_TRUE(generic.readsSizes);
  EXPECT_EQ(generic.dynamicSizes, differingSizes(first, wider));
  EXPECT_EQ(metrics().sizesMadeDynamic,
            uint64_t(llvm::count(differingSizes(first, wider), true)));

  // A third size runs on it too; the first size still has its own.
  EXPECT_EQ(t.select(traceOf(scaled(100, 2.0))).function, generic.function);
  EXPECT_EQ(t.select(traceOf(scaled(8, 2.0))).function, exact.function);
  EXPECT_EQ(t.compiles.size(), 2u);

  // A literal that changes as well is promoted in one more compile.
  Selection promoted = t.select(traceOf(scaled(9, 4.0)));
  EXPECT_EQ(t.compiles.size(), 3u);
  EXPECT_EQ(promoted.promoted, (std::vector<bool>{true, false}));
  EXPECT_EQ(t.select(traceOf(scaled(10, 6.0))).function, promoted.function);
  EXPECT_EQ(t.compiles.size(), 3u);
}

TEST(FunctionCacheTest, HintedSizesAreDynamicFromTheFirstTrace) {
  CacheUnderTest t;
  auto hinted = [](int64_t size) {
    NodePtr y = scaled(size, 2.0);
    // The argument x, two levels up.
    hintDynamicSizes(y->inputs[0]->inputs[0], {size});
    return y;
  };
  NodePtr one = hinted(1);
  Trace first = traceOf(one);
  Selection selection = t.select(first);
  EXPECT_EQ(selection.miss, explain::MissReason::NewStructure);
  ASSERT_EQ(t.compiles.size(), 1u);
  std::vector<int64_t> sizes;
  traceSizes(first, sizes);
  std::vector<bool> expected(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    expected[i] = sizes[i] == 1;
  EXPECT_EQ(t.compiles[0].dynamicSizes, expected);
  EXPECT_TRUE(selection.readsSizes);
  for (int64_t size : {7, 33, 100, 1}) {
    NodePtr y = hinted(size);
    EXPECT_EQ(t.select(traceOf(y)).function, selection.function) << size;
  }
  EXPECT_EQ(t.compiles.size(), 1u);
}

TEST(FunctionCacheTest, SizesAKernelIsCompiledForStayStatic) {
  CacheUnderTest t;
  NodePtr small = convolution(3, 8), large = convolution(3, 12),
          otherChannels = convolution(5, 8);
  Trace first = traceOf(small);
  t.select(first);
  // Larger images: the spatial sizes are left to the call.
  Trace larger = traceOf(large);
  Selection generic = t.select(larger);
  ASSERT_EQ(t.compiles.size(), 2u);
  EXPECT_EQ(t.compiles[1].dynamicSizes, differingSizes(first, larger));
  EXPECT_TRUE(generic.readsSizes);

  // Other channels: compiled for its sizes, not left to the call.
  Trace channels = traceOf(otherChannels);
  Selection specialized = t.select(channels);
  ASSERT_EQ(t.compiles.size(), 3u);
  EXPECT_FALSE(llvm::is_contained(t.compiles[2].dynamicSizes, true));
  EXPECT_FALSE(specialized.readsSizes);
  // It starts the structure over: its channels at other image sizes share
  // one function again.
  Selection five = t.select(traceOf(convolution(5, 20)));
  ASSERT_EQ(t.compiles.size(), 4u);
  EXPECT_TRUE(five.readsSizes);
  EXPECT_EQ(t.select(traceOf(convolution(5, 30))).function, five.function);
  EXPECT_EQ(t.compiles.size(), 4u);

  std::vector<bool> kernelSizes;
  specializedSizes(first, kernelSizes);
  std::vector<int64_t> sizes;
  traceSizes(first, sizes);
  // images [1, 3, 8, 8], filters [4, 3, 3, 3], result [1, 4, 6, 6]: C; F,
  // C, KH, KW; F.
  std::vector<bool> expected = {false, true, false, false, //
                                true,  true, true,  true,  //
                                false, true, false, false};
  EXPECT_EQ(kernelSizes, expected);
}

TEST(FunctionCacheTest, AStructureWhoseSizesCannotBeDynamicStaysStatic) {
  CacheUnderTest t;
  t.failDynamic = true;
  t.select(traceOf(scaled(8, 2.0)));
  Selection wider = t.select(traceOf(scaled(12, 2.0)));
  ASSERT_TRUE(wider.function);
  EXPECT_FALSE(wider.readsSizes);
  ASSERT_EQ(t.compiles.size(), 2u);
  EXPECT_EQ(t.compiles[1].dynamicSizes, std::vector<bool>{});
  // Not tried again: each new size compiles for itself.
  t.failDynamic = false;
  t.select(traceOf(scaled(16, 2.0)));
  ASSERT_EQ(t.compiles.size(), 3u);
  EXPECT_EQ(t.compiles[2].dynamicSizes, std::vector<bool>{});
}

TEST(FunctionCacheTest, AKeyCollisionIsAMissNotAHit) {
  CacheUnderTest t;
  NodePtr product = scaled(8, 2.0);
  NodePtr exp = elementwise(OpKind::Exp, {computed(DType::Float32, {8})});
  Trace first = traceOf(product, /*eager=*/true);
  Selection served = t.select(first, SelectMode::Eager);
  Trace other = traceOf(exp, /*eager=*/true);
  other.key = first.key; // Same key, another structure.
  Selection collided = t.select(other, SelectMode::Eager);
  EXPECT_TRUE(collided.miss);
  EXPECT_NE(collided.function, served.function);
  EXPECT_EQ(t.compiles.size(), 2u);
}

TEST(FunctionCacheTest, EagerModeLeavesEverySizeToTheCall) {
  CacheUnderTest t;
  Selection selection =
      t.select(traceOf(scaled(8, 2.0), true), SelectMode::Eager);
  ASSERT_EQ(t.compiles.size(), 1u);
  EXPECT_TRUE(t.compiles[0].allSizesDynamic);
  EXPECT_TRUE(selection.readsSizes);
  EXPECT_TRUE(selection.dynamicSizes.empty());
  // One entry: eager traces keep no shape-generic one.
  EXPECT_EQ(t.cache.size(), 1u);
  // Eager signatures hold ranks, not sizes: another size is a hit.
  EXPECT_EQ(
      t.select(traceOf(scaled(20, 2.0), true), SelectMode::Eager).function,
      selection.function);
}

TEST(FunctionCacheTest, EvictsTheLeastRecentlyUsed) {
  CacheUnderTest t(/*capacity=*/2);
  NodePtr x = computed(DType::Float32, {8});
  NodePtr product = scaled(8, 2.0), exp = elementwise(OpKind::Exp, {x}),
          tanh = elementwise(OpKind::Tanh, {x});
  Trace a = traceOf(product, true), b = traceOf(exp, true),
        c = traceOf(tanh, true);
  t.select(a, SelectMode::Eager);
  t.select(b, SelectMode::Eager);
  EXPECT_FALSE(t.select(a, SelectMode::Eager).miss); // a is now the newest.
  t.select(c, SelectMode::Eager);                    // Evicts b.
  EXPECT_EQ(t.cache.size(), 2u);
  EXPECT_TRUE(t.cache.contains(a));
  EXPECT_FALSE(t.cache.contains(b));
  EXPECT_TRUE(t.cache.contains(c));
  EXPECT_TRUE(t.select(b, SelectMode::Eager).miss);
  EXPECT_EQ(t.compiles.size(), 4u);
}

TEST(FunctionCacheTest, TellsWhyATraceMissed) {
  CacheUnderTest t;
  t.select(traceOf(scaled(8, 2.0)));
  Selection other = t.select(traceOf(scaled(8, 2.0, DType::Float64)));
  EXPECT_EQ(other.miss, explain::MissReason::DtypeChanged);
}

TEST(FunctionCacheTest, RunsOpByOpWhileTheBackgroundCompileRuns) {
  setAsyncCompile(true);
  llvm::scope_exit sync([] { setAsyncCompile(false); });
  CacheUnderTest t;
  NodePtr y = scaled(8, 2.0);
  Trace trace = traceOf(y);
  Selection first = t.select(trace);
  EXPECT_FALSE(first.function);
  EXPECT_TRUE(first.miss);
  EXPECT_EQ(t.backgroundCompiles, 1);
  Selection meanwhile = t.select(trace);
  EXPECT_FALSE(meanwhile.function);
  EXPECT_FALSE(meanwhile.miss);
  EXPECT_EQ(t.backgroundCompiles, 1);

  auto compiled = std::make_shared<StandInFunction>();
  t.background.set_value(compiled);
  EXPECT_EQ(t.select(trace).function, compiled);
  EXPECT_TRUE(t.compiles.empty());
}

TEST(FunctionCacheTest, AFailedBackgroundCompileCompilesOnTheCallingThread) {
  setAsyncCompile(true);
  llvm::scope_exit sync([] { setAsyncCompile(false); });
  CacheUnderTest t;
  NodePtr y = scaled(8, 2.0);
  Trace trace = traceOf(y);
  t.select(trace);
  t.background.set_value(nullptr); // The compile failed.
  Selection selection = t.select(trace);
  EXPECT_TRUE(selection.function);
  EXPECT_EQ(t.compiles.size(), 1u);
  EXPECT_EQ(t.backgroundCompiles, 1);
}

} // namespace
