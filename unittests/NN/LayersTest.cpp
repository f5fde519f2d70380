//===- LayersTest.cpp - Initializers, Linear, activations, losses ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every value is checked against a plain double-precision loop over the
// same inputs.
//
//===----------------------------------------------------------------------===//

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace lazyc;

namespace {

/// The message of the lazyc::Error `run` throws ("" if none).
template <typename Run> std::string errorOf(Run run) {
  try {
    run();
  } catch (const Error &error) {
    return error.what();
  }
  return "";
}

TEST(InitTest, UniformInitializersAreSeededAndBounded) {
  std::vector<float> kaiming =
      nn::kaimingUniform({100, 50}, 100, /*seed=*/3).toVector<float>();
  EXPECT_EQ(kaiming, nn::kaimingUniform({100, 50}, 100, 3).toVector<float>());
  EXPECT_NE(kaiming, nn::kaimingUniform({100, 50}, 100, 4).toVector<float>());
  double bound = std::sqrt(6.0 / 100), sumOfSquares = 0;
  for (float value : kaiming) {
    EXPECT_GE(value, -bound);
    EXPECT_LT(value, bound);
    sumOfSquares += double(value) * value;
  }
  // U(-b, b) has variance b^2 / 3 = 2 / fanIn (He et al.); 5000 samples.
  EXPECT_NEAR(sumOfSquares / kaiming.size(), 2.0 / 100, 0.1 * 2.0 / 100);

  std::vector<float> glorot =
      nn::glorotUniform({100, 50}, 100, 50, 3).toVector<float>();
  double glorotBound = std::sqrt(6.0 / 150), largest = 0;
  for (float value : glorot)
    largest = std::max(largest, std::abs(double(value)));
  EXPECT_LT(largest, glorotBound);
  EXPECT_GT(largest, 0.9 * glorotBound);

  EXPECT_EQ(nn::initialize(nn::Init::Zeros, {3}, 1, 1, 0).toVector<float>(),
            (std::vector<float>{0, 0, 0}));
  EXPECT_NE(errorOf([] {
              nn::kaimingUniform({2}, 0, 1);
            }).find("[lazyc::kaimingUniform] fanIn must be positive, got 0"),
            std::string::npos);
}

// N(0, 0.02^2), GPT-2's initializer: seeded, the same numbers as
// randomNormal, mean and deviation within a few standard errors of 50,000
// samples' (4 sigma: 3.6e-4 for the mean, 2.5e-4 for the deviation).
TEST(InitTest, NormalIsSeededWithTheGivenDeviation) {
  std::vector<float> values =
      nn::normal({500, 100}, 0.02, /*seed=*/5).toVector<float>();
  EXPECT_EQ(values, randomNormal({500, 100}, 0, 0.02, 5).toVector<float>());
  EXPECT_EQ(values, nn::initialize(nn::Init::Normal, {500, 100}, 500, 100, 5)
                        .toVector<float>());
  double sum = 0, sumOfSquares = 0;
  for (float value : values) {
    sum += value;
    sumOfSquares += double(value) * value;
  }
  double mean = sum / values.size();
  double deviation = std::sqrt(sumOfSquares / values.size() - mean * mean);
  EXPECT_NEAR(mean, 0.0, 4 * 0.02 / std::sqrt(50000.0));
  EXPECT_NEAR(deviation, 0.02, 4 * 0.02 / std::sqrt(2 * 50000.0));
  EXPECT_NE(errorOf([] { nn::normal({2}, 0, 1); })
                .find("[lazyc::normal] the standard deviation must be "
                      "positive, got 0"),
            std::string::npos);
}

// Parameters by name, for loading a checkpoint by name: a model's layers
// name theirs "<layer>.weight" and "<layer>.bias"; duplicates and unnamed
// parameters are errors naming their positions.
TEST(LinearTest, NamedParametersAreKeyedByName) {
  nn::Linear first(3, 2, /*seed=*/1, "first");
  nn::Linear second(2, 1, /*seed=*/2, "second");
  std::vector<Variable *> parameters = first.parameters();
  for (Variable *parameter : second.parameters())
    parameters.push_back(parameter);
  std::map<std::string, Variable *> named = nn::namedParameters(parameters);
  ASSERT_EQ(named.size(), 4u);
  for (Variable *parameter : parameters)
    EXPECT_EQ(named.at(parameter->name()), parameter);

  nn::Linear again(3, 2, /*seed=*/3, "first");
  std::vector<Variable *> clash = {&first.weight(), &again.weight()};
  EXPECT_NE(errorOf([&] { nn::namedParameters(clash); })
                .find("parameters 0 and 1 are both named '" +
                      first.weight().name() + "'"),
            std::string::npos);
  Variable unnamed(zeros({2}));
  std::vector<Variable *> anonymous = {&first.bias(), &unnamed};
  EXPECT_NE(errorOf([&] {
              nn::namedParameters(anonymous);
            }).find("parameter 1 has no name"),
            std::string::npos);
}

// A head tied to a token embedding [vocabulary 4, dim 3]: logits = x E^T,
// read in place; the gradient of E adds the head's (g^T x) and the
// embedding's (each looked-up row's upstream gradient); the head lists only
// its bias. By hand, against the same sums in double precision.
TEST(LinearTest, SharedTransposedWeightTiesAHeadToAnEmbedding) {
  std::vector<float> e = {0.5f, -1, 2, 1, 0, -0.5f, 0.25f, 3, -2, 1.5f, 1, 0};
  Variable table(Tensor::fromVector(e, {4, 3}), "tokens");
  nn::Linear::Options noBias;
  noBias.bias = false;
  nn::Linear head(table, /*transposed=*/true, noBias, "head");
  EXPECT_EQ(head.inFeatures(), 3);
  EXPECT_EQ(head.outFeatures(), 4);
  EXPECT_TRUE(head.parameters().empty());
  EXPECT_EQ(&head.weight(), &table);

  std::vector<int32_t> ids = {2, 0};
  GradientTape tape;
  Tensor x =
      nn::embedding(table.read(), Tensor::fromVector(ids, {2})); // [2, 3]
  Tensor logits = head(x);                                       // [2, 4]
  std::vector<float> g = {1, -2, 0.5f, 3, -1, 0.25f, 2, -0.5f};
  Tensor loss = sum(logits * Tensor::fromVector(g, {2, 4}));
  std::vector<Tensor> grads = tape.gradient(loss, nn::refs({&table}));

  std::vector<float> got = logits.toVector<float>();
  std::vector<double> expectedGrad(12, 0);
  for (int b = 0; b < 2; ++b)
    for (int v = 0; v < 4; ++v) {
      double dot = 0;
      for (int d = 0; d < 3; ++d) {
        double xd = e[ids[b] * 3 + d];
        dot += xd * e[v * 3 + d];
        expectedGrad[v * 3 + d] += g[b * 4 + v] * xd; // the head's use
        // The embedding's: x[b, d] = E[ids[b], d] feeds every logit.
        expectedGrad[ids[b] * 3 + d] += g[b * 4 + v] * e[v * 3 + d];
      }
      EXPECT_NEAR(got[b * 4 + v], dot, 1e-5);
    }
  std::vector<float> gradient = grads[0].toVector<float>();
  for (int i = 0; i < 12; ++i)
    EXPECT_NEAR(gradient[i], expectedGrad[i], 1e-5) << "element " << i;

  nn::Linear withBias(table, /*transposed=*/true, nn::Linear::Options(), "h");
  ASSERT_EQ(withBias.parameters().size(), 1u);
  EXPECT_EQ(withBias.parameters()[0], &withBias.bias());
  Variable vector(zeros({3}), "v");
  EXPECT_NE(errorOf([&] {
              nn::Linear bad(vector, true, noBias);
            }).find("a shared weight must be 2-D, got rank 1 (v)"),
            std::string::npos);
}

TEST(LinearTest, ForwardIsXTimesWPlusB) {
  nn::Linear layer(3, 2, /*seed=*/11);
  EXPECT_EQ(layer.weight().shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(layer.bias().read().toVector<float>(), (std::vector<float>{0, 0}));
  layer.bias().assign(Tensor::fromVector<float>({0.5f, -1.0f}, {2}));
  std::vector<float> w = layer.weight().read().toVector<float>();
  std::vector<float> x = {1, 2, 3, -1, 0.5f, 4};
  std::vector<float> y = layer(Tensor::fromVector(x, {2, 3})).toVector<float>();
  double bias[2] = {0.5, -1.0};
  for (int row = 0; row < 2; ++row)
    for (int column = 0; column < 2; ++column) {
      double expected = bias[column];
      for (int k = 0; k < 3; ++k)
        expected += double(x[row * 3 + k]) * w[k * 2 + column];
      EXPECT_NEAR(y[row * 2 + column], expected, 1e-5);
    }
  EXPECT_EQ(layer.parameters().size(), 2u);

  nn::Linear::Options noBias;
  noBias.bias = false;
  nn::Linear plain(3, 2, 11, noBias);
  EXPECT_FALSE(plain.hasBias());
  EXPECT_EQ(plain.parameters().size(), 1u);
  // Same seed, same weights.
  EXPECT_EQ(plain.weight().read().toVector<float>(), w);
}

TEST(LinearTest, WrongInputWidthIsReportedAtTheCall) {
  nn::Linear layer(784, 10, 1);
  Tensor x = zeros({4, 700});
  std::string message = errorOf([&] { layer(x); });
  EXPECT_NE(message.find("[lazyc::Linear] the layer takes 784 input features, "
                         "but the input's last dimension is 700 "
                         "(LayersTest.cpp:"),
            std::string::npos)
      << message;
}

TEST(LinearTest, MlpIsLinearReluLinear) {
  nn::Mlp mlp({2, 3, 2}, /*seed=*/5);
  std::vector<Variable *> parameters = mlp.parameters();
  ASSERT_EQ(parameters.size(), 4u);
  EXPECT_EQ(parameters[0]->shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parameters[2]->shape(), (std::vector<int64_t>{3, 2}));
  std::vector<float> w1 = parameters[0]->read().toVector<float>();
  std::vector<float> w2 = parameters[2]->read().toVector<float>();
  // Layer i is seeded with seed + i.
  EXPECT_EQ(w2, nn::kaimingUniform({3, 2}, 3, 6).toVector<float>());
  std::vector<float> x = {0.3f, -0.7f};
  std::vector<float> y = mlp(Tensor::fromVector(x, {1, 2})).toVector<float>();
  double hidden[3];
  for (int j = 0; j < 3; ++j)
    hidden[j] = std::max(0.0, double(x[0]) * w1[j] + double(x[1]) * w1[3 + j]);
  for (int k = 0; k < 2; ++k)
    EXPECT_NEAR(
        y[k], hidden[0] * w2[k] + hidden[1] * w2[2 + k] + hidden[2] * w2[4 + k],
        1e-5);
}

TEST(ActivationTest, MatchTheirFormulas) {
  std::vector<float> x = {-30, -5, -1, -0.25f, 0, 0.25f, 1, 5, 30, 90};
  Tensor t = Tensor::fromVector(x, {10});
  std::vector<float> gelu = nn::gelu(t).toVector<float>();
  std::vector<float> leaky = nn::leakyRelu(t, 0.1).toVector<float>();
  std::vector<float> softplus = nn::softplus(t).toVector<float>();
  std::vector<float> silu = nn::silu(t).toVector<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double tolerance = 1e-6 + 2e-6 * std::abs(v);
    EXPECT_NEAR(gelu[i], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))),
                tolerance)
        << v;
    EXPECT_NEAR(leaky[i], v > 0 ? v : 0.1 * v, tolerance) << v;
    // log(1 + e^v), stable: e^90 would overflow a float.
    double expected =
        v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
    EXPECT_NEAR(softplus[i], expected, 1e-6 + 2e-6 * expected) << v;
    EXPECT_NEAR(silu[i], v / (1 + std::exp(-v)), tolerance) << v;
  }
}

/// The mean over rows of -log softmax(logits)[row, label], in double.
double referenceCrossEntropy(const std::vector<float> &logits,
                             const std::vector<int> &labels, int classes) {
  double total = 0;
  for (size_t row = 0; row < labels.size(); ++row) {
    const float *z = &logits[row * classes];
    double largest = *std::max_element(z, z + classes), sum = 0;
    for (int c = 0; c < classes; ++c)
      sum += std::exp(z[c] - largest);
    total += -(z[labels[row]] - largest - std::log(sum));
  }
  return total / labels.size();
}

TEST(LossTest, CrossEntropyFromIndicesAndFromOneHot) {
  std::vector<float> logits = {2, 1, 0.1f, -1, 0.5f, 3, 0, 0, 0, 1, -2, 2};
  std::vector<int> labels = {0, 2, 1, 2};
  double expected = referenceCrossEntropy(logits, labels, 3);
  Tensor z = Tensor::fromVector(logits, {4, 3});
  Tensor indices = Tensor::fromVector(
      std::vector<int32_t>(labels.begin(), labels.end()), {4});
  EXPECT_NEAR(nn::crossEntropy(z, indices).item<float>(), expected, 1e-6);
  Tensor wideIndices = Tensor::fromVector(
      std::vector<int64_t>(labels.begin(), labels.end()), {4});
  EXPECT_NEAR(nn::crossEntropy(z, wideIndices).item<float>(), expected, 1e-6);

  std::vector<float> table(12, 0.0f);
  for (int row = 0; row < 4; ++row)
    table[row * 3 + labels[row]] = 1;
  Tensor oneHot = nn::oneHot(indices, 3);
  EXPECT_EQ(oneHot.toVector<float>(), table);
  EXPECT_NEAR(
      nn::crossEntropy(z, Tensor::fromVector(table, {4, 3})).item<float>(),
      expected, 1e-6);
  // A label still being computed is not checked: out of range adds 0.
  Tensor lazyLabels =
      cast(Tensor::fromVector<float>({0, 5}, {2}), DType::Int32);
  EXPECT_EQ(nn::oneHot(lazyLabels, 3).toVector<float>(),
            (std::vector<float>{1, 0, 0, 0, 0, 0}));
}

TEST(LossTest, CrossEntropyIsStableForLargeLogits) {
  // exp(1000) overflows even a double: only the max-subtracted form works.
  std::vector<float> logits = {1000, 0, -1000, -1000, 1000, 999};
  std::vector<int> labels = {0, 2};
  Tensor loss =
      nn::crossEntropy(Tensor::fromVector(logits, {2, 3}),
                       Tensor::fromVector(std::vector<int32_t>{0, 2}, {2}));
  double expected = referenceCrossEntropy(logits, labels, 3);
  // Row 0 costs about 0; row 1 costs 1 + log(1 + e^-1).
  EXPECT_NEAR(expected, (1 + std::log1p(std::exp(-1.0))) / 2, 1e-12);
  EXPECT_NEAR(loss.item<float>(), expected, 1e-5);
}

TEST(LossTest, CrossEntropyErrorsNameTheProblem) {
  Tensor z = zeros({4, 3});
  EXPECT_NE(errorOf([&] {
              nn::crossEntropy(z,
                               Tensor::fromVector<int32_t>({0, 1, 3, 2}, {4}));
            }).find("label 3 at index 2 is outside [0, 3)"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { nn::crossEntropy(z, zeros({3}, DType::Int32)); })
                .find("class-index targets must be [4] for logits [4, 3], "
                      "got [3]"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              nn::crossEntropy(z, zeros({4}, DType::Bool));
            }).find("targets must be class indices"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { nn::crossEntropy(zeros({3}), zeros({3})); })
                .find("needs [batch, classes] floating-point logits, got "
                      "Float32 [3]"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              nn::crossEntropy(z, zeros({4, 2}));
            }).find("probability targets must have the logits' shape"),
            std::string::npos);
}

TEST(LossTest, MseIsTheMeanSquaredError) {
  std::vector<float> p = {1, 2, 3, 4, 5, 6}, t = {1.5f, 2, 2, 4, -1, 6.25f};
  double expected = 0;
  for (size_t i = 0; i < p.size(); ++i)
    expected += (double(p[i]) - t[i]) * (double(p[i]) - t[i]) / p.size();
  EXPECT_NEAR(
      nn::mseLoss(Tensor::fromVector(p, {2, 3}), Tensor::fromVector(t, {2, 3}))
          .item<float>(),
      expected, 1e-5);
  EXPECT_NE(errorOf([] {
              nn::mseLoss(zeros({2, 3}), zeros({3, 2}));
            }).find("the prediction [2, 3] and the target [3, 2] differ"),
            std::string::npos);
}

} // namespace
