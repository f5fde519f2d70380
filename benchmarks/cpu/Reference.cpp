//===- Reference.cpp - Hand-fused reference kernels -----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The serious hand-written baselines lazyc's generated code is measured
// against: one fused pass per kernel, all cores (OpenMP), 16-wide vectors
// with glibc's libmvec for expf/tanhf. Built by g++ with
// -O3 -march=native -ffast-math -fopenmp (see benchmarks/CMakeLists.txt) and
// linked against libomp, so it shares lazyc's thread pool.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdint>

extern "C" {

/// y = relu(tanh(exp(x * 0.5 + 0.1)) * 1.5 - 1) / (1 + x * x)
void reference_chain(const float *x, float *y, int64_t n) {
#pragma omp parallel for simd simdlen(16) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    float t = std::tanh(std::exp(v * 0.5f + 0.1f)) * 1.5f - 1.0f;
    y[i] = (t > 0.0f ? t : 0.0f) / (1.0f + v * v);
  }
}

/// Row softmax of a rows x cols matrix.
void reference_softmax(const float *x, float *y, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *out = y + r * cols;
    float max = -INFINITY;
#pragma omp simd simdlen(16) reduction(max : max)
    for (int64_t c = 0; c < cols; ++c)
      max = in[c] > max ? in[c] : max;
    float sum = 0.0f;
#pragma omp simd simdlen(16) reduction(+ : sum)
    for (int64_t c = 0; c < cols; ++c) {
      float e = std::exp(in[c] - max);
      out[c] = e;
      sum += e;
    }
    float scale = 1.0f / sum;
#pragma omp simd simdlen(16)
    for (int64_t c = 0; c < cols; ++c)
      out[c] *= scale;
  }
}

/// Row layer norm: (x - mean) / sqrt(var + eps) * gamma + beta.
void reference_layernorm(const float *x, const float *gamma, const float *beta,
                         float *y, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *out = y + r * cols;
    float sum = 0.0f;
#pragma omp simd simdlen(16) reduction(+ : sum)
    for (int64_t c = 0; c < cols; ++c)
      sum += in[c];
    float mean = sum / float(cols);
    float squares = 0.0f;
#pragma omp simd simdlen(16) reduction(+ : squares)
    for (int64_t c = 0; c < cols; ++c) {
      float d = in[c] - mean;
      squares += d * d;
    }
    float rstd = 1.0f / std::sqrt(squares / float(cols) + eps);
#pragma omp simd simdlen(16)
    for (int64_t c = 0; c < cols; ++c)
      out[c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
  }
}

/// The memory roofline: a copy of the same bytes.
void reference_copy(const float *x, float *y, int64_t n) {
#pragma omp parallel for simd simdlen(16) schedule(static)
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i];
}

} // extern "C"
