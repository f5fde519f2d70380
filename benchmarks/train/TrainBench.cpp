//===- TrainBench.cpp - Training step time: lazyc, libtorch, GEMM floor ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Times one training step of a 784-512-512-10 MLP (ReLU, batch 128, cross
// entropy, SGD with momentum or Adam) on the same synthetic batches from the
// same initial weights:
//
//  1. lazyc, lazy: forward, GradientTape backward and the optimizer's update
//     recorded, then run as one cached trace (lazyc::sync());
//  2. lazyc, eager: the same code inside an EagerScope (op by op);
//  3. libtorch eager (when CMake found libtorch): TorchTrain.cpp;
//  4. the floor: the step's eight GEMMs alone (three forward, five
//     backward), through OpenBLAS's cblas_sgemm with transposes as flags.
//
// Variants run in blocks of consecutive steps, round-robin, every step timed
// on its own; a pause before each block lets the thread pools that spun for
// the previous variant (libomp's, OpenBLAS's) go to sleep. Reported: the
// median step of each variant.
//
// libomp reads OMP_WAIT_POLICY once, at start-up, and lazyc and libtorch
// share it in one process. So by default the program runs itself twice,
// with OMP_WAIT_POLICY unset (libomp's default: spin 200 ms after a parallel
// region) and with OMP_WAIT_POLICY=PASSIVE (sleep at once), prints both
// tables, and compares lazyc with libtorch's faster configuration, within the
// run that measured it.
//
//   lazyc-bench-train [--rounds N] [--block N] [--optimizer sgd|adam]
//                     [--threads N] [--policy both|current]
//
// --threads sets lazyc's OpenMP threads, libtorch's intra-op threads and
// OpenBLAS's threads (default: OpenMP's default, all cores).
//
//===----------------------------------------------------------------------===//

#include "TorchTrain.h"

#include <lazyc/Runtime/Runtime.h>
#include <lazyc/nn.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h> // readlink: lazyc::sync() is spelled out below

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

using namespace lazyc;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  int rounds = 10;
  int block = 5;
  int pauseMs = 300; // libomp's default spin time is 200 ms
  std::string optimizer = "sgd";
  std::string policy = "both";
  int threads = 0; ///< 0: OpenMP's default
  bool child = false;
};

const std::vector<int64_t> layerSizes = {784, 512, 512, 10};
const int64_t batchSize = 128;
const int batchCount = 8;

/// CPU time of the whole process (every thread), in milliseconds.
double processCpuMs() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec * 1e-6;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// One variant: a step function, its name, and the times of its steps.
struct Variant {
  Variant(std::string name, std::function<float()> step)
      : name(std::move(name)), step(std::move(step)) {}
  std::string name;
  std::function<float()> step;
  std::vector<double> stepMs;
  std::vector<double> cpuMs; ///< process CPU time: all threads, spinning too
  float lastLoss = NAN;
};

/// The MLP in lazyc, trained with `settings.optimizer`.
struct LazycTrainer {
  nn::Mlp model;
  std::vector<Variable *> parameters;
  std::unique_ptr<optim::Optimizer> optimizer;

  LazycTrainer(const bench::TrainSetup &setup, int64_t seed)
      : model(setup.sizes, seed), parameters(model.parameters()) {
    if (setup.adam) {
      optim::Adam::Options options;
      options.learningRate = setup.learningRate;
      optimizer = std::make_unique<optim::Adam>(parameters, options);
    } else {
      optim::SGD::Options options;
      options.learningRate = setup.learningRate;
      options.momentum = setup.momentum;
      optimizer = std::make_unique<optim::SGD>(parameters, options);
    }
  }

  float step(const Tensor &inputs, const Tensor &labels) {
    Tensor loss;
    {
      GradientTape tape;
      loss = nn::crossEntropy(model(inputs), labels);
      // The gradients are temporaries: only the loss and the updated state
      // become outputs of the trace.
      optimizer->step(tape.gradient(loss, nn::refs(parameters)));
    }
    lazyc::sync();
    return loss.item<float>();
  }
};

/// The step's GEMMs with OpenBLAS: forward x W1, h1 W2, h2 W3; backward
/// dW3 = h2^T dz, dh2 = dz W3^T, dW2 = h1^T dh2, dh1 = dh2 W2^T,
/// dW1 = x^T dh1 (layer 1's input gradient is not needed).
struct GemmFloor {
  std::vector<std::vector<float>> weights, gradients, activations, deltas;
  const std::vector<std::vector<float>> *inputs;
  size_t next = 0;

  explicit GemmFloor(const bench::TrainSetup &setup) : inputs(&setup.inputs) {
    for (size_t i = 0; i + 1 < layerSizes.size(); ++i) {
      weights.push_back(setup.weights[i]);
      gradients.emplace_back(weights.back().size());
      activations.emplace_back(batchSize * layerSizes[i + 1], 0.5f);
      deltas.emplace_back(batchSize * layerSizes[i + 1], 0.01f);
    }
  }

  /// c[m, n] = op(a) op(b), row-major.
  static void gemm(bool transA, bool transB, int m, int n, int k,
                   const float *a, const float *b, float *c) {
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a,
                transA ? m : k, b, transB ? k : n, 0.0f, c, n);
  }

  float step() {
    const float *x = (*inputs)[next++ % inputs->size()].data();
    int b = batchSize, n0 = layerSizes[0], n1 = layerSizes[1],
        n2 = layerSizes[2], n3 = layerSizes[3];
    gemm(false, false, b, n1, n0, x, weights[0].data(), activations[0].data());
    gemm(false, false, b, n2, n1, activations[0].data(), weights[1].data(),
         activations[1].data());
    gemm(false, false, b, n3, n2, activations[1].data(), weights[2].data(),
         activations[2].data());
    gemm(true, false, n2, n3, b, activations[1].data(), deltas[2].data(),
         gradients[2].data());
    gemm(false, true, b, n2, n3, deltas[2].data(), weights[2].data(),
         deltas[1].data());
    gemm(true, false, n1, n2, b, activations[0].data(), deltas[1].data(),
         gradients[1].data());
    gemm(false, true, b, n1, n2, deltas[1].data(), weights[1].data(),
         deltas[0].data());
    gemm(true, false, n0, n1, b, x, deltas[0].data(), gradients[0].data());
    return NAN;
  }
};

int runChild(const Settings &settings) {
  const int64_t seed = 1;
  const int warmUp = 3;
  bench::TrainSetup setup;
  setup.sizes = layerSizes;
  setup.batch = batchSize;
  setup.adam = settings.optimizer == "adam";
  setup.learningRate = setup.adam ? 1e-3 : 0.01;
  setup.momentum = 0.9;
  data::Dataset set = data::syntheticClassification(batchSize * batchCount, 784,
                                                    10, /*seed=*/7);
  std::vector<Tensor> inputTensors, labelTensors;
  for (int b = 0; b < batchCount; ++b) {
    inputTensors.push_back(set.batchInputs(b * batchSize, batchSize));
    labelTensors.push_back(set.batchLabels(b * batchSize, batchSize));
    setup.inputs.push_back(inputTensors.back().toVector<float>());
    setup.labels.push_back(labelTensors.back().toVector<int32_t>());
  }

  LazycTrainer lazy(setup, seed);
  for (size_t i = 0; i < lazy.parameters.size(); i += 2) {
    setup.weights.push_back(lazy.parameters[i]->read().toVector<float>());
    setup.biases.push_back(lazy.parameters[i + 1]->read().toVector<float>());
  }
  std::unique_ptr<LazycTrainer> eager;
  {
    EagerScope scope;
    eager = std::make_unique<LazycTrainer>(setup, seed);
  }
  if (settings.threads > 0)
    omp_set_num_threads(settings.threads);
  int threads = omp_get_max_threads();
  bench::setTorchThreads(threads);
  std::function<float()> torchStep = bench::makeTorchTrainStep(setup);
  GemmFloor floor(setup);

  size_t lazyNext = 0, eagerNext = 0;
  std::vector<Variant> variants;
  variants.emplace_back("lazyc lazy", [&] {
    size_t b = lazyNext++ % batchCount;
    return lazy.step(inputTensors[b], labelTensors[b]);
  });
  variants.emplace_back("lazyc eager (EagerScope)", [&] {
    EagerScope scope;
    size_t b = eagerNext++ % batchCount;
    return eager->step(inputTensors[b], labelTensors[b]);
  });
  // One OpenBLAS serves everyone here: libtorch's sgemm_ binds to the
  // libopenblas.so.0 that lazyc links (not to libblas.so.3), and lazyc's
  // runtime sets it to one thread once (it splits GEMMs over OpenMP itself).
  // libtorch and the floor get OpenBLAS's own threading back for their
  // steps, as in a process of their own.
  auto withBlasThreads = [threads](std::function<float()> step) {
    return [threads, step] {
      openblas_set_num_threads(threads);
      float loss = step();
      openblas_set_num_threads(1);
      return loss;
    };
  };
  if (torchStep)
    variants.emplace_back("libtorch eager", withBlasThreads(torchStep));
  variants.emplace_back("GEMM floor (8 OpenBLAS sgemm)",
                        withBlasThreads([&] { return floor.step(); }));

  for (Variant &variant : variants)
    for (int i = 0; i < warmUp; ++i)
      variant.lastLoss = variant.step();
  Metrics beforeTiming = metrics();
  for (int round = 0; round < settings.rounds; ++round)
    for (size_t v = 0; v < variants.size(); ++v) {
      // Rotate the order so no variant always follows the same one.
      Variant &variant = variants[(v + round) % variants.size()];
      std::this_thread::sleep_for(std::chrono::milliseconds(settings.pauseMs));
      for (int i = 0; i < settings.block; ++i) {
        double cpuStart = processCpuMs();
        auto start = Clock::now();
        variant.lastLoss = variant.step();
        variant.stepMs.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - start)
                .count());
        variant.cpuMs.push_back(processCpuMs() - cpuStart);
      }
    }
  Metrics after = metrics();

  // One more lazy step, for its memory: what it allocates beyond the state
  // that exists before it (the new parameters and optimizer state are
  // written over the old ones).
  uint64_t stateBytes = 0;
  for (Variable *parameter : lazy.parameters)
    stateBytes += parameter->numel() * sizeof(float);
  uint64_t inPlaceBefore = metrics().updatedInPlace;
  uint64_t bytesBefore = lazyrt_get_allocator_stats().bytes_in_use;
  lazyrt_reset_peak_bytes_in_use();
  variants[0].step();
  uint64_t stepPeak =
      lazyrt_get_allocator_stats().peak_bytes_in_use - bytesBefore;
  uint64_t updatedInPlace = metrics().updatedInPlace - inPlaceBefore;

  const char *policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("\nOMP_WAIT_POLICY=%s; %d OpenMP threads (lazyc), OpenBLAS %d "
              "threads (libtorch, floor), %s; %s; %d rounds x %d steps per "
              "variant after %d warm-up steps\n\n",
              policy ? policy : "(unset)", threads, threads,
              torchStep ? bench::torchDescription().c_str()
                        : "libtorch: skipped (not found at build time)",
              setup.adam ? "Adam (lr 1e-3)" : "SGD (lr 0.01, momentum 0.9)",
              settings.rounds, settings.block, warmUp);
  double lazyMs = median(variants[0].stepMs);
  double floorMs = median(variants.back().stepMs);
  std::printf("| variant | median step | min | max | vs lazyc lazy | CPU time "
              "per step (median, all threads) | loss after %d steps |\n"
              "| --- | --- | --- | --- | --- | --- | --- |\n",
              warmUp + settings.rounds * settings.block);
  for (Variant &variant : variants) {
    double ms = median(variant.stepMs);
    auto [low, high] =
        std::minmax_element(variant.stepMs.begin(), variant.stepMs.end());
    std::printf("| %s | %.3f ms | %.3f | %.3f | %.2fx | %.3f ms | %s |\n",
                variant.name.c_str(), ms, *low, *high, ms / lazyMs,
                median(variant.cpuMs),
                std::isnan(variant.lastLoss)
                    ? ""
                    : std::to_string(variant.lastLoss).c_str());
    std::printf("RESULT %s=%.6f\n", variant.name.c_str(), ms);
  }
  std::printf("\nlazyc lazy / GEMM floor: %.2fx. During the timed steps "
              "(both lazyc modes): %llu traces compiled, %llu cache hits.\n",
              lazyMs / floorMs,
              static_cast<unsigned long long>(after.tracesCompiled -
                                              beforeTiming.tracesCompiled),
              static_cast<unsigned long long>(after.cacheHits -
                                              beforeTiming.cacheHits));
  std::printf("Memory of one lazyc lazy step: it allocates at most %.2f MB "
              "beyond what exists before it (the parameters alone are "
              "%.2f MB); %llu values updated in place.\n",
              stepPeak / 1e6, stateBytes / 1e6,
              static_cast<unsigned long long>(updatedInPlace));
  return 0;
}

/// Runs this program as a child with OMP_WAIT_POLICY set (or unset), echoes
/// its output, and returns its RESULT lines.
std::map<std::string, double> runWithPolicy(const std::string &self,
                                            const Settings &settings,
                                            const char *policy) {
  std::string command = policy ? std::string("OMP_WAIT_POLICY=") + policy + " "
                               : std::string("env -u OMP_WAIT_POLICY ");
  command +=
      "'" + self + "' --child --rounds " + std::to_string(settings.rounds) +
      " --block " + std::to_string(settings.block) + " --optimizer " +
      settings.optimizer + " --threads " + std::to_string(settings.threads);
  std::map<std::string, double> results;
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return results;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string text = line;
    if (text.rfind("RESULT ", 0) == 0) {
      size_t equals = text.find('=');
      results[text.substr(7, equals - 7)] =
          std::atof(text.c_str() + equals + 1);
      continue;
    }
    std::fputs(line, stdout);
  }
  if (pclose(pipe) != 0)
    std::fprintf(stderr, "lazyc-bench-train: the run with %s failed\n",
                 command.c_str());
  return results;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "lazyc-bench-train: %s needs a value\n",
                     flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--rounds")
      settings.rounds = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--block")
      settings.block = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--optimizer")
      settings.optimizer = value() == "adam" ? "adam" : "sgd";
    else if (flag == "--threads")
      settings.threads = std::max(0, std::atoi(value().c_str()));
    else if (flag == "--policy")
      settings.policy = value();
    else if (flag == "--child")
      settings.child = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--rounds N] [--block N] [--optimizer sgd|adam]"
                   " [--threads N] [--policy both|current]\n",
                   argv[0]);
      return 2;
    }
  }
  if (settings.child || settings.policy == "current")
    return runChild(settings);

  std::printf("lazyc-bench-train: one training step, 784-512-512-10 MLP, "
              "batch %lld, %u hardware threads\n",
              static_cast<long long>(batchSize),
              std::thread::hardware_concurrency());
  std::string self = "/proc/self/exe";
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length > 0)
    self.assign(path, static_cast<size_t>(length));
  std::map<std::string, double> spinning =
      runWithPolicy(self, settings, nullptr);
  std::map<std::string, double> passive =
      runWithPolicy(self, settings, "PASSIVE");

  const std::string lazyName = "lazyc lazy", torchName = "libtorch eager",
                    floorName = "GEMM floor (8 OpenBLAS sgemm)";
  std::printf("\n## Summary\n\n");
  if (!passive.count(torchName) || !spinning.count(torchName)) {
    std::printf("libtorch: skipped. lazyc lazy / GEMM floor: %.2fx (unset), "
                "%.2fx (PASSIVE)\n",
                spinning[lazyName] / spinning[floorName],
                passive[lazyName] / passive[floorName]);
    return 0;
  }
  bool passiveBest = passive[torchName] <= spinning[torchName];
  std::map<std::string, double> &best = passiveBest ? passive : spinning;
  std::printf("libtorch's faster configuration: OMP_WAIT_POLICY=%s (%.3f ms "
              "vs %.3f ms per step).\n",
              passiveBest ? "PASSIVE" : "(unset)", best[torchName],
              passiveBest ? spinning[torchName] : passive[torchName]);
  double speedup = best[torchName] / best[lazyName];
  double overFloor = best[lazyName] / best[floorName];
  std::printf("In that run: lazyc lazy %.3f ms, libtorch %.3f ms: libtorch / "
              "lazyc = %.2fx (target >= 1.3x: %s); GEMM floor %.3f ms: "
              "lazyc / floor = %.2fx (target <= 1.25x: %s).\n",
              best[lazyName], best[torchName], speedup,
              speedup >= 1.3 ? "met" : "missed", best[floorName], overFloor,
              overFloor <= 1.25 ? "met" : "missed");
  return 0;
}
