//===- Attention.cpp - Tiled scaled dot-product attention on the CPU ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the CPU attention kernels of Attention.h in the
// FlashAttention-2 scheme. The forward pass takes a block of query rows at a
// time and walks the keys a block at a time: the scores of the tile (one
// GEMM), their running row maximum m and sum l, and the output rows
// accumulated as acc * exp(m_old - m_new) + P V (a second GEMM); each row
// ends as acc / l with m + log(l) after it. The backward passes recompute
// the tile's probabilities from that log-sum-exp instead of storing them:
// one pass over query blocks for dq, one over key blocks for dk and dv, so
// neither needs atomics.
//
// The products run on OpenBLAS (Gemm.h); what lies between them (masks,
// exp, sums, dropout) is loops the compiler vectorizes. Those are built for
// AVX-512, AVX2 and baseline x86-64 and picked at the first call: the
// runtime is built for baseline x86-64, and with SSE2 alone the forward pass
// took a third longer.
//
// Rows with no finite score (no keys, or a bias of -inf everywhere) give
// rows of 0 with a log-sum-exp of -inf, and no gradient.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Attention.h"

#include "Gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#define LAZYRT_ALWAYS_INLINE inline __attribute__((always_inline))

// From omp.h (not on the include path: Threads.cpp says why).
extern "C" int omp_get_max_threads(void);

namespace {

/// The largest tile: 256 queries by 256 keys measured fastest (64 x 256 to
/// 512 x 512 all within 15%). OpenBLAS repacks both operands at every
/// product, and the score product's inner size is only the depth, so larger
/// tiles amortize more; one or two tiles of scratch still fit in L2.
constexpr int64_t tileSize = 256;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The block of rows (queries, or keys for dk and dv) a parallel task
/// takes: the largest tile, halved down to 64 while that would leave fewer
/// than 4 tasks per thread, so that short sequences use every thread too.
int64_t taskBlock(int64_t batch, int64_t rows) {
  int64_t tasks = 4 * int64_t(omp_get_max_threads());
  int64_t block = tileSize;
  while (block > 64 && batch * ceilDiv(rows, block) < tasks)
    block /= 2;
  return block;
}

/// The sizes of a call (Attention.h's `sizes`).
struct Shape {
  int64_t batchSizes[4];
  int64_t batch, queries, keys, depth, valueDepth;
  /// The bias's strides over [batch0..3, queries, keys]: 0 where it
  /// broadcasts.
  int64_t biasStrides[6];
};

Shape readShape(const int64_t *sizes, bool hasBias) {
  Shape shape;
  shape.batch = 1;
  for (int dim = 0; dim < 4; ++dim) {
    shape.batchSizes[dim] = sizes[dim];
    shape.batch *= sizes[dim];
  }
  shape.queries = sizes[4];
  shape.keys = sizes[5];
  shape.depth = sizes[6];
  shape.valueDepth = sizes[7];
  int64_t stride = 1;
  for (int dim = 5; dim >= 0; --dim) {
    int64_t size = hasBias ? sizes[8 + dim] : 1;
    shape.biasStrides[dim] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return shape;
}

constexpr uint64_t golden = 0x9E3779B97F4A7C15ull;

/// Whether the element of random state `state` survives dropout:
/// SplitMix64's top 24 bits, u = bits * 2^-24 >= (float)dropout, compared
/// as integers (`threshold` = ceil((float)dropout * 2^24), exact).
LAZYRT_ALWAYS_INLINE bool kept(uint64_t state, uint32_t threshold) {
  uint64_t z = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return uint32_t(z >> 40) >= threshold;
}

/// exp(x) for x <= 88 in f32, branch-free so that loops of it vectorize
/// (std::exp would be a call per score): x = k ln2 + r with |r| <= ln2 / 2,
/// Cephes's expf polynomial for exp(r) (about 1 ulp), times 2^k built in
/// the exponent bits. Results that would be subnormal are 0, so masked
/// scores (lowest - m, -inf) weigh exactly 0.
struct FastExp {
  LAZYRT_ALWAYS_INLINE float operator()(float x) const {
    constexpr float smallest = -87.33654475f; // ln(2^-126)
    bool underflows = x < smallest;
    x = std::min(std::max(x, smallest), 88.0f);
    // Adding 1.5 * 2^23 rounds x / ln2 to an integer k, left in the low
    // mantissa bits (no float-to-int conversion, which NaN would make UB).
    constexpr float shifter = 12582912.0f;
    float shifted = x * 1.44269504088896341f + shifter;
    float k = shifted - shifter;
    float r = x - k * 0.693359375f;
    r = r - k * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float expR = p * (r * r) + r + 1.0f;
    uint32_t exponent = (std::bit_cast<uint32_t>(shifted) << 23) + (127u << 23);
    float result = expR * std::bit_cast<float>(exponent);
    return underflows ? 0.0f : result;
  }
};

/// f64 is for accuracy, not speed.
struct StdExp {
  double operator()(double x) const { return std::exp(x); }
};

/// Attention.h's dropout for one call.
template <typename T> struct Dropout {
  bool enabled = false;
  uint32_t threshold = 0;
  /// What kept elements are scaled by: 1 / (1 - dropout), 0 for 1.
  T keepScale = 1;
  uint64_t seed = 0;
};

template <typename T> Dropout<T> readDropout(double dropout, int64_t seed) {
  Dropout<T> result;
  result.enabled = dropout > 0;
  if (!result.enabled)
    return result;
  // u is k * 2^-24 for an integer k < 2^24, so u >= p iff k >= ceil(p 2^24).
  double threshold = std::ceil(double(static_cast<float>(dropout)) * 0x1p24);
  result.threshold = uint32_t(std::min(threshold, 0x1p24));
  result.keepScale = dropout == 1 ? T(0) : T(1.0 / (1.0 - dropout));
  result.seed = uint64_t(seed);
  return result;
}

/// A tile of scores: rows [row0, row0 + rows) of one batch slice against
/// keys [key0, key0 + columns), and what is added to them.
template <typename T> struct Tile {
  T *scores;
  int64_t ldScores;
  int64_t rows, columns, row0, key0;
  /// The bias at (row0, key0) of the slice, or null.
  const T *bias;
  int64_t biasRowStride, biasKeyStride;
  bool causal;
  const Dropout<T> *dropout;
  /// The random state of element (row0, key0), and its step per row (per
  /// key, it is `golden`).
  uint64_t state, stateRowStep;
};

/// Adds the bias and the causal mask to row `r` of the tile's scores.
template <typename T>
LAZYRT_ALWAYS_INLINE void addMasks(const Tile<T> &tile, int64_t r, T *s) {
  if (tile.bias) {
    const T *bias = tile.bias + r * tile.biasRowStride;
    if (tile.biasKeyStride) {
      for (int64_t c = 0; c < tile.columns; ++c)
        s[c] += bias[c];
    } else {
      T value = bias[0];
      for (int64_t c = 0; c < tile.columns; ++c)
        s[c] += value;
    }
  }
  if (tile.causal) {
    // `+ lowest` rather than -inf: the materialized form's operation.
    int64_t first = std::max<int64_t>(0, tile.row0 + r - tile.key0 + 1);
    for (int64_t c = first; c < tile.columns; ++c)
      s[c] += std::numeric_limits<T>::lowest();
  }
}

/// The maximum of `max` and s[0..count). (The loop vectorizer takes no
/// reduction by max, nor reorders a float sum; 16 independent lanes the
/// SLP vectorizer takes.)
template <typename T>
LAZYRT_ALWAYS_INLINE T rowMax(const T *s, int64_t count, T max) {
  constexpr int lanes = 16;
  T partial[lanes];
  for (int lane = 0; lane < lanes; ++lane)
    partial[lane] = max;
  int64_t c = 0;
  for (; c + lanes <= count; c += lanes)
    for (int lane = 0; lane < lanes; ++lane)
      partial[lane] = partial[lane] < s[c + lane] ? s[c + lane] : partial[lane];
  for (; c < count; ++c)
    max = max < s[c] ? s[c] : max;
  for (int lane = 0; lane < lanes; ++lane)
    max = max < partial[lane] ? partial[lane] : max;
  return max;
}

/// The sum of s[0..count), in 16 lanes for the same reason.
template <typename T> LAZYRT_ALWAYS_INLINE T rowSum(const T *s, int64_t count) {
  constexpr int lanes = 16;
  T partial[lanes] = {};
  int64_t c = 0;
  for (; c + lanes <= count; c += lanes)
    for (int lane = 0; lane < lanes; ++lane)
      partial[lane] += s[c + lane];
  T sum = 0;
  for (; c < count; ++c)
    sum += s[c];
  for (int lane = 0; lane < lanes; ++lane)
    sum += partial[lane];
  return sum;
}

/// The forward pass's work on a tile of scores: masks them, folds them into
/// the running maximum and sum of each row (rescaling the row's
/// accumulator), and leaves the dropped-out probabilities in their place.
template <typename T, typename Exp>
LAZYRT_ALWAYS_INLINE void forwardTileImpl(const Tile<T> &tile, T *runningMax,
                                          T *runningSum, T *acc, int64_t ldAcc,
                                          int64_t valueDepth) {
  Exp exp;
  for (int64_t r = 0; r < tile.rows; ++r) {
    T *s = tile.scores + r * tile.ldScores;
    addMasks(tile, r, s);
    T max = rowMax(s, tile.columns, runningMax[r]);
    // While every score so far is -inf, shifting by 0 keeps exp(-inf - -inf)
    // (NaN) out of the row.
    T shift = max == -std::numeric_limits<T>::infinity() ? T(0) : max;
    for (int64_t c = 0; c < tile.columns; ++c)
      s[c] = exp(s[c] - shift);
    T sum = rowSum(s, tile.columns);
    if (tile.dropout->enabled) {
      uint64_t state = tile.state + uint64_t(r) * tile.stateRowStep;
      uint32_t threshold = tile.dropout->threshold;
      T keepScale = tile.dropout->keepScale;
      for (int64_t c = 0; c < tile.columns; ++c)
        s[c] = kept(state + uint64_t(c) * golden, threshold) ? s[c] * keepScale
                                                             : T(0);
    }
    T rescale = exp(runningMax[r] - shift);
    runningSum[r] = runningSum[r] * rescale + sum;
    runningMax[r] = max;
    T *accRow = acc + r * ldAcc;
    for (int64_t c = 0; c < valueDepth; ++c)
      accRow[c] *= rescale;
  }
}

/// The backward passes' work on a tile: given the scores and `grad` =
/// dOut V^T, leaves dS = P * (dropout(dP) - D) in `grad` and dropout(P) in
/// the scores, P = exp((s - shift) - logSum) per row.
template <typename T, typename Exp>
LAZYRT_ALWAYS_INLINE void backwardTileImpl(const Tile<T> &tile, const T *shift,
                                           const T *logSum, const T *outDot,
                                           T *grad, int64_t ldGrad) {
  Exp exp;
  for (int64_t r = 0; r < tile.rows; ++r) {
    T *s = tile.scores + r * tile.ldScores;
    T *g = grad + r * ldGrad;
    addMasks(tile, r, s);
    T rowShift = shift[r], rowLogSum = logSum[r], dot = outDot[r];
    if (!tile.dropout->enabled) {
      for (int64_t c = 0; c < tile.columns; ++c) {
        T p = exp((s[c] - rowShift) - rowLogSum);
        g[c] = p * (g[c] - dot);
        s[c] = p;
      }
      continue;
    }
    uint64_t state = tile.state + uint64_t(r) * tile.stateRowStep;
    uint32_t threshold = tile.dropout->threshold;
    T keepScale = tile.dropout->keepScale;
    for (int64_t c = 0; c < tile.columns; ++c) {
      T p = exp((s[c] - rowShift) - rowLogSum);
      bool keep = kept(state + uint64_t(c) * golden, threshold);
      g[c] = p * ((keep ? g[c] * keepScale : T(0)) - dot);
      s[c] = keep ? p * keepScale : T(0);
    }
  }
}

template <typename T>
using ForwardTileFn = void (*)(const Tile<T> &, T *, T *, T *, int64_t,
                               int64_t);
template <typename T>
using BackwardTileFn = void (*)(const Tile<T> &, const T *, const T *,
                                const T *, T *, int64_t);

// The f32 tile functions, once per instruction set (the always-inline
// bodies take the caller's target).
#define LAZYRT_TILE_FUNCTIONS(SUFFIX, TARGET)                                  \
  TARGET void forwardTile##SUFFIX(const Tile<float> &tile, float *runningMax,  \
                                  float *runningSum, float *acc,               \
                                  int64_t ldAcc, int64_t valueDepth) {         \
    forwardTileImpl<float, FastExp>(tile, runningMax, runningSum, acc, ldAcc,  \
                                    valueDepth);                               \
  }                                                                            \
  TARGET void backwardTile##SUFFIX(                                            \
      const Tile<float> &tile, const float *shift, const float *logSum,        \
      const float *outDot, float *grad, int64_t ldGrad) {                      \
    backwardTileImpl<float, FastExp>(tile, shift, logSum, outDot, grad,        \
                                     ldGrad);                                  \
  }
LAZYRT_TILE_FUNCTIONS(Avx512, __attribute__((target("avx512f,avx512dq"))))
LAZYRT_TILE_FUNCTIONS(Avx2, __attribute__((target("avx2,fma"))))
LAZYRT_TILE_FUNCTIONS(Baseline, )
#undef LAZYRT_TILE_FUNCTIONS

void forwardTileF64(const Tile<double> &tile, double *runningMax,
                    double *runningSum, double *acc, int64_t ldAcc,
                    int64_t valueDepth) {
  forwardTileImpl<double, StdExp>(tile, runningMax, runningSum, acc, ldAcc,
                                  valueDepth);
}

void backwardTileF64(const Tile<double> &tile, const double *shift,
                     const double *logSum, const double *outDot, double *grad,
                     int64_t ldGrad) {
  backwardTileImpl<double, StdExp>(tile, shift, logSum, outDot, grad, ldGrad);
}

/// The tile functions for T on this CPU.
template <typename T> struct TileFunctions {
  ForwardTileFn<T> forward;
  BackwardTileFn<T> backward;
};

template <typename T> TileFunctions<T> tileFunctions();

template <> TileFunctions<double> tileFunctions<double>() {
  return {forwardTileF64, backwardTileF64};
}

template <> TileFunctions<float> tileFunctions<float>() {
  static const TileFunctions<float> functions = []() -> TileFunctions<float> {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
      return {forwardTileAvx512, backwardTileAvx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return {forwardTileAvx2, backwardTileAvx2};
    return {forwardTileBaseline, backwardTileBaseline};
  }();
  return functions;
}

/// The operands and parameters of a call.
template <typename T> struct Problem {
  const T *q, *k, *v, *bias;
  Shape shape;
  T scale;
  bool causal;
  Dropout<T> dropout;

  Problem(const T *q, const T *k, const T *v, const T *bias,
          const int64_t *sizes, double scale, double dropout, int64_t seed,
          int32_t causal)
      : q(q), k(k), v(v), bias(bias), shape(readShape(sizes, bias != nullptr)),
        scale(T(scale)), causal(causal),
        dropout(readDropout<T>(dropout, seed)) {}

  const T *queryRows(int64_t n, int64_t row) const {
    return q + (n * shape.queries + row) * shape.depth;
  }
  const T *keyRows(int64_t n, int64_t key) const {
    return k + (n * shape.keys + key) * shape.depth;
  }
  const T *valueRows(int64_t n, int64_t key) const {
    return v + (n * shape.keys + key) * shape.valueDepth;
  }

  /// The bias of (slice n, row, key), or null without one.
  const T *biasAt(int64_t n, int64_t row, int64_t key) const {
    if (!bias)
      return nullptr;
    int64_t offset = row * shape.biasStrides[4] + key * shape.biasStrides[5];
    for (int dim = 3; dim >= 0; --dim) {
      offset += (n % shape.batchSizes[dim]) * shape.biasStrides[dim];
      n /= shape.batchSizes[dim];
    }
    return bias + offset;
  }

  /// Tile `scores` (row stride ldScores) of slice n.
  Tile<T> tile(T *scores, int64_t ldScores, int64_t n, int64_t row0,
               int64_t rows, int64_t key0, int64_t columns) const {
    uint64_t counter = (uint64_t(n) * shape.queries + row0) * shape.keys + key0;
    return {scores,
            ldScores,
            rows,
            columns,
            row0,
            key0,
            biasAt(n, row0, key0),
            shape.biasStrides[4],
            shape.biasStrides[5],
            causal,
            &dropout,
            dropout.seed + (counter + 1) * golden,
            uint64_t(shape.keys) * golden};
  }

  /// The end of the keys query rows up to `rowEnd` see.
  int64_t keyEnd(int64_t rowEnd) const {
    return causal ? std::min(shape.keys, rowEnd) : shape.keys;
  }
};

template <typename T> void fill(T *data, int64_t count, T value) {
  std::fill(data, data + count, value);
}

template <typename T> void forward(const Problem<T> &problem, T *out) {
  const Shape &shape = problem.shape;
  int64_t queries = shape.queries, depth = shape.depth,
          valueDepth = shape.valueDepth;
  int64_t queryBlock = taskBlock(shape.batch, queries), keyBlock = tileSize;
  int64_t blocks = ceilDiv(queries, queryBlock);
  int64_t tasks = shape.batch * blocks;
  int64_t ldAcc = std::max<int64_t>(valueDepth, 1);
  ForwardTileFn<T> tileFn = tileFunctions<T>().forward;
#pragma omp parallel if (tasks > 1)
  {
    std::unique_ptr<T[]> scores(new T[queryBlock * keyBlock]);
    std::unique_ptr<T[]> acc(new T[queryBlock * ldAcc]);
    T runningMax[tileSize], runningSum[tileSize];
#pragma omp for schedule(dynamic)
    for (int64_t task = 0; task < tasks; ++task) {
      // The last query blocks first: under a causal mask they see the most
      // keys.
      int64_t n = task % shape.batch, block = blocks - 1 - task / shape.batch;
      int64_t row0 = block * queryBlock;
      int64_t rows = std::min(queryBlock, queries - row0);
      int64_t keyEnd = problem.keyEnd(row0 + rows);
      fill(runningMax, rows, -std::numeric_limits<T>::infinity());
      fill(runningSum, rows, T(0));
      fill(acc.get(), rows * ldAcc, T(0));
      for (int64_t key0 = 0; key0 < keyEnd; key0 += keyBlock) {
        int64_t columns = std::min(keyBlock, keyEnd - key0);
        lazyrt::gemm(false, true, rows, columns, depth, problem.scale,
                     problem.queryRows(n, row0), depth,
                     problem.keyRows(n, key0), depth, T(0), scores.get(),
                     keyBlock);
        Tile<T> tile =
            problem.tile(scores.get(), keyBlock, n, row0, rows, key0, columns);
        tileFn(tile, runningMax, runningSum, acc.get(), ldAcc, valueDepth);
        lazyrt::gemm(false, false, rows, valueDepth, columns, T(1),
                     scores.get(), keyBlock, problem.valueRows(n, key0),
                     valueDepth, T(1), acc.get(), ldAcc);
      }
      for (int64_t r = 0; r < rows; ++r) {
        T *outRow = out + (n * queries + row0 + r) * (valueDepth + 1);
        const T *accRow = acc.get() + r * ldAcc;
        T sum = runningSum[r];
        for (int64_t c = 0; c < valueDepth; ++c)
          outRow[c] = sum > 0 ? accRow[c] / sum : T(0);
        outRow[valueDepth] = sum > 0 ? runningMax[r] + std::log(sum)
                                     : -std::numeric_limits<T>::infinity();
      }
    }
  }
}

/// What the backward passes need per query row, [batch * queries] each:
/// the probabilities are exp((s - shift) - logSum), and outDot is
/// D = rowsum(dOut * out).
template <typename T> struct RowStatistics {
  std::unique_ptr<T[]> storage;
  T *shift, *logSum, *outDot;
};

/// Above this, m + log(l) has lost too much of log(l) (all of it where a
/// bias of lowest masks a whole row, which must stay uniform): such rows get
/// their m and l again from their scores.
template <typename T> constexpr T largeLogSumExp = T(1024);

template <typename T>
RowStatistics<T> rowStatistics(const Problem<T> &problem, const T *out,
                               const T *dOut) {
  const Shape &shape = problem.shape;
  int64_t rows = shape.batch * shape.queries, valueDepth = shape.valueDepth;
  RowStatistics<T> stats;
  stats.storage.reset(new T[3 * rows]);
  stats.shift = stats.storage.get();
  stats.logSum = stats.shift + rows;
  stats.outDot = stats.logSum + rows;
#pragma omp parallel if (rows > 1)
  {
    std::unique_ptr<T[]> scores;
#pragma omp for schedule(dynamic, 64)
    for (int64_t row = 0; row < rows; ++row) {
      const T *outRow = out + row * (valueDepth + 1);
      const T *dOutRow = dOut + row * valueDepth;
      double dot = 0;
      for (int64_t c = 0; c < valueDepth; ++c)
        dot += double(dOutRow[c]) * double(outRow[c]);
      stats.outDot[row] = T(dot);
      T logSumExp = outRow[valueDepth];
      if (std::fabs(logSumExp) < largeLogSumExp<T>) {
        stats.shift[row] = logSumExp;
        stats.logSum[row] = 0;
        continue;
      }
      int64_t n = row / shape.queries, i = row % shape.queries;
      int64_t keyEnd = problem.keyEnd(i + 1);
      if (!scores)
        scores.reset(new T[std::max<int64_t>(shape.keys, 1)]);
      lazyrt::gemm(false, true, 1, keyEnd, shape.depth, problem.scale,
                   problem.queryRows(n, i), shape.depth, problem.keyRows(n, 0),
                   shape.depth, T(0), scores.get(), keyEnd);
      T max = -std::numeric_limits<T>::infinity();
      for (int64_t j = 0; j < keyEnd; ++j) {
        if (const T *bias = problem.biasAt(n, i, j))
          scores[j] += *bias;
        max = std::max(max, scores[j]);
      }
      double sum = 0;
      if (max != -std::numeric_limits<T>::infinity())
        for (int64_t j = 0; j < keyEnd; ++j)
          sum += std::exp(double(scores[j]) - double(max));
      // No finite score: every probability 0.
      stats.shift[row] = sum > 0 ? max : T(0);
      stats.logSum[row] =
          sum > 0 ? T(std::log(sum)) : std::numeric_limits<T>::infinity();
    }
  }
  return stats;
}

template <typename T>
void backwardQuery(const Problem<T> &problem, const T *out, const T *dOut,
                   T *dq) {
  const Shape &shape = problem.shape;
  int64_t queries = shape.queries, depth = shape.depth,
          valueDepth = shape.valueDepth;
  RowStatistics<T> stats = rowStatistics(problem, out, dOut);
  int64_t queryBlock = taskBlock(shape.batch, queries), keyBlock = tileSize;
  int64_t blocks = ceilDiv(queries, queryBlock);
  int64_t tasks = shape.batch * blocks;
  BackwardTileFn<T> tileFn = tileFunctions<T>().backward;
#pragma omp parallel if (tasks > 1)
  {
    std::unique_ptr<T[]> scores(new T[queryBlock * keyBlock]);
    std::unique_ptr<T[]> grad(new T[queryBlock * keyBlock]);
#pragma omp for schedule(dynamic)
    for (int64_t task = 0; task < tasks; ++task) {
      // The last query blocks first, as in the forward pass.
      int64_t n = task % shape.batch, block = blocks - 1 - task / shape.batch;
      int64_t row0 = block * queryBlock;
      int64_t rows = std::min(queryBlock, queries - row0);
      int64_t keyEnd = problem.keyEnd(row0 + rows);
      int64_t firstRow = n * queries + row0;
      T *dqRows = dq + firstRow * depth;
      fill(dqRows, rows * depth, T(0));
      for (int64_t key0 = 0; key0 < keyEnd; key0 += keyBlock) {
        int64_t columns = std::min(keyBlock, keyEnd - key0);
        lazyrt::gemm(false, true, rows, columns, depth, problem.scale,
                     problem.queryRows(n, row0), depth,
                     problem.keyRows(n, key0), depth, T(0), scores.get(),
                     keyBlock);
        lazyrt::gemm(false, true, rows, columns, valueDepth, T(1),
                     dOut + firstRow * valueDepth, valueDepth,
                     problem.valueRows(n, key0), valueDepth, T(0), grad.get(),
                     keyBlock);
        Tile<T> tile =
            problem.tile(scores.get(), keyBlock, n, row0, rows, key0, columns);
        tileFn(tile, stats.shift + firstRow, stats.logSum + firstRow,
               stats.outDot + firstRow, grad.get(), keyBlock);
        lazyrt::gemm(false, false, rows, depth, columns, problem.scale,
                     grad.get(), keyBlock, problem.keyRows(n, key0), depth,
                     T(1), dqRows, depth);
      }
    }
  }
}

template <typename T>
void backwardKeyValue(const Problem<T> &problem, const T *out, const T *dOut,
                      T *dkv) {
  const Shape &shape = problem.shape;
  int64_t queries = shape.queries, keys = shape.keys, depth = shape.depth,
          valueDepth = shape.valueDepth, ldDkv = depth + valueDepth;
  RowStatistics<T> stats = rowStatistics(problem, out, dOut);
  int64_t queryBlock = tileSize, keyBlock = taskBlock(shape.batch, keys);
  int64_t blocks = ceilDiv(keys, keyBlock);
  int64_t tasks = shape.batch * blocks;
  BackwardTileFn<T> tileFn = tileFunctions<T>().backward;
#pragma omp parallel if (tasks > 1)
  {
    std::unique_ptr<T[]> scores(new T[queryBlock * keyBlock]);
    std::unique_ptr<T[]> grad(new T[queryBlock * keyBlock]);
#pragma omp for schedule(dynamic)
    for (int64_t task = 0; task < tasks; ++task) {
      // The first key blocks first: under a causal mask the most queries
      // see them.
      int64_t n = task % shape.batch, block = task / shape.batch;
      int64_t key0 = block * keyBlock;
      int64_t columns = std::min(keyBlock, keys - key0);
      T *dkvRows = dkv + (n * keys + key0) * ldDkv;
      fill(dkvRows, columns * ldDkv, T(0));
      // Under a causal mask, no query before key0 sees these keys.
      for (int64_t row0 = problem.causal ? key0 : 0; row0 < queries;
           row0 += queryBlock) {
        int64_t rows = std::min(queryBlock, queries - row0);
        int64_t firstRow = n * queries + row0;
        const T *dOutRows = dOut + firstRow * valueDepth;
        lazyrt::gemm(false, true, rows, columns, depth, problem.scale,
                     problem.queryRows(n, row0), depth,
                     problem.keyRows(n, key0), depth, T(0), scores.get(),
                     keyBlock);
        lazyrt::gemm(false, true, rows, columns, valueDepth, T(1), dOutRows,
                     valueDepth, problem.valueRows(n, key0), valueDepth, T(0),
                     grad.get(), keyBlock);
        Tile<T> tile =
            problem.tile(scores.get(), keyBlock, n, row0, rows, key0, columns);
        tileFn(tile, stats.shift + firstRow, stats.logSum + firstRow,
               stats.outDot + firstRow, grad.get(), keyBlock);
        // dV += dropout(P)^T dOut, dK += scale * dS^T Q.
        lazyrt::gemm(true, false, columns, valueDepth, rows, T(1), scores.get(),
                     keyBlock, dOutRows, valueDepth, T(1), dkvRows + depth,
                     ldDkv);
        lazyrt::gemm(true, false, columns, depth, rows, problem.scale,
                     grad.get(), keyBlock, problem.queryRows(n, row0), depth,
                     T(1), dkvRows, ldDkv);
      }
    }
  }
}

} // namespace

extern "C" void lazyrt_attention_forward_f32(const float *q, const float *k,
                                             const float *v, const float *bias,
                                             float *out, const int64_t *sizes,
                                             double scale, double dropout,
                                             int64_t seed, int32_t causal) {
  forward(Problem<float>(q, k, v, bias, sizes, scale, dropout, seed, causal),
          out);
}

extern "C" void lazyrt_attention_forward_f64(const double *q, const double *k,
                                             const double *v,
                                             const double *bias, double *out,
                                             const int64_t *sizes, double scale,
                                             double dropout, int64_t seed,
                                             int32_t causal) {
  forward(Problem<double>(q, k, v, bias, sizes, scale, dropout, seed, causal),
          out);
}

extern "C" void lazyrt_attention_backward_query_f32(
    const float *q, const float *k, const float *v, const float *bias,
    const float *out, const float *dOut, float *dq, const int64_t *sizes,
    double scale, double dropout, int64_t seed, int32_t causal) {
  backwardQuery(
      Problem<float>(q, k, v, bias, sizes, scale, dropout, seed, causal), out,
      dOut, dq);
}

extern "C" void lazyrt_attention_backward_query_f64(
    const double *q, const double *k, const double *v, const double *bias,
    const double *out, const double *dOut, double *dq, const int64_t *sizes,
    double scale, double dropout, int64_t seed, int32_t causal) {
  backwardQuery(
      Problem<double>(q, k, v, bias, sizes, scale, dropout, seed, causal), out,
      dOut, dq);
}

extern "C" void lazyrt_attention_backward_key_value_f32(
    const float *q, const float *k, const float *v, const float *bias,
    const float *out, const float *dOut, float *dkv, const int64_t *sizes,
    double scale, double dropout, int64_t seed, int32_t causal) {
  backwardKeyValue(
      Problem<float>(q, k, v, bias, sizes, scale, dropout, seed, causal), out,
      dOut, dkv);
}

extern "C" void lazyrt_attention_backward_key_value_f64(
    const double *q, const double *k, const double *v, const double *bias,
    const double *out, const double *dOut, double *dkv, const int64_t *sizes,
    double scale, double dropout, int64_t seed, int32_t causal) {
  backwardKeyValue(
      Problem<double>(q, k, v, bias, sizes, scale, dropout, seed, causal), out,
      dOut, dkv);
}
