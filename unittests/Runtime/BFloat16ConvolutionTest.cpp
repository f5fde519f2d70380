//===- BFloat16ConvolutionTest.cpp - The runtime's bf16 convolutions ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyrt_conv2d_{nchw,nhwc}_bf16_f32 against convolutions computed in double
// from the same bf16 values, with each kernel this CPU has: the dot products'
// register tiles around their edges (odd tap and channel counts, partial
// pixel, row and filter blocks, strides, dilations, padded views) and the
// widened loops.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

/// A convolution's shape, named for NCHW: images N x C x H x W, filters
/// F x C x KH x KW.
struct Shape {
  int64_t n, c, h, w, f, kh, kw, strideH, strideW, dilationH, dilationW;

  int64_t outH() const { return (h - dilationH * (kh - 1) - 1) / strideH + 1; }
  int64_t outW() const { return (w - dilationW * (kw - 1) - 1) / strideW + 1; }
  std::string name() const {
    return "N " + std::to_string(n) + " C " + std::to_string(c) + " H " +
           std::to_string(h) + " W " + std::to_string(w) + " F " +
           std::to_string(f) + " kernel " + std::to_string(kh) + "x" +
           std::to_string(kw) + " strides " + std::to_string(strideH) + "," +
           std::to_string(strideW) + " dilations " + std::to_string(dilationH) +
           "," + std::to_string(dilationW);
  }
};

/// Strides of a row-major buffer of `sizes` whose innermost dimension is
/// padded by `pad` elements (a view into a wider buffer).
std::vector<int64_t> paddedStrides(const std::vector<int64_t> &sizes,
                                   int64_t pad) {
  std::vector<int64_t> strides(4);
  int64_t stride = 1;
  for (int d = 3; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d] + (d == 3 ? pad : 0);
  }
  return strides;
}

int64_t offsetOf(const std::vector<int64_t> &strides, int64_t a, int64_t b,
                 int64_t c, int64_t d) {
  return a * strides[0] + b * strides[1] + c * strides[2] + d * strides[3];
}

/// Runs one convolution in `layout` ("nchw" or "nhwc") and compares each
/// output with the double-precision sum of the exact products plus the
/// output's initial value; the error allowed is f32 accumulation's.
void check(const Shape &s, bool channelsLast, int64_t pad, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  int64_t oh = s.outH(), ow = s.outW();
  // Sizes in memory order.
  std::vector<int64_t> imageSizes =
      channelsLast ? std::vector<int64_t>{s.n, s.h, s.w, s.c}
                   : std::vector<int64_t>{s.n, s.c, s.h, s.w};
  std::vector<int64_t> filterSizes =
      channelsLast ? std::vector<int64_t>{s.kh, s.kw, s.c, s.f}
                   : std::vector<int64_t>{s.f, s.c, s.kh, s.kw};
  std::vector<int64_t> outputSizes =
      channelsLast ? std::vector<int64_t>{s.n, oh, ow, s.f}
                   : std::vector<int64_t>{s.n, s.f, oh, ow};
  std::vector<int64_t> is = paddedStrides(imageSizes, pad),
                       ws = paddedStrides(filterSizes, pad),
                       os = paddedStrides(outputSizes, pad);
  std::vector<uint16_t> images(size_t(is[0] * s.n + 1)),
      filters(size_t(ws[0] * filterSizes[0] + 1));
  std::vector<float> output(size_t(os[0] * s.n + 1));
  for (uint16_t &bits : images)
    bits = lazyc::toBFloat16Bits(value(engine));
  for (uint16_t &bits : filters)
    bits = lazyc::toBFloat16Bits(value(engine));
  for (float &x : output)
    x = value(engine);
  std::vector<float> initial = output;

  // (n, c, y, x) and (f, c, i, j) in NCHW terms, through either layout.
  auto image = [&](int64_t n, int64_t c, int64_t y, int64_t x) {
    int64_t at =
        channelsLast ? offsetOf(is, n, y, x, c) : offsetOf(is, n, c, y, x);
    return double(lazyc::bfloat16BitsToFloat(images[at]));
  };
  auto filter = [&](int64_t f, int64_t c, int64_t i, int64_t j) {
    int64_t at =
        channelsLast ? offsetOf(ws, i, j, c, f) : offsetOf(ws, f, c, i, j);
    return double(lazyc::bfloat16BitsToFloat(filters[at]));
  };
  auto outputAt = [&](int64_t n, int64_t f, int64_t y, int64_t x) {
    return channelsLast ? offsetOf(os, n, y, x, f) : offsetOf(os, n, f, y, x);
  };

  lazyrt_memref4d_u16 mi{images.data(), images.data(), 0, {}, {}};
  lazyrt_memref4d_u16 mw{filters.data(), filters.data(), 0, {}, {}};
  lazyrt_memref4d_f32 mo{output.data(), output.data(), 0, {}, {}};
  for (int d = 0; d < 4; ++d) {
    mi.sizes[d] = imageSizes[d];
    mi.strides[d] = is[d];
    mw.sizes[d] = filterSizes[d];
    mw.strides[d] = ws[d];
    mo.sizes[d] = outputSizes[d];
    mo.strides[d] = os[d];
  }
  (channelsLast ? _mlir_ciface_lazyrt_conv2d_nhwc_bf16_f32
                : _mlir_ciface_lazyrt_conv2d_nchw_bf16_f32)(
      &mi, &mw, &mo, s.strideH, s.strideW, s.dilationH, s.dilationW);

  int64_t terms = s.c * s.kh * s.kw;
  int failures = 0;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t at = outputAt(n, f, y, x);
          double sum = initial[at], magnitude = std::fabs(initial[at]);
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                double product = image(n, c, y * s.strideH + i * s.dilationH,
                                       x * s.strideW + j * s.dilationW) *
                                 filter(f, c, i, j);
                sum += product;
                magnitude += std::fabs(product);
              }
          double allowed = double(terms + 2) * 0x1p-24 * magnitude;
          if (std::fabs(output[at] - sum) > allowed && ++failures <= 5)
            ADD_FAILURE() << (channelsLast ? "NHWC " : "NCHW ") << s.name()
                          << ", pad " << pad << ": output (" << n << ", " << f
                          << ", " << y << ", " << x << ") is " << output[at]
                          << ", expected " << sum << " within " << allowed;
        }
  // Nothing outside the output view is written.
  for (int64_t at = 0; at < int64_t(output.size()); ++at) {
    bool inside = false;
    int64_t rest = at;
    std::vector<int64_t> index(4);
    for (int d = 0; d < 4; ++d) {
      index[d] = rest / os[d];
      rest %= os[d];
    }
    inside = rest == 0 && index[0] < outputSizes[0] &&
             index[1] < outputSizes[1] && index[2] < outputSizes[2] &&
             index[3] < outputSizes[3];
    if (!inside && output[at] != initial[at] && ++failures <= 5)
      ADD_FAILURE() << s.name() << ": element " << at
                    << " outside the output changed";
  }
}

struct BFloat16KernelScope {
  std::string kernel = lazyrt_bf16_gemm_kernel();
  ~BFloat16KernelScope() { lazyrt_set_bf16_gemm_kernel(kernel.c_str()); }
};

/// The kernels to run: "widened" everywhere, the dot products where the
/// CPU has them.
std::vector<std::string> kernels() {
  std::vector<std::string> names = {"widened"};
  std::string current = lazyrt_bf16_gemm_kernel();
  if (lazyrt_set_bf16_gemm_kernel("avx512-bf16"))
    names.push_back("avx512-bf16");
  lazyrt_set_bf16_gemm_kernel(current.c_str());
  return names;
}

const Shape kShapes[] = {
    // n  c   h   w   f  kh  kw sh sw dh dw
    {2, 1, 32, 32, 6, 5, 5, 1, 1, 1, 1},    // the LeNet's first layer
    {1, 16, 18, 18, 6, 5, 5, 1, 1, 1, 1},   // its second layer's input grad
    {1, 64, 32, 32, 3, 28, 28, 1, 1, 1, 1}, // its first filter gradient
    {2, 6, 14, 14, 16, 5, 5, 1, 1, 1, 1},   // its second layer
    {1, 7, 9, 21, 9, 3, 4, 1, 1, 1, 1},     // odd channels, 16 + 1 pixels
    {1, 3, 11, 40, 33, 2, 3, 2, 1, 1, 2},   // 33 filters, row stride, dilation
    {1, 5, 12, 13, 17, 3, 3, 1, 2, 2, 1},   // width stride (NCHW: loops)
    {3, 2, 5, 5, 1, 1, 1, 1, 1, 1, 1},      // a 1x1 kernel, one filter
};

/// Every shape, unpadded and padded, with every kernel this CPU has.
void checkEveryKernel(bool channelsLast, uint32_t seed) {
  BFloat16KernelScope scope;
  for (const std::string &kernel : kernels()) {
    ASSERT_TRUE(lazyrt_set_bf16_gemm_kernel(kernel.c_str()));
    SCOPED_TRACE(kernel);
    for (const Shape &shape : kShapes)
      for (int64_t pad : {0, 3})
        check(shape, channelsLast, pad, seed++);
  }
}

TEST(BFloat16ConvolutionTest, NchwAroundTheTiles) {
  checkEveryKernel(/*channelsLast=*/false, /*seed=*/1);
}

TEST(BFloat16ConvolutionTest, NhwcAroundTheTiles) {
  checkEveryKernel(/*channelsLast=*/true, /*seed=*/100);
}

// An input that is infinite where its pair partner's weight is the zero of
// an odd count's last pair: 0 * 0 is added, not 0 * inf.
TEST(BFloat16ConvolutionTest, OddCountsNeverMultiplyZeroByInfinity) {
  BFloat16KernelScope scope;
  const uint16_t one = lazyc::toBFloat16Bits(1.0f),
                 inf = lazyc::toBFloat16Bits(INFINITY);
  // Three ones, then an infinite value the convolution must not read.
  std::vector<uint16_t> images = {one, one, one, inf},
                        filters = {one, one, one};
  std::vector<float> output(1);
  lazyrt_memref4d_f32 mo{
      output.data(), output.data(), 0, {1, 1, 1, 1}, {1, 1, 1, 1}};
  for (const std::string &kernel : kernels()) {
    ASSERT_TRUE(lazyrt_set_bf16_gemm_kernel(kernel.c_str()));
    SCOPED_TRACE(kernel);
    // NCHW: a 1x3 filter over a row of 3 pixels; the fourth is where the
    // last tap's missing partner would be.
    lazyrt_memref4d_u16 mi{
        images.data(), images.data(), 0, {1, 1, 1, 3}, {4, 4, 4, 1}};
    lazyrt_memref4d_u16 mw{
        filters.data(), filters.data(), 0, {1, 1, 1, 3}, {3, 3, 3, 1}};
    output[0] = 0.0f;
    _mlir_ciface_lazyrt_conv2d_nchw_bf16_f32(&mi, &mw, &mo, 1, 1, 1, 1);
    EXPECT_EQ(output[0], 3.0f);
    // NHWC: 3 channels; the fourth value is the next pixel's first channel.
    lazyrt_memref4d_u16 ni{
        images.data(), images.data(), 0, {1, 1, 1, 3}, {4, 4, 3, 1}};
    lazyrt_memref4d_u16 nw{
        filters.data(), filters.data(), 0, {1, 1, 3, 1}, {3, 3, 1, 1}};
    output[0] = 0.0f;
    _mlir_ciface_lazyrt_conv2d_nhwc_bf16_f32(&ni, &nw, &mo, 1, 1, 1, 1);
    EXPECT_EQ(output[0], 3.0f);
  }
}

} // namespace
