//===- ReductionsBench.cpp - Reductions: error against float64, and speed --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The error of lazyc's f32 reductions against float64 sums of the same data,
// at 2^16, 2^20, 2^24 and 2^28 elements, next to the bound of pairwise
// summation, log2(n) eps sum |x| (eps = 2^-23); then the time of each at
// 2^24 elements (medians of --rounds calls, with the bytes each reads per
// second). benchmarks/cpu/reductions_numpy.py prints numpy's errors on the
// same data (the generator below, written in both).
//
// Usage: lazyc-bench-reductions [--max-log2 28] [--rounds 21]
//                               [--accuracy-only | --speed-only]
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace lazyc;

namespace {

/// Element i of the data: uniform in [-1, 1) from a multiplicative hash,
/// exactly as reductions_numpy.py computes it.
float uniformAt(uint64_t i) {
  uint32_t bits =
      static_cast<uint32_t>((i * 2654435761u + 12345u) & 0xffffffffu);
  return static_cast<float>(static_cast<double>(bits) * 0x1p-31 - 1.0);
}

/// The data a case reduces, in f32.
enum class Data { Squares, Tenths, Uniform };

std::vector<float> makeData(Data data, int64_t n) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) {
    float u = uniformAt(i);
    values[i] = data == Data::Squares ? u * u : data == Data::Tenths ? 0.1f : u;
  }
  return values;
}

/// A reduction case: its data, how lazyc computes it from x (1-D, n
/// elements), and how the shape of x is seen (rows x columns, the axis).
struct Case {
  const char *name;
  Data data;
  /// 0: everything; 1: rows of [4, n/4] summed; 2: columns of [n/4, 4].
  int layout;
  bool mean;
  /// The trace squares x before the sum (the square fused into it).
  bool squareInTrace;
};

const Case kCases[] = {
    {"sum(square(x)), x ~ U(-1, 1)", Data::Uniform, 0, false, true},
    {"sum of copies of 0.1f", Data::Tenths, 0, false, false},
    {"mean of copies of 0.1f", Data::Tenths, 0, true, false},
    {"sum(x), x ~ U(-1, 1)", Data::Uniform, 0, false, false},
    {"row sums of [4, n/4] (0.1f)", Data::Tenths, 1, false, false},
    {"column sums of [n/4, 4] (0.1f)", Data::Tenths, 2, false, false},
    {"column sums of [n/4, 4] (squares)", Data::Squares, 2, false, false},
};

/// lazyc's result for `c` on `x` (its terms already in the data).
Tensor compute(const Case &c, const Tensor &x, int64_t n) {
  Tensor terms = c.squareInTrace ? square(x) : x;
  switch (c.layout) {
  case 1:
    return sum(reshape(terms, {4, n / 4}), {1});
  case 2:
    return sum(reshape(terms, {n / 4, 4}), {0});
  default:
    return c.mean ? mean(terms) : sum(terms);
  }
}

/// The float64 results of `c` on `values` (the terms), and sum |terms| per
/// output.
void exact(const Case &c, const std::vector<float> &values,
           std::vector<double> &results, std::vector<double> &absolute) {
  int64_t n = values.size();
  int64_t outputs = c.layout == 0 ? 1 : 4;
  results.assign(outputs, 0.0);
  absolute.assign(outputs, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t out = c.layout == 1 ? i / (n / 4) : c.layout == 2 ? i % 4 : 0;
    results[out] += values[i];
    absolute[out] += std::fabs(static_cast<double>(values[i]));
  }
  if (c.mean) {
    results[0] /= n;
    absolute[0] /= n;
  }
}

double nowUs() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

int main(int argc, char **argv) {
  int maxLog2 = 28, rounds = 21;
  bool accuracy = true, speed = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--max-log2" && i + 1 < argc)
      maxLog2 = std::atoi(argv[++i]);
    else if (arg == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (arg == "--accuracy-only")
      speed = false;
    else if (arg == "--speed-only")
      accuracy = false;
    else {
      std::fprintf(stderr,
                   "usage: lazyc-bench-reductions [--max-log2 N] [--rounds N] "
                   "[--accuracy-only | --speed-only]\n");
      return 2;
    }
  }

  if (accuracy) {
    std::printf("| reduction | n | lazyc error | bound log2(n) eps |\n"
                "| --- | --- | --- | --- |\n");
    for (const Case &c : kCases)
      for (int log2n = 16; log2n <= maxLog2; log2n += 4) {
        int64_t n = int64_t(1) << log2n;
        std::vector<float> data = makeData(c.data, n);
        std::vector<float> terms = data;
        if (c.squareInTrace)
          for (float &t : terms)
            t = t * t;
        std::vector<double> results, absolute;
        exact(c, terms, results, absolute);
        Tensor x = Tensor::fromVector<float>(data, {n});
        std::vector<float> got = compute(c, x, n).toVector<float>();
        double error = 0;
        for (size_t k = 0; k < got.size(); ++k)
          error = std::max(error, std::fabs(got[k] - results[k]) / absolute[k]);
        std::printf("| %s | 2^%d | %.1e | %.1e |\n", c.name, log2n, error,
                    log2n * 0x1p-23);
      }
  }

  if (speed) {
    int64_t n = int64_t(1) << 24;
    std::printf("\n| reduction, 2^24 f32 | median | GB/s read |\n"
                "| --- | --- | --- |\n");
    for (const Case &c : kCases) {
      Tensor x = Tensor::fromVector<float>(makeData(c.data, n), {n});
      std::vector<double> times;
      for (int round = 0; round <= rounds; ++round) {
        double start = nowUs();
        Tensor result = compute(c, x, n);
        lazyc::sync();
        double elapsed = nowUs() - start;
        if (round > 0) // The first call compiles.
          times.push_back(elapsed);
      }
      std::sort(times.begin(), times.end());
      double median = times[times.size() / 2];
      std::printf("| %s | %.3f ms | %.1f |\n", c.name, median / 1e3,
                  n * 4.0 / (median * 1e3));
    }
  }
  return 0;
}
