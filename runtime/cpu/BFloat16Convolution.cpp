//===- BFloat16Convolution.cpp - bf16 convolutions on dot products --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the bf16 convolutions (f32 accumulators) with
// AVX512-BF16's `vdpbf16ps`, which adds two bf16 products to each of 16 f32
// lanes, in the register tiles of lazy-cpu-direct-convolution's f32 kernels:
//
// - NCHW: a tile is up to 8 filters by up to 4 output rows by 16 pixels of
//   a row. A pair is two neighbouring taps of a filter row: per pair of
//   taps, each input row's 16 pixel pairs (the pixel under the first tap in
//   the low half of a lane, the next one in the high half) are built once
//   and read by every filter, whose two weights are broadcast.
// - NHWC: a tile is up to 16 output pixels of a row by one or two vectors
//   of 16 filters. A pair is two neighbouring input channels: the filters
//   are packed once per call as pairs of channels, and each pixel's pair
//   (adjacent in memory) is broadcast.
//
// An odd count of taps (channels) leaves a last pair of one value, whose
// other half is zero on both sides: 0 * 0, never 0 times an input that may
// be infinite.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include "Gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

namespace {

/// A memref's first element.
template <typename Memref> const auto *dataOf(const Memref &m) {
  return m.aligned + m.offset;
}

struct Geometry {
  int64_t strideH, strideW, dilationH, dilationW;
};

/// Widened operands, plain loops: any strides, any CPU.
void nchwLoops(const lazyrt_memref4d_u16 &images,
               const lazyrt_memref4d_u16 &filters,
               const lazyrt_memref4d_f32 &output, Geometry g) {
  const uint16_t *in = dataOf(images), *w = dataOf(filters);
  float *out = output.aligned + output.offset;
  const int64_t *is = images.strides, *ws = filters.strides,
                *os = output.strides;
  for (int64_t n = 0; n < output.sizes[0]; ++n)
    for (int64_t f = 0; f < output.sizes[1]; ++f)
      for (int64_t y = 0; y < output.sizes[2]; ++y)
        for (int64_t x = 0; x < output.sizes[3]; ++x) {
          float &sum = out[n * os[0] + f * os[1] + y * os[2] + x * os[3]];
          for (int64_t c = 0; c < filters.sizes[1]; ++c)
            for (int64_t i = 0; i < filters.sizes[2]; ++i)
              for (int64_t j = 0; j < filters.sizes[3]; ++j)
                sum += lazyc::bfloat16BitsToFloat(
                           in[n * is[0] + c * is[1] +
                              (y * g.strideH + i * g.dilationH) * is[2] +
                              (x * g.strideW + j * g.dilationW) * is[3]]) *
                       lazyc::bfloat16BitsToFloat(
                           w[f * ws[0] + c * ws[1] + i * ws[2] + j * ws[3]]);
        }
}

/// `m` with its dimensions in the order `order` names them: the same
/// elements, seen in another layout.
template <typename Memref>
Memref permuted(const Memref &m, std::array<int, 4> order) {
  Memref view = m;
  for (int d = 0; d < 4; ++d) {
    view.sizes[d] = m.sizes[order[d]];
    view.strides[d] = m.strides[order[d]];
  }
  return view;
}

/// NHWC / HWCF seen as NCHW / FCHW.
void nhwcLoops(const lazyrt_memref4d_u16 &images,
               const lazyrt_memref4d_u16 &filters,
               const lazyrt_memref4d_f32 &output, Geometry g) {
  nchwLoops(permuted(images, {0, 3, 1, 2}), permuted(filters, {3, 2, 0, 1}),
            permuted(output, {0, 3, 1, 2}), g);
}

/// The bf16 values at `at` and after it as the 32-bit lane `vdpbf16ps`
/// reads (the first in the low half), or with `single` only the first.
template <bool Single>
__attribute__((target("avx512f,avx512bf16"), always_inline)) inline __m512bh
broadcastPair(const uint16_t *at) {
  uint32_t bits;
  if (Single)
    bits = at[0];
  else
    std::memcpy(&bits, at, sizeof bits);
  return (__m512bh)_mm512_set1_epi32(int(bits));
}

/// The first `count` (at most 16) lanes.
__mmask16 firstLanes(int64_t count) {
  return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
}

//===----------------------------------------------------------------------===//
// NCHW: pairs of taps along a filter row
//===----------------------------------------------------------------------===//

/// Where an NCHW tile reads and writes, and its extent.
struct NchwTile {
  const uint16_t *images;  // image n, channel 0, row y * strideH, column x
  const uint16_t *filters; // filter f, channel 0, tap (0, 0)
  float *output;           // (n, f, y, x)
  int64_t imageChannel, imageRow, filterNext, filterChannel, filterRow,
      outputFilter, outputRow;
  int64_t channels, kernelH, kernelW, dilationH, dilationW, rowStep;
  __mmask16 pixels;
};

/// Adds taps j and j + 1 (only j if `Single`) of channel row `taps` (a
/// filter's, the next filter t.filterNext on) over input rows `rows`.
template <int Filters, int Rows, bool Single>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"),
               always_inline)) inline void
nchwPairOfTaps(const NchwTile &t, const uint16_t *rows, const uint16_t *taps,
               int64_t j, __m512 (&sums)[Filters][Rows]) {
  __m512bh pixels[Rows];
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r) {
    const uint16_t *at = rows + r * t.rowStep + j * t.dilationW;
    __m512i pairs =
        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(t.pixels, at));
    if (!Single)
      pairs = _mm512_or_si512(
          pairs,
          _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(
                                t.pixels, at + t.dilationW)),
                            16));
    pixels[r] = (__m512bh)pairs;
  }
#pragma clang loop unroll(full)
  for (int k = 0; k < Filters; ++k) {
    __m512bh weights = broadcastPair<Single>(taps + k * t.filterNext + j);
#pragma clang loop unroll(full)
    for (int r = 0; r < Rows; ++r)
      sums[k][r] = _mm512_dpbf16_ps(sums[k][r], pixels[r], weights);
  }
}

/// `Filters` x `Rows` vectors of 16 pixels of output rows.
template <int Filters, int Rows>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void
nchwTile(const NchwTile &t) {
  __m512 sums[Filters][Rows];
#pragma clang loop unroll(full)
  for (int k = 0; k < Filters; ++k)
#pragma clang loop unroll(full)
    for (int r = 0; r < Rows; ++r)
      sums[k][r] = _mm512_maskz_loadu_ps(
          t.pixels, t.output + k * t.outputFilter + r * t.outputRow);
  for (int64_t c = 0; c < t.channels; ++c)
    for (int64_t i = 0; i < t.kernelH; ++i) {
      const uint16_t *rows =
          t.images + c * t.imageChannel + i * t.dilationH * t.imageRow;
      const uint16_t *taps = t.filters + c * t.filterChannel + i * t.filterRow;
      int64_t j = 0;
      for (; j + 1 < t.kernelW; j += 2)
        nchwPairOfTaps<Filters, Rows, false>(t, rows, taps, j, sums);
      if (j < t.kernelW)
        nchwPairOfTaps<Filters, Rows, true>(t, rows, taps, j, sums);
    }
#pragma clang loop unroll(full)
  for (int k = 0; k < Filters; ++k)
#pragma clang loop unroll(full)
    for (int r = 0; r < Rows; ++r)
      _mm512_mask_storeu_ps(t.output + k * t.outputFilter + r * t.outputRow,
                            t.pixels, sums[k][r]);
}

using NchwFunction = void (*)(const NchwTile &);
template <int Filters, int Rows> struct NchwKernel {
  static constexpr NchwFunction function = &nchwTile<Filters, Rows>;
};
constexpr int kNchwFilters = 8, kNchwRows = 4;
using NchwKernels =
    lazyrt::KernelTable<NchwFunction, NchwKernel, kNchwFilters, kNchwRows>;

void nchwDotProducts(const lazyrt_memref4d_u16 &images,
                     const lazyrt_memref4d_u16 &filters,
                     const lazyrt_memref4d_f32 &output, Geometry g) {
  const int64_t *is = images.strides, *ws = filters.strides,
                *os = output.strides;
  int64_t filterCount = output.sizes[1], height = output.sizes[2],
          width = output.sizes[3];
  NchwTile t;
  t.imageChannel = is[1];
  t.imageRow = is[2];
  t.filterNext = ws[0];
  t.filterChannel = ws[1];
  t.filterRow = ws[2];
  t.outputFilter = os[1];
  t.outputRow = os[2];
  t.channels = filters.sizes[1];
  t.kernelH = filters.sizes[2];
  t.kernelW = filters.sizes[3];
  t.dilationH = g.dilationH;
  t.dilationW = g.dilationW;
  t.rowStep = g.strideH * is[2];
  for (int64_t n = 0; n < output.sizes[0]; ++n)
    for (int64_t f = 0; f < filterCount; f += kNchwFilters) {
      int block = int(std::min<int64_t>(kNchwFilters, filterCount - f));
      int rowBlock = int(std::clamp<int64_t>(16 / block, 1, kNchwRows));
      for (int64_t y = 0; y < height; y += rowBlock) {
        int rows = int(std::min<int64_t>(rowBlock, height - y));
        NchwFunction kernel = NchwKernels::at(block, rows);
        for (int64_t x = 0; x < width; x += 16) {
          t.images = dataOf(images) + n * is[0] + y * g.strideH * is[2] + x;
          t.filters = dataOf(filters) + f * ws[0];
          t.output = output.aligned + output.offset + n * os[0] + f * os[1] +
                     y * os[2] + x;
          t.pixels = firstLanes(width - x);
          kernel(t);
        }
      }
    }
}

//===----------------------------------------------------------------------===//
// NHWC: pairs of input channels
//===----------------------------------------------------------------------===//

/// Where an NHWC tile reads and writes, and its extent.
struct NhwcTile {
  const uint16_t *images; // image n, row y * strideH, column x * strideW
  const uint32_t *packed; // the filters' pairs, from filter f
  float *output;          // (n, y, x, f)
  int64_t imageRow, imagePixel, outputPixel;
  int64_t kernelH, kernelW, channels, dilationH, dilationW, pixelStep;
  __mmask16 lastFilters;
};

/// Adds channels 2q and 2q + 1 (only 2q if `Single`) of the tap at `tap`
/// (pixel 0's, the next pixel t.pixelStep on), the filters' pairs from
/// `packed`.
template <int Pixels, int Vectors, bool Single>
__attribute__((target("avx512f,avx512bf16"), always_inline)) inline void
nhwcPairOfChannels(const NhwcTile &t, const uint16_t *tap,
                   const uint32_t *packed, int64_t q,
                   __m512 (&sums)[Pixels][Vectors]) {
  __m512bh weights[Vectors];
#pragma clang loop unroll(full)
  for (int v = 0; v < Vectors; ++v)
    weights[v] = (__m512bh)_mm512_loadu_si512(packed + 16 * v);
#pragma clang loop unroll(full)
  for (int p = 0; p < Pixels; ++p) {
    __m512bh pixel = broadcastPair<Single>(tap + p * t.pixelStep + 2 * q);
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      sums[p][v] = _mm512_dpbf16_ps(sums[p][v], pixel, weights[v]);
  }
}

/// The packed filters' lanes per pair of channels: a block of 32 filters,
/// whichever of its vectors a tile reads.
constexpr int64_t kPackedBlock = 32;

/// `Pixels` output pixels of a row by `Vectors` vectors of 16 filters.
template <int Pixels, int Vectors>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void
nhwcTile(const NhwcTile &t) {
  __m512 sums[Pixels][Vectors];
#pragma clang loop unroll(full)
  for (int p = 0; p < Pixels; ++p)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      sums[p][v] = _mm512_maskz_loadu_ps(v == Vectors - 1 ? t.lastFilters
                                                          : __mmask16(0xFFFF),
                                         t.output + p * t.outputPixel + 16 * v);
  const uint32_t *packed = t.packed;
  for (int64_t i = 0; i < t.kernelH; ++i)
    for (int64_t j = 0; j < t.kernelW; ++j) {
      const uint16_t *tap = t.images + i * t.dilationH * t.imageRow +
                            j * t.dilationW * t.imagePixel;
      int64_t q = 0;
      for (; 2 * q + 1 < t.channels; ++q, packed += kPackedBlock)
        nhwcPairOfChannels<Pixels, Vectors, false>(t, tap, packed, q, sums);
      if (2 * q < t.channels) {
        nhwcPairOfChannels<Pixels, Vectors, true>(t, tap, packed, q, sums);
        packed += kPackedBlock;
      }
    }
#pragma clang loop unroll(full)
  for (int p = 0; p < Pixels; ++p)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      _mm512_mask_storeu_ps(
          t.output + p * t.outputPixel + 16 * v,
          v == Vectors - 1 ? t.lastFilters : __mmask16(0xFFFF), sums[p][v]);
}

using NhwcFunction = void (*)(const NhwcTile &);
template <int Pixels, int Vectors> struct NhwcKernel {
  static constexpr NhwcFunction function = &nhwcTile<Pixels, Vectors>;
};
constexpr int kNhwcPixels = 16, kNhwcVectors = 2;
using NhwcKernels =
    lazyrt::KernelTable<NhwcFunction, NhwcKernel, kNhwcPixels, kNhwcVectors>;

void nhwcDotProducts(const lazyrt_memref4d_u16 &images,
                     const lazyrt_memref4d_u16 &filters,
                     const lazyrt_memref4d_f32 &output, Geometry g) {
  const int64_t *is = images.strides, *ws = filters.strides,
                *os = output.strides;
  int64_t kernelH = filters.sizes[0], kernelW = filters.sizes[1],
          channels = filters.sizes[2], filterCount = filters.sizes[3];
  int64_t pairs = (channels + 1) / 2;
  int64_t blocks = (filterCount + kPackedBlock - 1) / kPackedBlock;
  // Per block of 32 filters, per tap and pair of channels: 32 lanes, each
  // the pair (channel 2q, 2q + 1) of one filter; zero past the filters and
  // the channels.
  thread_local std::vector<uint32_t> packedFilters;
  int64_t blockSize = kernelH * kernelW * pairs * kPackedBlock;
  packedFilters.assign(size_t(blocks * blockSize), 0);
  const uint16_t *w = dataOf(filters);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t i = 0; i < kernelH; ++i)
      for (int64_t j = 0; j < kernelW; ++j)
        for (int64_t q = 0; q < pairs; ++q) {
          uint32_t *to = packedFilters.data() + b * blockSize +
                         ((i * kernelW + j) * pairs + q) * kPackedBlock;
          for (int64_t l = 0;
               l < kPackedBlock && kPackedBlock * b + l < filterCount; ++l) {
            const uint16_t *from = w + i * ws[0] + j * ws[1] + 2 * q * ws[2] +
                                   (kPackedBlock * b + l) * ws[3];
            to[l] = uint32_t(from[0]) |
                    (2 * q + 1 < channels ? uint32_t(from[ws[2]]) << 16 : 0u);
          }
        }

  int64_t height = output.sizes[1], width = output.sizes[2];
  NhwcTile t;
  t.imageRow = is[1];
  t.imagePixel = is[2];
  t.outputPixel = os[2];
  t.kernelH = kernelH;
  t.kernelW = kernelW;
  t.channels = channels;
  t.dilationH = g.dilationH;
  t.dilationW = g.dilationW;
  t.pixelStep = g.strideW * is[2];
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t left = filterCount - kPackedBlock * b;
    int vectors = left > 16 ? 2 : 1;
    t.lastFilters = firstLanes(left - 16 * (vectors - 1));
    int pixelBlock = kNhwcPixels / vectors;
    for (int64_t n = 0; n < output.sizes[0]; ++n)
      for (int64_t y = 0; y < height; ++y)
        for (int64_t x = 0; x < width; x += pixelBlock) {
          int pixels = int(std::min<int64_t>(pixelBlock, width - x));
          t.images = dataOf(images) + n * is[0] + y * g.strideH * is[1] +
                     x * g.strideW * is[2];
          t.packed = packedFilters.data() + b * blockSize;
          t.output = output.aligned + output.offset + n * os[0] + y * os[1] +
                     x * os[2] + kPackedBlock * b;
          NhwcKernels::at(pixels, vectors)(t);
        }
  }
}

bool isEmpty(const lazyrt_memref4d_f32 &output) {
  return std::any_of(output.sizes, output.sizes + 4,
                     [](int64_t size) { return size == 0; });
}

} // namespace

extern "C" void _mlir_ciface_lazyrt_conv2d_nchw_bf16_f32(
    lazyrt_memref4d_u16 *images, lazyrt_memref4d_u16 *filters,
    lazyrt_memref4d_f32 *output, int64_t strideH, int64_t strideW,
    int64_t dilationH, int64_t dilationW) {
  if (isEmpty(*output))
    return;
  Geometry g{strideH, strideW, dilationH, dilationW};
  if (strideW == 1 && images->strides[3] == 1 && filters->strides[3] == 1 &&
      output->strides[3] == 1 && lazyrt::bfloat16DotProductsChosen())
    nchwDotProducts(*images, *filters, *output, g);
  else
    nchwLoops(*images, *filters, *output, g);
}

extern "C" void _mlir_ciface_lazyrt_conv2d_nhwc_bf16_f32(
    lazyrt_memref4d_u16 *images, lazyrt_memref4d_u16 *filters,
    lazyrt_memref4d_f32 *output, int64_t strideH, int64_t strideW,
    int64_t dilationH, int64_t dilationW) {
  if (isEmpty(*output))
    return;
  Geometry g{strideH, strideW, dilationH, dilationW};
  if (images->strides[3] == 1 && output->strides[3] == 1 &&
      lazyrt::bfloat16DotProductsChosen())
    nhwcDotProducts(*images, *filters, *output, g);
  else
    nhwcLoops(*images, *filters, *output, g);
}
