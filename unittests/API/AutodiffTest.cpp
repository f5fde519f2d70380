//===- AutodiffTest.cpp - Gradients against finite differences ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every gradient is checked against central finite differences in float64:
// the loss is sum(f(inputs) * w) for a fixed random projection w, so every
// output element's gradient path is exercised. Second derivatives are
// checked against their closed forms.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>

using namespace lazyc;

namespace {

using Function = std::function<Tensor(const std::vector<Tensor> &)>;

struct Input {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// Inputs of `shape` drawn from [low, high), values at least `gap` apart
/// from each other (maximum, max, abs and relu are not differentiable at
/// ties or 0; keep samples away from them).
Input sample(std::vector<int64_t> shape, double low, double high,
             unsigned seed) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> dist(low, high);
  Input input{shape, {}};
  for (int64_t i = 0; i < count; ++i)
    input.values.push_back(dist(engine));
  return input;
}

std::vector<Tensor> tensorsOf(const std::vector<Input> &inputs) {
  std::vector<Tensor> tensors;
  for (const Input &input : inputs)
    tensors.push_back(Tensor::fromVector<double>(input.values, input.shape));
  return tensors;
}

/// sum(f(x) * w) for the projection w (same seed every call).
Tensor projected(const Function &f, const std::vector<Tensor> &x) {
  Tensor y = f(x);
  std::vector<double> weights = sample(y.shape(), -1, 1, 99).values;
  return sum(y * Tensor::fromVector<double>(weights, y.shape()));
}

/// Checks the tape's gradient of sum(f(x) * w) against central differences.
void checkGradient(const Function &f, const std::vector<Input> &inputs,
                   double tolerance = 1e-6, double h = 1e-6) {
  std::vector<Tensor> x = tensorsOf(inputs);
  std::vector<std::vector<double>> analytic;
  {
    GradientTape tape;
    for (const Tensor &t : x)
      tape.watch(t);
    Tensor loss = projected(f, x);
    for (const Tensor &g : tape.gradient(loss, x))
      analytic.push_back(g.toVector<double>());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(analytic[i].size(), inputs[i].values.size());
    for (size_t j = 0; j < inputs[i].values.size(); ++j) {
      auto lossAt = [&](double delta) {
        std::vector<Input> moved = inputs;
        moved[i].values[j] += delta;
        return projected(f, tensorsOf(moved)).item<double>();
      };
      double numeric = (lossAt(h) - lossAt(-h)) / (2 * h);
      EXPECT_NEAR(analytic[i][j], numeric, tolerance * (1 + std::abs(numeric)))
          << "input " << i << ", element " << j;
    }
  }
}

TEST(AutodiffTest, ArithmeticWithBroadcasting) {
  Input a = sample({2, 3}, 0.5, 2, 1);
  checkGradient([](auto &x) { return x[0] + x[1]; },
                {a, sample({3}, 0.5, 2, 2)});
  checkGradient([](auto &x) { return x[0] - x[1]; },
                {sample({2, 1}, 0.5, 2, 3), sample({1, 3}, 0.5, 2, 4)});
  checkGradient([](auto &x) { return x[0] * x[1]; },
                {a, sample({}, 0.5, 2, 5)});
  checkGradient([](auto &x) { return x[0] / x[1]; },
                {sample({3}, 0.5, 2, 6), a});
  checkGradient([](auto &x) { return pow(x[0], x[1]); },
                {a, sample({2, 1}, -1.5, 2, 7)});
  checkGradient([](auto &x) { return maximum(x[0], x[1]); },
                {a, sample({3}, 0.5, 2, 8)});
  checkGradient([](auto &x) { return minimum(x[0], x[1]); },
                {a, sample({2, 3}, 0.5, 2, 9)});
}

TEST(AutodiffTest, ScalarOperands) {
  Input a = sample({4}, 0.5, 2, 10);
  checkGradient([](auto &x) { return x[0] * 3.0 - 1.0; }, {a});
  checkGradient([](auto &x) { return 2.0 / x[0] + x[0] / 4.0; }, {a});
  checkGradient([](auto &x) { return pow(x[0], 2.5); }, {a});
  checkGradient([](auto &x) { return -x[0]; }, {a});
}

TEST(AutodiffTest, UnaryFunctions) {
  Input signed_ = sample({2, 3}, -2, 2, 11);
  Input positive = sample({2, 3}, 0.3, 2, 12);
  Input inside = sample({2, 3}, -0.9, 0.9, 30); // asin and acos's domain
  using Unary = Tensor (*)(const Tensor &, Where);
  for (Unary op :
       {Unary(exp), Unary(tanh), Unary(sigmoid), Unary(sin), Unary(cos),
        Unary(erf), Unary(atan), Unary(abs), Unary(relu)})
    checkGradient([op](auto &x) { return op(x[0], Where::current()); },
                  {signed_});
  for (Unary op : {Unary(log), Unary(sqrt), Unary(rsqrt)})
    checkGradient([op](auto &x) { return op(x[0], Where::current()); },
                  {positive});
  for (Unary op : {Unary(asin), Unary(acos)})
    checkGradient([op](auto &x) { return op(x[0], Where::current()); },
                  {inside});
}

TEST(AutodiffTest, WhereAndCast) {
  Input a = sample({2, 3}, -1, 1, 13), b = sample({3}, -1, 1, 14);
  checkGradient([](auto &x) { return where(x[0] > 0.0, x[0] * x[1], x[1]); },
                {a, b});
  // Through float32 and back: float32's rounding (and its tanh's 4 ulp)
  // needs a coarse step; central differences are then good to ~h^2.
  checkGradient(
      [](auto &x) {
        return cast(tanh(cast(x[0], DType::Float32)), DType::Float64);
      },
      {a}, 1e-3, 1e-2);
}

TEST(AutodiffTest, WatchedFullValuesKeepTheirGradientThroughPromotion) {
  // full() records a literal; promoting it (x / t with a Float64 t) or
  // casting it must stay an op the tape can follow, not a new literal
  // (lazyc-fuzz seed 311805: the lazy gradient was 0). d/dx sum((x/t)^2)
  // = 2 x / t^2; d/dx sum(cast(x, f64)^2) = 2 x.
  for (bool eager : {false, true}) {
    std::optional<EagerScope> scope;
    if (eager)
      scope.emplace();
    double t = 1.6123644195947013;
    for (DType dtype : {DType::Float16, DType::Float32}) {
      Tensor x = full({1, 2}, 3.0, dtype);
      GradientTape tape;
      tape.watch(x);
      Tensor y = x / Tensor::fromVector<double>({t}, {});
      Tensor z = cast(x, DType::Float64);
      Tensor g = tape.gradient(sum(y * y) + sum(z * z), x);
      ASSERT_EQ(g.dtype(), dtype);
      double expected = 2 * 3.0 / (t * t) + 2 * 3.0;
      for (double value : g.toVector<double>())
        EXPECT_NEAR(value, expected, dtype == DType::Float16 ? 1e-2 : 1e-5)
            << (eager ? "eager " : "lazy ") << dtypeName(dtype);
    }
  }
}

TEST(AutodiffTest, Matmul) {
  checkGradient([](auto &x) { return matmul(x[0], x[1]); },
                {sample({2, 3}, -1, 1, 15), sample({3, 4}, -1, 1, 16)});
  // Batch dimensions broadcast; a vector operand.
  checkGradient([](auto &x) { return matmul(x[0], x[1]); },
                {sample({2, 2, 3}, -1, 1, 17), sample({3, 2}, -1, 1, 18)});
  checkGradient([](auto &x) { return matmul(x[0], x[1]); },
                {sample({3}, -1, 1, 19), sample({3, 2}, -1, 1, 20)});
  // A batch times one matrix is one product over all rows (the matrix with
  // leading ones, and a vector, too).
  checkGradient(
      [](auto &x) { return matmul(x[0], x[1]); },
      {sample({2, 3, 2, 3}, -1, 1, 61), sample({1, 3, 2}, -1, 1, 62)});
  checkGradient([](auto &x) { return matmul(x[0], x[1]); },
                {sample({2, 2, 3}, -1, 1, 63), sample({3}, -1, 1, 64)});
}

TEST(AutodiffTest, ReductionsOverEveryAxis) {
  Input a = sample({2, 3, 2}, -2, 2, 21);
  for (bool keep : {false, true}) {
    for (int64_t axis : {0, 1, 2, -1}) {
      checkGradient([=](auto &x) { return sum(x[0], {axis}, keep); }, {a});
      checkGradient([=](auto &x) { return mean(x[0], {axis}, keep); }, {a});
      checkGradient([=](auto &x) { return max(x[0], {axis}, keep); }, {a});
      checkGradient([=](auto &x) { return min(x[0], {axis}, keep); }, {a});
    }
    checkGradient([=](auto &x) { return sum(x[0], {0, 2}, keep); }, {a});
    checkGradient([=](auto &x) { return max(x[0], {}, keep); }, {a});
    checkGradient([=](auto &x) { return mean(x[0], {}, keep); }, {a});
  }
}

TEST(AutodiffTest, MaxSharesTiesEvenly) {
  // max([1, 3, 3]) = 3: the two 3s get half the gradient each.
  Tensor x = Tensor::fromVector<double>({1, 3, 3}, {3});
  GradientTape tape;
  tape.watch(x);
  Tensor g = tape.gradient(max(x), x);
  EXPECT_EQ(g.toVector<double>(), (std::vector<double>{0, 0.5, 0.5}));
}

TEST(AutodiffTest, MaxGivesMissedElementsZeroWhateverTheGradient) {
  // The rows' maxima take an infinite and a NaN gradient; the elements that
  // are not a maximum get 0, not 0 * inf = NaN (as PyTorch's max-pool
  // gradient), and a tie still splits the gradient.
  Tensor x = Tensor::fromVector<float>({1, 5, 2, 4, 4, 0}, {2, 3});
  Tensor up =
      Tensor::fromVector<float>({std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN()},
                                {2});
  GradientTape tape;
  tape.watch(x);
  Tensor g = tape.gradient(sum(max(x, {1}) * up), x);
  std::vector<float> values = g.toVector<float>();
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(values[0], 0.0f);
  EXPECT_EQ(values[1], inf);
  EXPECT_EQ(values[2], 0.0f);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_TRUE(std::isnan(values[4]));
  EXPECT_EQ(values[5], 0.0f);
}

TEST(AutodiffTest, SoftmaxAndLogSoftmax) {
  Input a = sample({3, 4}, -2, 2, 22);
  for (int64_t axis : {0, 1}) {
    checkGradient([=](auto &x) { return softmax(x[0], axis); }, {a});
    checkGradient([=](auto &x) { return logSoftmax(x[0], axis); }, {a});
  }
}

TEST(AutodiffTest, ShapeOps) {
  Input a = sample({2, 3, 4}, -1, 1, 23);
  checkGradient([](auto &x) { return reshape(x[0], {4, -1}); }, {a});
  checkGradient([](auto &x) { return transpose(x[0], {2, 0, 1}); }, {a});
  checkGradient([](auto &x) { return broadcastTo(x[0], {3, 2, 3, 4}); }, {a});
  checkGradient(
      [](auto &x) { return slice(x[0], {1, 0, 1}, {2, 3, 4}, {1, 2, 2}); },
      {a});
  checkGradient([](auto &x) { return slice(x[0], {0, 1, 0}, {2, 3, 3}); }, {a});
  checkGradient([](auto &x) { return concat({x[0], x[1] * 2.0, x[0]}, 1); },
                {a, sample({2, 1, 4}, -1, 1, 24)});
}

TEST(AutodiffTest, IndexingAndScans) {
  Input a = sample({3, 5}, -1, 1, 40);
  // Repeated indices: their gradients add up (the scatter).
  Tensor rows = Tensor::fromVector<int64_t>({0, 2, 2, -1, 4, 0}, {3, 2});
  checkGradient([&](auto &x) { return gather(x[0], 1, rows); }, {a});
  Tensor picks = Tensor::fromVector<int32_t>({1, 1, 0, 2}, {4});
  checkGradient([&](auto &x) { return indexSelect(x[0], 0, picks); }, {a});
  checkGradient([&](auto &x) { return take(x[0], rows); }, {a});
  Tensor targets = Tensor::fromVector<int64_t>({4, 4, 1, 0, 3, 3}, {2, 3});
  checkGradient(
      [&](auto &x) { return scatterAdd(x[0], 1, targets, x[1] * x[1]); },
      {sample({2, 5}, -1, 1, 41), sample({2, 3}, -1, 1, 42)});
  for (bool reverse : {false, true})
    for (int64_t axis : {0, 1})
      checkGradient([=](auto &x) { return cumsum(x[0], axis, reverse); }, {a});
  checkGradient([](auto &x) { return topk(x[0], 2, 1).values; }, {a});
  checkGradient(
      [](auto &x) {
        return x[0].index({Range{std::nullopt, std::nullopt, -2}, newAxis, 1});
      },
      {a});
}

TEST(AutodiffTest, AComposedModel) {
  // A two-layer network with a cross-entropy loss, as training uses it.
  checkGradient(
      [](auto &x) {
        Tensor hidden = relu(matmul(x[0], x[1]) + x[2]);
        Tensor logits = matmul(hidden, x[3]);
        return -mean(sum(logSoftmax(logits, 1) * x[4], {1}));
      },
      {sample({4, 3}, -1, 1, 25), sample({3, 5}, -1, 1, 26),
       sample({5}, -0.1, 0.1, 27), sample({5, 2}, -1, 1, 28),
       Input{{4, 2}, {1, 0, 0, 1, 1, 0, 0, 1}}});
}

TEST(AutodiffTest, SecondDerivativesThroughNestedTapes) {
  std::vector<double> points = {-1.2, -0.3, 0.4, 1.5};
  auto check = [&](const std::function<Tensor(const Tensor &)> &f,
                   const std::function<double(double)> &second) {
    Tensor x = Tensor::fromVector<double>(points, {4});
    GradientTape outer;
    outer.watch(x);
    Tensor firstGradient;
    {
      GradientTape inner;
      inner.watch(x);
      firstGradient = inner.gradient(sum(f(x)), x);
    }
    std::vector<double> got =
        outer.gradient(sum(firstGradient), x).toVector<double>();
    for (size_t i = 0; i < points.size(); ++i)
      EXPECT_NEAR(got[i], second(points[i]), 1e-9 * (1 + std::abs(got[i])))
          << "at x = " << points[i];
  };
  check([](const Tensor &x) { return x * x * x; },
        [](double x) { return 6 * x; });
  check([](const Tensor &x) { return sin(x); },
        [](double x) { return -std::sin(x); });
  check([](const Tensor &x) { return exp(x * 2.0); },
        [](double x) { return 4 * std::exp(2 * x); });
  check([](const Tensor &x) { return tanh(x); },
        [](double x) {
          double t = std::tanh(x);
          return -2 * t * (1 - t * t);
        });
  check([](const Tensor &x) { return atan(x); },
        [](double x) { return -2 * x / ((1 + x * x) * (1 + x * x)); });
  // asin(x / 2)'' = (x / 8) / (1 - x^2 / 4)^(3/2) (x / 2 stays inside).
  check([](const Tensor &x) { return asin(x * 0.5); },
        [](double x) { return x / 8 / std::pow(1 - x * x / 4, 1.5); });
}

TEST(AutodiffTest, VariablesAreWatchedWhenRead) {
  Variable w(Tensor::fromVector<double>({1, -2, 3}, {3}), "w");
  Variable unused(Tensor::fromVector<double>({5}, {1}), "unused");
  GradientTape tape;
  Tensor loss = sum(w.read() * w.read() * 0.5);
  std::vector<Tensor> grads = tape.gradient(loss, {w, unused});
  EXPECT_EQ(grads[0].toVector<double>(), (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(grads[1].toVector<double>(), (std::vector<double>{0}));
}

TEST(AutodiffTest, ParameterListsOfVariablePointers) {
  Variable w(Tensor::fromVector<double>({2, 3}, {2}), "w");
  Variable b(Tensor::fromVector<double>({1}, {1}), "b");
  std::vector<Variable *> parameters = {&w, &b};
  GradientTape tape;
  Tensor loss = sum(w.read() * w.read()) + sum(b.read() * 4.0);
  std::vector<Tensor> grads = tape.gradient(loss, parameters);
  EXPECT_EQ(grads[0].toVector<double>(), (std::vector<double>{4, 6}));
  EXPECT_EQ(grads[1].toVector<double>(), (std::vector<double>{4}));
  std::vector<Variable *> withNull = {&w, nullptr};
  EXPECT_THROW((void)tape.gradient(loss, withNull), Error);
}

TEST(AutodiffTest, VariableUpdatesKeepProgramOrder) {
  Variable v(Tensor::fromVector<float>({1, 2}, {2}), "v");
  Tensor before = v.read();
  v.assignAdd(Tensor::fromVector<float>({10, 10}, {2}));
  Tensor middle = v.read();
  v.assignSub(full({2}, 1.0f));
  v.assign(v.read() * 2.0f);
  EXPECT_EQ(before.toVector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(middle.toVector<float>(), (std::vector<float>{11, 12}));
  EXPECT_EQ(v.read().toVector<float>(), (std::vector<float>{20, 22}));
}

TEST(AutodiffTest, ForwardBackwardAndUpdateAreOneTrace) {
  Variable w(Tensor::fromVector<float>({0.5f, -1.0f}, {2}), "w");
  Tensor x = Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2});
  resetMetrics();
  for (int step = 0; step < 3; ++step) {
    GradientTape tape;
    Tensor loss = mean(tanh(matmul(x, w.read())));
    Tensor grad = tape.gradient(loss, w);
    w.assignSub(grad * 0.1f);
    lazyc::sync();
  }
  Metrics m = metrics();
  EXPECT_EQ(m.materializations, 3u);
  EXPECT_EQ(m.tracesCompiled, 1u);
  EXPECT_EQ(m.cacheHits, 2u);
}

TEST(AutodiffTest, UnwatchedSourcesGetZeros) {
  Tensor x = Tensor::fromVector<double>({1, 2}, {2});
  Tensor y = Tensor::fromVector<double>({3, 4}, {2});
  GradientTape tape;
  tape.watch(x);
  Tensor loss = sum(x * 2.0);
  std::vector<Tensor> g = tape.gradient(loss, {x, y});
  EXPECT_EQ(g[0].toVector<double>(), (std::vector<double>{2, 2}));
  EXPECT_EQ(g[1].toVector<double>(), (std::vector<double>{0, 0}));
}

TEST(AutodiffTest, NoGradScopePausesTapes) {
  Tensor x = Tensor::fromVector<double>({1, 2}, {2});
  GradientTape tape;
  tape.watch(x);
  Tensor y;
  {
    NoGradScope paused;
    y = x * 3.0;
  }
  EXPECT_EQ(tape.gradient(sum(y), x).toVector<double>(),
            (std::vector<double>{0, 0}));
}

TEST(AutodiffTest, EagerAndLazyGradientsAgree) {
  auto gradient = [] {
    Tensor x = Tensor::fromVector<float>({0.1f, -0.7f, 1.3f}, {3});
    GradientTape tape;
    tape.watch(x);
    Tensor loss = sum(softmax(x * x) * sigmoid(x));
    return tape.gradient(loss, x).toVector<float>();
  };
  std::vector<float> lazy = gradient();
  std::vector<float> eager;
  {
    EagerScope scope;
    eager = gradient();
  }
  ASSERT_EQ(lazy.size(), eager.size());
  for (size_t i = 0; i < lazy.size(); ++i)
    EXPECT_NEAR(lazy[i], eager[i], 1e-6);
}

TEST(AutodiffTest, ClearErrors) {
  Tensor ints = Tensor::fromVector<int32_t>({1, 2}, {2});
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  GradientTape tape;
  unsigned line = 0;
  try {
    line = __LINE__, tape.watch(ints);
    FAIL() << "watching an Int32 tensor must fail";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "watch");
    EXPECT_NE(std::string(error.what()).find("Int32"), std::string::npos);
    EXPECT_EQ(error.line(), line);
  }
  tape.watch(x);
  try {
    line = __LINE__, (void)tape.gradient(x > 1.0f, x);
    FAIL() << "a Bool target must fail";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("Bool"), std::string::npos);
    EXPECT_EQ(error.line(), line);
  }
  Variable v(x, "weights");
  try {
    line = __LINE__, v.assign(Tensor::fromVector<float>({1, 2, 3}, {3}));
    FAIL() << "a shape change must fail";
  } catch (const Error &error) {
    EXPECT_EQ(std::string(error.what()),
              "[lazyc::assign] cannot assign a value of shape [3] to "
              "variable 'weights' of shape [2] (AutodiffTest.cpp:" +
                  std::to_string(line) + ")");
  }
}

} // namespace
