//===- ConvTest.cpp - conv2d, maxPool2d, avgPool2d ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// conv2d and both its gradients against direct convolution loops written
// here (in double), over strides, padding, dilation and groups; pooling
// against window loops; gradients also against central differences.
//
//===----------------------------------------------------------------------===//

#include "../API/ExpectError.h"
#include "GradientCheck.h"

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::testValues;

namespace {

struct ConvCase {
  int64_t n, c, h, w, outC, kh, kw;
  nn::Conv2dOptions options;
};

int64_t outSize(int64_t size, int64_t pad, int64_t kernel, int64_t dilation,
                int64_t stride) {
  return (size + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
}

/// The input pixel a tap reads, or -1 in the padding.
int64_t source(int64_t out, int64_t tap, int64_t stride, int64_t dilation,
               int64_t pad, int64_t size) {
  int64_t at = out * stride + tap * dilation - pad;
  return at >= 0 && at < size ? at : -1;
}

/// Direct convolution, and its gradients for an upstream gradient `g`.
struct Reference {
  std::vector<double> y, dx, dw, db;
};

Reference directConv(const ConvCase &k, const std::vector<double> &x,
                     const std::vector<double> &w, const std::vector<double> &b,
                     const std::vector<double> &g) {
  const nn::Conv2dOptions &o = k.options;
  int64_t oh =
      outSize(k.h, o.padding.height, k.kh, o.dilation.height, o.stride.height);
  int64_t ow =
      outSize(k.w, o.padding.width, k.kw, o.dilation.width, o.stride.width);
  int64_t cg = k.c / o.groups, og = k.outC / o.groups;
  Reference r;
  r.y.assign(k.n * k.outC * oh * ow, 0);
  r.dx.assign(x.size(), 0);
  r.dw.assign(w.size(), 0);
  r.db.assign(k.outC, 0);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t oc = 0; oc < k.outC; ++oc)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          int64_t out = ((n * k.outC + oc) * oh + y) * ow + xo;
          double acc = b.empty() ? 0 : b[oc];
          r.db[oc] += g[out];
          int64_t group = oc / og;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t row = source(y, i, o.stride.height, o.dilation.height,
                                     o.padding.height, k.h);
                int64_t col = source(xo, j, o.stride.width, o.dilation.width,
                                     o.padding.width, k.w);
                if (row < 0 || col < 0)
                  continue;
                int64_t c = group * cg + ci;
                int64_t xi = ((n * k.c + c) * k.h + row) * k.w + col;
                int64_t wi = ((oc * cg + ci) * k.kh + i) * k.kw + j;
                acc += x[xi] * w[wi];
                r.dx[xi] += g[out] * w[wi];
                r.dw[wi] += g[out] * x[xi];
              }
          r.y[out] = acc;
        }
  return r;
}

void expectNear(const std::vector<double> &got,
                const std::vector<double> &expected, double tolerance,
                const char *what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], tolerance) << what << " element " << i;
}

void checkConv(const ConvCase &k, bool withBias) {
  std::vector<double> x = testValues(k.n * k.c * k.h * k.w, 1);
  std::vector<double> w =
      testValues(k.outC * (k.c / k.options.groups) * k.kh * k.kw, 2);
  std::vector<double> b =
      withBias ? testValues(k.outC, 3) : std::vector<double>();
  Tensor xt = Tensor::fromVector(x, {k.n, k.c, k.h, k.w});
  Tensor wt =
      Tensor::fromVector(w, {k.outC, k.c / k.options.groups, k.kh, k.kw});
  Tensor bt = withBias ? Tensor::fromVector(b, {k.outC}) : Tensor();
  // With and without a tape (grouped convolutions slice the taps without
  // one and gather them under one, docs/API.md): both against the loops.
  std::vector<double> untaped =
      nn::conv2d(xt, wt, bt, k.options).toVector<double>();
  GradientTape tape;
  tape.watch(xt);
  tape.watch(wt);
  if (withBias)
    tape.watch(bt);
  Tensor y = nn::conv2d(xt, wt, bt, k.options);
  std::vector<double> g = testValues(y.numel(), 4);
  Reference r = directConv(k, x, w, b, g);
  expectNear(untaped, r.y, 1e-12, "y without a tape");
  ASSERT_EQ(y.shape(),
            (Shape{k.n, k.outC,
                   outSize(k.h, k.options.padding.height, k.kh,
                           k.options.dilation.height, k.options.stride.height),
                   outSize(k.w, k.options.padding.width, k.kw,
                           k.options.dilation.width, k.options.stride.width)}));
  Tensor loss = sum(y * Tensor::fromVector(g, y.shape()));
  std::vector<Tensor> sources = {xt, wt};
  if (withBias)
    sources.push_back(bt);
  std::vector<Tensor> grads = tape.gradient(loss, sources);
  expectNear(y.toVector<double>(), r.y, 1e-12, "y");
  expectNear(grads[0].toVector<double>(), r.dx, 1e-12, "dx");
  expectNear(grads[1].toVector<double>(), r.dw, 1e-12, "dw");
  if (withBias)
    expectNear(grads[2].toVector<double>(), r.db, 1e-12, "db");
}

TEST(Conv2dTest, MatchesDirectLoopsWithGradients) {
  checkConv({2, 3, 7, 6, 4, 3, 3, {}}, /*withBias=*/true);
  checkConv({2, 1, 8, 8, 3, 5, 5, {}}, /*withBias=*/false);
  nn::Conv2dOptions strided;
  strided.stride = {2, 3};
  strided.padding = {1, 2};
  checkConv({2, 3, 9, 10, 2, 3, 2, strided}, true);
  nn::Conv2dOptions dilated;
  dilated.dilation = {2, 1};
  dilated.padding = 1;
  checkConv({1, 2, 8, 7, 3, 3, 3, dilated}, true);
  // Wider reductions (C kH kW = 36, 30 taps).
  nn::Conv2dOptions wide;
  wide.stride = 2;
  wide.padding = {1, 0};
  checkConv({2, 4, 7, 8, 3, 3, 3, wide}, true);
  nn::Conv2dOptions wideDilated;
  wideDilated.dilation = 2;
  checkConv({1, 5, 7, 6, 2, 3, 2, wideDilated}, false);
  // A stride and a dilation whose sweep leaves the last rows and columns
  // unread (their gradient is zero).
  nn::Conv2dOptions sweep;
  sweep.stride = {2, 1};
  sweep.dilation = {1, 2};
  sweep.padding = {1, 1};
  checkConv({2, 6, 9, 11, 4, 3, 3, sweep}, true);
  nn::Conv2dOptions coarse;
  coarse.stride = 3;
  coarse.padding = 2;
  checkConv({1, 4, 10, 9, 5, 3, 3, coarse}, false);
  // Padding beyond the kernel's reach: output pixels that read padding only
  // (their gradient reaches no input pixel).
  nn::Conv2dOptions framed;
  framed.stride = {2, 1};
  framed.padding = {2, 1};
  checkConv({2, 3, 5, 4, 2, 1, 1, framed}, true);
  nn::Conv2dOptions grouped;
  grouped.groups = 2;
  grouped.padding = 1;
  checkConv({2, 4, 5, 5, 6, 3, 3, grouped}, true);
  nn::Conv2dOptions depthwise;
  depthwise.groups = 3;
  depthwise.stride = 2;
  checkConv({1, 3, 6, 6, 3, 2, 2, depthwise}, false);
}

TEST(Conv2dTest, Float32AndUnbatchedInput) {
  ConvCase k{1, 2, 5, 5, 3, 3, 3, {}};
  k.options.padding = 1;
  std::vector<double> x = testValues(2 * 5 * 5, 5),
                      w = testValues(3 * 2 * 9, 6);
  Reference r = directConv(k, x, w, {}, std::vector<double>(75, 0));
  std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end());
  Tensor y = nn::conv2d(Tensor::fromVector(xf, {2, 5, 5}),
                        Tensor::fromVector(wf, {3, 2, 3, 3}), k.options);
  EXPECT_EQ(y.shape(), (Shape{3, 5, 5}));
  EXPECT_EQ(y.dtype(), DType::Float32);
  std::vector<float> got = y.toVector<float>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], r.y[i], 1e-5) << i;
}

TEST(Conv2dTest, Float32RegisterTilesAndTheirGradients) {
  // LeNet's second layer and a wider one: f32 through the CPU pipeline's
  // register-blocked kernels (tiles of 8 and of 16 pixels, a remainder of
  // 4, a masked vector of 6 or 8 channels, two vectors of 32) for the
  // output and both gradients, against the loops in float64.
  for (ConvCase k : {ConvCase{3, 6, 12, 12, 16, 5, 5, {}},
                     ConvCase{2, 16, 8, 14, 40, 3, 3, nn::Conv2dOptions{}}}) {
    if (k.outC == 40)
      k.options.padding = 1;
    std::vector<double> x = testValues(k.n * k.c * k.h * k.w, 11),
                        w = testValues(k.outC * k.c * k.kh * k.kw, 12),
                        b = testValues(k.outC, 13);
    std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()),
        bf(b.begin(), b.end());
    Tensor xt = Tensor::fromVector(xf, {k.n, k.c, k.h, k.w});
    Tensor wt = Tensor::fromVector(wf, {k.outC, k.c, k.kh, k.kw});
    Tensor bt = Tensor::fromVector(bf, {k.outC});
    GradientTape tape;
    tape.watch(xt);
    tape.watch(wt);
    Tensor y = nn::conv2d(xt, wt, bt, k.options);
    std::vector<double> g = testValues(y.numel(), 14);
    std::vector<float> gf(g.begin(), g.end());
    Reference r = directConv(k, std::vector<double>(xf.begin(), xf.end()),
                             std::vector<double>(wf.begin(), wf.end()),
                             std::vector<double>(bf.begin(), bf.end()),
                             std::vector<double>(gf.begin(), gf.end()));
    Tensor loss = sum(y * Tensor::fromVector(gf, y.shape()));
    std::vector<Tensor> grads = tape.gradient(loss, {xt, wt});
    auto widen = [](const std::vector<float> &v) {
      return std::vector<double>(v.begin(), v.end());
    };
    // Up to 400 products per output and 224 per filter gradient, each
    // below 1 in magnitude, summed in f32 (a wrong term is off by ~0.1).
    expectNear(widen(y.toVector<float>()), r.y, 1e-4, "y");
    expectNear(widen(grads[0].toVector<float>()), r.dx, 1e-4, "dx");
    expectNear(widen(grads[1].toVector<float>()), r.dw, 1e-4, "dw");
  }
}

/// conv2d (3x3, padding 1, bias) in float32 of each case in turn, from
/// one call site, against the loops, on an empty function cache. With
/// `declared`, through a staged function whose signature leaves every size
/// unknown. Returns the metrics.
static Metrics convolveInTurn(const std::vector<ConvCase> &cases,
                              bool declared = false) {
  clearCache();
  resetMetrics();
  auto convolve = [](Tensor x, Tensor w, Tensor b) {
    nn::Conv2dOptions options;
    options.padding = 1;
    return nn::conv2d(x, w, b, options);
  };
  auto staged =
      lazyc::function("conv", convolve,
                      {TensorSpec({-1, -1, -1, -1}),
                       TensorSpec({-1, -1, -1, -1}), TensorSpec({-1})});
  for (ConvCase k : cases) {
    k.options.padding = 1;
    std::vector<double> x = testValues(k.n * k.c * k.h * k.w, 21),
                        w = testValues(k.outC * k.c * k.kh * k.kw, 22),
                        b = testValues(k.outC, 23);
    std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()),
        bf(b.begin(), b.end());
    Tensor xt = Tensor::fromVector(xf, {k.n, k.c, k.h, k.w});
    Tensor wt = Tensor::fromVector(wf, {k.outC, k.c, k.kh, k.kw});
    Tensor bt = Tensor::fromVector(bf, {k.outC});
    Tensor y = declared ? staged(xt, wt, bt) : convolve(xt, wt, bt);
    std::vector<double> g(y.numel(), 0.0);
    Reference r = directConv(k, std::vector<double>(xf.begin(), xf.end()),
                             std::vector<double>(wf.begin(), wf.end()),
                             std::vector<double>(bf.begin(), bf.end()), g);
    std::vector<float> got = y.toVector<float>();
    expectNear(std::vector<double>(got.begin(), got.end()), r.y, 1e-4,
               "y of a changed shape");
  }
  return metrics();
}

TEST(Conv2dTest, ChangingShapesRunTheDynamicKernels) {
  std::vector<ConvCase> channelsChange = {{2, 1, 28, 28, 6, 3, 3, {}},
                                          {2, 6, 12, 12, 16, 3, 3, {}},
                                          {1, 3, 9, 37, 13, 3, 3, {}},
                                          {3, 5, 7, 5, 7, 3, 3, {}}};
  // Channel counts that change: each compiles for its sizes (the kernels
  // specialize on them), no size is left to the call.
  Metrics apart = convolveInTurn(channelsChange);
  EXPECT_EQ(apart.sizesMadeDynamic, 0u);
  EXPECT_EQ(apart.tracesCompiled, 4u);
  // A signature that leaves them unknown: functions shared across channel
  // counts, which stay NCHW (blocks of 8 filters, then 4, 2, 1; two
  // vectors of pixels, then masked ones). (The first call's sizes are the
  // ones left to the call, except 1s, which broadcasts stretch: 2
  // channels, not 1.)
  channelsChange.front().c = 2;
  EXPECT_LT(convolveInTurn(channelsChange, /*declared=*/true).tracesCompiled,
            channelsChange.size());
  // Only the images' sizes change: channels last with dynamic rows and
  // columns (tiles of 8 pixels, then 4, 2, 1).
  EXPECT_GE(convolveInTurn({{2, 16, 8, 8, 32, 3, 3, {}},
                            {1, 16, 11, 13, 32, 3, 3, {}},
                            {2, 16, 5, 23, 32, 3, 3, {}}})
                .sizesMadeDynamic,
            1u);
}

TEST(Conv2dTest, RandomShapesMatchTheLoopsInFloat32) {
  // 16 seeded random convolutions (1-20 filters, 1-9 channels, kernels up
  // to 4, strides, dilations, padding; images up to 19 wide) in float32:
  // every layout and kernel choice, full and masked vectors, whole and
  // partial tiles, forward and both gradients, against the loops.
  uint64_t state = 12345;
  auto next = [&](int64_t low, int64_t high) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return low + static_cast<int64_t>((state >> 33) %
                                      static_cast<uint64_t>(high - low + 1));
  };
  for (int trial = 0; trial < 16; ++trial) {
    ConvCase k{next(1, 3),  next(1, 9), 0,          0,
               next(1, 20), next(1, 4), next(1, 4), {}};
    k.options.stride = {next(1, 2), next(1, 2)};
    k.options.dilation = {next(1, 2), next(1, 2)};
    k.options.padding = {next(0, 2), next(0, 2)};
    // Images the dilated kernel fits: up to 19 pixels wide.
    k.h = (k.kh - 1) * k.options.dilation.height + next(1, 12);
    k.w = (k.kw - 1) * k.options.dilation.width + next(1, 12);
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<double> x = testValues(k.n * k.c * k.h * k.w, 31 + trial),
                        w = testValues(k.outC * k.c * k.kh * k.kw, 57 + trial);
    std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end());
    Tensor xt = Tensor::fromVector(xf, {k.n, k.c, k.h, k.w});
    Tensor wt = Tensor::fromVector(wf, {k.outC, k.c, k.kh, k.kw});
    GradientTape tape;
    tape.watch(xt);
    tape.watch(wt);
    Tensor y = nn::conv2d(xt, wt, k.options);
    std::vector<double> g = testValues(y.numel(), 83 + trial);
    std::vector<float> gf(g.begin(), g.end());
    Reference r = directConv(k, std::vector<double>(xf.begin(), xf.end()),
                             std::vector<double>(wf.begin(), wf.end()), {},
                             std::vector<double>(gf.begin(), gf.end()));
    std::vector<Tensor> grads =
        tape.gradient(sum(y * Tensor::fromVector(gf, y.shape())), {xt, wt});
    auto widen = [](const Tensor &t) {
      std::vector<float> v = t.toVector<float>();
      return std::vector<double>(v.begin(), v.end());
    };
    // At most 9 x 16 products per output, 3 x 19 x 19 per filter gradient.
    expectNear(widen(y), r.y, 1e-4, "y");
    expectNear(widen(grads[0]), r.dx, 1e-4, "dx");
    expectNear(widen(grads[1]), r.dw, 2e-4, "dw");
  }
}

TEST(Conv2dTest, NoInputChannelsGivesZerosPlusTheBias) {
  // A sum over no taps (lazyc-fuzz seed 60324 once threw here): zeros of the
  // output's shape, plus the bias per output channel.
  Tensor x = zeros({2, 0, 4, 3});
  Tensor w = zeros({2, 0, 3, 2});
  Tensor b = Tensor::fromVector<float>({1.5f, -2.0f}, {2});
  nn::Conv2dOptions options;
  options.stride = 1;
  Tensor y = nn::conv2d(x, w, b, options);
  EXPECT_EQ(y.shape(), (Shape{2, 2, 2, 2}));
  std::vector<float> got = y.toVector<float>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], (i / 4) % 2 == 0 ? 1.5f : -2.0f) << i;
  EXPECT_EQ(nn::conv2d(x, w, options).toVector<float>(),
            std::vector<float>(16, 0.0f));
  // Padded: the padded images are zeros only (lazyc-fuzz seed 113932 once
  // made an invalid slice of the empty channels).
  options.padding = 1;
  EXPECT_EQ(nn::conv2d(x, w, options).toVector<float>(),
            std::vector<float>(2 * 2 * 4 * 4, 0.0f));
}

TEST(Conv2dTest, GradientsMatchFiniteDifferences) {
  nn::Conv2dOptions options;
  options.stride = 2;
  options.padding = 1;
  lazyc::test::expectGradientsMatchDifferences(
      [&](const std::vector<Tensor> &in) {
        return nn::conv2d(in[0], in[1], in[2], options);
      },
      {testValues(1 * 2 * 5 * 4, 7), testValues(2 * 2 * 3 * 3, 8),
       testValues(2, 9)},
      {{1, 2, 5, 4}, {2, 2, 3, 3}, {2}});
}

TEST(Conv2dTest, ErrorsNameTheShapesAndTheLine) {
  Tensor x = zeros({2, 3, 8, 8}), w = zeros({4, 3, 3, 3});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(x, zeros({4, 2, 3, 3}), nn::Conv2dOptions());
      },
      "conv2d", "has 3 channels, so the weight [4, 2, 3, 3] needs 3");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(zeros({3, 8}), w, nn::Conv2dOptions());
      },
      "conv2d", "needs an [N, C, H, W] or [C, H, W] input, got Float32 [3, 8]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(x, w, zeros({3}));
      },
      "conv2d", "the bias must be [4], got [3]");
  nn::Conv2dOptions grouped;
  grouped.groups = 2;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(x, w, grouped);
      },
      "conv2d", "groups = 2 must be positive and divide the input channels");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(zeros({1, 3, 2, 2}), w, nn::Conv2dOptions());
      },
      "conv2d", "does not fit the padded input [1, 3, 2, 2]");
  nn::Conv2dOptions badStride;
  badStride.stride = {1, 0};
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(x, w, badStride);
      },
      "conv2d", "the stride must be positive, got (1, 0)");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        nn::conv2d(x, zeros({4, 3, 3, 3}, DType::Int32), nn::Conv2dOptions());
      },
      "conv2d", "the weight must be floating point, got Int32 [4, 3, 3, 3]");
}

/// Window loops: max (padding is -infinity) or mean.
std::vector<double> poolLoops(const std::vector<double> &x, int64_t n,
                              int64_t c, int64_t h, int64_t w, nn::Size2 k,
                              nn::Size2 s, nn::Size2 p, bool isMax,
                              bool countIncludePad) {
  int64_t oh = (h + 2 * p.height - k.height) / s.height + 1;
  int64_t ow = (w + 2 * p.width - k.width) / s.width + 1;
  std::vector<double> out;
  for (int64_t image = 0; image < n * c; ++image)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) {
        double best = -std::numeric_limits<double>::infinity(), total = 0;
        int64_t inside = 0;
        for (int64_t i = 0; i < k.height; ++i)
          for (int64_t j = 0; j < k.width; ++j) {
            int64_t row = y * s.height + i - p.height;
            int64_t col = xo * s.width + j - p.width;
            if (row < 0 || row >= h || col < 0 || col >= w)
              continue;
            double value = x[(image * h + row) * w + col];
            best = std::max(best, value);
            total += value;
            ++inside;
          }
        out.push_back(isMax
                          ? best
                          : total / double(countIncludePad ? k.height * k.width
                                                           : inside));
      }
  return out;
}

// lazyc::conv2d, the core op nn::conv2d builds on: asymmetric padding,
// against a loop written here.
TEST(CoreConv2dTest, AsymmetricPaddingMatchesADirectLoop) {
  const int64_t n = 2, c = 3, h = 7, w = 6, f = 4, kh = 3, kw = 2;
  const std::array<int64_t, 2> stride = {2, 1}, dilation = {1, 2};
  const std::array<int64_t, 4> padding = {1, 0, 2, 1}; // top bottom left right
  std::vector<double> x = testValues(size_t(n * c * h * w), 5);
  std::vector<double> k = testValues(size_t(f * c * kh * kw), 6);
  int64_t oh =
      (h + padding[0] + padding[1] - dilation[0] * (kh - 1) - 1) / stride[0] +
      1;
  int64_t ow =
      (w + padding[2] + padding[3] - dilation[1] * (kw - 1) - 1) / stride[1] +
      1;
  std::vector<double> expected(size_t(n * f * oh * ow), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < f; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double sum = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t row = y * stride[0] + i * dilation[0] - padding[0];
                int64_t col = z * stride[1] + j * dilation[1] - padding[2];
                if (row < 0 || row >= h || col < 0 || col >= w)
                  continue;
                sum += x[size_t(((b * c + ch) * h + row) * w + col)] *
                       k[size_t(((o * c + ch) * kh + i) * kw + j)];
              }
          expected[size_t(((b * f + o) * oh + y) * ow + z)] = sum;
        }
  Tensor out = lazyc::conv2d(Tensor::fromVector(x, {n, c, h, w}),
                             Tensor::fromVector(k, {f, c, kh, kw}), stride,
                             dilation, padding);
  ASSERT_EQ(out.shape(), (Shape{n, f, oh, ow}));
  std::vector<double> actual = out.toVector<double>();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-12) << i;
}

TEST(CoreConv2dTest, ErrorsNameTheShapesAndTheLine) {
  Tensor images = zeros({1, 3, 5, 5});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::conv2d(images, zeros({2, 4, 3, 3}));
      },
      "conv2d",
      "the images have 3 channels and the filters 4 (images [1, 3, 5, 5], "
      "filters [2, 4, 3, 3])");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::conv2d(images, zeros({2, 3, 7, 3}), {1, 1}, {1, 1},
                      {1, 0, 0, 0});
      },
      "conv2d",
      "the height of the dilated kernel (7) exceeds the padded images' (6)");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::conv2d(images, zeros({2, 3, 3, 3}), {0, 1});
      },
      "conv2d", "strides and dilations must be at least 1, got stride 0");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::conv2d(images, zeros({2, 3, 3, 3}), {1, 1}, {1, 1},
                      {0, -1, 0, 0});
      },
      "conv2d", "padding must not be negative");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::conv2d(zeros({1, 3, 5}), zeros({2, 3, 3, 3}));
      },
      "conv2d", "needs images [N, C, H, W] and filters [F, C, KH, KW]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::conv2d(zeros({1, 3, 5, 5}, DType::Int32), zeros({2, 3, 3, 3}));
      },
      "conv2d", "needs floating-point operands, got Int32 and Float32");
}

TEST(PoolTest, MaxAndAverageMatchWindowLoops) {
  std::vector<double> x = testValues(2 * 3 * 7 * 8, 10);
  Tensor xt = Tensor::fromVector(x, {2, 3, 7, 8});
  struct Setting {
    nn::Size2 kernel, stride, padding;
  };
  for (Setting s :
       {Setting{2, 2, 0}, Setting{3, 2, 1}, Setting{{3, 2}, 1, {1, 0}},
        Setting{{2, 3}, {1, 2}, {1, 1}}}) {
    Tensor maxed = nn::maxPool2d(xt, s.kernel, s.stride, s.padding);
    expectNear(
        maxed.toVector<double>(),
        poolLoops(x, 2, 3, 7, 8, s.kernel, s.stride, s.padding, true, true), 0,
        "max");
    for (bool include : {true, false}) {
      Tensor mean = nn::avgPool2d(xt, s.kernel, s.stride, s.padding, include);
      expectNear(mean.toVector<double>(),
                 poolLoops(x, 2, 3, 7, 8, s.kernel, s.stride, s.padding, false,
                           include),
                 1e-12, "avg");
    }
  }
  // The stride defaults to the kernel.
  EXPECT_EQ(nn::maxPool2d(xt, 2).shape(), (Shape{2, 3, 3, 4}));
  EXPECT_EQ(nn::avgPool2d(zeros({3, 6, 6}), 3).shape(), (Shape{3, 2, 2}));
}

TEST(PoolTest, GradientsGoToTheMaximumAndSpreadForTheMean) {
  // Distinct values: max pooling's gradient goes to each window's maximum
  // (hand derivation), added up where windows overlap.
  std::vector<double> x = testValues(1 * 1 * 5 * 5, 11);
  Tensor xt = Tensor::fromVector(x, {1, 1, 5, 5});
  GradientTape tape;
  tape.watch(xt);
  Tensor y = nn::maxPool2d(xt, 3, 2, 1);
  std::vector<double> g = testValues(y.numel(), 12);
  Tensor dx = tape.gradient(sum(y * Tensor::fromVector(g, y.shape())), xt);
  std::vector<double> expected(25, 0);
  int64_t o = 0;
  for (int64_t yo = 0; yo < 3; ++yo)
    for (int64_t xo = 0; xo < 3; ++xo, ++o) {
      int64_t best = -1;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          int64_t row = 2 * yo + i - 1, col = 2 * xo + j - 1;
          if (row < 0 || row >= 5 || col < 0 || col >= 5)
            continue;
          if (best < 0 || x[row * 5 + col] > x[best])
            best = row * 5 + col;
        }
      expected[best] += g[o];
    }
  expectNear(dx.toVector<double>(), expected, 1e-12, "max gradient");

  lazyc::test::expectGradientsMatchDifferences(
      [](const std::vector<Tensor> &in) {
        return nn::avgPool2d(in[0], {3, 2}, {2, 1}, {1, 1}, false);
      },
      {testValues(2 * 5 * 4, 13)}, {{1, 2, 5, 4}});
}

TEST(PoolTest, TilingWindowsReduceOverEachWindow) {
  // Stride = kernel, no padding: one reduction per window; a row and a
  // column that no window covers (5 x 7 with 2 x 2 windows) get no gradient.
  std::vector<double> x = testValues(2 * 5 * 7, 14);
  Tensor xt = Tensor::fromVector(x, {1, 2, 5, 7});
  GradientTape tape;
  tape.watch(xt);
  Tensor y = nn::maxPool2d(xt, 2);
  ASSERT_EQ(y.shape(), (Shape{1, 2, 2, 3}));
  expectNear(y.toVector<double>(),
             poolLoops(x, 1, 2, 5, 7, 2, 2, 0, true, true), 0, "max");
  std::vector<double> g = testValues(y.numel(), 15);
  Tensor dx = tape.gradient(sum(y * Tensor::fromVector(g, y.shape())), xt);
  std::vector<double> expected(x.size(), 0);
  int64_t o = 0;
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t yo = 0; yo < 2; ++yo)
      for (int64_t xo = 0; xo < 3; ++xo, ++o) {
        int64_t best = -1;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            int64_t index = c * 35 + (2 * yo + i) * 7 + 2 * xo + j;
            if (best < 0 || x[index] > x[best])
              best = index;
          }
        expected[best] += g[o];
      }
  expectNear(dx.toVector<double>(), expected, 1e-12, "max gradient");

  // Ties in one window share its gradient evenly.
  Tensor ties = Tensor::fromVector<double>({1, 3, 3, 2}, {1, 1, 2, 2});
  GradientTape tieTape;
  tieTape.watch(ties);
  Tensor tieGradient = tieTape.gradient(nn::maxPool2d(ties, 2), ties);
  EXPECT_EQ(tieGradient.toVector<double>(),
            (std::vector<double>{0, 0.5, 0.5, 0}));

  lazyc::test::expectGradientsMatchDifferences(
      [](const std::vector<Tensor> &in) { return nn::avgPool2d(in[0], 2); },
      {testValues(2 * 5 * 7, 16)}, {{1, 2, 5, 7}});
}

TEST(PoolTest, ErrorsNameTheShapesAndTheLine) {
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::maxPool2d(zeros({1, 1, 4, 4}), 3, 1, 2);
      },
      "maxPool2d", "the padding (2, 2) must be between 0 and half the kernel");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::avgPool2d(zeros({1, 1, 2, 2}), 3);
      },
      "avgPool2d", "does not fit the padded input [1, 1, 2, 2]");
  expectError(
      [](unsigned &line) {
        line = __LINE__ + 1;
        nn::maxPool2d(zeros({4, 4}), 2);
      },
      "maxPool2d", "got Float32 [4, 4]");
}

} // namespace
