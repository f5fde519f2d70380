//===- AttentionBench.cpp - Attention in tiles against materialized -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// nn::scaledDotProductAttention, f32, q, k, v [heads, T, d], a training
// step's forward and backward (GradientTape gradients of sum(out * w) with
// respect to q, k and v), in its two forms:
//
//   tiled         AttentionTiles::Always: lazy.attention and its gradients,
//                 the CPU kernels of runtime/cpu/Attention.cpp;
//   materialized  AttentionTiles::Never: matmul, softmax, matmul, fused
//                 (skipped where its scores would not fit: 4 score
//                 matrices of heads x T x T floats above --max-gib).
//
// Per length and form: the median forward and forward + backward times,
// and the step's peak memory: the most bytes lazyc's buffers held at once
// during the step (the runtime allocator's peak_bytes_in_use, reset before
// it; the inputs, live throughout, included), against the inputs (q, k, v,
// w) and outputs (out, dq, dk, dv). The kernels' own scratch (a few
// 256 x 256 tiles per thread and O(T) row statistics) is not in it. Where both
// forms run, the largest difference of their outputs and gradients, relative to
// the largest magnitude.
//
//   lazyc-bench-attention [--lengths 64,256,1024,4096,16384] [--heads 8]
//                         [--depth 64] [--rounds 3] [--causal 0|1]
//                         [--max-gib 12]
//
//===----------------------------------------------------------------------===//

#include <lazyc/Runtime/Runtime.h>
#include <lazyc/nn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace lazyc;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  std::vector<int64_t> lengths = {64, 256, 1024, 4096, 16384};
  int64_t heads = 8, depth = 64;
  int rounds = 3;
  bool causal = true;
  double maxGiB = 12;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::vector<float> data(int64_t count, uint64_t seed) {
  std::vector<float> values(count);
  uint64_t state = seed * 6364136223846793005ULL + 1;
  for (float &value : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    value = static_cast<float>(double(state >> 11) * 0x1.0p-53 * 2 - 1);
  }
  return values;
}

struct Result {
  double forwardMs = 0, stepMs = 0, peakBytes = 0;
  std::vector<std::vector<float>> values; ///< out, dq, dk, dv
};

Result measure(const Settings &settings, int64_t length,
               nn::AttentionTiles tiles) {
  Shape shape = {settings.heads, length, settings.depth};
  int64_t count = settings.heads * length * settings.depth;
  Tensor q = Tensor::fromVector(data(count, 1), shape);
  Tensor k = Tensor::fromVector(data(count, 2), shape);
  Tensor v = Tensor::fromVector(data(count, 3), shape);
  Tensor w = Tensor::fromVector(data(count, 4), shape);
  nn::AttentionOptions options;
  options.causal = settings.causal;
  options.tiles = tiles;
  Result result;
  auto forward = [&] {
    nn::scaledDotProductAttention(q, k, v, options).toVector<float>();
  };
  auto step = [&](bool keep) {
    GradientTape tape;
    for (const Tensor *t : {&q, &k, &v})
      tape.watch(*t);
    Tensor out = nn::scaledDotProductAttention(q, k, v, options);
    std::vector<Tensor> grads = tape.gradient(sum(out * w), {q, k, v});
    sync();
    if (keep) {
      result.values.push_back(out.toVector<float>());
      for (Tensor &g : grads)
        result.values.push_back(g.toVector<float>());
    }
  };
  forward(); // compiles
  step(false);
  std::vector<double> forwardMs, stepMs;
  double peak = 0;
  for (int round = 0; round < settings.rounds; ++round) {
    auto start = Clock::now();
    forward();
    forwardMs.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count());
    lazyrt_reset_peak_bytes_in_use();
    start = Clock::now();
    step(round == 0);
    stepMs.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count());
    peak =
        std::max(peak, double(lazyrt_get_allocator_stats().peak_bytes_in_use));
  }
  result.forwardMs = median(forwardMs);
  result.stepMs = median(stepMs);
  result.peakBytes = peak;
  return result;
}

std::vector<int64_t> parseList(const char *text) {
  std::vector<int64_t> values;
  for (const char *p = text; *p;) {
    values.push_back(std::strtoll(p, const_cast<char **>(&p), 10));
    if (*p == ',')
      ++p;
  }
  return values;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--lengths")
      settings.lengths = parseList(argv[i + 1]);
    else if (flag == "--heads")
      settings.heads = std::atoll(argv[i + 1]);
    else if (flag == "--depth")
      settings.depth = std::atoll(argv[i + 1]);
    else if (flag == "--rounds")
      settings.rounds = std::atoi(argv[i + 1]);
    else if (flag == "--causal")
      settings.causal = std::atoi(argv[i + 1]) != 0;
    else if (flag == "--max-gib")
      settings.maxGiB = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("f32, %lld heads, d = %lld, %s, forward + backward of "
              "sum(out * w); median of %d\n",
              static_cast<long long>(settings.heads),
              static_cast<long long>(settings.depth),
              settings.causal ? "causal" : "not causal", settings.rounds);
  std::printf("%-7s %-13s %11s %11s %10s %14s %11s\n", "T", "form",
              "forward ms", "step ms", "peak MiB", "in + out MiB",
              "peak ratio");
  for (int64_t length : settings.lengths) {
    double ioBytes =
        8.0 * settings.heads * length * settings.depth * sizeof(float);
    double scoresBytes =
        4.0 * settings.heads * double(length) * length * sizeof(float);
    Result tiled = measure(settings, length, nn::AttentionTiles::Always);
    std::vector<std::pair<const char *, Result>> results = {
        {"tiled", std::move(tiled)}};
    if (scoresBytes <= settings.maxGiB * (1ull << 30))
      results.push_back({"materialized",
                         measure(settings, length, nn::AttentionTiles::Never)});
    for (const auto &[name, result] : results)
      std::printf("%-7lld %-13s %11.2f %11.2f %10.1f %14.1f %11.2f\n",
                  static_cast<long long>(length), name, result.forwardMs,
                  result.stepMs, result.peakBytes / (1 << 20),
                  ioBytes / (1 << 20), result.peakBytes / ioBytes);
    if (results.size() == 2) {
      const char *names[] = {"out", "dq", "dk", "dv"};
      std::printf("        tiled against materialized:");
      for (int i = 0; i < 4; ++i) {
        const auto &a = results[0].second.values[i],
                   &b = results[1].second.values[i];
        double difference = 0, magnitude = 0;
        for (size_t e = 0; e < a.size(); ++e) {
          difference = std::max(difference, double(std::fabs(a[e] - b[e])));
          magnitude = std::max(magnitude, double(std::fabs(b[e])));
        }
        std::printf(" %s %.1e", names[i], difference / magnitude);
      }
      std::printf(" (largest difference / largest magnitude)\n");
    }
    std::fflush(stdout);
  }
  return 0;
}
