//===- LayersBench.cpp - conv2d forward: lazyc against libtorch -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Times conv2d's forward pass (with bias) on the three convolutions of a
// LeNet-style CNN at batch 64, float32:
//
//   [64, 1, 28, 28] x [6, 1, 5, 5]               (conv1)
//   [64, 6, 12, 12] x [16, 6, 5, 5]              (conv2)
//   [64, 16, 8, 8]  x [32, 16, 3, 3], padding 1  (conv3)
//
//  1. lazyc: nn::conv2d recorded and run with lazyc::sync() (one cached
//     trace: the convolution op, run by lazy-cpu-direct-convolution's
//     register kernels, and the bias). The three shapes share the trace's
//     structure, so after the first the engine compiles one shape-generic
//     trace for the others (dynamic sizes, docs/API.md); `--shape N` runs
//     one shape alone, whose trace keeps its static sizes;
//  2. libtorch eager: at::conv2d in inference mode (TorchConv.cpp);
//  3. the GEMM alone: the im2col product, [outC, C kH kW] x
//     [C kH kW, N OH OW], as one OpenBLAS cblas_sgemm (what im2col would
//     cost at least);
//  4. forward and backward, as a training step computes them: lazyc's
//     GradientTape gradients of sum(y * g) with respect to x, w and b, in
//     one trace, against libtorch's autograd (y.backward(g)).
//
// Variants run in blocks of consecutive calls, round-robin, with a pause
// before each block (so thread pools that spun for the previous variant
// sleep); every call is timed; reported: the median call of each.
//
//   lazyc-bench-layers [--rounds N] [--block N] [--threads N] [--pause MS]
//                      [--shape 1|2|3]
//
// --threads sets lazyc's OpenMP threads, libtorch's intra-op threads and
// OpenBLAS's threads (default: OpenMP's default, all cores).
//
//===----------------------------------------------------------------------===//

#include "TorchConv.h"

#include <lazyc/nn.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

using namespace lazyc;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  int rounds = 20;
  int block = 10;
  int pauseMs = 300; // libomp's default spin time is 200 ms
  int threads = 0;   ///< 0: OpenMP's default
  int shape = 0;     ///< 1-3: that shape alone; 0: all three
};

struct Shape4 {
  const char *name;
  int64_t n, c, h, w, outC, k, padding;
};

const Shape4 shapes[] = {
    {"conv1 [64,1,28,28] x [6,1,5,5]", 64, 1, 28, 28, 6, 5, 0},
    {"conv2 [64,6,12,12] x [16,6,5,5]", 64, 6, 12, 12, 16, 5, 0},
    {"conv3 [64,16,8,8] x [32,16,3,3] p1", 64, 16, 8, 8, 32, 3, 1},
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<float> randomValues(size_t count, unsigned seed) {
  std::vector<float> values(count);
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (float &value : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    value = float(double(state >> 11) * 0x1.0p-53 * 2 - 1);
  }
  return values;
}

struct Variant {
  std::string name;
  std::function<void()> call;
  std::vector<double> ms;
};

void usage() {
  std::fprintf(stderr, "usage: lazyc-bench-layers [--rounds N] [--block N] "
                       "[--threads N] [--pause MS] [--shape 1|2|3]\n");
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() {
      if (i + 1 >= argc)
        usage();
      return std::atoi(argv[++i]);
    };
    if (!std::strcmp(argv[i], "--rounds"))
      settings.rounds = value();
    else if (!std::strcmp(argv[i], "--block"))
      settings.block = value();
    else if (!std::strcmp(argv[i], "--threads"))
      settings.threads = value();
    else if (!std::strcmp(argv[i], "--pause"))
      settings.pauseMs = value();
    else if (!std::strcmp(argv[i], "--shape"))
      settings.shape = value();
    else
      usage();
  }
  if (settings.threads > 0)
    omp_set_num_threads(settings.threads);
  int threads = omp_get_max_threads();
  bench::setTorchConvThreads(threads);
  std::printf("conv2d forward, float32, median of %d calls per variant "
              "(%d rounds of %d); %d thread(s); %s\n\n",
              settings.rounds * settings.block, settings.rounds, settings.block,
              threads, bench::torchConvDescription().c_str());
  std::printf("| shape | lazyc (ms) | libtorch (ms) | libtorch / lazyc | "
              "GEMM alone (ms) | lazyc fwd+bwd (ms) | libtorch fwd+bwd (ms) "
              "| libtorch / lazyc | compiles after warm-up |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");

  for (const Shape4 &s : shapes) {
    if (settings.shape > 0 && &s != &shapes[settings.shape - 1])
      continue;
    int64_t outSize = s.h + 2 * s.padding - s.k + 1;
    std::vector<float> x = randomValues(s.n * s.c * s.h * s.w, 1);
    std::vector<float> w = randomValues(s.outC * s.c * s.k * s.k, 2);
    std::vector<float> b = randomValues(s.outC, 3);
    Tensor xt = Tensor::fromVector(x, {s.n, s.c, s.h, s.w});
    Tensor wt = Tensor::fromVector(w, {s.outC, s.c, s.k, s.k});
    Tensor bt = Tensor::fromVector(b, {s.outC});
    nn::Conv2dOptions options;
    options.padding = s.padding;

    // Correctness first: lazyc against libtorch on the same data.
    std::vector<float> torchOut;
    std::function<void(bool)> torchConv = bench::makeTorchConv(
        x, {s.n, s.c, s.h, s.w}, w, {s.outC, s.c, s.k, s.k}, b, 1, s.padding,
        torchOut);
    torchConv(true);
    std::vector<float> lazycOut =
        nn::conv2d(xt, wt, bt, options).toVector<float>();
    double worst = 0;
    for (size_t i = 0; i < lazycOut.size(); ++i)
      worst = std::max(worst, double(std::abs(lazycOut[i] - torchOut[i])));
    if (lazycOut.size() != torchOut.size() || worst > 1e-3) {
      std::fprintf(stderr, "%s: lazyc and libtorch differ by %g\n", s.name,
                   worst);
      return 1;
    }

    // The GEMM lazyc's trace makes, alone.
    int64_t m = s.outC, k = s.c * s.k * s.k, n = s.n * outSize * outSize;
    std::vector<float> a = randomValues(m * k, 4), bm = randomValues(k * n, 5);
    std::vector<float> c(m * n);

    std::vector<Variant> variants;
    variants.push_back({"lazyc",
                        [&] {
                          Tensor y = nn::conv2d(xt, wt, bt, options);
                          lazyc::sync();
                        },
                        {}});

    // libtorch and the floor get OpenBLAS's threads (lazyc's runtime keeps
    // OpenBLAS at one thread and splits GEMMs over OpenMP itself).
    variants.push_back({"libtorch",
                        [&] {
                          openblas_set_num_threads(threads);
                          torchConv(false);
                          openblas_set_num_threads(1);
                        },
                        {}});
    // Forward and both gradients (and the bias's), as a training step
    // computes them: d sum(y * g) / d (x, w, b).
    std::vector<float> g = randomValues(s.n * s.outC * outSize * outSize, 6);
    Tensor gt = Tensor::fromVector(g, {s.n, s.outC, outSize, outSize});
    std::function<void()> torchBackward = bench::makeTorchConvBackward(
        x, {s.n, s.c, s.h, s.w}, w, {s.outC, s.c, s.k, s.k}, b, 1, s.padding, g,
        {s.n, s.outC, outSize, outSize});
    variants.push_back({"lazyc backward",
                        [&] {
                          std::vector<Tensor> grads;
                          {
                            GradientTape tape;
                            tape.watch(xt);
                            tape.watch(wt);
                            tape.watch(bt);
                            Tensor y = nn::conv2d(xt, wt, bt, options);
                            grads = tape.gradient(sum(y * gt), {xt, wt, bt});
                          }
                          lazyc::sync();
                        },
                        {}});
    variants.push_back({"libtorch backward",
                        [&] {
                          openblas_set_num_threads(threads);
                          torchBackward();
                          openblas_set_num_threads(1);
                        },
                        {}});
    variants.push_back({"gemm",
                        [&] {
                          openblas_set_num_threads(threads);
                          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                                      int(m), int(n), int(k), 1, a.data(),
                                      int(k), bm.data(), int(n), 0, c.data(),
                                      int(n));
                          openblas_set_num_threads(1);
                        },
                        {}});
    for (Variant &variant : variants)
      for (int i = 0; i < 5; ++i)
        variant.call();
    uint64_t compiled = metrics().tracesCompiled;
    for (int round = 0; round < settings.rounds; ++round)
      for (size_t v = 0; v < variants.size(); ++v) {
        Variant &variant = variants[(v + round) % variants.size()];
        std::this_thread::sleep_for(
            std::chrono::milliseconds(settings.pauseMs));
        for (int i = 0; i < settings.block; ++i) {
          auto start = Clock::now();
          variant.call();
          variant.ms.push_back(
              std::chrono::duration<double, std::milli>(Clock::now() - start)
                  .count());
        }
      }
    double lazyMs = median(variants[0].ms), torchMs = median(variants[1].ms);
    double lazyBackMs = median(variants[2].ms);
    double torchBackMs = median(variants[3].ms);
    std::printf("| %s | %.3f | %.3f | %.2fx | %.3f | %.3f | %.3f | %.2fx | "
                "%llu |\n",
                s.name, lazyMs, torchMs, torchMs / lazyMs,
                median(variants[4].ms), lazyBackMs, torchBackMs,
                torchBackMs / lazyBackMs,
                (unsigned long long)(metrics().tracesCompiled - compiled));
    std::fflush(stdout);
  }
  return 0;
}
