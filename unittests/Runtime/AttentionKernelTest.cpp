//===- AttentionKernelTest.cpp - Tests of the CPU attention kernels -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Calls the lazyrt_attention_* entry points (f32 and f64) and compares them
// with the materialized form computed in double: the scores matrix (masked
// with the kernels' float operations), its softmax, dropout by the same
// counter rule, and the analytic gradients. The shapes leave partial tiles
// (the kernels' tiles are 64, 128 or 256 rows, depending on the threads, by
// 256 keys), the bias broadcasts in several ways, and one case masks a whole
// row.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Attention.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

/// How the bias is shaped over [batch0..3, queries, keys].
enum class BiasShape { None, QueriesKeys, FirstBatchKeys, Full };

struct Case {
  std::array<int64_t, 4> batchSizes;
  int64_t queries, keys, depth, valueDepth;
  BiasShape bias = BiasShape::None;
  bool causal = false;
  double dropout = 0;
  /// A query row whose bias is lowest for every key (Full bias only), or -1.
  int64_t maskedRow = -1;

  std::string describe() const {
    return "batch " + std::to_string(batchSizes[0]) + "x" +
           std::to_string(batchSizes[1]) + "x" + std::to_string(batchSizes[2]) +
           "x" + std::to_string(batchSizes[3]) + ", queries " +
           std::to_string(queries) + ", keys " + std::to_string(keys) +
           ", depth " + std::to_string(depth) + "/" +
           std::to_string(valueDepth) + ", bias " +
           std::to_string(static_cast<int>(bias)) + (causal ? ", causal" : "") +
           ", dropout " + std::to_string(dropout) +
           (maskedRow >= 0 ? ", masked row" : "");
  }
};

/// A case's operands, as the entry points take them.
template <typename T> struct Operands {
  std::vector<int64_t> sizes;
  int64_t batch;
  std::vector<T> q, k, v, bias, dOut;
  double scale;
  /// Negative: the rule's uint64 arithmetic wraps it.
  int64_t seed = -1234567;
};

template <typename T> Operands<T> makeOperands(const Case &c) {
  Operands<T> ops;
  ops.batch =
      c.batchSizes[0] * c.batchSizes[1] * c.batchSizes[2] * c.batchSizes[3];
  ops.sizes = {c.batchSizes[0], c.batchSizes[1], c.batchSizes[2],
               c.batchSizes[3], c.queries,       c.keys,
               c.depth,         c.valueDepth};
  ops.sizes.resize(LAZYRT_ATTENTION_SIZES, 0);
  std::array<int64_t, 6> biasSizes = {0, 0, 0, 0, 0, 0};
  switch (c.bias) {
  case BiasShape::None:
    break;
  case BiasShape::QueriesKeys:
    biasSizes = {1, 1, 1, 1, c.queries, c.keys};
    break;
  case BiasShape::FirstBatchKeys:
    biasSizes = {c.batchSizes[0], 1, 1, 1, 1, c.keys};
    break;
  case BiasShape::Full:
    biasSizes = {c.batchSizes[0], c.batchSizes[1], c.batchSizes[2],
                 c.batchSizes[3], c.queries,       c.keys};
    break;
  }
  std::copy(biasSizes.begin(), biasSizes.end(), ops.sizes.begin() + 8);
  std::mt19937_64 generator(c.queries * 1000003 + c.keys * 101 + c.depth);
  std::uniform_real_distribution<double> uniform(-2, 2);
  auto random = [&](int64_t count) {
    std::vector<T> values(count);
    for (T &value : values)
      value = T(uniform(generator));
    return values;
  };
  ops.q = random(ops.batch * c.queries * c.depth);
  ops.k = random(ops.batch * c.keys * c.depth);
  ops.v = random(ops.batch * c.keys * c.valueDepth);
  ops.dOut = random(ops.batch * c.queries * c.valueDepth);
  if (c.bias != BiasShape::None) {
    int64_t count = 1;
    for (int64_t size : biasSizes)
      count *= size;
    ops.bias = random(count);
    if (c.maskedRow >= 0)
      for (int64_t n = 0; n < ops.batch; ++n)
        for (int64_t j = 0; j < c.keys; ++j)
          ops.bias[(n * c.queries + c.maskedRow) * c.keys + j] =
              std::numeric_limits<T>::lowest();
  }
  ops.scale = 1 / std::sqrt(double(std::max<int64_t>(c.depth, 1)));
  return ops;
}

/// Attention.h's dropout rule, written out again.
bool keptByDropout(int64_t seed, uint64_t counter, double dropout) {
  uint64_t state = uint64_t(seed) + (counter + 1) * 0x9E3779B97F4A7C15ull;
  uint64_t z = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  float u = float(z >> 40) * 0x1p-24f;
  return u >= float(dropout);
}

/// The materialized form's results, in double.
struct Reference {
  /// [batch, queries, valueDepth + 1], as the forward writes it.
  std::vector<double> out;
  std::vector<double> dq, dkv;
};

template <typename T>
Reference materialized(const Case &c, const Operands<T> &ops) {
  int64_t tq = c.queries, tk = c.keys, d = c.depth, dv = c.valueDepth;
  Reference ref;
  ref.out.assign(ops.batch * tq * (dv + 1), 0);
  ref.dq.assign(ops.batch * tq * d, 0);
  ref.dkv.assign(ops.batch * tk * (d + dv), 0);
  const int64_t *biasSizes = ops.sizes.data() + 8;
  double keepScale = c.dropout == 1 ? 0 : double(T(1 / (1 - c.dropout)));
  // P, dropout's factor (0, keepScale, or 1 without dropout), dS.
  std::vector<double> p(tq * tk), factor(tq * tk), ds(tq * tk);
  for (int64_t n = 0; n < ops.batch; ++n) {
    // The bias element of slice n: each dimension of size 1 broadcasts.
    int64_t index[4], rest = n;
    for (int dim = 3; dim >= 0; --dim) {
      index[dim] = rest % c.batchSizes[dim];
      rest /= c.batchSizes[dim];
    }
    auto biasAt = [&](int64_t i, int64_t j) {
      int64_t offset = 0;
      int64_t position[6] = {index[0], index[1], index[2], index[3], i, j};
      for (int dim = 0; dim < 6; ++dim)
        offset =
            offset * biasSizes[dim] + (biasSizes[dim] == 1 ? 0 : position[dim]);
      return ops.bias[offset];
    };
    const T *q = ops.q.data() + n * tq * d, *k = ops.k.data() + n * tk * d,
            *v = ops.v.data() + n * tk * dv,
            *dOut = ops.dOut.data() + n * tq * dv;
    double *out = ref.out.data() + n * tq * (dv + 1),
           *dq = ref.dq.data() + n * tq * d,
           *dkv = ref.dkv.data() + n * tk * (d + dv);
    for (int64_t i = 0; i < tq; ++i) {
      // The scores go through T where the masks are added, as the kernels
      // and the materialized form add them (lowest + small is lowest).
      std::vector<double> s(tk);
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < tk; ++j) {
        double dot = 0;
        for (int64_t x = 0; x < d; ++x)
          dot += double(q[i * d + x]) * double(k[j * d + x]);
        T score = T(dot * double(T(ops.scale)));
        if (c.bias != BiasShape::None)
          score = score + biasAt(i, j);
        if (c.causal && j > i)
          score = score + std::numeric_limits<T>::lowest();
        s[j] = double(score);
        max = std::max(max, s[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < tk; ++j)
        sum += std::exp(s[j] - max);
      for (int64_t j = 0; j < tk; ++j) {
        p[i * tk + j] = std::exp(s[j] - max) / sum;
        factor[i * tk + j] =
            c.dropout <= 0 ? 1
            : keptByDropout(ops.seed, (n * tq + i) * tk + j, c.dropout)
                ? keepScale
                : 0;
      }
      for (int64_t x = 0; x < dv; ++x) {
        double value = 0;
        for (int64_t j = 0; j < tk; ++j)
          value += p[i * tk + j] * factor[i * tk + j] * double(v[j * dv + x]);
        out[i * (dv + 1) + x] = value;
      }
      out[i * (dv + 1) + dv] = max + std::log(sum);
      // dS = P * (dPd - rowsum(dOut * out)), dPd = dropout(dOut V^T).
      double rowDot = 0;
      for (int64_t x = 0; x < dv; ++x)
        rowDot += double(dOut[i * dv + x]) * out[i * (dv + 1) + x];
      for (int64_t j = 0; j < tk; ++j) {
        double dp = 0;
        for (int64_t x = 0; x < dv; ++x)
          dp += double(dOut[i * dv + x]) * double(v[j * dv + x]);
        ds[i * tk + j] = p[i * tk + j] * (dp * factor[i * tk + j] - rowDot);
      }
    }
    // dQ = scale dS K, dK = scale dS^T Q, dV = Pd^T dOut.
    double scale = double(T(ops.scale));
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t j = 0; j < tk; ++j)
        for (int64_t x = 0; x < d; ++x) {
          dq[i * d + x] += scale * ds[i * tk + j] * double(k[j * d + x]);
          dkv[j * (d + dv) + x] +=
              scale * ds[i * tk + j] * double(q[i * d + x]);
        }
    for (int64_t j = 0; j < tk; ++j)
      for (int64_t x = 0; x < dv; ++x) {
        double value = 0;
        for (int64_t i = 0; i < tq; ++i)
          value +=
              p[i * tk + j] * factor[i * tk + j] * double(dOut[i * dv + x]);
        dkv[j * (d + dv) + d + x] = value;
      }
  }
  return ref;
}

void forward(const Operands<float> &ops, float *out, int32_t causal,
             double dropout) {
  lazyrt_attention_forward_f32(ops.q.data(), ops.k.data(), ops.v.data(),
                               ops.bias.empty() ? nullptr : ops.bias.data(),
                               out, ops.sizes.data(), ops.scale, dropout,
                               ops.seed, causal);
}
void forward(const Operands<double> &ops, double *out, int32_t causal,
             double dropout) {
  lazyrt_attention_forward_f64(ops.q.data(), ops.k.data(), ops.v.data(),
                               ops.bias.empty() ? nullptr : ops.bias.data(),
                               out, ops.sizes.data(), ops.scale, dropout,
                               ops.seed, causal);
}
void backwardQuery(const Operands<float> &ops, const float *out, float *dq,
                   int32_t causal, double dropout) {
  lazyrt_attention_backward_query_f32(
      ops.q.data(), ops.k.data(), ops.v.data(),
      ops.bias.empty() ? nullptr : ops.bias.data(), out, ops.dOut.data(), dq,
      ops.sizes.data(), ops.scale, dropout, ops.seed, causal);
}
void backwardQuery(const Operands<double> &ops, const double *out, double *dq,
                   int32_t causal, double dropout) {
  lazyrt_attention_backward_query_f64(
      ops.q.data(), ops.k.data(), ops.v.data(),
      ops.bias.empty() ? nullptr : ops.bias.data(), out, ops.dOut.data(), dq,
      ops.sizes.data(), ops.scale, dropout, ops.seed, causal);
}
void backwardKeyValue(const Operands<float> &ops, const float *out, float *dkv,
                      int32_t causal, double dropout) {
  lazyrt_attention_backward_key_value_f32(
      ops.q.data(), ops.k.data(), ops.v.data(),
      ops.bias.empty() ? nullptr : ops.bias.data(), out, ops.dOut.data(), dkv,
      ops.sizes.data(), ops.scale, dropout, ops.seed, causal);
}
void backwardKeyValue(const Operands<double> &ops, const double *out,
                      double *dkv, int32_t causal, double dropout) {
  lazyrt_attention_backward_key_value_f64(
      ops.q.data(), ops.k.data(), ops.v.data(),
      ops.bias.empty() ? nullptr : ops.bias.data(), out, ops.dOut.data(), dkv,
      ops.sizes.data(), ops.scale, dropout, ops.seed, causal);
}

/// The tolerance relative to a tensor's largest magnitude. f64 has ~1e-16
/// per operation; the sums run over a few hundred keys. f32 has ~6e-8 per
/// operation, the fast exp up to ~2 ulp, and the log-sum-exp the backward
/// passes read is rounded once to f32 (an error of |lse| ulps in each
/// probability), so 1e-5 of the largest element leaves room for all of it.
template <typename T> constexpr double tolerance = 1e-5;
template <> constexpr double tolerance<double> = 1e-10;

/// Expects `actual` (every `stride` elements from `offset`, `width` at a
/// time) close to `expected` relative to expected's largest magnitude.
template <typename T>
void expectClose(const std::vector<T> &actual,
                 const std::vector<double> &expected, const char *what,
                 int64_t stride = 1, int64_t offset = 0, int64_t width = 1) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double magnitude = 1;
  for (size_t row = offset; row < expected.size(); row += stride)
    for (int64_t x = 0; x < width; ++x)
      magnitude = std::max(magnitude, std::fabs(expected[row + x]));
  int failures = 0;
  for (size_t row = offset; row < expected.size(); row += stride)
    for (int64_t x = 0; x < width; ++x) {
      size_t at = row + x;
      if (std::fabs(double(actual[at]) - expected[at]) <=
          tolerance<T> * magnitude)
        continue;
      if (++failures <= 5)
        ADD_FAILURE() << what << "[" << at << "] is " << actual[at]
                      << ", expected " << expected[at];
    }
  EXPECT_EQ(failures, 0) << what;
}

template <typename T> void check(const Case &c) {
  SCOPED_TRACE(c.describe());
  Operands<T> ops = makeOperands<T>(c);
  Reference ref = materialized(c, ops);
  int64_t tq = c.queries, tk = c.keys, d = c.depth, dv = c.valueDepth;
  std::vector<T> out(ops.batch * tq * (dv + 1), T(-7));
  forward(ops, out.data(), c.causal, c.dropout);
  // The rows, then the log-sum-exp column.
  expectClose(out, ref.out, "out", dv + 1, 0, dv);
  expectClose(out, ref.out, "lse", dv + 1, dv, 1);
  std::vector<T> dq(ops.batch * tq * d, T(-7));
  backwardQuery(ops, out.data(), dq.data(), c.causal, c.dropout);
  expectClose(dq, ref.dq, "dq");
  std::vector<T> dkv(ops.batch * tk * (d + dv), T(-7));
  backwardKeyValue(ops, out.data(), dkv.data(), c.causal, c.dropout);
  expectClose(dkv, ref.dkv, "dk", d + dv, 0, d);
  expectClose(dkv, ref.dkv, "dv", d + dv, d, dv);
}

/// Single slices across tile edges: one query, fewer keys than a tile, more
/// queries than keys and the reverse, tiny and ordinary depths.
std::vector<Case> sliceCases() {
  std::vector<Case> cases;
  struct Sizes {
    int64_t queries, keys, depth, valueDepth;
  };
  for (Sizes sizes :
       {Sizes{1, 5, 3, 4}, Sizes{7, 5, 3, 2}, Sizes{130, 257, 64, 64},
        Sizes{300, 257, 64, 32}, Sizes{7, 257, 3, 5}, Sizes{300, 5, 3, 64}})
    for (bool causal : {false, true})
      for (double dropout : {0.0, 0.3}) {
        Case c;
        c.batchSizes = {1, 1, 1, 1};
        c.queries = sizes.queries;
        c.keys = sizes.keys;
        c.depth = sizes.depth;
        c.valueDepth = sizes.valueDepth;
        c.causal = causal;
        c.dropout = dropout;
        cases.push_back(c);
      }
  return cases;
}

/// Batched slices with each bias shape.
std::vector<Case> biasCases() {
  std::vector<Case> cases;
  for (BiasShape bias :
       {BiasShape::QueriesKeys, BiasShape::FirstBatchKeys, BiasShape::Full})
    for (bool causal : {false, true}) {
      Case c;
      c.batchSizes = {2, 3, 1, 1};
      c.queries = causal ? 300 : 130;
      c.keys = 257;
      c.depth = 16;
      c.valueDepth = 24;
      c.bias = bias;
      c.causal = causal;
      c.dropout = causal ? 0.3 : 0;
      cases.push_back(c);
    }
  return cases;
}

TEST(AttentionKernelTest, SlicesMatchMaterializedF64) {
  for (const Case &c : sliceCases())
    check<double>(c);
}

TEST(AttentionKernelTest, SlicesMatchMaterializedF32) {
  for (const Case &c : sliceCases())
    check<float>(c);
}

TEST(AttentionKernelTest, BroadcastBiasF64) {
  for (const Case &c : biasCases())
    check<double>(c);
}

TEST(AttentionKernelTest, BroadcastBiasF32) {
  for (const Case &c : biasCases())
    check<float>(c);
}

/// Dropout 1 drops every element: the rows are 0, and only the
/// log-sum-exp (the undropped softmax's) remains.
TEST(AttentionKernelTest, DropoutOne) {
  Case c;
  c.batchSizes = {1, 2, 1, 1};
  c.queries = 9;
  c.keys = 270;
  c.depth = 8;
  c.valueDepth = 8;
  c.dropout = 1;
  check<float>(c);
  check<double>(c);
}

/// A row whose bias is lowest for every key: its scores all round to
/// lowest, so its softmax is uniform, in the backward passes too (where
/// m + log(l) has lost log(l) to rounding).
TEST(AttentionKernelTest, FullyMaskedRowIsUniform) {
  for (bool causal : {false, true}) {
    Case c;
    c.batchSizes = {1, 1, 2, 1};
    c.queries = 140;
    c.keys = 300;
    c.depth = 8;
    c.valueDepth = 6;
    c.bias = BiasShape::Full;
    c.causal = causal;
    c.maskedRow = 133;
    c.dropout = 0.3;
    check<float>(c);
    check<double>(c);
  }
}

/// No batch, no queries or no keys: nothing crashes; without keys, each
/// row is 0 with a log-sum-exp of -inf, and the gradients are 0.
TEST(AttentionKernelTest, EmptySizes) {
  for (std::array<int64_t, 4> shape :
       {std::array<int64_t, 4>{0, 4, 5, 0}, std::array<int64_t, 4>{4, 0, 5, 3},
        std::array<int64_t, 4>{4, 5, 0, 3}})
    for (bool causal : {false, true}) {
      int64_t batch = shape[0], tq = shape[1], tk = shape[2], d = 3,
              dv = shape[3];
      int64_t sizes[LAZYRT_ATTENTION_SIZES] = {batch, 1, 1, 1, tq, tk, d,
                                               dv,    0, 0, 0, 0,  0,  0};
      std::vector<float> q(batch * tq * d + 1, 1), k(batch * tk * d + 1, 1),
          v(batch * tk * dv + 1, 1), dOut(batch * tq * dv + 1, 1);
      std::vector<float> out(batch * tq * (dv + 1) + 1, 5),
          dq(batch * tq * d + 1, 5), dkv(batch * tk * (d + dv) + 1, 5);
      lazyrt_attention_forward_f32(q.data(), k.data(), v.data(), nullptr,
                                   out.data(), sizes, 0.5, 0.3, 1, causal);
      lazyrt_attention_backward_query_f32(q.data(), k.data(), v.data(), nullptr,
                                          out.data(), dOut.data(), dq.data(),
                                          sizes, 0.5, 0.3, 1, causal);
      lazyrt_attention_backward_key_value_f32(
          q.data(), k.data(), v.data(), nullptr, out.data(), dOut.data(),
          dkv.data(), sizes, 0.5, 0.3, 1, causal);
      for (int64_t row = 0; row < batch * tq; ++row) {
        for (int64_t x = 0; x < dv; ++x)
          EXPECT_EQ(out[row * (dv + 1) + x], 0);
        EXPECT_EQ(out[row * (dv + 1) + dv],
                  -std::numeric_limits<float>::infinity());
        for (int64_t x = 0; x < d; ++x)
          EXPECT_EQ(dq[row * d + x], 0);
      }
      // Nothing written past the results.
      EXPECT_EQ(out.back(), 5);
      EXPECT_EQ(dq.back(), 5);
      EXPECT_EQ(dkv.back(), 5);
    }
}

} // namespace
