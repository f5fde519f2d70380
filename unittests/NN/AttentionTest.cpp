//===- AttentionTest.cpp - dropout, embedding, attention ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Dropout's mask against the random generator's definition, embedding and
// attention against loops written here in double, gradients against hand
// derivations and central differences.
//
//===----------------------------------------------------------------------===//

#include "../API/ExpectError.h"
#include "GradientCheck.h"

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::testValues;

namespace {

/// Element `index` of randomUniform(shape, 0, 1, seed) in f32, from the
/// generator's definition (docs/API.md): SplitMix64 of
/// seed + (index + 1) * 0x9E3779B97F4A7C15, its top 24 bits times 2^-24.
float uniformSample(int64_t seed, uint64_t index) {
  uint64_t z =
      static_cast<uint64_t>(seed) + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return std::ldexp(static_cast<float>(z >> 40), -24);
}

TEST(DropoutTest, MaskComesFromTheSeedAndKeptValuesAreScaled) {
  std::vector<double> x = testValues(200, 1);
  Tensor input = Tensor::fromVector(x, {10, 20});
  GradientTape tape;
  tape.watch(input);
  Tensor y = nn::dropout(input, 0.3, /*seed=*/42);
  Tensor dx = tape.gradient(sum(y), input);
  std::vector<double> got = y.toVector<double>(), grad = dx.toVector<double>();
  int kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    bool keep = uniformSample(42, i) >= 0.3f;
    kept += keep;
    EXPECT_NEAR(got[i], keep ? x[i] / 0.7 : 0.0, 1e-12) << i;
    // d y / d x is the mask times 1 / (1 - p).
    EXPECT_NEAR(grad[i], keep ? 1 / 0.7 : 0.0, 1e-12) << i;
  }
  EXPECT_GT(kept, 100);
  EXPECT_LT(kept, 180);
  // Outside training, and for p = 0, the input itself.
  EXPECT_EQ(nn::dropout(input, 0.5, 1, /*training=*/false).toVector<double>(),
            x);
  EXPECT_EQ(nn::dropout(input, 0.0, 1).toVector<double>(), x);
  std::vector<double> none = nn::dropout(input, 1.0, 1).toVector<double>();
  EXPECT_EQ(none, std::vector<double>(200, 0.0));
}

TEST(DropoutTest, NewSeedsReuseTheCompiledTrace) {
  Tensor x = Tensor::fromVector(std::vector<float>(64 * 32, 1.0f), {64, 32});
  uint64_t compiledAfterWarmUp = 0;
  std::vector<float> first;
  for (int64_t seed = 1; seed <= 8; ++seed) {
    std::vector<float> y = nn::dropout(x, 0.5, seed).toVector<float>();
    if (seed == 1)
      first = y;
    else
      EXPECT_NE(y, first) << "seed " << seed;
    // The first seed compiles with the seed baked in, the second promotes
    // it to an argument; later seeds compile nothing.
    if (seed == 2)
      compiledAfterWarmUp = metrics().tracesCompiled;
  }
  EXPECT_EQ(metrics().tracesCompiled, compiledAfterWarmUp);

  // The module draws a new seed every call, the same sequence for the same
  // seed, and compiles nothing after warm-up either.
  nn::Dropout a(0.5, /*seed=*/7), b(0.5, /*seed=*/7), c(0.5, /*seed=*/8);
  EXPECT_EQ(a.nextSeed(), b.nextSeed());
  EXPECT_NE(a.nextSeed(), c.nextSeed());
  std::vector<float> a0 = a(x).toVector<float>();
  EXPECT_EQ(a0, b(x).toVector<float>());
  uint64_t before = metrics().tracesCompiled;
  for (int i = 0; i < 5; ++i)
    EXPECT_NE(a(x).toVector<float>(), a0);
  EXPECT_EQ(metrics().tracesCompiled, before);
  a.setTraining(false);
  EXPECT_EQ(a(x).toVector<float>(), std::vector<float>(64 * 32, 1.0f));
}

TEST(DropoutTest, ErrorsNameTheLine) {
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::dropout(zeros({4}), 1.5, 1);
      },
      "dropout", "p must be in [0, 1], got 1.5");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::dropout(zeros({4}, DType::Int32), 0.5, 1);
      },
      "dropout", "the input must be floating point, got Int32 [4]");
}

TEST(EmbeddingTest, RowsOfTheWeightAndGradientsAddUp) {
  std::vector<double> w = testValues(5 * 3, 2);
  Tensor weight = Tensor::fromVector(w, {5, 3});
  std::vector<int32_t> ids = {4, 0, 4, 2, 1, 4};
  GradientTape tape;
  tape.watch(weight);
  Tensor rows = nn::embedding(weight, Tensor::fromVector(ids, {2, 3}));
  EXPECT_EQ(rows.shape(), (Shape{2, 3, 3}));
  std::vector<double> g = testValues(18, 3);
  Tensor dw =
      tape.gradient(sum(rows * Tensor::fromVector(g, {2, 3, 3})), weight);
  std::vector<double> got = rows.toVector<double>();
  std::vector<double> expectedGrad(15, 0);
  for (size_t i = 0; i < ids.size(); ++i)
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(got[i * 3 + d], w[ids[i] * 3 + d]);
      expectedGrad[ids[i] * 3 + d] += g[i * 3 + d];
    }
  std::vector<double> grad = dw.toVector<double>();
  for (size_t i = 0; i < grad.size(); ++i)
    EXPECT_NEAR(grad[i], expectedGrad[i], 1e-12) << i;

  nn::Embedding layer(10, 4, /*seed=*/3, DType::Float32, "tokens");
  EXPECT_EQ(layer.weight().name(), "tokens.weight");
  std::vector<float> table = layer.weight().read().toVector<float>();
  std::vector<float> picked =
      layer(Tensor::fromVector<int64_t>({7}, {1})).toVector<float>();
  EXPECT_EQ(picked, std::vector<float>(table.begin() + 28, table.begin() + 32));
}

TEST(EmbeddingTest, ErrorsNameTheLine) {
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::embedding(zeros({5, 3}), zeros({2}));
      },
      "embedding", "the ids must be Int32 or Int64, got Float32 [2]");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::embedding(zeros({5}), zeros({2}, DType::Int32));
      },
      "embedding", "needs a weight [V, D], got Float32 [5]");
}

/// softmax(q k^T * scale (masked)) v for one [T, d] head, in double.
std::vector<double> attentionLoops(const std::vector<double> &q,
                                   const std::vector<double> &k,
                                   const std::vector<double> &v, int tq, int tk,
                                   int d, int dv, double scale, bool causal,
                                   int offsetQ = 0, int offsetK = 0,
                                   int offsetV = 0) {
  std::vector<double> out(tq * dv, 0);
  for (int i = 0; i < tq; ++i) {
    std::vector<double> scores(tk);
    double best = -1e300;
    for (int j = 0; j < tk; ++j) {
      double dot = 0;
      for (int e = 0; e < d; ++e)
        dot += q[offsetQ + i * d + e] * k[offsetK + j * d + e];
      scores[j] = dot * scale;
      if (!causal || j <= i)
        best = std::max(best, scores[j]);
    }
    double total = 0;
    for (int j = 0; j < tk; ++j) {
      scores[j] = causal && j > i ? 0 : std::exp(scores[j] - best);
      total += scores[j];
    }
    for (int j = 0; j < tk; ++j)
      for (int e = 0; e < dv; ++e)
        out[i * dv + e] += scores[j] / total * v[offsetV + j * dv + e];
  }
  return out;
}

TEST(AttentionTest, MatchesLoopsWithAndWithoutTheCausalMask) {
  const int batch = 2, tq = 4, tk = 4, d = 3, dv = 2;
  std::vector<double> q = testValues(batch * tq * d, 4),
                      k = testValues(batch * tk * d, 5),
                      v = testValues(batch * tk * dv, 6);
  Tensor qt = Tensor::fromVector(q, {batch, tq, d});
  Tensor kt = Tensor::fromVector(k, {batch, tk, d});
  Tensor vt = Tensor::fromVector(v, {batch, tk, dv});
  for (bool causal : {false, true}) {
    std::vector<double> got =
        nn::scaledDotProductAttention(qt, kt, vt, causal).toVector<double>();
    for (int b = 0; b < batch; ++b) {
      std::vector<double> expected =
          attentionLoops(q, k, v, tq, tk, d, dv, 1 / std::sqrt(3.0), causal,
                         b * tq * d, b * tk * d, b * tk * dv);
      for (int i = 0; i < tq * dv; ++i)
        EXPECT_NEAR(got[b * tq * dv + i], expected[i], 1e-12)
            << "causal " << causal << ", batch " << b << ", " << i;
    }
  }
  // A given scale, in Float32; the first query sees only the first key
  // under the causal mask, so it returns v's first row.
  std::vector<float> qf(q.begin(), q.begin() + 12),
      kf(k.begin(), k.begin() + 12), vf(v.begin(), v.begin() + 8);
  std::vector<float> one =
      nn::scaledDotProductAttention(Tensor::fromVector(qf, {4, 3}),
                                    Tensor::fromVector(kf, {4, 3}),
                                    Tensor::fromVector(vf, {4, 2}), true, 0.5)
          .toVector<float>();
  EXPECT_NEAR(one[0], vf[0], 1e-6);
  EXPECT_NEAR(one[1], vf[1], 1e-6);
  std::vector<double> expected = attentionLoops(
      std::vector<double>(qf.begin(), qf.end()),
      std::vector<double>(kf.begin(), kf.end()),
      std::vector<double>(vf.begin(), vf.end()), 4, 4, 3, 2, 0.5, true);
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR(one[i], expected[i], 1e-5);
}

TEST(AttentionTest, GradientsMatchFiniteDifferences) {
  lazyc::test::expectGradientsMatchDifferences(
      [](const std::vector<Tensor> &in) {
        return nn::scaledDotProductAttention(in[0], in[1], in[2], true);
      },
      {testValues(3 * 2, 7), testValues(3 * 2, 8), testValues(3 * 2, 9)},
      {{3, 2}, {3, 2}, {3, 2}});
}

TEST(AttentionTest, MultiHeadAttentionIsTheHeadsOfItsProjections) {
  const int64_t batch = 2, length = 3, model = 4, heads = 2, depth = 2;
  nn::MultiHeadAttention::Options options;
  options.causal = true;
  nn::MultiHeadAttention attention(model, heads, /*seed=*/5, options);
  EXPECT_EQ(attention.parameters().size(), 4u);
  std::vector<double> bias = testValues(12, 11);
  attention.qkvProjection().bias().assign(Tensor::fromVector<float>(
      std::vector<float>(bias.begin(), bias.end()), {12}));
  std::vector<double> x = testValues(batch * length * model, 10);
  std::vector<float> xf(x.begin(), x.end());
  std::vector<float> got =
      attention(Tensor::fromVector(xf, {batch, length, model}))
          .toVector<float>();
  std::vector<float> wq =
      attention.qkvProjection().weight().read().toVector<float>();
  std::vector<float> bq =
      attention.qkvProjection().bias().read().toVector<float>();
  std::vector<float> wo =
      attention.outputProjection().weight().read().toVector<float>();
  std::vector<float> bo =
      attention.outputProjection().bias().read().toVector<float>();
  for (int64_t b = 0; b < batch; ++b) {
    // Projections [length, 3 model]: columns q (0..3), k (4..7), v (8..11),
    // head h owning columns h * depth .. h * depth + depth - 1 of each.
    std::vector<double> qkv(length * 3 * model);
    for (int64_t t = 0; t < length; ++t)
      for (int64_t o = 0; o < 3 * model; ++o) {
        double acc = bq[o];
        for (int64_t i = 0; i < model; ++i)
          acc += x[(b * length + t) * model + i] * wq[i * 3 * model + o];
        qkv[t * 3 * model + o] = acc;
      }
    std::vector<double> merged(length * model);
    for (int64_t h = 0; h < heads; ++h) {
      std::vector<double> q(length * depth), k(length * depth),
          v(length * depth);
      for (int64_t t = 0; t < length; ++t)
        for (int64_t e = 0; e < depth; ++e) {
          q[t * depth + e] = qkv[t * 3 * model + h * depth + e];
          k[t * depth + e] = qkv[t * 3 * model + model + h * depth + e];
          v[t * depth + e] = qkv[t * 3 * model + 2 * model + h * depth + e];
        }
      std::vector<double> o = attentionLoops(q, k, v, length, length, depth,
                                             depth, 1 / std::sqrt(2.0), true);
      for (int64_t t = 0; t < length; ++t)
        for (int64_t e = 0; e < depth; ++e)
          merged[t * model + h * depth + e] = o[t * depth + e];
    }
    for (int64_t t = 0; t < length; ++t)
      for (int64_t o = 0; o < model; ++o) {
        double acc = bo[o];
        for (int64_t i = 0; i < model; ++i)
          acc += merged[t * model + i] * wo[i * model + o];
        EXPECT_NEAR(got[(b * length + t) * model + o], acc, 1e-5)
            << b << " " << t << " " << o;
      }
  }
}

TEST(AttentionTest, ErrorsNameTheShapesAndTheLine) {
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::scaledDotProductAttention(zeros({2, 4, 3}), zeros({2, 5, 2}),
                                      zeros({2, 5, 2}));
      },
      "scaledDotProductAttention",
      "q [2, 4, 3], k [2, 5, 2] and v [2, 5, 2] do not fit");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::scaledDotProductAttention(zeros({3}), zeros({3}), zeros({3}));
      },
      "scaledDotProductAttention", "needs q [..., Tq, d]");
  nn::MultiHeadAttention attention(8, 2, 1);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        attention(zeros({2, 3, 6}));
      },
      "MultiHeadAttention",
      "needs an input [..., T, 8], got Float32 [2, 3, 6]");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::MultiHeadAttention bad(6, 4, 1);
      },
      "MultiHeadAttention", "heads dividing dModel");
}

} // namespace
