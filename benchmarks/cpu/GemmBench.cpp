//===- GemmBench.cpp - The runtime's few-row GEMM beside OpenBLAS ---------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One thread's chunk of a product, as generated code hands it to the
// runtime: lazyrt::smallGemm (B read in place) beside OpenBLAS's sgemm as
// the runtime loads it (lazyrt::gemm: the kernels for this CPU, one
// thread), on the shapes the models' products split into: an LSTM step's
// state product, a perceptron's and BERT's layers split over two threads
// by columns (each thread's B and C are half the columns of the whole), a
// training step's chunks of 256 rows, weight gradients (A transposed). Per
// shape: the median of 41 calls after 3 warm-up calls, GFLOP/s, OpenBLAS /
// small (above 1: the small kernel is faster), and the largest difference
// between the two results.
//
// Then bf16 products into f32 (lazyrt_matmul_bf16_f32, as autocast's
// products call it) with each kernel this CPU has: operands widened for
// sgemm, and AVX512-BF16's dot products (BFloat16Gemm.cpp), on a thread's
// chunks of the example transformer's and BERT's products, forward and
// backward.
//
// Last, the ONNX LSTM's 32 steps of products ([16, 128] x [128, 512] as
// four gates of 128 columns) on the runtime's OpenMP threads: one thread;
// two threads with a parallel region per step, the columns split as the
// compiled step splits them; and two threads in one region with a barrier
// per step. What the threads cost beside the products.
//
//   lazyc-bench-gemm
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"

#include "lazyc/Runtime/NarrowFloats.h"
#include "lazyc/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int omp_get_thread_num(void);

namespace {

struct Shape {
  int64_t m, n, k;
  bool transposeA;
  const char *what;
  /// The chunk is half the columns of B and C (their rows 2n long), as a
  /// product split over two threads by columns hands each thread.
  bool halfTheColumns = false;
  /// B stored n x k (bf16 table only; not with halfTheColumns).
  bool transposeB = false;
};

double medianMicroseconds(const auto &call) {
  for (int i = 0; i < 3; ++i)
    call();
  std::vector<double> times;
  for (int i = 0; i < 41; ++i) {
    auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// The bf16 table: each shape with each kernel, C overwritten.
void benchmarkBFloat16Products() {
  const Shape shapes[] = {
      {1024, 384, 128, false, "transformer (d 128) q, k, v; 1024 rows"},
      {1024, 512, 128, false, "transformer MLP up"},
      {1024, 128, 512, false, "transformer MLP down"},
      {1024, 128, 512, false, "transformer input gradient, B transposed", false,
       true},
      {128, 512, 1024, true, "transformer weight gradient, A transposed"},
      {64, 64, 64, false, "attention scores of one head"},
      {128, 384, 768, false, "BERT projection, half the columns", true},
      {128, 1536, 768, false, "BERT FFN up, half the columns", true},
  };
  std::string chosen = lazyrt_bf16_gemm_kernel();
  bool hasDotProducts = lazyrt_set_bf16_gemm_kernel("avx512-bf16");
  std::printf("\nbf16 products into f32 (chosen for this CPU: %s)\n\n",
              chosen.c_str());
  std::printf(
      "| shape (m x n x k) | what | widened us | GFLOP/s | "
      "avx512-bf16 us | GFLOP/s | widened / avx512-bf16 | max diff |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Shape &shape : shapes) {
    const int64_t m = shape.m, n = shape.n, k = shape.k;
    const bool transposeA = shape.transposeA;
    const int64_t ld = shape.halfTheColumns ? 2 * n : n;
    std::vector<uint16_t> a(m * k), b(k * ld);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = lazyc::toBFloat16Bits(float(i % 13) / 13 - 0.5f);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = lazyc::toBFloat16Bits(float(i % 17) / 17 - 0.5f);
    std::vector<float> widened(m * ld), dot(m * ld);
    int64_t aRows = transposeA ? k : m, aColumns = transposeA ? m : k;
    lazyrt_memref2d_u16 ma{
        a.data(), a.data(), 0, {aRows, aColumns}, {aColumns, 1}};
    const bool transposeB = shape.transposeB;
    // B stored k x n (rows ld apart), or n x k.
    int64_t bRows = transposeB ? n : k, bColumns = transposeB ? k : n;
    lazyrt_memref2d_u16 mb{
        b.data(), b.data(), 0, {bRows, bColumns}, {transposeB ? k : ld, 1}};
    int32_t flags = LAZYRT_GEMM_OVERWRITE |
                    (transposeA ? LAZYRT_GEMM_TRANSPOSE_A : 0) |
                    (transposeB ? LAZYRT_GEMM_TRANSPOSE_B : 0);
    auto timeKernel = [&](const char *kernel, std::vector<float> &c) {
      lazyrt_set_bf16_gemm_kernel(kernel);
      lazyrt_memref2d_f32 mc{c.data(), c.data(), 0, {m, n}, {ld, 1}};
      return medianMicroseconds(
          [&] { _mlir_ciface_lazyrt_matmul_bf16_f32(&ma, &mb, &mc, flags); });
    };
    double widenedUs = timeKernel("widened", widened);
    double flop = 2.0 * m * n * k;
    if (!hasDotProducts) {
      std::printf("| %ld x %ld x %ld%s | %s | %.1f | %.0f | | | | |\n", long(m),
                  long(n), long(k),
                  transposeA ? " (A^T)" : (transposeB ? " (B^T)" : ""),
                  shape.what, widenedUs, flop / widenedUs / 1e3);
      continue;
    }
    double dotUs = timeKernel("avx512-bf16", dot);
    double largest = 0, difference = 0;
    for (size_t i = 0; i < dot.size(); ++i) {
      largest = std::max(largest, double(std::fabs(widened[i])));
      difference = std::max(difference, double(std::fabs(dot[i] - widened[i])));
    }
    std::printf("| %ld x %ld x %ld%s | %s | %.1f | %.0f | %.1f | %.0f | %.2fx "
                "| %.1e |\n",
                long(m), long(n), long(k),
                transposeA ? " (A^T)" : (transposeB ? " (B^T)" : ""),
                shape.what, widenedUs, flop / widenedUs / 1e3, dotUs,
                flop / dotUs / 1e3, widenedUs / dotUs,
                difference / std::max(largest, 1e-30));
  }
  lazyrt_set_bf16_gemm_kernel(chosen.c_str());
}

} // namespace

/// The LSTM's step products on one and two OpenMP threads (see the top).
void benchmarkRecurrentSteps() {
  const int64_t batch = 16, hidden = 128, gates = 4, steps = 32;
  const int64_t columns = gates * hidden;
  std::vector<float> h(batch * hidden), w(hidden * columns), c(batch * columns);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = float(i % 13) / 13 - 0.5f;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float(i % 17) / 17 - 0.5f;
  // Thread `thread` of `threads`: its columns of each gate.
  auto step = [&](int thread, int threads) {
    int64_t part = hidden / threads, first = thread * part;
    for (int64_t gate = 0; gate < gates; ++gate) {
      int64_t column = gate * hidden + first;
      lazyrt::smallGemm(batch, part, hidden, h.data(), hidden, 1,
                        w.data() + column, columns, c.data() + column, columns,
                        /*accumulate=*/false);
    }
  };
  double one = medianMicroseconds([&] {
    for (int64_t s = 0; s < steps; ++s)
      step(0, 1);
  });
  double perStep = medianMicroseconds([&] {
    for (int64_t s = 0; s < steps; ++s) {
#pragma omp parallel num_threads(2)
      step(omp_get_thread_num(), 2);
    }
  });
  double oneRegion = medianMicroseconds([&] {
#pragma omp parallel num_threads(2)
    for (int64_t s = 0; s < steps; ++s) {
      step(omp_get_thread_num(), 2);
#pragma omp barrier
    }
  });
  std::printf("\n| %ld LSTM steps' products (%ld x %ld x %ld) | us | vs one "
              "thread |\n| --- | --- | --- |\n",
              long(steps), long(batch), long(columns), long(hidden));
  std::printf("| one thread | %.1f | 1.00x |\n", one);
  std::printf("| two threads, a parallel region per step | %.1f | %.2fx |\n",
              perStep, one / perStep);
  std::printf("| two threads, one region, a barrier per step | %.1f | %.2fx "
              "|\n",
              oneRegion, one / oneRegion);
}

int main() {
  if (!lazyrt::smallGemmAvailable()) {
    std::printf("this CPU lacks AVX-512: products go to OpenBLAS alone\n");
    return 0;
  }
  const Shape shapes[] = {
      {16, 256, 128, false, "LSTM step, half the gates", true},
      {16, 512, 128, false, "LSTM step, all gates"},
      {128, 256, 784, false, "MLP layer 1, half the columns", true},
      {128, 256, 512, false, "MLP layer 2, half the columns", true},
      {128, 384, 768, false, "BERT projection, half the columns", true},
      {128, 1536, 768, false, "BERT FFN up, half the columns", true},
      {128, 384, 3072, false, "BERT FFN down, half the columns", true},
      {256, 128, 128, false, "GPT (d 128) chunk of 256 rows"},
      {256, 512, 128, false, "GPT (d 128) MLP up, 256 rows"},
      {128, 512, 256, true, "weight gradient, A transposed"},
      {256, 65, 128, false, "partial vector of columns"},
  };
  std::printf("| shape (m x n x k) | what | small us | GFLOP/s | OpenBLAS "
              "us | GFLOP/s | OpenBLAS / small | max diff |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Shape &shape : shapes) {
    const int64_t m = shape.m, n = shape.n, k = shape.k;
    const bool transposeA = shape.transposeA;
    const int64_t ld = shape.halfTheColumns ? 2 * n : n;
    std::vector<float> a(m * k), b(k * ld), small(m * ld), blas(m * ld);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i % 13) / 13 - 0.5f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = float(i % 17) / 17 - 0.5f;
    // A stored m x k, or k x m when transposed.
    int64_t lda = transposeA ? m : k;
    double smallUs = medianMicroseconds([&] {
      lazyrt::smallGemm(m, n, k, a.data(), transposeA ? 1 : lda,
                        transposeA ? lda : 1, b.data(), ld, small.data(), ld,
                        /*accumulate=*/false);
    });
    double blasUs = medianMicroseconds([&] {
      lazyrt::gemm(transposeA, false, m, n, k, 1.0f, a.data(), lda, b.data(),
                   ld, 0.0f, blas.data(), ld);
    });
    double largest = 0, difference = 0;
    for (size_t i = 0; i < small.size(); ++i) {
      largest = std::max(largest, double(std::fabs(blas[i])));
      difference = std::max(difference, double(std::fabs(small[i] - blas[i])));
    }
    double flop = 2.0 * m * n * k;
    std::printf("| %ld x %ld x %ld%s | %s | %.1f | %.0f | %.1f | %.0f | %.2fx "
                "| %.1e |\n",
                long(m), long(n), long(k), transposeA ? " (A^T)" : "",
                shape.what, smallUs, flop / smallUs / 1e3, blasUs,
                flop / blasUs / 1e3, blasUs / smallUs,
                difference / std::max(largest, 1e-30));
  }
  benchmarkBFloat16Products();
  benchmarkRecurrentSteps();
  return 0;
}
