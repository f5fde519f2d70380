//===- ControlFlowTest.cpp - cond and whileLoop ---------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Expected values are computed by hand or by plain C++ loops here.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"
#include "Occurrences.h"
#include "lazyc/API/NodeAccess.h"

#include "lazyc/Import/TraceImporter.h"
#include "lazyc/InitAll.h"
#include "lazyc/Trace/Trace.h"
#include "lazyc/lazyc.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::occurrences;

namespace {

Tensor vec(std::vector<float> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Tensor::fromVector<float>(values, {n});
}

void expectNear(const std::vector<float> &actual,
                const std::vector<float> &expected, float tolerance = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

/// Runs `body` lazily and eagerly: both must give the same answers.
template <typename F> void inBothModes(F body) {
  {
    SCOPED_TRACE("lazy");
    body();
  }
  {
    SCOPED_TRACE("eager");
    EagerScope eager;
    body();
  }
}

TEST(ControlFlowTest, CondPicksTheBranchByData) {
  inBothModes([] {
    for (auto [data, expected] :
         {std::pair<std::vector<float>, std::vector<float>>{{1, -2, 3},
                                                            {2, -4, 6}},
          {{-1, 2, -3}, {1, -2, 3}}}) {
      Tensor x = vec(data);
      Tensor y =
          cond(sum(x) > 0.0f, [&] { return x * 2.0f; }, [&] { return -x; });
      expectNear(y.toVector<float>(), expected);
    }
  });
}

TEST(ControlFlowTest, OneCompiledTraceServesBothOutcomes) {
  auto run = [](std::vector<float> data) {
    Tensor x = vec(data);
    return cond(
               sum(x) > 0.0f, [&] { return exp(x); },
               [&] { return x * x + 1.0f; })
        .toVector<float>();
  };
  run({1, 2, 3}); // Warm-up: compiles the trace once.
  uint64_t compiled = metrics().tracesCompiled;
  uint64_t materialized = metrics().materializations;
  expectNear(run({-1, -2, 0.5f}), {2, 5, 1.25f});
  expectNear(run({0.5f, 1, -1}),
             {std::exp(0.5f), std::exp(1.0f), std::exp(-1.0f)});
  EXPECT_EQ(metrics().tracesCompiled, compiled);
  // The branch did not split the trace: one materialization per read.
  EXPECT_EQ(metrics().materializations, materialized + 2);
}

TEST(ControlFlowTest, CondReturnsTuplesAndNests) {
  inBothModes([] {
    Tensor x = vec({1, 2, 3});
    Tensor big = vec({10, 20, 30});
    auto [a, b] = cond(
        max(x) > 2.0f,
        [&] {
          Tensor inner =
              cond(min(x) > 1.0f, [&] { return big; }, [&] { return x + big; });
          return std::tuple{inner, x * 3.0f};
        },
        [&] { return std::tuple{x, x}; });
    expectNear(a.toVector<float>(), {11, 22, 33});
    expectNear(b.toVector<float>(), {3, 6, 9});
  });
}

TEST(ControlFlowTest, AssignmentsInABranchHappenOnlyIfTaken) {
  inBothModes([] {
    Variable counter(vec({0, 0}), "counter");
    Variable untouched(vec({5, 5}), "untouched");
    for (float sign : {1.0f, -1.0f, 1.0f}) {
      Tensor p = vec({sign});
      Tensor r = cond(
          sum(p) > 0.0f,
          [&] {
            counter.assignAdd(vec({1, 10}));
            return untouched.read() * 2.0f;
          },
          [&] { return untouched.read(); });
      expectNear(r.toVector<float>(), sign > 0 ? std::vector<float>{10, 10}
                                               : std::vector<float>{5, 5});
    }
    expectNear(counter.read().toVector<float>(), {2, 20});
    expectNear(untouched.read().toVector<float>(), {5, 5});
  });
}

TEST(ControlFlowTest, WhileLoopIsOneOp) {
  inBothModes([] {
    Tensor x = vec({1, 2, 4});
    auto [i, acc] = whileLoop(
        [](Tensor i, Tensor) { return i < 10; },
        [](Tensor i, Tensor acc) { return std::tuple{i + 1, acc * 0.5f}; },
        std::tuple{zeros({}, DType::Int32), x});
    EXPECT_EQ(i.item<int32_t>(), 10);
    float scale = std::pow(0.5f, 10.0f);
    expectNear(acc.toVector<float>(), {scale, 2 * scale, 4 * scale});
  });
}

TEST(ControlFlowTest, WhileLoopTripCountDependsOnData) {
  inBothModes([] {
    for (float start : {3.0f, 100.0f, 0.5f}) {
      Tensor x = vec({start, start});
      std::vector<Tensor> out = whileLoop(
          [](const std::vector<Tensor> &v) { return sum(v[0]) > 1.0f; },
          [](const std::vector<Tensor> &v) {
            return std::vector<Tensor>{v[0] * 0.5f, v[1] + 1.0f};
          },
          std::vector<Tensor>{x, zeros({1})});
      float value = start, steps = 0;
      while (value + value > 1.0f) {
        value *= 0.5f;
        steps += 1;
      }
      expectNear(out[0].toVector<float>(), {value, value});
      expectNear(out[1].toVector<float>(), {steps});
    }
  });
}

/// The steps of h <- tanh(x[t] + h w), in double: the outputs [steps,
/// rows, width] then the last state [rows, width]. x is [steps, rows,
/// width], w [width, width], h starts at zero.
std::vector<double> recurrence(const std::vector<float> &x,
                               const std::vector<float> &w, int64_t steps,
                               int64_t rows, int64_t width) {
  std::vector<double> h(rows * width, 0.0), outputs;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<double> next(rows * width);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < width; ++j) {
        double sum = x[(t * rows + i) * width + j];
        for (int64_t k = 0; k < width; ++k)
          sum += h[i * width + k] * double(w[k * width + j]);
        next[i * width + j] = std::tanh(sum);
      }
    h = next;
    outputs.insert(outputs.end(), h.begin(), h.end());
  }
  outputs.insert(outputs.end(), h.begin(), h.end());
  return outputs;
}

TEST(ControlFlowTest, LoopsWhoseRowsNeverMeetSplitOverThreads) {
  // An RNN's steps: a row of the state (a sequence of the batch) never
  // reads another row, so compiled, each thread runs the whole loop on its
  // rows (lazy-cpu-split-loop-rows): 16 rows on 2 threads, 15 on 3 (chunks
  // of 5), 14 on 3 (2 chunks of 7), 13 on 2 (which do not split into equal
  // chunks, so each op of a step is split instead).
  int previousThreads = numThreads();
  const int64_t steps = 24, width = 64;
  for (auto [rowCount, threads] : std::vector<std::pair<int64_t, int>>{
           {16, 2}, {15, 3}, {14, 3}, {13, 2}}) {
    const int64_t rows = rowCount; // (lambdas cannot capture bindings)
    SCOPED_TRACE("rows " + std::to_string(rows) + ", threads " +
                 std::to_string(threads));
    setNumThreads(threads);
    std::vector<float> xs(steps * rows * width), ws(width * width);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = std::sin(0.37f * float(i));
    for (size_t i = 0; i < ws.size(); ++i)
      ws[i] = 0.2f * std::cos(0.11f * float(i));
    std::vector<double> expected = recurrence(xs, ws, steps, rows, width);
    inBothModes([&] {
      Tensor x = Tensor::fromVector<float>(xs, {steps, rows, width});
      Tensor w = Tensor::fromVector<float>(ws, {width, width});
      std::vector<Tensor> final = whileLoop(
          [&](const std::vector<Tensor> &v) { return v[0] < int64_t(steps); },
          [&](const std::vector<Tensor> &v) {
            Tensor h = tanh(rowAt(x, v[0]) + matmul(v[2], w));
            return std::vector<Tensor>{v[0] + int64_t(1),
                                       replaceRowAt(v[1], v[0], h), h};
          },
          std::vector<Tensor>{zeros({}, DType::Int64),
                              zeros({steps, rows, width}),
                              zeros({rows, width})});
      std::vector<float> actual = final[1].toVector<float>();
      std::vector<float> last = final[2].toVector<float>();
      actual.insert(actual.end(), last.begin(), last.end());
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t i = 0; i < actual.size(); ++i)
        ASSERT_NEAR(actual[i], expected[i], 2e-5) << "element " << i;
    });
  }
  setNumThreads(previousThreads);
}

TEST(ControlFlowTest, MaxIterationsStopsTheLoop) {
  inBothModes([] {
    auto [n] = whileLoop([](Tensor n) { return n > 0.0f; },
                         [](Tensor n) { return std::tuple{n + 1.0f}; },
                         std::tuple{ones({})}, LoopOptions{7});
    EXPECT_EQ(n.item<float>(), 8.0f);
  });
}

TEST(ControlFlowTest, LoopsNestInBranches) {
  Tensor x = vec({1, 1});
  Tensor y = cond(
      sum(x) > 0.0f,
      [&] {
        auto [k, v] = whileLoop(
            [](Tensor k, Tensor) { return k < 3; },
            [](Tensor k, Tensor v) { return std::tuple{k + 1, v * 2.0f}; },
            std::tuple{zeros({}, DType::Int32), x});
        return v;
      },
      [&] { return x; });
  expectNear(y.toVector<float>(), {8, 8});
}

TEST(ControlFlowTest, GradientOfCondIsTheTakenBranchsGradient) {
  inBothModes([] {
    for (float value : {1.5f, -0.5f}) {
      Tensor x = vec({value, 2 * value});
      GradientTape tape;
      tape.watch(x);
      Tensor y = sum(cond(
          sum(x) > 0.0f, [&] { return x * x * x; }, [&] { return sin(x); }));
      Tensor g = tape.gradient(y, x);
      std::vector<float> expected;
      for (float v : {value, 2 * value})
        expected.push_back(value > 0 ? 3 * v * v : std::cos(v));
      expectNear(g.toVector<float>(), expected, 1e-4f);
    }
  });
}

TEST(ControlFlowTest, SecondDerivativeThroughCond) {
  Tensor x = vec({2.0f});
  GradientTape outer;
  outer.watch(x);
  Tensor dy;
  {
    GradientTape inner;
    inner.watch(x);
    Tensor y =
        sum(cond(sum(x) > 0.0f, [&] { return x * x * x; }, [&] { return x; }));
    dy = inner.gradient(y, x);
  }
  Tensor d2y = outer.gradient(sum(dy), x);
  expectNear(dy.toVector<float>(), {12});
  expectNear(d2y.toVector<float>(), {12});
}

TEST(ControlFlowTest, GradientThroughNestedCondsAndCapturedVariables) {
  Variable w(vec({0.5f, -1.0f}), "w");
  for (float sign : {1.0f, -1.0f}) {
    Tensor x = vec({sign, 2 * sign});
    GradientTape tape;
    Tensor wv = w.read();
    Tensor y = sum(cond(
        sum(x) > 0.0f,
        [&] {
          return cond(
              sum(wv) < 0.0f, [&] { return exp(wv) * x; }, [&] { return wv; });
        },
        [&] { return wv * wv; }));
    Tensor g = tape.gradient(y, w);
    // sum(w) = -0.5 < 0: the inner then-branch when x > 0.
    std::vector<float> expected =
        sign > 0 ? std::vector<float>{std::exp(0.5f) * 1, std::exp(-1.0f) * 2}
                 : std::vector<float>{2 * 0.5f, 2 * -1.0f};
    expectNear(g.toVector<float>(), expected, 1e-4f);
  }
}

TEST(ControlFlowTest, BranchTypesMustMatch) {
  Tensor x = vec({1, 2, 3});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        cond(sum(x) > 0.0f, [&] { return x; }, [&] { return sum(x, {0}); });
      },
      "cond", "Float32 [3] (then) and Float32 [] (else)");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        whileLoop([](Tensor v) { return sum(v) > 0.0f; },
                  [](Tensor v) { return std::tuple{cast(v, DType::Int32)}; },
                  std::tuple{x});
      },
      "whileLoop",
      "returns Int32 [3] for carried value 0, which starts as "
      "Float32 [3]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        cond(x, [&] { return x; }, [&] { return x; });
      },
      "cond", "must be a Bool scalar");
}

TEST(ControlFlowTest, ReadingAValueWhileTracingIsAnError) {
  Tensor x = vec({1, 2, 3});
  unsigned condLine = 0;
  try {
    condLine = __LINE__ + 1;
    cond(
        sum(x) > 0.0f,
        [&] {
          float peek = sum(x * 2.0f).item<float>();
          return x * peek;
        },
        [&] { return x; });
    ADD_FAILURE() << "no error";
  } catch (const Error &error) {
    std::string what = error.what();
    EXPECT_EQ(error.op(), "cond");
    EXPECT_NE(what.find("traced once, not run"), std::string::npos) << what;
    EXPECT_NE(what.find(":" + std::to_string(condLine)), std::string::npos)
        << what;
  }
  // Nothing was left half-traced: the next cond works.
  Tensor y = cond(sum(x) > 0.0f, [&] { return x + 1.0f; }, [&] { return x; });
  expectNear(y.toVector<float>(), {2, 3, 4});
}

TEST(ControlFlowTest, LoopValuesLeakedThroughCxxVariablesAreAnError) {
  Tensor x = vec({1, 2});
  Tensor leaked;
  unsigned loopLine = __LINE__ + 1;
  auto [y] = whileLoop([](Tensor v) { return sum(v) < 10.0f; },
                       [&](Tensor v) {
                         leaked = v * 3.0f;
                         return std::tuple{v * 2.0f};
                       },
                       std::tuple{x});
  expectNear(y.toVector<float>(), {4, 8});
  try {
    leaked.toVector<float>();
    ADD_FAILURE() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.op(), "whileLoop");
    EXPECT_EQ(error.line(), loopLine);
    EXPECT_NE(std::string(error.what()).find("only the loop's results"),
              std::string::npos)
        << error.what();
  }
}

TEST(ControlFlowTest, GradientOfABoundedLoop) {
  inBothModes([] {
    // v <- v * w + 1 three times: v3 = w^3 x + w^2 + w + 1.
    std::vector<float> xs = {0.5f, -1.0f}, ws = {1.5f, 0.25f};
    Tensor x = vec(xs), w = vec(ws);
    GradientTape tape;
    tape.watch(x);
    tape.watch(w);
    auto [i, v] = whileLoop(
        [](Tensor i, Tensor) { return i < 3; },
        [&](Tensor i, Tensor v) { return std::tuple{i + 1, v * w + 1.0f}; },
        std::tuple{zeros({}, DType::Int32), x}, LoopOptions{10});
    std::vector<Tensor> g = tape.gradient(sum(v), {x, w});
    std::vector<float> dx, dw;
    for (size_t e = 0; e < xs.size(); ++e) {
      float we = ws[e];
      dx.push_back(we * we * we);
      dw.push_back(3 * we * we * xs[e] + 2 * we + 1);
    }
    expectNear(g[0].toVector<float>(), dx, 1e-4f);
    expectNear(g[1].toVector<float>(), dw, 1e-4f);
  });
}

TEST(ControlFlowTest, GradientOfALoopOverEmptyValues) {
  inBothModes([] {
    // The loop's stack of iterations holds empty rows (lazyc-fuzz seed
    // 200137: the backward pass failed to compile). The gradient is as
    // empty as x, next to a value the loop also carries.
    Tensor x = Tensor::fromVector<float>({}, {0, 3});
    Tensor w = vec({2.0f});
    GradientTape tape;
    tape.watch(x);
    tape.watch(w);
    auto [i, v, s] = whileLoop(
        [](Tensor i, Tensor, Tensor) { return i < 2; },
        [&](Tensor i, Tensor v, Tensor s) {
          return std::tuple{i + 1, v * v, s * w};
        },
        std::tuple{zeros({}, DType::Int32), x, vec({1.0f})}, LoopOptions{4});
    std::vector<Tensor> g = tape.gradient(sum(v) + sum(s), {x, w});
    EXPECT_EQ(g[0].shape(), (Shape{0, 3}));
    EXPECT_TRUE(g[0].toVector<float>().empty());
    // s = w^2: d s / d w = 2 w = 4.
    expectNear(g[1].toVector<float>(), {4.0f}, 1e-5f);
  });
}

TEST(ControlFlowTest, ALoopsGradientSumsItsContributionsAsTheUnrolledLoop) {
  inBothModes([] {
    // y = mod(relu(x), x) in one iteration; x reaches y through relu and as
    // the captured divisor. For x = -33347: relu gives +0, y = -0 (the
    // divisor's sign), dy^2/dy = -0; through relu -0 * 0 = -0, through the
    // divisor -(-0 * floorDiv(0, x) = -0) = -0; their sum is -0. For x =
    // 1.125: y = +0, +0 * 1 through relu, -(+0 * 1) = -0 through the
    // divisor: +0. The loop's backward pass summed the divisor's
    // contributions from zeros, which turned -0 into +0 (lazyc-fuzz seed
    // 601190: rsqrt of the gradient was +inf in lazy mode, -inf in eager
    // mode, which unrolls the loop).
    Tensor x = vec({1.125f, -33347.0f});
    GradientTape tape;
    tape.watch(x);
    Tensor y = std::get<0>(
        whileLoop([](Tensor v) { return sum(abs(v)) > -1.0f; },
                  [&](Tensor v) { return std::tuple{mod(relu(v), x)}; },
                  std::tuple{x}, LoopOptions{1}));
    std::vector<float> g = tape.gradient(y * y, x).toVector<float>();
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[0], 0.0f);
    EXPECT_FALSE(std::signbit(g[0]));
    EXPECT_EQ(g[1], 0.0f);
    EXPECT_TRUE(std::signbit(g[1]));
  });
}

TEST(ControlFlowTest, AResultOfControlFlowIsNotItsOperand) {
  inBothModes([] {
    // A loop that runs no iteration returns its initial value's value, and
    // a branch may return a captured value; in eager mode they were those
    // very tensors, so a tape watching the result watched the operand too
    // and counted its other uses (lazyc-fuzz seed 611230).
    Tensor x = vec({1.25f, -0.5f});
    Tensor y =
        std::get<0>(whileLoop([](Tensor v) { return sum(abs(v)) > 4.0f; },
                              [](Tensor v) { return std::tuple{v * 2.0f}; },
                              std::tuple{x}, LoopOptions{3}));
    Tensor z = cond(sum(x) > 0.0f, [&] { return x; }, [&] { return -x; });
    GradientTape tape;
    tape.watch(y);
    tape.watch(z);
    // d/dy sum(y * x + z * x) = x, and so is d/dz: x is neither y nor z.
    std::vector<Tensor> g = tape.gradient(sum(y * x + z * x), {y, z});
    expectNear(g[0].toVector<float>(), {1.25f, -0.5f}, 0);
    expectNear(g[1].toVector<float>(), {1.25f, -0.5f}, 0);
  });
}

TEST(ControlFlowTest, GradientOfADataDependentTripCount) {
  for (float start : {3.0f, 0.25f, 40.0f}) {
    Tensor x = vec({start, -start});
    GradientTape tape;
    tape.watch(x);
    auto [v] = whileLoop(
        [](Tensor v) { return sum(abs(v)) > 1.0f; },
        [](Tensor v) { return std::tuple{sin(v) * 0.5f + v * 0.25f}; },
        std::tuple{x}, LoopOptions{50});
    Tensor g = tape.gradient(sum(v), x);
    // By hand: the same loop on doubles, with the chain rule per step.
    std::vector<float> expected;
    for (double value : {double(start), double(-start)}) {
      double a = std::fabs(start), b = std::fabs(start), d = 1;
      double current = value;
      while (a + b > 1.0) {
        d *= std::cos(current) * 0.5 + 0.25;
        current = std::sin(current) * 0.5 + current * 0.25;
        a = std::fabs(current);
        b = a;
      }
      expected.push_back(static_cast<float>(d));
    }
    expectNear(g.toVector<float>(), expected, 1e-4f);
  }
}

TEST(ControlFlowTest, GradientOfALoopInsideACond) {
  Tensor x = vec({0.5f, 2.0f});
  GradientTape tape;
  tape.watch(x);
  Tensor y = cond(
      sum(x) > 0.0f,
      [&] {
        auto [v] = whileLoop([](Tensor) { return ones({}, DType::Bool); },
                             [](Tensor v) { return std::tuple{v * v}; },
                             std::tuple{x}, LoopOptions{2});
        return v; // x^4
      },
      [&] { return x; });
  Tensor g = tape.gradient(sum(y), x);
  expectNear(g.toVector<float>(), {4 * 0.125f, 4 * 8.0f}, 1e-4f);
}

TEST(ControlFlowTest, UnboundedLoopsSayHowToDifferentiateThem) {
  Tensor x = vec({1, 2});
  GradientTape tape;
  tape.watch(x);
  Tensor y = std::get<0>(
      whileLoop([](Tensor v) { return sum(v) < 10.0f; },
                [](Tensor v) { return std::tuple{v * 2.0f}; }, std::tuple{x}));
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        tape.gradient(sum(y), x);
      },
      "gradient", "give it LoopOptions{maxIterations}");
}

TEST(ControlFlowTest, TheGradientOfAnIfIsAnIfReadingExposedIntermediates) {
  Tensor x = vec({0.5f, 2.0f});
  GradientTape tape;
  tape.watch(x);
  Tensor y =
      sum(cond(sum(x) > 0.0f, [&] { return exp(x) * x; }, [&] { return -x; }));
  Tensor g = tape.gradient(y, x);

  // The trace of the gradient, as the engine would compile it.
  lazyc::trace::Trace trace =
      lazyc::trace::extractTrace({detail::TensorAccess::node(g).get()});
  mlir::DialectRegistry registry;
  lazyc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module = lazyc::import::importTrace(trace, context, {});
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);

  // Two lazy.if on one predicate: the forward one, whose then branch yields
  // its exp(x) for the gradient (the user's result is not needed here) and
  // whose else branch yields zeros in its place (its gradient never reads
  // it); then the gradient's, which reads it.
  ASSERT_EQ(occurrences(text, "lazy.if %"), 2u) << text;
  size_t forward = text.find("lazy.if %");
  size_t exp = text.find(" = lazy.exp", forward);
  size_t otherwise = text.find("} else {", forward);
  size_t gradient = text.find("lazy.if %", forward + 1);
  ASSERT_LT(exp, otherwise) << text;
  std::string expValue =
      text.substr(text.rfind('%', exp), exp - text.rfind('%', exp));
  size_t thenYield = text.find("lazy.yield ", exp);
  EXPECT_EQ(text.substr(thenYield, 11 + expValue.size() + 1),
            "lazy.yield " + expValue + " ")
      << text;
  size_t zero =
      text.find("lazy.constant dense<0.000000e+00> : tensor<2xf32>", otherwise);
  EXPECT_LT(zero, gradient) << text;
  // The intermediate is computed once, in the forward branch.
  EXPECT_EQ(occurrences(text, "lazy.exp"), 1u) << text;
  std::string forwardValue =
      text.substr(text.rfind('%', forward - 4),
                  text.find(' ', text.rfind('%', forward - 4)) -
                      text.rfind('%', forward - 4));
  EXPECT_NE(text.find(forwardValue + " ", gradient), std::string::npos)
      << "the gradient's If reads " << forwardValue << "\n"
      << text;
  // The derivative, exp(x) * (x + 1) where the sum is positive.
  std::vector<float> got = g.toVector<float>();
  EXPECT_NEAR(got[0], std::exp(0.5f) * 1.5f, 1e-5f);
  EXPECT_NEAR(got[1], std::exp(2.0f) * 3.0f, 1e-4f);
}

//===----------------------------------------------------------------------===//
// rowAt and replaceRowAt: a row at an index computed at run time
//===----------------------------------------------------------------------===//

/// An index as data: an Int64 (or Int32) scalar tensor.
Tensor index64(int64_t value) {
  return Tensor::fromVector<int64_t>({value}, {});
}
Tensor index32(int32_t value) {
  return Tensor::fromVector<int32_t>({value}, {});
}

TEST(ControlFlowTest, RowAtReadsTheRowAnIndexNamesClampedToTheAxis) {
  inBothModes([] {
    // x [4, 2]: row k is {2k, 2k + 1}.
    Tensor x = Tensor::fromVector<float>({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
    // Counted from the end when negative; outside [-4, 4) clamped to the
    // axis after that (-9 + 4 = -5 -> row 0, 7 -> row 3).
    for (auto [index, expected] :
         {std::pair<int64_t, std::vector<float>>{0, {0, 1}},
          {2, {4, 5}},
          {3, {6, 7}},
          {-1, {6, 7}},
          {-4, {0, 1}},
          {7, {6, 7}},
          {-9, {0, 1}}}) {
      SCOPED_TRACE("index " + std::to_string(index));
      Tensor row = rowAt(x, index64(index));
      EXPECT_EQ(row.shape(), (Shape{2}));
      expectNear(row.toVector<float>(), expected, 0);
      expectNear(rowAt(x, index32(int32_t(index))).toVector<float>(), expected,
                 0);
    }
    // A vector's row is a scalar; a [2, 2, 2]'s row is [2, 2].
    Tensor v = vec({1.5f, -2.5f, 3.5f});
    Tensor scalar = rowAt(v, index32(-2));
    EXPECT_EQ(scalar.shape(), Shape{});
    EXPECT_EQ(scalar.item<float>(), -2.5f);
    Tensor cube =
        Tensor::fromVector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
    Tensor plane = rowAt(cube, index64(1));
    EXPECT_EQ(plane.shape(), (Shape{2, 2}));
    EXPECT_EQ(plane.toVector<int32_t>(), (std::vector<int32_t>{4, 5, 6, 7}));
  });
}

TEST(ControlFlowTest, ReplaceRowAtWritesTheRowAnIndexNamesAndLeavesXAlone) {
  inBothModes([] {
    std::vector<float> data = {0, 1, 2, 3, 4, 5, 6, 7};
    Tensor x = Tensor::fromVector<float>(data, {4, 2});
    Tensor row = vec({10, 11});
    for (auto [index, at] : {std::pair<int64_t, int64_t>{1, 1},
                             {0, 0},
                             {-1, 3},
                             {-3, 1},
                             {9, 3},
                             {-100, 0}}) {
      SCOPED_TRACE("index " + std::to_string(index));
      std::vector<float> expected = data;
      expected[2 * at] = 10;
      expected[2 * at + 1] = 11;
      Tensor y = replaceRowAt(x, index64(index), row);
      EXPECT_EQ(y.shape(), (Shape{4, 2}));
      expectNear(y.toVector<float>(), expected, 0);
      expectNear(
          replaceRowAt(x, index32(int32_t(index)), row).toVector<float>(),
          expected, 0);
    }
    // x itself is not written.
    expectNear(x.toVector<float>(), data, 0);
    // Of a vector: a scalar row.
    Tensor v = Tensor::fromVector<int64_t>({1, 2, 3}, {3});
    EXPECT_EQ(replaceRowAt(v, index32(-1), Tensor::fromVector<int64_t>({9}, {}))
                  .toVector<int64_t>(),
              (std::vector<int64_t>{1, 2, 9}));
  });
}

TEST(ControlFlowTest, TheRowIndexIsDataNotPartOfTheTrace) {
  // Another index value runs the trace already compiled.
  Tensor x = Tensor::fromVector<float>({0, 1, 2, 3, 4, 5}, {3, 2});
  auto run = [&](int64_t index) {
    return (replaceRowAt(x, index64(index),
                         rowAt(x, index64(-1 - index)) + 1.0f))
        .toVector<float>();
  };
  expectNear(run(0), {5, 6, 2, 3, 4, 5}, 0); // Warm-up: compiles once.
  uint64_t compiled = metrics().tracesCompiled;
  expectNear(run(2), {0, 1, 2, 3, 1, 2}, 0);
  expectNear(run(-2), {0, 1, 3, 4, 4, 5}, 0);
  EXPECT_EQ(metrics().tracesCompiled, compiled);
}

TEST(ControlFlowTest, ALoopWritesAndReadsRowsOfACarriedTensor) {
  inBothModes([] {
    // Iteration i writes row i of buf [n, m] with sin(i + j) * (j + 1),
    // then adds row i and half of row i - 1 (row n - 1, still as it
    // started, when i = 0) to acc. buf starts as a tensor that stays alive
    // and must not be written by the loop's in-place row writes.
    constexpr int64_t n = 5, m = 3;
    Tensor columns = vec({0, 1, 2}), scales = vec({1, 2, 3});
    std::vector<float> initial(n * m);
    for (int64_t e = 0; e < n * m; ++e)
      initial[e] = -0.25f * float(e + 1);
    Tensor start = Tensor::fromVector<float>(initial, {n, m});
    auto [i, buf, acc] = whileLoop(
        [&](Tensor i, Tensor, Tensor) { return i < n; },
        [&](Tensor i, Tensor buf, Tensor acc) {
          Tensor row = sin(cast(i, DType::Float32) + columns) * scales;
          Tensor written = replaceRowAt(buf, i, row);
          Tensor sum =
              acc + rowAt(written, i) + rowAt(written, i - int64_t(1)) * 0.5f;
          return std::tuple{i + int64_t(1), written, sum};
        },
        std::tuple{zeros({}, DType::Int64), start, zeros({m})});
    EXPECT_EQ(i.item<int64_t>(), n);
    std::vector<double> rows(initial.begin(), initial.end()), sums(m, 0.0);
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t j = 0; j < m; ++j)
        rows[k * m + j] = std::sin(double(k + j)) * double(j + 1);
      int64_t previous = k == 0 ? n - 1 : k - 1;
      for (int64_t j = 0; j < m; ++j)
        sums[j] += rows[k * m + j] + 0.5 * rows[previous * m + j];
    }
    expectNear(buf.toVector<float>(),
               std::vector<float>(rows.begin(), rows.end()), 1e-5f);
    expectNear(acc.toVector<float>(),
               std::vector<float>(sums.begin(), sums.end()), 1e-5f);
    expectNear(start.toVector<float>(), initial, 0);
  });
}

TEST(ControlFlowTest, GradientThroughRowAtAndReplaceRowAt) {
  inBothModes([] {
    // loss = sum(rowAt(x, a) * w) + sum(replaceRowAt(x, b, r) * c):
    // d x = w at row a (clamped), plus c outside row b; d r = c's row b.
    std::vector<float> xs = {1, 2, 3, 4, 5, 6}, cs = {1, -1, 2, -2, 3, -3};
    Tensor w = vec({0.5f, -4.0f}), c = Tensor::fromVector<float>(cs, {3, 2});
    for (auto [a, b, rowA, rowB] :
         {std::tuple<int64_t, int64_t, int64_t, int64_t>{-1, 1, 2, 1},
          {0, -3, 0, 0},
          {5, 2, 2, 2},
          {1, 1, 1, 1}}) {
      SCOPED_TRACE("a " + std::to_string(a) + ", b " + std::to_string(b));
      Tensor x = Tensor::fromVector<float>(xs, {3, 2});
      Tensor r = vec({7, 8});
      GradientTape tape;
      tape.watch(x);
      tape.watch(r);
      Tensor loss = sum(rowAt(x, index64(a)) * w) +
                    sum(replaceRowAt(x, index32(int32_t(b)), r) * c);
      std::vector<Tensor> g = tape.gradient(loss, {x, r});
      std::vector<float> dx(6, 0.0f);
      for (int64_t k = 0; k < 3; ++k)
        for (int64_t j = 0; j < 2; ++j)
          dx[k * 2 + j] = (k == rowA ? (j == 0 ? 0.5f : -4.0f) : 0.0f) +
                          (k == rowB ? 0.0f : cs[k * 2 + j]);
      expectNear(g[0].toVector<float>(), dx, 0);
      expectNear(g[1].toVector<float>(), {cs[rowB * 2], cs[rowB * 2 + 1]}, 0);
    }
  });
}

TEST(ControlFlowTest, GradientOfALoopOverRows) {
  inBothModes([] {
    // Iteration i: buf[i] = x[i]^2, acc += x[3 - i] * i. loss = sum(buf) +
    // sum(acc): d x[k][j] = 2 x[k][j] + (3 - k).
    std::vector<float> xs = {0.5f, -1, 1.5f, 2, -0.25f, 3, 1, -2};
    Tensor x = Tensor::fromVector<float>(xs, {4, 2});
    GradientTape tape;
    tape.watch(x);
    auto [i, buf, acc] = whileLoop(
        [](Tensor i, Tensor, Tensor) { return i < 4; },
        [&](Tensor i, Tensor buf, Tensor acc) {
          Tensor row = rowAt(x, i);
          Tensor back = rowAt(x, full({}, int32_t(3), DType::Int32) - i);
          return std::tuple{i + 1, replaceRowAt(buf, i, row * row),
                            acc + back * cast(i, DType::Float32)};
        },
        std::tuple{zeros({}, DType::Int32), zeros({4, 2}), zeros({2})},
        LoopOptions{10});
    Tensor g = tape.gradient(sum(buf) + sum(acc), x);
    std::vector<float> expected;
    for (int64_t e = 0; e < 8; ++e)
      expected.push_back(2 * xs[e] + float(3 - e / 2));
    expectNear(g.toVector<float>(), expected, 1e-5f);
  });
}

TEST(ControlFlowTest, RowOpsCheckTheirOperands) {
  Tensor x = Tensor::fromVector<float>({0, 1, 2, 3, 4, 5}, {3, 2});
  Tensor row = vec({1, 2});
  Tensor vectorIndex = Tensor::fromVector<int64_t>({1}, {1});
  Tensor floatIndex = Tensor::fromVector<float>({1}, {});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        rowAt(x, vectorIndex);
      },
      "rowAt", "the index must be an Int32 or Int64 scalar, got Int64 [1]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        rowAt(x, floatIndex);
      },
      "rowAt", "the index must be an Int32 or Int64 scalar, got Float32 []");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        rowAt(Tensor::fromVector<float>({1}, {}), index64(0));
      },
      "rowAt", "needs a tensor of rank >= 1 with rows, got Float32 []");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        rowAt(Tensor(), index64(0));
      },
      "rowAt", "an operand is an empty Tensor");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        rowAt(Tensor::fromVector<float>({}, {0, 3}), index64(0));
      },
      "rowAt", "needs a tensor of rank >= 1 with rows, got Float32 [0, 3]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(x, vectorIndex, row);
      },
      "replaceRowAt",
      "the index must be an Int32 or Int64 scalar, got Int64 [1]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(x, floatIndex, row);
      },
      "replaceRowAt",
      "the index must be an Int32 or Int64 scalar, got Float32 []");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(Tensor::fromVector<float>({1}, {}), index64(0),
                     Tensor::fromVector<float>({1}, {}));
      },
      "replaceRowAt", "needs a tensor of rank >= 1 with rows, got Float32 []");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(x, index64(0), vec({1, 2, 3}));
      },
      "replaceRowAt",
      "the row must be one row of Float32 [3, 2], got Float32 [3]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(x, index64(0),
                     Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
      },
      "replaceRowAt",
      "the row must be one row of Float32 [3, 2], got Float32 [3, 2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(x, index64(0), Tensor::fromVector<int32_t>({1, 2}, {2}));
      },
      "replaceRowAt",
      "the row must be one row of Float32 [3, 2], got Int32 [2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        replaceRowAt(x, index64(0), Tensor());
      },
      "replaceRowAt", "got an empty Tensor");
}

} // namespace
