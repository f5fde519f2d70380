//===- TiledAttentionTest.cpp - Attention computed in tiles ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// scaledDotProductAttention in tiles (lazy.attention, the CPU kernels of
// lazyc/Runtime/Attention.h) and materialized, with causal, Bool and float
// masks and dropout: values against loops written here in double, the two
// forms against each other, gradients against central differences, memory
// that does not grow with Tq * Tk, and the errors.
//
//===----------------------------------------------------------------------===//

#include "../API/ExpectError.h"
#include "GradientCheck.h"

#include "lazyc/API/NodeAccess.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <string>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::testValues;

namespace {

/// Whether nn::dropout keeps element `index` for `seed` (docs/API.md: the
/// top 24 bits of SplitMix64 at seed + (index + 1) * 0x9E3779B97F4A7C15,
/// times 2^-24, not below p, in f32).
bool keeps(int64_t seed, uint64_t index, double p) {
  uint64_t z =
      static_cast<uint64_t>(seed) + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return std::ldexp(static_cast<float>(z >> 40), -24) >= static_cast<float>(p);
}

/// One problem: q [batch, tq, d], k [batch, tk, d], v [batch, tk, dv], an
/// optional additive bias [batch or 1, tq or 1, tk], dropout.
struct Problem {
  int64_t batch, tq, tk, d, dv;
  bool causal = false;
  std::vector<double> q, k, v, bias; ///< bias empty: none
  int64_t biasBatch = 1, biasRows = 1;
  double dropout = 0;
  int64_t seed = 0;

  Problem(int64_t batch, int64_t tq, int64_t tk, int64_t d, int64_t dv,
          uint64_t seed)
      : batch(batch), tq(tq), tk(tk), d(d), dv(dv),
        q(testValues(batch * tq * d, seed)),
        k(testValues(batch * tk * d, seed + 1)),
        v(testValues(batch * tk * dv, seed + 2)) {}

  double scale() const { return 1 / std::sqrt(double(d)); }

  /// The output [batch, tq, dv], the plain way in double: the lowest f32
  /// added to masked scores (as both forms do) is -inf to a softmax whose
  /// row has a visible key.
  std::vector<double> expected() const {
    std::vector<double> out(batch * tq * dv);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < tq; ++i) {
        std::vector<double> s(tk);
        double max = -INFINITY;
        for (int64_t j = 0; j < tk; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += q[(b * tq + i) * d + c] * k[(b * tk + j) * d + c];
          s[j] = dot * scale();
          if (!bias.empty())
            s[j] += bias[((b % biasBatch) * biasRows + i % biasRows) * tk + j];
          if (causal && j > i)
            s[j] = -INFINITY;
          max = std::max(max, s[j]);
        }
        double sum = 0;
        for (double &x : s)
          sum += x = std::exp(x - max);
        for (int64_t j = 0; j < tk; ++j) {
          double w = s[j] / sum;
          if (dropout > 0)
            w = keeps(seed, (b * tq + i) * tk + j, dropout) ? w / (1 - dropout)
                                                            : 0;
          for (int64_t c = 0; c < dv; ++c)
            out[(b * tq + i) * dv + c] += w * v[(b * tk + j) * dv + c];
        }
      }
    return out;
  }

  template <typename T>
  Tensor tensor(const std::vector<double> &values, Shape shape) const {
    return Tensor::fromVector(std::vector<T>(values.begin(), values.end()),
                              shape);
  }

  template <typename T> Tensor run(nn::AttentionTiles tiles) const {
    nn::AttentionOptions options;
    options.causal = causal;
    options.dropout = dropout;
    options.seed = seed;
    options.tiles = tiles;
    if (!bias.empty())
      options.mask = tensor<T>(bias, {biasBatch, biasRows, tk});
    return nn::scaledDotProductAttention(
        tensor<T>(q, {batch, tq, d}), tensor<T>(k, {batch, tk, d}),
        tensor<T>(v, {batch, tk, dv}), options);
  }
};

/// The op that made `t`'s value, through a slice and casts.
trace::OpKind producer(const Tensor &t) {
  const trace::Node *node = detail::TensorAccess::node(t).get();
  while (node->kind == trace::OpKind::Slice ||
         node->kind == trace::OpKind::Cast)
    node = node->inputs[0].get();
  return node->kind;
}

void expectClose(const std::vector<double> &got,
                 const std::vector<double> &expected, double tolerance,
                 const std::string &what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], tolerance * (1 + std::fabs(expected[i])))
        << what << ", element " << i;
}

TEST(TiledAttentionTest, ValuesMatchLoopsInDouble) {
  // Sizes around the kernel's tiles (one query, partial tiles, more keys
  // than queries and fewer), depths that are not a vector's width.
  struct Sizes {
    int64_t batch, tq, tk, d, dv;
  };
  for (Sizes s : {Sizes{1, 1, 1, 1, 1}, Sizes{2, 7, 5, 3, 2},
                  Sizes{3, 130, 257, 16, 24}, Sizes{1, 300, 70, 64, 64}})
    for (bool causal : {false, true})
      for (double dropout : {0.0, 0.3}) {
        Problem p(s.batch, s.tq, s.tk, s.d, s.dv, 11);
        p.causal = causal;
        p.dropout = dropout;
        p.seed = 1234;
        std::string what = "[" + std::to_string(s.batch) + ", " +
                           std::to_string(s.tq) + ", " + std::to_string(s.tk) +
                           "] causal " + std::to_string(causal) + " dropout " +
                           std::to_string(dropout);
        std::vector<double> expected = p.expected();
        Tensor f64 = p.run<double>(nn::AttentionTiles::Always);
        EXPECT_EQ(producer(f64), trace::OpKind::Attention);
        expectClose(f64.toVector<double>(), expected, 1e-12, what + " f64");
        // f32: the scores' rounding (d ulps) moves the weights by about
        // 1e-6 relative; sums over up to 300 terms add as much again.
        expectClose(p.run<float>(nn::AttentionTiles::Always).toVector<double>(),
                    expected, 2e-5, what + " f32");
      }
}

TEST(TiledAttentionTest, MasksBroadcastAndBoolMasksHideKeys) {
  Problem p(2, 33, 40, 8, 8, 21);
  // A float mask per batch and row.
  p.bias = testValues(2 * 33 * 40, 5);
  p.biasBatch = 2;
  p.biasRows = 33;
  for (bool causal : {false, true}) {
    p.causal = causal;
    std::vector<double> expected = p.expected();
    expectClose(p.run<double>(nn::AttentionTiles::Always).toVector<double>(),
                expected, 1e-12, "float mask");
    expectClose(p.run<double>(nn::AttentionTiles::Never).toVector<double>(),
                expected, 1e-12, "float mask, materialized");
  }
  // A key-padding Bool mask [batch, 1, 1, Tk] over 4-d q, k, v: the
  // hidden keys are -inf to the reference.
  Problem padded(2, 9, 12, 4, 4, 31);
  padded.bias.assign(2 * 12, 0.0);
  std::vector<uint8_t> visible(2 * 12);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 12; ++j) {
      visible[b * 12 + j] = j < 12 - 3 * (b + 1);
      padded.bias[b * 12 + j] = visible[b * 12 + j] ? 0.0 : -INFINITY;
    }
  padded.biasBatch = 2;
  std::vector<double> expected = padded.expected();
  for (nn::AttentionTiles tiles :
       {nn::AttentionTiles::Always, nn::AttentionTiles::Never}) {
    nn::AttentionOptions options;
    options.tiles = tiles;
    options.mask = Tensor::fromBools(
        std::vector<bool>(visible.begin(), visible.end()), {2, 1, 1, 12});
    Tensor out = nn::scaledDotProductAttention(
        padded.tensor<double>(padded.q, {2, 1, 9, 4}),
        padded.tensor<double>(padded.k, {2, 1, 12, 4}),
        padded.tensor<double>(padded.v, {2, 1, 12, 4}), options);
    EXPECT_EQ(out.shape(), (Shape{2, 1, 9, 4}));
    expectClose(out.toVector<double>(), expected, 1e-12, "Bool mask");
  }
  // A row whose every key is masked attends to all of them evenly, in
  // both forms: the mean of v's rows.
  nn::AttentionOptions none;
  none.mask = Tensor::fromBools(std::vector<bool>(6, false), {1, 6});
  std::vector<double> v = testValues(6 * 2, 3), q = testValues(4, 1);
  for (nn::AttentionTiles tiles :
       {nn::AttentionTiles::Always, nn::AttentionTiles::Never}) {
    none.tiles = tiles;
    std::vector<float> got =
        nn::scaledDotProductAttention(
            padded.tensor<float>(q, {2, 2}),
            Tensor::fromVector(std::vector<float>(12, 0.5f), {6, 2}),
            padded.tensor<float>(v, {6, 2}), none)
            .toVector<float>();
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t c = 0; c < 2; ++c) {
        double mean = 0;
        for (int64_t j = 0; j < 6; ++j)
          mean += v[j * 2 + c] / 6;
        EXPECT_NEAR(got[i * 2 + c], mean, 1e-6);
      }
  }
}

TEST(TiledAttentionTest, BothFormsDrawTheSameDropout) {
  // Batch dimensions that broadcast (k and v shared by 3 heads): both
  // forms draw over the broadcast scores [2, 3, Tq, Tk].
  std::vector<double> q = testValues(2 * 3 * 20 * 8, 1),
                      k = testValues(2 * 1 * 30 * 8, 2),
                      v = testValues(2 * 1 * 30 * 8, 3);
  nn::AttentionOptions options;
  options.dropout = 0.25;
  options.seed = 77;
  options.causal = true;
  auto run = [&](nn::AttentionTiles tiles) {
    options.tiles = tiles;
    return nn::scaledDotProductAttention(Tensor::fromVector(q, {2, 3, 20, 8}),
                                         Tensor::fromVector(k, {2, 1, 30, 8}),
                                         Tensor::fromVector(v, {2, 1, 30, 8}),
                                         options)
        .toVector<double>();
  };
  expectClose(run(nn::AttentionTiles::Always), run(nn::AttentionTiles::Never),
              1e-12, "dropout");
}

TEST(TiledAttentionTest, GradientsMatchFiniteDifferences) {
  for (bool causal : {false, true})
    for (double dropout : {0.0, 0.4}) {
      SCOPED_TRACE("causal " + std::to_string(causal) + ", dropout " +
                   std::to_string(dropout));
      lazyc::test::expectGradientsMatchDifferences(
          [&](const std::vector<Tensor> &in) {
            nn::AttentionOptions options;
            options.causal = causal;
            options.dropout = dropout;
            options.seed = 9;
            options.tiles = nn::AttentionTiles::Always;
            // A constant: masks get no gradient.
            options.mask = Tensor::fromVector(testValues(5 * 6, 10), {5, 6});
            return nn::scaledDotProductAttention(in[0], in[1], in[2], options);
          },
          {testValues(2 * 5 * 3, 7), testValues(2 * 6 * 3, 8),
           testValues(2 * 6 * 4, 9)},
          {{2, 5, 3}, {2, 6, 3}, {2, 6, 4}});
    }
}

TEST(TiledAttentionTest, Float32GradientsMatchTheMaterializedForm) {
  // Past one tile of queries and keys; the reference is the materialized
  // form in Float64 (matmul and softmax gradients, another code path).
  Problem p(2, 150, 140, 16, 8, 41);
  p.causal = true;
  p.dropout = 0.1;
  p.seed = 3;
  auto gradients = [&](auto element, nn::AttentionTiles tiles) {
    using T = decltype(element);
    std::vector<Tensor> in = {p.tensor<T>(p.q, {2, 150, 16}),
                              p.tensor<T>(p.k, {2, 140, 16}),
                              p.tensor<T>(p.v, {2, 140, 8})};
    Tensor weights = p.tensor<T>(testValues(2 * 150 * 8, 4), {2, 150, 8});
    GradientTape tape;
    for (const Tensor &t : in)
      tape.watch(t);
    nn::AttentionOptions options;
    options.causal = p.causal;
    options.dropout = p.dropout;
    options.seed = p.seed;
    options.tiles = tiles;
    Tensor loss = sum(
        nn::scaledDotProductAttention(in[0], in[1], in[2], options) * weights);
    std::vector<std::vector<double>> values;
    for (const Tensor &g : tape.gradient(loss, in))
      values.push_back(g.toVector<double>());
    return values;
  };
  auto expected = gradients(double(), nn::AttentionTiles::Never);
  auto got = gradients(float(), nn::AttentionTiles::Always);
  const char *names[] = {"dq", "dk", "dv"};
  for (int i = 0; i < 3; ++i)
    expectClose(got[i], expected[i], 2e-5, names[i]);
}

TEST(TiledAttentionTest, MemoryDoesNotGrowWithTheScores) {
  // One head of 8192 queries and keys: the scores would be 256 MiB in
  // f32 (and the backward keeps more of that size); q, k, v are 256 KiB.
  // The runtime allocator's peak counts every buffer lazyc holds.
  const int64_t length = 8192, depth = 8;
  std::vector<float> data(length * depth);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
  Tensor q = Tensor::fromVector(data, {1, length, depth});
  Tensor k = Tensor::fromVector(data, {1, length, depth});
  Tensor v = Tensor::fromVector(data, {1, length, depth});
  lazyc::sync();
  lazyrt_reset_peak_bytes_in_use();
  uint64_t before = lazyrt_get_allocator_stats().bytes_in_use;
  GradientTape tape;
  for (const Tensor *t : {&q, &k, &v})
    tape.watch(*t);
  Tensor out = nn::scaledDotProductAttention(q, k, v, /*causal=*/true);
  EXPECT_EQ(producer(out), trace::OpKind::Attention);
  std::vector<Tensor> grads = tape.gradient(sum(out), {q, k, v});
  lazyc::sync();
  uint64_t grown = lazyrt_get_allocator_stats().peak_bytes_in_use - before;
  // The outputs (out, dq, dk, dv: 1 MiB) and the intermediates of their
  // size; a 256 MiB score matrix would not fit.
  EXPECT_LT(grown, uint64_t(16) << 20)
      << "the peak grew by " << (grown >> 20) << " MiB";
}

TEST(TiledAttentionTest, AutoTilesLongSequencesOnTheCpu) {
  auto made = [](int64_t length) {
    Tensor x =
        Tensor::fromVector(std::vector<float>(length * 4, 0.25f), {length, 4});
    return producer(nn::scaledDotProductAttention(x, x, x));
  };
  EXPECT_EQ(made(64), trace::OpKind::Matmul);
  EXPECT_EQ(made(512), trace::OpKind::Attention);
}

TEST(TiledAttentionTest, NarrowInputsComputeInFloat32) {
  Problem p(1, 40, 40, 8, 8, 51);
  std::vector<double> expected = p.expected();
  for (DType dtype : {DType::BFloat16, DType::Float16}) {
    auto narrow = [&](const std::vector<double> &x, Shape shape) {
      return cast(p.tensor<float>(x, shape), dtype);
    };
    nn::AttentionOptions options;
    options.tiles = nn::AttentionTiles::Always;
    Tensor out = nn::scaledDotProductAttention(
        narrow(p.q, {1, 40, 8}), narrow(p.k, {1, 40, 8}),
        narrow(p.v, {1, 40, 8}), options);
    EXPECT_EQ(out.dtype(), dtype);
    // The operands' rounding (2^-8 relative for bf16) dominates.
    expectClose(cast(out, DType::Float64).toVector<double>(), expected,
                dtype == DType::BFloat16 ? 3e-2 : 4e-3, dtypeName(dtype));
  }
}

TEST(TiledAttentionTest, BadInputsAreErrors) {
  Tensor q = Tensor::fromVector(std::vector<float>(2 * 4 * 3), {2, 4, 3});
  Tensor k = Tensor::fromVector(std::vector<float>(2 * 5 * 3), {2, 5, 3});
  Tensor v = Tensor::fromVector(std::vector<float>(2 * 5 * 2), {2, 5, 2});
  nn::AttentionOptions options;
  options.mask = Tensor::fromVector(std::vector<float>(3 * 5), {3, 5});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::scaledDotProductAttention(q, k, v, options);
      },
      "scaledDotProductAttention",
      "the mask [3, 5] does not broadcast to the scores [2, 4, 5]");
  options.mask = Tensor();
  options.dropout = 1.5;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::scaledDotProductAttention(q, k, v, options);
      },
      "scaledDotProductAttention", "the dropout must be in [0, 1]");
  Tensor v64 = cast(v, DType::Float64);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        tiledAttention(q, k, v64, {}, 1.0, false);
      },
      "scaledDotProductAttention",
      "one dtype for q, k and v; got Float32, Float32 and Float64");
  Tensor row = Tensor::fromVector(std::vector<float>(4), {4});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        tiledAttention(q, k, v, row, 1.0, false);
      },
      "scaledDotProductAttention", "the bias [4] (Float32) needs");
  // Differentiable once.
  GradientTape outer;
  outer.watch(q);
  Tensor dq;
  {
    GradientTape inner;
    inner.watch(q);
    Tensor out = tiledAttention(q, k, v, {}, 1.0, false);
    dq = inner.gradient(sum(out), q);
  }
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        outer.gradient(sum(dq), q);
      },
      "scaledDotProductAttentionGrad", "has no gradient");
}

} // namespace
