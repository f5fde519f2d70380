//===- data_parallel_mlp.cpp - Data-parallel MLP training across processes ===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Trains the 784-512-512-10 MLP of mnist_mlp.cpp data-parallel: every rank
// (process) holds the whole model and takes its slice of each global batch;
// lazyc::distributed::DataParallel starts every rank from rank 0's
// parameters and averages the gradients, whose all-reduces are compiled into
// the training step's trace. Run it under a launcher:
//
//   mpirun -np 2 lazyc-data-parallel [--epochs N] [--batch N] [--examples N]
//                                    [--seed N] [--device cpu|cuda|cuda:N]
//
// (as root, add --allow-run-as-root). Without one it trains alone, with the
// same results. With --device cuda each rank trains on the GPU of its local
// rank (cuda:N: on GPU N), and the gradients go over NCCL. Rank 0 prints the
// progress, the loss averaged over the ranks (an all-reduce in the same trace),
// steps/s and held-out accuracy.
//
//===----------------------------------------------------------------------===//

#include <lazyc/nn.h>

#include "ExampleSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

using namespace lazyc;
using lazyc::examples::ProgressBar;

namespace {

struct Settings {
  int epochs = 2;
  int64_t batch = 128; ///< the global batch, split over the ranks
  int64_t examples = 12800;
  int64_t seed = 1;
  /// "cpu", "cuda" (the local rank's GPU) or "cuda:N".
  std::string device = "cpu";
};

Settings parse(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> int64_t {
      if (i + 1 >= argc) {
        std::cerr << argv[0] << ": " << flag << " needs a value\n";
        std::exit(2);
      }
      return std::atoll(argv[++i]);
    };
    if (flag == "--device" && i + 1 < argc)
      settings.device = argv[++i];
    else if (flag == "--epochs")
      settings.epochs = static_cast<int>(value());
    else if (flag == "--batch")
      settings.batch = value();
    else if (flag == "--examples")
      settings.examples = value();
    else if (flag == "--seed")
      settings.seed = value();
    else {
      std::cerr << argv[0] << ": unknown flag " << flag
                << "\nusage: " << argv[0]
                << " [--epochs N] [--batch N] [--examples N] [--seed N]"
                   " [--device cpu|cuda|cuda:N]\n";
      std::exit(2);
    }
  }
  return settings;
}

double accuracy(nn::Mlp &model, const data::Dataset &set, int64_t batch) {
  int64_t correct = 0, seen = 0;
  for (int64_t first = 0; first + batch <= set.count; first += batch) {
    Tensor predicted = argmax(model(set.batchInputs(first, batch)), 1);
    std::vector<int64_t> classes = predicted.toVector<int64_t>();
    for (int64_t row = 0; row < batch; ++row)
      correct += classes[row] == set.labels[first + row];
    seen += batch;
  }
  return seen ? static_cast<double>(correct) / seen : 0.0;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings = parse(argc, argv);
  distributed::World world;
  try {
    world = distributed::init();
  } catch (const Error &error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
  bool printing = world.rank == 0;
  if (settings.batch % world.size != 0) {
    if (printing)
      std::cerr << "the batch (" << settings.batch << ") does not divide over "
                << world.size << " ranks\n";
    return 2;
  }
  int64_t share = settings.batch / world.size;

  // The parameters, the batches and every trace live on this rank's device.
  Device device = Device::cpu();
  if (settings.device == "cuda")
    device = Device::cuda(world.localRank);
  else if (settings.device.rfind("cuda:", 0) == 0)
    device = Device::cuda(std::atoi(settings.device.c_str() + 5));
  else if (settings.device != "cpu") {
    std::cerr << argv[0] << ": unknown device " << settings.device << "\n";
    return 2;
  }
  std::string whyNot;
  if (device.kind() == Device::Kind::CUDA &&
      !cudaAvailable(device.index(), &whyNot)) {
    std::cerr << "rank " << world.rank << ": " << whyNot << "\n";
    return 77;
  }
  DeviceScope onDevice(device);

  // Every rank draws the same data and takes its rows of each batch.
  int64_t held = settings.batch * 4;
  data::Dataset all = data::syntheticClassification(
      settings.examples + held, 784, 10, settings.seed, /*noise=*/1.5);
  data::Dataset test;
  test.count = held;
  test.features = all.features;
  test.classes = all.classes;
  test.inputs.assign(all.inputs.begin() + settings.examples * all.features,
                     all.inputs.end());
  test.labels.assign(all.labels.begin() + settings.examples, all.labels.end());

  nn::Mlp model({784, 512, 512, 10}, settings.seed + world.rank);
  std::vector<Variable *> parameters = model.parameters();
  distributed::DataParallel parallel(parameters); // rank 0's initial values
  optim::SGD sgd(parameters, {/*learningRate=*/0.05, /*momentum=*/0.9});
  if (printing)
    std::printf("%d rank(s) over %s on %s; global batch %lld (%lld per "
                "rank), %lld synthetic examples\n",
                world.size,
                device.kind() == Device::Kind::CUDA ? "NCCL"
                                                    : world.transport.c_str(),
                device.str().c_str(), static_cast<long long>(settings.batch),
                static_cast<long long>(share),
                static_cast<long long>(settings.examples));

  int64_t stepsPerEpoch = settings.examples / settings.batch;
  int64_t step = 0;
  uint64_t steadyCompiles = 0;
  std::vector<double> stepSeconds;
  auto start = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= settings.epochs; ++epoch) {
    ProgressBar progress(printing ? stepsPerEpoch : 0);
    double lossSum = 0;
    for (int64_t b = 0; b < stepsPerEpoch; ++b, ++step) {
      int64_t first = b * settings.batch + world.rank * share;
      Tensor inputs = all.batchInputs(first, share);
      Tensor labels = all.batchLabels(first, share);
      uint64_t compiledBefore = metrics().tracesCompiled;
      auto stepStart = std::chrono::steady_clock::now();
      Tensor loss;
      {
        GradientTape tape;
        loss = nn::crossEntropy(model(inputs), labels);
        sgd.step(parallel.averageGradients(
            tape.gradient(loss, nn::refs(parameters))));
      }
      // The global batch's loss, in the same trace as the step.
      loss = distributed::allReduce(loss, distributed::ReduceOp::Mean);
      lazyc::sync();
      lossSum += loss.item<float>();
      if (step >= 2) {
        steadyCompiles += metrics().tracesCompiled - compiledBefore;
        stepSeconds.push_back(std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - stepStart)
                                  .count());
      }
      if (printing) {
        char suffix[64];
        std::snprintf(suffix, sizeof suffix, "loss %.4f", lossSum / (b + 1));
        progress.update(b + 1, suffix);
      }
    }
    if (printing) {
      progress.finish();
      std::printf("epoch %d/%d: mean loss %.4f, held-out accuracy %.2f%%\n",
                  epoch, settings.epochs, lossSum / stepsPerEpoch,
                  100 * accuracy(model, test, settings.batch));
      std::fflush(stdout);
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::sort(stepSeconds.begin(), stepSeconds.end());
  double median = stepSeconds.empty() ? 0 : stepSeconds[stepSeconds.size() / 2];
  distributed::Stats exchanged = distributed::stats();
  if (printing)
    std::printf("%lld steps in %.2f s (%.1f steps/s); median step %.2f ms; "
                "after the first two steps, %llu traces compiled\n"
                "rank 0: %llu collectives, %.1f MB, %.2f s exchanging, "
                "%.2f s waiting for results\n",
                static_cast<long long>(step), seconds, step / seconds,
                median * 1e3, static_cast<unsigned long long>(steadyCompiles),
                static_cast<unsigned long long>(exchanged.collectives),
                exchanged.bytes / 1e6, exchanged.seconds,
                exchanged.waitSeconds);
  return steadyCompiles == 0 ? 0 : 1;
}
