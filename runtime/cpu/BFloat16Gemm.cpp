//===- BFloat16Gemm.cpp - bf16 products with AVX512-BF16 dot products -----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the bf16 product (f32 accumulators) with AVX512-BF16's
// `vdpbf16ps`, which adds two bf16 products to each of 16 f32 lanes: twice
// the f32 FMA's work per instruction. Whether that is faster depends on the
// core: on Zen 4 it issues as often as an FMA (232 against 116 GFLOP/s on one
// core), on the Sapphire Rapids Xeons lazyc was first measured on a quarter
// as often (83 against 170 GFLOP/s), where widening the operands for
// the f32 GEMM wins. So the kernel is chosen by timing both instructions
// once per process.
//
// The scheme is the classical one (Goto's): B is packed into blocks that
// stay in L2, as pairs of consecutive bf16 values along the product's depth
// (the operand layout of `vdpbf16ps`), and a register block of 6 rows by 64
// columns accumulates in 24 AVX-512 registers. A's pairs are consecutive
// already when its rows are: such an A is read in place, any other packed.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace {

/// Rows and 16-lane vectors of columns of one register block.
constexpr int kBlockRows = 6;
constexpr int kBlockVectors = 4;
constexpr int kBlockColumns = 16 * kBlockVectors;
/// A packed block of A: rows and depth (L1); of B: columns (L2, with the
/// depth). The depth is even: the packed values are pairs.
constexpr int64_t kPackedRows = 16 * kBlockRows;
constexpr int64_t kPackedDepth = 256;
constexpr int64_t kPackedColumns = 8 * kBlockColumns;

/// A matrix of bf16 bits: element (i, j) at data[i * rowStride + j *
/// columnStride].
struct Matrix {
  const uint16_t *data;
  int64_t rowStride, columnStride;
  uint16_t at(int64_t i, int64_t j) const {
    return data[i * rowStride + j * columnStride];
  }
};

/// Two bf16 values as the 32-bit lane `vdpbf16ps` reads: the first (the
/// smaller depth) in the low half.
uint32_t pair(uint16_t first, uint16_t second) {
  return uint32_t(first) | uint32_t(second) << 16;
}

/// Transposes 16 vectors of 16 32-bit lanes: rows[i][j] becomes rows[j][i].
__attribute__((target("avx512f"))) void transpose16x16(__m512i rows[16]) {
  __m512i pairs[16], quads[16];
  // 32-bit lanes of neighbouring rows interleaved, then 64-bit ones: quads
  // 4k + e holds, in 128-bit lane L, rows 4k..4k+3 at column 4L + e.
  for (int i = 0; i < 16; i += 2) {
    pairs[i] = _mm512_unpacklo_epi32(rows[i], rows[i + 1]);
    pairs[i + 1] = _mm512_unpackhi_epi32(rows[i], rows[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    quads[i] = _mm512_unpacklo_epi64(pairs[i], pairs[i + 2]);
    quads[i + 1] = _mm512_unpackhi_epi64(pairs[i], pairs[i + 2]);
    quads[i + 2] = _mm512_unpacklo_epi64(pairs[i + 1], pairs[i + 3]);
    quads[i + 3] = _mm512_unpackhi_epi64(pairs[i + 1], pairs[i + 3]);
  }
  // Then the 128-bit lanes of quads e, 4 + e, 8 + e, 12 + e transposed.
  for (int e = 0; e < 4; ++e) {
    __m512i low01 = _mm512_shuffle_i32x4(quads[e], quads[4 + e], 0x44);
    __m512i high01 = _mm512_shuffle_i32x4(quads[e], quads[4 + e], 0xEE);
    __m512i low23 = _mm512_shuffle_i32x4(quads[8 + e], quads[12 + e], 0x44);
    __m512i high23 = _mm512_shuffle_i32x4(quads[8 + e], quads[12 + e], 0xEE);
    rows[e] = _mm512_shuffle_i32x4(low01, low23, 0x88);
    rows[4 + e] = _mm512_shuffle_i32x4(low01, low23, 0xDD);
    rows[8 + e] = _mm512_shuffle_i32x4(high01, high23, 0x88);
    rows[12 + e] = _mm512_shuffle_i32x4(high01, high23, 0xDD);
  }
}

/// packPairs for a `b` stored by columns (rowStride 1): a column's pairs
/// are consecutive, so 16 columns of 16 pairs are loaded and transposed.
__attribute__((target("avx512f,avx512bw"))) void
packPairsOfColumns(const Matrix &b, int64_t p0, int64_t depth, int64_t first,
                   int64_t panelColumns, int64_t width, uint32_t *panel) {
  int64_t pairs = (depth + 1) / 2;
  for (int64_t q0 = 0; q0 < pairs; q0 += 16) {
    int64_t values = std::min<int64_t>(depth - 2 * q0, 32);
    auto mask = __mmask32(values == 32 ? ~0u : (1u << values) - 1);
    int64_t count = std::min<int64_t>(pairs - q0, 16);
    for (int64_t t0 = 0; t0 < panelColumns; t0 += 16) {
      __m512i rows[16];
      for (int r = 0; r < 16; ++r)
        rows[r] = t0 + r < panelColumns
                      ? _mm512_maskz_loadu_epi16(
                            mask, b.data + (first + t0 + r) * b.columnStride +
                                      p0 + 2 * q0)
                      : _mm512_setzero_si512();
      transpose16x16(rows);
      for (int64_t r = 0; r < count; ++r)
        _mm512_storeu_si512(panel + (q0 + r) * width + t0, rows[r]);
    }
  }
}

/// packPairs for a `b` whose rows are contiguous: 16 columns of two rows
/// interleaved at a time, row pair by row pair across every panel (each
/// row read in one stream). A last panel narrower than `width` is packed
/// to its last 16 columns only: the kernel reads no further (a head's 32
/// columns in 64-column panels packed twice the pairs it read).
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
packPairsOfRows(const Matrix &b, int64_t p0, int64_t depth, int64_t j0,
                int64_t columns, int64_t width, uint32_t *packed) {
  int64_t pairs = (depth + 1) / 2;
  for (int64_t q = 0; q < pairs; ++q) {
    int64_t p = p0 + 2 * q;
    bool hasSecond = p + 1 < p0 + depth;
    const uint16_t *low = b.data + p * b.rowStride + j0;
    const uint16_t *high = low + b.rowStride;
    for (int64_t t = 0; t < columns; t += 16) {
      int64_t count = std::min<int64_t>(columns - t, 16);
      auto mask = __mmask16((1u << count) - 1);
      __m512i lows =
          _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, low + t));
      __m512i highs = _mm512_setzero_si512();
      if (hasSecond)
        highs = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, high + t));
      uint32_t *out = packed + ((t / width) * pairs + q) * width + t % width;
      _mm512_storeu_si512(out,
                          _mm512_or_si512(lows, _mm512_slli_epi32(highs, 16)));
    }
  }
}

/// Packs depth [p0, p0 + depth) and columns [j0, j0 + columns) of `b` in
/// panels `width` columns wide (a multiple of 16): panel c's pair q of
/// column t at packed[(c * pairs + q) * width + t], zeros past the ends
/// up to the next multiple of 16 columns (the last vector the kernel
/// reads).
void packPairs(const Matrix &b, int64_t p0, int64_t depth, int64_t j0,
               int64_t columns, int64_t width, uint32_t *packed) {
  if (b.columnStride == 1)
    return packPairsOfRows(b, p0, depth, j0, columns, width, packed);
  int64_t pairs = (depth + 1) / 2;
  for (int64_t c = 0; c * width < columns; ++c) {
    uint32_t *panel = packed + c * pairs * width;
    int64_t first = j0 + c * width;
    int64_t panelColumns = std::min(columns - c * width, width);
    if (b.rowStride == 1) {
      packPairsOfColumns(b, p0, depth, first, panelColumns, width, panel);
      continue;
    }
    for (int64_t q = 0; q < pairs; ++q) {
      int64_t p = p0 + 2 * q;
      bool hasSecond = p + 1 < p0 + depth;
      uint32_t *out = panel + q * width;
      for (int64_t t = 0; t < (panelColumns + 15) / 16 * 16; ++t)
        out[t] = t < panelColumns ? pair(b.at(p, first + t),
                                         hasSecond ? b.at(p + 1, first + t) : 0)
                                  : 0;
    }
  }
}

/// Where a block of A's pairs is: row r's pair q starts at
/// data[r * rowStride + q * pairStride] (in bf16 values). A row-major A is
/// read in place (pairs 2 apart); other layouts are packed.
struct Pairs {
  const uint16_t *data;
  int64_t rowStride, pairStride;
};

/// The pair at `at` as a broadcast operand; only its first value where the
/// depth ends there (an in-place row has no value after it).
__attribute__((target("avx512f,avx512bf16"))) __m512bh
broadcastPair(const uint16_t *at, bool single) {
  uint32_t bits = at[0];
  if (!single) {
    uint16_t second = at[1];
    bits |= uint32_t(second) << 16;
  }
  return (__m512bh)_mm512_set1_epi32(int(bits));
}

/// A `Rows` x (16 * `Vectors`) block of C = (C if `accumulate`) + A * B
/// over `depth` values, A's pairs from `a`, B's from a packed panel, the
/// last vector's columns limited by `lastMask`.
template <int Rows, int Vectors>
__attribute__((target("avx512f,avx512bf16"))) void
multiplyBlock(int64_t depth, const Pairs &a, const uint32_t *b, float *c,
              int64_t ldc, __mmask16 lastMask, bool accumulate) {
  __m512 sums[Rows][Vectors];
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      sums[r][v] = _mm512_setzero_ps();
  int64_t pairs = (depth + 1) / 2;
  for (int64_t q = 0; q < pairs; ++q) {
    bool single = 2 * q + 1 == depth;
    __m512bh columns[Vectors];
#pragma clang loop unroll(full)
    for (int v = 0; v < Vectors; ++v)
      columns[v] = (__m512bh)_mm512_loadu_si512(b + q * kBlockColumns + 16 * v);
    const uint16_t *pairAt = a.data + q * a.pairStride;
#pragma clang loop unroll(full)
    for (int r = 0; r < Rows; ++r) {
      __m512bh element = broadcastPair(pairAt + r * a.rowStride, single);
#pragma clang loop unroll(full)
      for (int v = 0; v < Vectors; ++v)
        sums[r][v] = _mm512_dpbf16_ps(sums[r][v], element, columns[v]);
    }
  }
  lazyrt::storeBlock(sums, c, ldc, lastMask, accumulate);
}

using BlockFunction = void (*)(int64_t, const Pairs &, const uint32_t *,
                               float *, int64_t, __mmask16, bool);

template <int Rows, int Vectors> struct Block {
  static constexpr BlockFunction function = &multiplyBlock<Rows, Vectors>;
};
using Blocks =
    lazyrt::KernelTable<BlockFunction, Block, kBlockRows, kBlockVectors>;

/// Seconds for `rounds` rounds of 24 independent chains of the f32 FMA
/// (`dotProducts` false) or of `vdpbf16ps`, once.
__attribute__((target("avx512f,avx512bf16"))) double
timeInstruction(bool dotProducts, int rounds) {
  __m512 sums[24];
  for (int i = 0; i < 24; ++i)
    sums[i] = _mm512_set1_ps(float(i));
  __m512 x = _mm512_set1_ps(0.5f);
  auto pairs = (__m512bh)_mm512_set1_epi32(0x3F803F80); // (1, 1)
  auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < rounds; ++round) {
#pragma clang loop unroll(full)
    for (int i = 0; i < 24; ++i)
      sums[i] = dotProducts ? _mm512_dpbf16_ps(sums[i], pairs, pairs)
                            : _mm512_fmadd_ps(sums[i], x, x);
  }
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  // Every chain is used: with only the first, the compiler dropped the
  // other 23 and the timing measured one chain's latency (6 cycles against
  // the FMA's 4, a ratio at the threshold), not the issue rate.
  __m512 total = sums[0];
  for (int i = 1; i < 24; ++i)
    total = _mm512_add_ps(total, sums[i]);
  volatile float sink = _mm512_reduce_add_ps(total);
  (void)sink;
  return elapsed.count();
}

bool cpuHasDotProducts() {
  __builtin_cpu_init();
  // (clang 14's __builtin_cpu_supports does not know "avx512bf16": CPUID
  // leaf 7, subleaf 1, EAX bit 5.)
  if (!__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl"))
    return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __asm__("cpuid"
          : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
          : "a"(7), "c"(1));
  return eax & (1u << 5);
}

} // namespace

bool lazyrt::bfloat16DotProductsAvailable() {
  static const bool available = cpuHasDotProducts();
  return available;
}

bool lazyrt::bfloat16DotProductsFaster() {
  static const bool faster = [] {
    if (!bfloat16DotProductsAvailable())
      return false;
    // About 80 microseconds, once: each instruction 24 x 2000 times. A dot
    // product does twice an FMA's work, so it wins unless it takes twice
    // as long; the two cores measured differ by a factor of four.
    // The two alternate, best of three each, so that a pause of the
    // process cannot fall on one instruction's every attempt.
    double fma = 1e30, dot = 1e30;
    for (int attempt = 0; attempt < 3; ++attempt) {
      fma = std::min(fma, timeInstruction(/*dotProducts=*/false, 2000));
      dot = std::min(dot, timeInstruction(/*dotProducts=*/true, 2000));
    }
    return dot < 1.5 * fma;
  }();
  return faster;
}

void lazyrt::bfloat16Gemm(int64_t m, int64_t n, int64_t k, const uint16_t *a,
                          int64_t aRowStride, int64_t aColumnStride,
                          const uint16_t *b, int64_t bRowStride,
                          int64_t bColumnStride, float *c, int64_t ldc,
                          bool accumulate) {
  if (m == 0 || n == 0)
    return;
  // A's pairs in place when its rows are contiguous; otherwise packed
  // kPackedRows rows at a time as B is, A^T's columns being A's rows.
  bool aInPlace = aColumnStride == 1;
  Matrix leftTransposed{a, aColumnStride, aRowStride};
  Matrix right{b, bRowStride, bColumnStride};
  // Per thread, kept for the thread's next product (generated code calls
  // this on every thread of a split product).
  thread_local std::unique_ptr<uint32_t[]> packedA, packedB;
  if (!packedA) {
    packedA.reset(new uint32_t[kPackedRows * kPackedDepth / 2]);
    packedB.reset(new uint32_t[kPackedDepth / 2 * kPackedColumns]);
  }
  for (int64_t j0 = 0; j0 < n; j0 += kPackedColumns) {
    int64_t columns = std::min(n - j0, kPackedColumns);
    // (With k = 0, one pass of depth 0 still writes C's zeros or leaves it
    // as it was.)
    for (int64_t p0 = 0; p0 < k || p0 == 0; p0 += kPackedDepth) {
      int64_t depth = std::min(k - p0, kPackedDepth);
      int64_t pairs = (depth + 1) / 2;
      bool add = accumulate || p0 > 0;
      packPairs(right, p0, depth, j0, columns, kBlockColumns, packedB.get());
      for (int64_t i0 = 0; i0 < m; i0 += kPackedRows) {
        int64_t rows = std::min(m - i0, kPackedRows);
        Pairs left{a + i0 * aRowStride + p0 * aColumnStride, aRowStride, 2};
        if (!aInPlace) {
          int64_t width = (rows + 15) / 16 * 16;
          packPairs(leftTransposed, p0, depth, i0, rows, width, packedA.get());
          left = {reinterpret_cast<const uint16_t *>(packedA.get()), 2,
                  2 * width};
        }
        for (int64_t j = 0; j < columns; j += kBlockColumns) {
          int64_t width = std::min<int64_t>(columns - j, kBlockColumns);
          int vectors = int((width + 15) / 16);
          int lastColumns = int(width - 16 * (vectors - 1));
          auto lastMask = __mmask16((1u << lastColumns) - 1);
          const uint32_t *bPanel =
              packedB.get() + (j / kBlockColumns) * pairs * kBlockColumns;
          for (int64_t i = 0; i < rows; i += kBlockRows) {
            int blockRows = int(std::min<int64_t>(rows - i, kBlockRows));
            Pairs block{left.data + i * left.rowStride, left.rowStride,
                        left.pairStride};
            Blocks::at(blockRows, vectors)(depth, block, bPanel,
                                           c + (i0 + i) * ldc + j0 + j, ldc,
                                           lastMask, add);
          }
        }
      }
    }
  }
}
