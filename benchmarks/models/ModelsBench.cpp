//===- ModelsBench.cpp - CNN and transformer training steps vs libtorch ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Times one training step of the two models of issue 17, in lazyc (lazy:
// forward, GradientTape backward and the optimizer's update as one cached
// trace) and in libtorch eager (TorchModels.cpp), from the same initial
// parameters on the same batches:
//
//  1. cnn: examples/cnn_mnist.cpp's LeNet (conv 5x5 6 -> relu -> maxpool 2
//     -> conv 5x5 16 -> relu -> maxpool 2 -> 400-120-10), batch 64 of 28x28
//     images (synthetic, MNIST-shaped), SGD with momentum;
//  2. gpt: examples/char_transformer.cpp's model (2 layers, 4 heads,
//     d = 128, context 64, vocabulary 86), batch 32 x 64 tokens, Adam.
//
// Variants run in blocks of consecutive steps, round-robin, every step timed
// on its own, with a pause before each block (so that a thread pool that
// spun for the previous variant sleeps). Reported: each variant's median
// step and libtorch / lazyc. Both sides use the same number of threads
// (default 2): lazyc's OpenMP threads and libtorch's intra-op threads;
// OpenBLAS gets that many threads during libtorch's steps (lazyc splits its
// GEMMs over OpenMP itself and runs OpenBLAS on one thread).
//
// 3. digits: the 8x8 CNN of cnn_mnist.cpp trained on the 1,797 sklearn
//    digits (python3-sklearn), shuffled with seed 1, the first 1,500 for
//    training, the other 297 held out: the same batches (batch 64, a seeded
//    order per epoch), SGD (lr 0.05, momentum 0.9), 15 epochs, in both; the
//    held-out accuracy of each.
//
// 4. gpt-small (only when asked for): the same model in GPT-2 small's
//    shape (12 layers, 12 heads, d = 768, context 128; 85M parameters),
//    batch 4 x 128 tokens, Adam: issue 41's 12-layer step.
//
// With --autocast, the cnn, gpt and gpt-small tables add each side's step
// under bf16 autocast (lazyc's AutocastScope around the forward pass and
// the loss; libtorch's CPU autocast), each on a model of its own from the
// same initial values.
//
// --layers N sets gpt-small's depth (24: issue 41's deeper model). --side
// lazyc|libtorch runs one side of the transformer tables alone, so that the
// peak resident memory each table ends with is that side's (libtorch alone
// draws its initial values on the host, and lazyc compiles nothing).
//
//   lazyc-bench-models [--only cnn|gpt|gpt-small|digits|gpt-parts]
//                      [--rounds N] [--block N] [--threads N] [--epochs N]
//                      [--autocast] [--layers N] [--side lazyc|libtorch|both]
//
//===----------------------------------------------------------------------===//

#include "TorchModels.h"

#include <lazyc/Runtime/Runtime.h>
#include <lazyc/nn.h>

#include <cblas.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h> // access: lazyc::sync() is spelled out below

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

using namespace lazyc;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  std::string only; ///< empty: all three
  int rounds = 4, block = 5, warmUp = 3, pauseMs = 300;
  int threads = 2;
  int epochs = 15;
  /// Adds each side's step under bf16 autocast (lazyc's AutocastScope,
  /// libtorch's CPU autocast) to the cnn and gpt tables.
  bool autocast = false;
  /// gpt-small's depth (GPT-2 small's 12 unless set).
  int64_t layers = 0;
  /// The transformer tables' sides: "both", or only "lazyc" or "libtorch",
  /// so that a process's peak memory is one side's.
  std::string side = "both";
  bool runsLazyc() const { return side != "libtorch"; }
  bool runsTorch() const { return side != "lazyc"; }
};

/// The process's peak resident memory so far (VmHWM), in MiB; 0 where
/// /proc is not there.
double peakResidentMiB() {
  std::FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmHWM: %lf kB", &kib) == 1)
      break;
  std::fclose(status);
  return kib / 1024;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// SplitMix64: the same numbers everywhere.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// examples/cnn_mnist.cpp's CNN: LeNet for 28x28, the small CNN for 8x8.
struct Cnn {
  int64_t side, padding1, padding2, flat;
  nn::Sequential net;
  explicit Cnn(int64_t side, int64_t seed) : side(side) {
    bool small = side == 8;
    int64_t c1 = small ? 16 : 6, c2 = small ? 32 : 16, k = small ? 3 : 5;
    int64_t hidden = small ? 64 : 120;
    padding1 = small ? 1 : 2;
    padding2 = small ? 1 : 0;
    nn::Conv2d::Options first, second;
    first.conv.padding = padding1;
    second.conv.padding = padding2;
    int64_t afterSecond = (side / 2 + 2 * padding2 - k + 1) / 2;
    flat = c2 * afterSecond * afterSecond;
    auto pool = [](const Tensor &x) { return nn::maxPool2d(x, 2); };
    int64_t columns = flat;
    net = nn::Sequential(
        nn::Conv2d(1, c1, k, seed, first, "conv1"), relu, pool,
        nn::Conv2d(c1, c2, k, seed + 1, second, "conv2"), relu, pool,
        [columns](const Tensor &x) {
          return reshape(x, {x.shape()[0], columns});
        },
        nn::Linear(flat, hidden, seed + 2, "fc1"), relu,
        nn::Linear(hidden, 10, seed + 3, "fc2"));
  }
};

/// examples/char_transformer.cpp's model.
class Block {
public:
  Block(int64_t dim, int64_t heads, int64_t seed, const std::string &name)
      : ln1({dim}, 1e-5, true, DType::Float32, name + ".ln1"),
        ln2({dim}, 1e-5, true, DType::Float32, name + ".ln2"),
        attention(dim, heads, seed, causal(), name + ".attention"),
        fc1(dim, 4 * dim, seed + 2, name + ".fc1"),
        fc2(4 * dim, dim, seed + 3, name + ".fc2") {}
  Tensor forward(const Tensor &x) const {
    Tensor h = x + attention(ln1(x));
    return h + fc2(gelu(fc1(ln2(h))));
  }
  std::vector<Variable *> parameters() {
    std::vector<Variable *> all;
    for (auto part : {ln1.parameters(), attention.parameters(),
                      ln2.parameters(), fc1.parameters(), fc2.parameters()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }

private:
  static nn::MultiHeadAttention::Options causal() {
    nn::MultiHeadAttention::Options options;
    options.causal = true;
    return options;
  }
  nn::LayerNorm ln1, ln2;
  nn::MultiHeadAttention attention;
  nn::Linear fc1, fc2;
};

class Gpt {
public:
  Gpt(const bench::GptSetup &shape, int64_t seed)
      : tokens(randomNormal({shape.vocabulary, shape.dim}, 0, 0.02, seed),
               "tokens"),
        positions(randomNormal({shape.context, shape.dim}, 0, 0.02, seed + 1),
                  "positions"),
        lnFinal({shape.dim}, 1e-5, true, DType::Float32, "ln_final"),
        head(shape.dim, shape.vocabulary, seed + 2, zeroInit(), "head") {
    blocks.reserve(shape.layers);
    for (int64_t i = 0; i < shape.layers; ++i)
      blocks.emplace_back(shape.dim, shape.heads, seed + 10 * (i + 1),
                          "block" + std::to_string(i));
  }
  Tensor forward(const Tensor &ids) const {
    Tensor x = nn::embedding(tokens.read(), ids) + positions.read();
    for (const Block &block : blocks)
      x = block.forward(x);
    return head(lnFinal(x));
  }
  std::vector<Variable *> parameters() {
    std::vector<Variable *> all = {&tokens, &positions};
    for (Block &block : blocks)
      for (Variable *parameter : block.parameters())
        all.push_back(parameter);
    for (auto part : {lnFinal.parameters(), head.parameters()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }

private:
  static nn::Linear::Options zeroInit() {
    nn::Linear::Options options;
    options.weightInit = nn::Init::Zeros;
    return options;
  }
  Variable tokens, positions;
  std::vector<Block> blocks;
  nn::LayerNorm lnFinal;
  nn::Linear head;
};

std::vector<bench::Parameter> initialValues(const std::vector<Variable *> &ps) {
  std::vector<bench::Parameter> values;
  for (Variable *parameter : ps)
    values.push_back(
        {parameter->read().toVector<float>(), parameter->read().shape()});
  return values;
}

std::unique_ptr<optim::Optimizer>
makeOptimizer(const std::vector<Variable *> &parameters,
              const bench::OptimizerSetup &setup) {
  if (setup.adam) {
    optim::Adam::Options options;
    options.learningRate = setup.learningRate;
    return std::make_unique<optim::Adam>(parameters, options);
  }
  optim::SGD::Options options;
  options.learningRate = setup.learningRate;
  options.momentum = setup.momentum;
  return std::make_unique<optim::SGD>(parameters, options);
}

/// One lazyc training step: forward, backward and update as one trace.
float lazycStep(const std::function<Tensor()> &lossOf,
                std::vector<Variable *> &parameters,
                optim::Optimizer &optimizer) {
  Tensor loss;
  {
    GradientTape tape;
    loss = lossOf();
    optimizer.step(tape.gradient(loss, nn::refs(parameters)));
  }
  lazyc::sync();
  return loss.item<float>();
}

struct Variant {
  Variant(std::string name, std::function<float()> step, bool torch = false,
          bool autocast = false)
      : name(std::move(name)), step(std::move(step)), torch(torch),
        autocast(autocast) {}
  std::string name;
  std::function<float()> step;
  /// The first (warm-up) step, its compiles included, and the timed ones.
  double firstMs = NAN;
  std::vector<double> stepMs;
  float firstLoss = NAN, lastLoss = NAN;
  bool torch = false, autocast = false;
};

/// The best (lowest) median step of libtorch's variants (in f32, or under
/// autocast): its best configuration; 0 if there are none.
double bestTorch(const std::vector<Variant> &variants, bool autocast = false) {
  double best = 0;
  for (const Variant &variant : variants) {
    if (!variant.torch || variant.autocast != autocast)
      continue;
    double ms = median(variant.stepMs);
    if (best == 0 || ms < best)
      best = ms;
  }
  return best;
}
double bestOther(const std::vector<Variant> &variants) {
  return bestTorch(variants);
}

/// The median step of lazyc's variant under autocast (0 if none).
double lazycAutocastMs(const std::vector<Variant> &variants) {
  for (const Variant &variant : variants)
    if (!variant.torch && variant.autocast)
      return median(variant.stepMs);
  return 0;
}

/// With --autocast: the autocast row of the results.
void printAutocastResult(const char *name,
                         const std::vector<Variant> &variants) {
  double lazyF32 = median(variants[0].stepMs);
  double lazyBf16 = lazycAutocastMs(variants);
  double torchBf16 = bestTorch(variants, /*autocast=*/true);
  std::printf("\nbf16 autocast: lazyc %.2f ms (%.2fx its f32 step's speed), "
              "libtorch's best %.2f ms (%.2fx its f32 step's speed); "
              "libtorch autocast / lazyc autocast = %.2fx; lazyc's bf16 "
              "products: %s\n",
              lazyBf16, lazyF32 / lazyBf16, torchBf16,
              bestTorch(variants) / torchBf16, torchBf16 / lazyBf16,
              lazyrt_bf16_gemm_kernel());
  std::printf("RESULT %s-autocast lazyc=%.4f lazyc_f32=%.4f torch=%.4f "
              "torch_f32=%.4f ratio=%.3f\n",
              name, lazyBf16, lazyF32, torchBf16, bestTorch(variants),
              torchBf16 / lazyBf16);
}

/// `ratio` as the tables print it ("1.25x").
std::string formatRatio(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

/// Warm-up, then rounds x block timed steps of each variant, round-robin.
/// Prints the table; returns libtorch / lazyc of the medians.
double timeVariants(const Settings &settings, const std::string &title,
                    std::vector<Variant> &variants) {
  for (Variant &variant : variants)
    for (int i = 0; i < settings.warmUp; ++i) {
      auto start = Clock::now();
      variant.lastLoss = variant.step();
      if (i == 0) {
        variant.firstLoss = variant.lastLoss;
        variant.firstMs =
            std::chrono::duration<double, std::milli>(Clock::now() - start)
                .count();
      }
    }
  Metrics before = metrics();
  uint64_t bytesBefore = lazyrt_get_allocator_stats().bytes_in_use;
  for (int round = 0; round < settings.rounds; ++round)
    for (size_t v = 0; v < variants.size(); ++v) {
      Variant &variant = variants[(v + round) % variants.size()];
      std::this_thread::sleep_for(std::chrono::milliseconds(settings.pauseMs));
      for (int i = 0; i < settings.block; ++i) {
        auto start = Clock::now();
        variant.lastLoss = variant.step();
        variant.stepMs.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - start)
                .count());
      }
    }
  Metrics after = metrics();
  std::printf("\n### %s\n\n| variant | median step | min | max | vs lazyc "
              "| first step | loss at step 1 | loss at step %d |\n| --- | --- "
              "| --- | --- | --- | --- | --- | --- |\n",
              title.c_str(),
              settings.warmUp + settings.rounds * settings.block);
  // lazyc's f32 variant is the reference, where this run has it.
  auto lazyc = std::find_if(variants.begin(), variants.end(),
                            [](const Variant &variant) {
                              return !variant.torch && !variant.autocast;
                            });
  double lazyMs = lazyc == variants.end() ? NAN : median(lazyc->stepMs);
  for (Variant &variant : variants) {
    double ms = median(variant.stepMs);
    auto [low, high] =
        std::minmax_element(variant.stepMs.begin(), variant.stepMs.end());
    std::string versus =
        lazyc == variants.end() ? "-" : formatRatio(ms / lazyMs);
    std::printf("| %s | %.2f ms | %.2f | %.2f | %s | %.2f ms | %.4f | "
                "%.4f |\n",
                variant.name.c_str(), ms, *low, *high, versus.c_str(),
                variant.firstMs, variant.firstLoss, variant.lastLoss);
  }
  double ratio = bestOther(variants) / lazyMs;
  std::printf("\n");
  if (lazyc != variants.end() && bestOther(variants) > 0)
    std::printf("libtorch's best / lazyc = %.2fx (target >= 1.3x: %s). ", ratio,
                ratio >= 1.3 ? "met" : "missed");
  if (lazyc != variants.end())
    std::printf(
        "During the %d timed lazyc steps: %llu traces compiled, %llu cache "
        "hits; runtime bytes in use %+.2f MB. ",
        settings.rounds * settings.block,
        static_cast<unsigned long long>(after.tracesCompiled -
                                        before.tracesCompiled),
        static_cast<unsigned long long>(after.cacheHits - before.cacheHits),
        (double(lazyrt_get_allocator_stats().bytes_in_use) -
         double(bytesBefore)) /
            1e6);
  std::printf("Peak resident memory of this process so far: %.0f MiB.\n",
              peakResidentMiB());
  std::fflush(stdout);
  return ratio;
}

/// libtorch's step with OpenBLAS on `threads` threads (lazyc's runtime
/// keeps the shared OpenBLAS on one).
std::function<float()> withBlasThreads(int threads,
                                       std::function<float()> step) {
  return [threads, step] {
    openblas_set_num_threads(threads);
    float loss = step();
    openblas_set_num_threads(1);
    return loss;
  };
}

/// lazyc's step under bf16 autocast: the loss `lossOf(step)` of a model
/// of its own (`parameters`, from the same initial values), with an
/// optimizer of its own.
void addLazycAutocastVariant(std::vector<Variant> &variants,
                             std::vector<Variable *> parameters,
                             const bench::OptimizerSetup &setup,
                             std::function<Tensor(size_t)> lossOf) {
  std::shared_ptr<optim::Optimizer> optimizer =
      makeOptimizer(parameters, setup);
  auto next = std::make_shared<size_t>(0);
  variants.emplace_back(
      "lazyc lazy, bf16 autocast",
      [=]() mutable {
        size_t step = (*next)++;
        return lazycStep(
            [&] {
              AutocastScope autocast(DType::BFloat16);
              return lossOf(step);
            },
            parameters, *optimizer);
      },
      /*torch=*/false, /*autocast=*/true);
}

/// libtorch's two configurations, each training its own copy of the model:
/// OpenBLAS on the threads (its own thread pool beside ATen's OpenMP one),
/// and OpenBLAS on one thread (ATen's threads only). Which is faster
/// depends on the machine's load; the ratio takes the better. libtorch
/// alone (--side libtorch) runs the first only: one model in memory.
template <typename MakeModel, typename Step>
void addTorchVariants(std::vector<Variant> &variants, const Settings &settings,
                      MakeModel makeModel, Step step, bool autocast = false) {
  std::vector<int> configurations = {settings.threads};
  if (settings.runsLazyc())
    configurations.push_back(1);
  for (int blasThreads : configurations) {
    auto model = std::make_shared<bench::TorchModel>(makeModel());
    if (!model->step)
      return;
    auto next = std::make_shared<size_t>(0);
    variants.emplace_back(
        std::string("libtorch eager") + (autocast ? ", bf16 autocast" : "") +
            ", OpenBLAS on " + std::to_string(blasThreads) + " thread(s)",
        withBlasThreads(
            blasThreads,
            [model, next, step] { return step(*model, (*next)++); }),
        /*torch=*/true, autocast);
  }
}

void benchCnn(const Settings &settings) {
  const int64_t batch = 64, batches = 4;
  data::Dataset set =
      data::syntheticClassification(batch * batches, 784, 10, /*seed=*/7, 1.5);
  std::vector<Tensor> images, labels;
  std::vector<std::vector<float>> hostImages;
  std::vector<std::vector<int32_t>> hostLabels;
  for (int64_t b = 0; b < batches; ++b) {
    images.push_back(
        reshape(set.batchInputs(b * batch, batch), {batch, 1, 28, 28}));
    labels.push_back(set.batchLabels(b * batch, batch));
    hostImages.push_back(images.back().toVector<float>());
    hostLabels.push_back(labels.back().toVector<int32_t>());
  }
  Cnn cnn(28, /*seed=*/1);
  std::vector<Variable *> parameters = cnn.net.parameters();
  bench::CnnSetup setup;
  setup.parameters = initialValues(parameters);
  setup.side = 28;
  setup.padding1 = cnn.padding1;
  setup.padding2 = cnn.padding2;
  setup.optimizer.learningRate = 0.01;
  std::unique_ptr<optim::Optimizer> optimizer =
      makeOptimizer(parameters, setup.optimizer);
  std::vector<Variant> variants;
  size_t lazyNext = 0;
  variants.emplace_back("lazyc lazy", [&] {
    size_t b = lazyNext++ % batches;
    return lazycStep(
        [&] { return nn::crossEntropy(cnn.net(images[b]), labels[b]); },
        parameters, *optimizer);
  });
  auto torchStep = [&](bench::TorchModel &torch, size_t step) {
    size_t b = step % batches;
    return torch.step(hostImages[b], hostLabels[b], batch);
  };
  addTorchVariants(
      variants, settings, [&] { return bench::makeTorchCnn(setup); },
      torchStep);
  // The same step under bf16 autocast: a model of its own from the same
  // initial values on each side.
  std::unique_ptr<Cnn> narrowCnn;
  if (settings.autocast) {
    narrowCnn = std::make_unique<Cnn>(28, /*seed=*/1);
    addLazycAutocastVariant(variants, narrowCnn->net.parameters(),
                            setup.optimizer, [&](size_t step) {
                              size_t b = step % batches;
                              return nn::crossEntropy(narrowCnn->net(images[b]),
                                                      labels[b]);
                            });
    bench::CnnSetup narrowSetup = setup;
    narrowSetup.autocast = true;
    addTorchVariants(
        variants, settings, [&] { return bench::makeTorchCnn(narrowSetup); },
        torchStep, /*autocast=*/true);
  }
  double ratio = timeVariants(
      settings,
      "CNN training step: LeNet, batch 64 x 1 x 28 x 28, SGD (lr 0.01, "
      "momentum 0.9)",
      variants);
  std::printf("RESULT cnn lazyc=%.4f torch=%.4f ratio=%.3f\n",
              median(variants[0].stepMs), bestOther(variants), ratio);
  if (settings.autocast)
    printAutocastResult("cnn", variants);
}

/// A transformer of `layers` layers of width `dim` trained on `batch`
/// sequences of `context` tokens.
struct GptShape {
  const char *name;
  int64_t layers, heads, dim, context, batch;
};

// examples/char_transformer.cpp's model, and GPT-2 small's shape (issue
// 41: 85M parameters).
constexpr GptShape kCharTransformer = {"gpt", 2, 4, 128, 64, 32};
constexpr GptShape kGpt2Small = {"gpt-small", 12, 12, 768, 128, 4};

/// Values of the parameters' shapes drawn on the host (layer norms' scales
/// 1, biases 0, the rest normal with deviation 0.02), for libtorch alone:
/// lazyc then compiles nothing, and the process's memory is libtorch's.
std::vector<bench::Parameter>
hostInitialValues(const std::vector<Variable *> &ps) {
  SplitMix random{5};
  std::vector<bench::Parameter> values;
  for (Variable *parameter : ps) {
    const std::string &name = parameter->name();
    auto endsWith = [&](const char *suffix) {
      size_t n = std::strlen(suffix);
      return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    bool norm = name.find("ln") != std::string::npos;
    std::vector<float> data(parameter->numel());
    for (float &value : data) {
      if (endsWith("bias"))
        value = 0;
      else if (norm)
        value = 1;
      else {
        // Box-Muller on two uniforms in (0, 1].
        double u = (double(random.next() >> 11) + 1) * 0x1p-53;
        double v = double(random.next() >> 11) * 0x1p-53;
        value =
            float(0.02 * std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v));
      }
    }
    values.push_back({std::move(data), parameter->read().shape()});
  }
  return values;
}

void benchGpt(const Settings &settings, const GptShape &shape) {
  bench::GptSetup setup;
  setup.vocabulary = 86; // the common licenses' (char_transformer.cpp)
  setup.dim = shape.dim;
  setup.heads = shape.heads;
  setup.layers = shape.layers;
  setup.context = shape.context;
  setup.optimizer.adam = true;
  setup.optimizer.learningRate = 2e-3;
  const int64_t batch = shape.batch, batches = 4, T = setup.context;
  SplitMix random{11};
  std::vector<Tensor> inputs, targets;
  std::vector<std::vector<float>> hostInputs;
  std::vector<std::vector<int32_t>> hostTargets;
  for (int64_t b = 0; b < batches; ++b) {
    // A random walk over the vocabulary: something to learn.
    std::vector<int32_t> ids(batch * (T + 1));
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = static_cast<int32_t>(i % (T + 1) == 0
                                        ? random.next() % setup.vocabulary
                                        : (ids[i - 1] + 1 + random.next() % 3) %
                                              setup.vocabulary);
    std::vector<int32_t> x(batch * T), y(batch * T);
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t t = 0; t < T; ++t) {
        x[r * T + t] = ids[r * (T + 1) + t];
        y[r * T + t] = ids[r * (T + 1) + t + 1];
      }
    inputs.push_back(Tensor::fromVector(x, {batch, T}));
    targets.push_back(Tensor::fromVector(y, {batch * T}));
    hostInputs.emplace_back(x.begin(), x.end());
    hostTargets.push_back(y);
  }
  // The parameters are recorded, not computed, until a step or
  // initialValues reads them.
  Gpt gpt(setup, /*seed=*/1);
  std::vector<Variable *> parameters = gpt.parameters();
  setup.parameters = settings.runsLazyc() ? initialValues(parameters)
                                          : hostInitialValues(parameters);
  std::unique_ptr<optim::Optimizer> optimizer =
      makeOptimizer(parameters, setup.optimizer);
  std::vector<Variant> variants;
  size_t lazyNext = 0;
  if (settings.runsLazyc())
    variants.emplace_back("lazyc lazy", [&] {
      size_t b = lazyNext++ % batches;
      return lazycStep(
          [&] {
            return nn::crossEntropy(
                reshape(gpt.forward(inputs[b]), {batch * T, setup.vocabulary}),
                targets[b]);
          },
          parameters, *optimizer);
    });
  auto torchStep = [&](bench::TorchModel &torch, size_t step) {
    size_t b = step % batches;
    return torch.step(hostInputs[b], hostTargets[b], batch);
  };
  if (settings.runsTorch())
    addTorchVariants(
        variants, settings, [&] { return bench::makeTorchGpt(setup); },
        torchStep);
  std::unique_ptr<Gpt> narrowGpt;
  if (settings.autocast && settings.runsLazyc()) {
    narrowGpt = std::make_unique<Gpt>(setup, /*seed=*/1);
    addLazycAutocastVariant(
        variants, narrowGpt->parameters(), setup.optimizer, [&](size_t step) {
          size_t b = step % batches;
          return nn::crossEntropy(reshape(narrowGpt->forward(inputs[b]),
                                          {batch * T, setup.vocabulary}),
                                  targets[b]);
        });
  }
  if (settings.autocast && settings.runsTorch()) {
    bench::GptSetup narrowSetup = setup;
    narrowSetup.autocast = true;
    addTorchVariants(
        variants, settings, [&] { return bench::makeTorchGpt(narrowSetup); },
        torchStep, /*autocast=*/true);
  }
  if (!settings.runsLazyc())
    std::printf("\n(libtorch alone: its initial values are drawn on the host, "
                "not lazyc's, so its losses differ from a run of both.)\n");
  std::string title =
      "Transformer training step: " + std::to_string(shape.layers) +
      " layers, " + std::to_string(shape.heads) + " heads, d " +
      std::to_string(shape.dim) + ", vocabulary 86, batch " +
      std::to_string(batch) + " x " + std::to_string(T) +
      " tokens, Adam (lr 2e-3)";
  double ratio = timeVariants(settings, title, variants);
  if (settings.side != "both")
    return;
  std::printf("RESULT %s lazyc=%.4f torch=%.4f ratio=%.3f\n", shape.name,
              median(variants[0].stepMs), bestOther(variants), ratio);
  if (settings.autocast)
    printAutocastResult(shape.name, variants);
}

/// Where the transformer step's time goes (`--only gpt-parts`): the
/// forward and backward pass of each part of the model alone, as one
/// trace each (the gradient of sum(out * g) for a fixed g, with respect to
/// the part's parameters and input), then the whole model's forward pass,
/// its forward and backward pass, and the whole step; lazyc only.
void benchGptParts(const Settings &settings) {
  const int64_t B = 32, T = 64, D = 128, V = 86;
  auto timeIt = [&](const char *name, const std::function<void()> &record) {
    std::vector<double> ms;
    for (int i = 0; i < settings.warmUp + settings.rounds * settings.block;
         ++i) {
      auto start = Clock::now();
      record();
      lazyc::sync();
      if (i >= settings.warmUp)
        ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - start)
                .count());
    }
    std::printf("| %s | %.2f ms |\n", name, median(ms));
    std::fflush(stdout);
  };
  std::printf("\n### Parts of the transformer step (lazyc, batch 32 x 64, "
              "forward + backward unless noted)\n\n| part | median |\n| --- "
              "| --- |\n");
  Variable x(randomNormal({B, T, D}, 0, 1, 3), "x");
  Tensor g = randomNormal({B, T, D}, 0, 1, 4);
  g.toVector<float>();
  auto backward = [&](const std::function<Tensor()> &forward,
                      std::vector<Variable *> parameters) {
    parameters.push_back(&x);
    GradientTape tape;
    Tensor loss = sum(forward() * g);
    std::vector<Tensor> grads = tape.gradient(loss, nn::refs(parameters));
    for (size_t i = 0; i < parameters.size(); ++i)
      parameters[i]->assign(parameters[i]->read() - grads[i] * 1e-6f);
  };
  bench::GptSetup shape;
  shape.vocabulary = V;
  shape.dim = D;
  shape.heads = 4;
  shape.layers = 2;
  shape.context = T;
  Gpt gpt(shape, /*seed=*/1);
  std::vector<Variable *> gptParameters = gpt.parameters();
  std::vector<int32_t> tokenValues(B * T);
  for (size_t i = 0; i < tokenValues.size(); ++i)
    tokenValues[i] = static_cast<int32_t>((i * 13) % V);
  Tensor tokenIds = Tensor::fromVector(tokenValues, {B, T});
  Tensor nextIds = Tensor::fromVector(tokenValues, {B * T});
  auto gptLoss = [&] {
    return nn::crossEntropy(reshape(gpt.forward(tokenIds), {B * T, V}),
                            nextIds);
  };
  timeIt("whole model, forward only (loss)",
         [&] { gptLoss().toVector<float>(); });
  timeIt("whole model, forward + backward (plain SGD update)", [&] {
    GradientTape tape;
    Tensor loss = gptLoss();
    std::vector<Tensor> grads = tape.gradient(loss, nn::refs(gptParameters));
    for (size_t i = 0; i < gptParameters.size(); ++i)
      gptParameters[i]->assign(gptParameters[i]->read() - grads[i] * 1e-3f);
  });
  optim::Adam::Options adamOptions;
  optim::Adam adam(gptParameters, adamOptions);
  timeIt("whole step (forward + backward + Adam)", [&] {
    GradientTape tape;
    Tensor loss = gptLoss();
    adam.step(tape.gradient(loss, nn::refs(gptParameters)));
  });
  nn::LayerNorm ln({D});
  timeIt("layerNorm [32, 64, 128]",
         [&] { backward([&] { return ln(x.read()); }, ln.parameters()); });
  nn::MultiHeadAttention::Options causal;
  causal.causal = true;
  nn::MultiHeadAttention attention(D, 4, 5, causal);
  timeIt("causal MultiHeadAttention, 4 heads", [&] {
    backward([&] { return attention(x.read()); }, attention.parameters());
  });
  timeIt("MultiHeadAttention, forward only",
         [&] { attention(x.read()).toVector<float>(); });
  Tensor q = randomNormal({B, 4, T, D / 4}, 0, 1, 6);
  Variable qv(q, "q");
  timeIt("scaledDotProductAttention [32, 4, 64, 32] alone", [&] {
    GradientTape tape;
    Tensor out =
        nn::scaledDotProductAttention(qv.read(), qv.read(), qv.read(), true);
    Tensor loss = sum(out * out);
    qv.assign(qv.read() - tape.gradient(loss, qv) * 1e-6f);
  });
  nn::Linear fc1(D, 4 * D, 7), fc2(4 * D, D, 8);
  std::vector<Variable *> mlpParameters = fc1.parameters();
  for (Variable *p : fc2.parameters())
    mlpParameters.push_back(p);
  timeIt("MLP 128-512-128 with gelu", [&] {
    backward([&] { return fc2(gelu(fc1(x.read()))); }, mlpParameters);
  });
  Variable table(randomNormal({V, D}, 0, 0.02, 9), "table");
  std::vector<int32_t> idValues(B * T);
  for (size_t i = 0; i < idValues.size(); ++i)
    idValues[i] = static_cast<int32_t>((i * 7) % V);
  Tensor ids = Tensor::fromVector(idValues, {B, T});
  timeIt("embedding [86, 128] of [32, 64] ids", [&] {
    GradientTape tape;
    Tensor loss = sum(nn::embedding(table.read(), ids) * g);
    table.assign(table.read() - tape.gradient(loss, table) * 1e-6f);
  });
  nn::Linear head(D, V, 10);
  Tensor targets = Tensor::fromVector(idValues, {B * T});
  timeIt("head 128 -> 86 and crossEntropy", [&] {
    std::vector<Variable *> parameters = head.parameters();
    parameters.push_back(&x);
    GradientTape tape;
    Tensor loss =
        nn::crossEntropy(reshape(head(x.read()), {B * T, V}), targets);
    std::vector<Tensor> grads = tape.gradient(loss, nn::refs(parameters));
    for (size_t i = 0; i < parameters.size(); ++i)
      parameters[i]->assign(parameters[i]->read() - grads[i] * 1e-6f);
  });
}

/// The sklearn digits, shuffled with `seed` as examples/cnn_mnist.cpp does.
bool loadDigits(const char *path, uint64_t seed, std::vector<float> &pixels,
                std::vector<int32_t> &labels) {
  gzFile file = gzopen(path, "rb");
  if (!file)
    return false;
  std::string text;
  char chunk[1 << 16];
  int read;
  while ((read = gzread(file, chunk, sizeof chunk)) > 0)
    text.append(chunk, static_cast<size_t>(read));
  gzclose(file);
  const char *cursor = text.c_str();
  while (*cursor) {
    double values[65];
    int n = 0;
    for (; n < 65; ++n) {
      char *end = nullptr;
      values[n] = std::strtod(cursor, &end);
      if (end == cursor)
        break;
      cursor = end;
      if (*cursor == ',')
        ++cursor;
    }
    if (n != 65)
      break;
    for (int i = 0; i < 64; ++i)
      pixels.push_back(static_cast<float>(values[i] / 16.0));
    labels.push_back(static_cast<int32_t>(values[64]));
  }
  SplitMix random{seed};
  for (int64_t i = static_cast<int64_t>(labels.size()) - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(random.next() % uint64_t(i + 1));
    std::swap(labels[i], labels[j]);
    std::swap_ranges(pixels.begin() + i * 64, pixels.begin() + (i + 1) * 64,
                     pixels.begin() + j * 64);
  }
  return labels.size() == 1797;
}

void benchDigits(const Settings &settings) {
  const char *path =
      "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
  std::vector<float> pixels;
  std::vector<int32_t> labels;
  if (!loadDigits(path, /*seed=*/1, pixels, labels)) {
    std::printf("\n### digits: skipped (%s missing: apt-get install "
                "python3-sklearn)\n",
                path);
    return;
  }
  const int64_t trainCount = 1500, testCount = 1797 - trainCount, batch = 64;
  Cnn cnn(8, /*seed=*/1);
  std::vector<Variable *> parameters = cnn.net.parameters();
  bench::CnnSetup setup;
  setup.parameters = initialValues(parameters);
  setup.side = 8;
  setup.padding1 = cnn.padding1;
  setup.padding2 = cnn.padding2;
  setup.optimizer.learningRate = 0.05;
  std::unique_ptr<optim::Optimizer> optimizer =
      makeOptimizer(parameters, setup.optimizer);
  bench::TorchModel torch = bench::makeTorchCnn(setup);

  std::vector<float> x(batch * 64);
  std::vector<int32_t> y(batch);
  float lazyLoss = 0, torchLoss = 0;
  auto start = Clock::now();
  double lazySeconds = 0, torchSeconds = 0;
  for (int epoch = 0; epoch < settings.epochs; ++epoch) {
    std::vector<int64_t> order(trainCount);
    for (int64_t i = 0; i < trainCount; ++i)
      order[i] = i;
    SplitMix random{1000 + uint64_t(epoch)};
    for (int64_t i = trainCount - 1; i > 0; --i)
      std::swap(order[i], order[random.next() % uint64_t(i + 1)]);
    for (int64_t first = 0; first + batch <= trainCount; first += batch) {
      for (int64_t r = 0; r < batch; ++r) {
        std::copy_n(pixels.begin() + order[first + r] * 64, 64,
                    x.begin() + r * 64);
        y[r] = labels[order[first + r]];
      }
      auto t0 = Clock::now();
      Tensor images = Tensor::fromVector(x, {batch, 1, 8, 8});
      Tensor targets = Tensor::fromVector(y, {batch});
      lazyLoss =
          lazycStep([&] { return nn::crossEntropy(cnn.net(images), targets); },
                    parameters, *optimizer);
      auto t1 = Clock::now();
      if (torch.step) {
        openblas_set_num_threads(settings.threads);
        torchLoss = torch.step(x, y, batch);
        openblas_set_num_threads(1);
      }
      lazySeconds += std::chrono::duration<double>(t1 - t0).count();
      torchSeconds += std::chrono::duration<double>(Clock::now() - t1).count();
    }
  }
  (void)start;
  std::vector<float> testPixels(pixels.begin() + trainCount * 64, pixels.end());
  std::vector<int32_t> testLabels(labels.begin() + trainCount, labels.end());
  Tensor images = Tensor::fromVector(testPixels, {testCount, 1, 8, 8});
  Tensor expected =
      cast(Tensor::fromVector(testLabels, {testCount}), DType::Int64);
  Tensor predicted = argmax(cnn.net(images), /*axis=*/1);
  int64_t lazyCorrect =
      sum(cast(predicted - expected == 0, DType::Int32)).item<int64_t>();
  int64_t torchCorrect =
      torch.correct ? torch.correct(testPixels, testLabels, testCount) : -1;
  std::printf("\n### Held-out accuracy on the sklearn digits\n\n8x8 CNN, the "
              "1,797 digits shuffled with seed 1: 1,500 training and 297 "
              "held-out images; batch 64, SGD (lr 0.05, momentum 0.9), %d "
              "epochs, the same batches and initial parameters in both.\n\n"
              "| | held-out accuracy | last training loss | training time "
              "|\n| --- | --- | --- | --- |\n"
              "| lazyc | %.2f%% (%lld/%lld) | %.4f | %.2f s (compiles "
              "included) |\n",
              settings.epochs, 100.0 * lazyCorrect / testCount,
              static_cast<long long>(lazyCorrect),
              static_cast<long long>(testCount), lazyLoss, lazySeconds);
  if (torchCorrect >= 0)
    std::printf("| libtorch | %.2f%% (%lld/%lld) | %.4f | %.2f s |\n",
                100.0 * torchCorrect / testCount,
                static_cast<long long>(torchCorrect),
                static_cast<long long>(testCount), torchLoss, torchSeconds);
  std::printf("RESULT digits lazyc=%.4f torch=%.4f\n",
              double(lazyCorrect) / testCount,
              torchCorrect >= 0 ? double(torchCorrect) / testCount : -1.0);
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "lazyc-bench-models: %s needs a value\n",
                     flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--only")
      settings.only = value();
    else if (flag == "--rounds")
      settings.rounds = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--block")
      settings.block = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--threads")
      settings.threads = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--epochs")
      settings.epochs = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--autocast")
      settings.autocast = true;
    else if (flag == "--layers")
      settings.layers = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--side") {
      settings.side = value();
      if (settings.side != "both" && settings.side != "lazyc" &&
          settings.side != "libtorch") {
        std::fprintf(stderr, "%s: --side takes lazyc, libtorch or both\n",
                     argv[0]);
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--only cnn|gpt|gpt-small|digits|gpt-parts] "
                   "[--rounds N] [--block N] [--threads N] [--epochs N] "
                   "[--autocast] [--layers N] [--side lazyc|libtorch|both]\n",
                   argv[0]);
      return 2;
    }
  }
  omp_set_num_threads(settings.threads);
  bench::setTorchThreads(settings.threads);
  const char *policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("lazyc-bench-models: %d OpenMP threads (lazyc), %s, "
              "OMP_WAIT_POLICY=%s, %u hardware threads; %d warm-up steps, "
              "then %d rounds x %d steps per variant\n",
              omp_get_max_threads(),
              bench::torchDescription().empty()
                  ? "libtorch: not built"
                  : bench::torchDescription().c_str(),
              policy ? policy : "(unset)", std::thread::hardware_concurrency(),
              settings.warmUp, settings.rounds, settings.block);
  std::fflush(stdout);
  if (settings.only.empty() || settings.only == "cnn")
    benchCnn(settings);
  if (settings.only.empty() || settings.only == "gpt")
    benchGpt(settings, kCharTransformer);
  if (settings.only == "gpt-small") {
    GptShape shape = kGpt2Small;
    if (settings.layers > 0)
      shape.layers = settings.layers;
    benchGpt(settings, shape);
  }
  if (settings.only.empty() || settings.only == "digits")
    benchDigits(settings);
  if (settings.only == "gpt-parts")
    benchGptParts(settings);
  return 0;
}
