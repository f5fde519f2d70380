//===- mnist_mlp.cpp - Train a 784-512-512-10 MLP with lazyc --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Trains an MLP (ReLU, batch 128) on MNIST when `--data DIR` names a folder
// with its IDX files, otherwise on seeded synthetic data of the same shape.
// Each step records forward, backward (GradientTape) and the optimizer's
// update, and runs them as one trace; after the first two steps every step
// is a hit in lazyc's function cache, which the program checks and prints.
//
//   lazyc-mnist-mlp [--data DIR] [--epochs N] [--batch N] [--examples N]
//                   [--optimizer sgd|adam] [--lr X] [--hidden N] [--seed N]
//                   [--device cpu|cuda|cuda:N]
//
// With --device cuda the parameters, the batches and every trace live on
// the GPU (a DeviceScope around the program); without a usable GPU the
// program says why and exits with status 1.
//
//===----------------------------------------------------------------------===//

#include <lazyc/nn.h>

#include "ExampleSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

using namespace lazyc;
using lazyc::examples::ProgressBar;

namespace {

struct Settings {
  std::string dataDirectory; ///< empty: synthetic data
  int epochs = 3;
  int64_t batch = 128;
  int64_t examples = 12800; ///< synthetic training examples
  std::string optimizer = "sgd";
  double learningRate = -1; ///< -1: 0.05 for SGD, 1e-3 for Adam
  int64_t hidden = 512;
  int64_t seed = 1;
  Device device = Device::cpu();
};

[[noreturn]] void usage(const char *program, const std::string &problem) {
  std::cerr << program << ": " << problem << "\n"
            << "usage: " << program
            << " [--data DIR] [--epochs N] [--batch N] [--examples N]"
               " [--optimizer sgd|adam] [--lr X] [--hidden N] [--seed N]"
               " [--device cpu|cuda|cuda:N]\n";
  std::exit(2);
}

Settings parse(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h")
      usage(argv[0], "trains an MLP on MNIST or synthetic data");
    if (i + 1 >= argc)
      usage(argv[0], "missing value after " + flag);
    std::string value = argv[++i];
    auto number = [&](double low) {
      std::optional<double> parsed = examples::parseNumber(value, low);
      if (!parsed)
        usage(argv[0], "bad value for " + flag + ": " + value);
      return *parsed;
    };
    if (flag == "--data")
      settings.dataDirectory = value;
    else if (flag == "--epochs")
      settings.epochs = static_cast<int>(number(1));
    else if (flag == "--batch")
      settings.batch = static_cast<int64_t>(number(1));
    else if (flag == "--examples")
      settings.examples = static_cast<int64_t>(number(1));
    else if (flag == "--optimizer" && (value == "sgd" || value == "adam"))
      settings.optimizer = value;
    else if (flag == "--lr")
      settings.learningRate = number(0);
    else if (flag == "--hidden")
      settings.hidden = static_cast<int64_t>(number(1));
    else if (flag == "--seed")
      settings.seed = static_cast<int64_t>(number(0));
    else if (flag == "--device" && value == "cpu")
      settings.device = Device::cpu();
    else if (flag == "--device" && value == "cuda")
      settings.device = Device::cuda();
    else if (flag == "--device" && value.rfind("cuda:", 0) == 0)
      settings.device = Device::cuda(
          static_cast<int>(std::strtol(value.c_str() + 5, nullptr, 10)));
    else
      usage(argv[0], "unknown option " + flag + " " + value);
  }
  return settings;
}

/// The share of `set`'s examples (in whole batches) whose largest logit is
/// at their label.
double accuracy(nn::Mlp &model, const data::Dataset &set, int64_t batch) {
  int64_t correct = 0, seen = 0;
  for (int64_t first = 0; first + batch <= set.count; first += batch) {
    std::vector<float> logits =
        model(set.batchInputs(first, batch)).toVector<float>();
    for (int64_t row = 0; row < batch; ++row) {
      const float *z = &logits[row * set.classes];
      int64_t predicted = std::max_element(z, z + set.classes) - z;
      correct += predicted == set.labels[first + row];
    }
    seen += batch;
  }
  return seen ? static_cast<double>(correct) / seen : 0.0;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings = parse(argc, argv);
  std::optional<DeviceScope> onDevice;
  if (settings.device.kind() == Device::Kind::CUDA) {
    std::string whyNot;
    if (!cudaAvailable(settings.device.index(), &whyNot)) {
      std::cerr << argv[0] << ": " << whyNot << "\n";
      return 1;
    }
    onDevice.emplace(settings.device);
  }
  data::Dataset train, test;
  try {
    if (!settings.dataDirectory.empty()) {
      train = data::loadMnist(settings.dataDirectory, "train");
      test = data::loadMnist(settings.dataDirectory, "t10k");
      std::cout << "MNIST from " << settings.dataDirectory << ": "
                << train.count << " training and " << test.count
                << " test images\n";
    } else {
      // One draw split in two, so both parts share the class centers.
      int64_t held = std::max<int64_t>(settings.batch, settings.examples / 10);
      data::Dataset all = data::syntheticClassification(
          settings.examples + held, 784, 10, settings.seed, /*noise=*/1.5);
      auto part = [&](int64_t first, int64_t count) {
        data::Dataset piece;
        piece.count = count;
        piece.features = all.features;
        piece.classes = all.classes;
        piece.inputs.assign(all.inputs.begin() + first * all.features,
                            all.inputs.begin() +
                                (first + count) * all.features);
        piece.labels.assign(all.labels.begin() + first,
                            all.labels.begin() + first + count);
        return piece;
      };
      train = part(0, settings.examples);
      test = part(settings.examples, held);
      std::cout << "synthetic data (seed " << settings.seed
                << "): " << train.count << " training and " << test.count
                << " held-out examples of 784 features, 10 classes\n";
    }
  } catch (const Error &error) {
    std::cerr << error.what() << "\n";
    return 1;
  }

  nn::Mlp model(
      {train.features, settings.hidden, settings.hidden, train.classes},
      settings.seed);
  std::vector<Variable *> parameters = model.parameters();
  optim::Optimizer *optimizer = nullptr;
  optim::SGD::Options sgdOptions;
  optim::Adam::Options adamOptions;
  if (settings.optimizer == "sgd") {
    sgdOptions.learningRate =
        settings.learningRate >= 0 ? settings.learningRate : 0.05;
    sgdOptions.momentum = 0.9;
    optimizer = new optim::SGD(parameters, sgdOptions);
  } else {
    adamOptions.learningRate =
        settings.learningRate >= 0 ? settings.learningRate : 1e-3;
    optimizer = new optim::Adam(parameters, adamOptions);
  }
  std::cout << "MLP " << train.features << "-" << settings.hidden << "-"
            << settings.hidden << "-" << train.classes << " (ReLU), batch "
            << settings.batch << ", " << settings.optimizer << " (lr "
            << optimizer->learningRate() << "), on " << settings.device.str()
            << "\n";

  int64_t stepsPerEpoch = train.count / settings.batch;
  if (stepsPerEpoch == 0) {
    std::cerr << "fewer examples (" << train.count << ") than one batch ("
              << settings.batch << ")\n";
    return 1;
  }
  int64_t step = 0;
  uint64_t steadyCompiles = 0, steadySteps = 0;
  auto start = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= settings.epochs; ++epoch) {
    ProgressBar progress(stepsPerEpoch);
    double lossSum = 0;
    for (int64_t b = 0; b < stepsPerEpoch; ++b, ++step) {
      Tensor inputs = train.batchInputs(b * settings.batch, settings.batch);
      Tensor labels = train.batchLabels(b * settings.batch, settings.batch);
      uint64_t compiledBefore = metrics().tracesCompiled;
      Tensor loss;
      {
        GradientTape tape;
        loss = nn::crossEntropy(model(inputs), labels);
        // The gradients stay temporaries (a held tensor would become one
        // more output of the trace); step() records no gradients itself.
        optimizer->step(tape.gradient(loss, nn::refs(parameters)));
      }
      lazyc::sync(); // forward, backward and update: one trace
      lossSum += loss.item<float>();
      if (step >= 2) {
        steadyCompiles += metrics().tracesCompiled - compiledBefore;
        ++steadySteps;
      }
      char suffix[64];
      std::snprintf(suffix, sizeof suffix, "loss %.4f", lossSum / (b + 1));
      progress.update(b + 1, suffix);
    }
    progress.finish();
    std::printf("epoch %d/%d: mean loss %.4f, held-out accuracy %.2f%%\n",
                epoch, settings.epochs, lossSum / stepsPerEpoch,
                100 * accuracy(model, test, settings.batch));
    std::fflush(stdout);
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%lld steps in %.2f s; after the first two steps, %llu "
              "steps compiled %llu traces\n",
              static_cast<long long>(step), seconds,
              static_cast<unsigned long long>(steadySteps),
              static_cast<unsigned long long>(steadyCompiles));
  std::cout << metrics() << "\n";
  delete optimizer;
  return steadyCompiles == 0 ? 0 : 1;
}
