//===- cnn_mnist.cpp - Train a LeNet-style CNN with lazyc ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Trains a LeNet-style CNN (conv 5x5 -> relu -> maxpool 2 -> conv 5x5 ->
// relu -> maxpool 2 -> linear -> relu -> linear) with SGD + momentum or Adam:
//
//  - on MNIST when `--data DIR` names a folder with its IDX files;
//  - on the 1,797 real 8x8 handwritten digits that Debian's python3-sklearn
//    ships (`--digits`: sklearn/datasets/data/digits.csv.gz), shuffled with
//    the seed and split into 1,500 training and 297 held-out images, with a
//    smaller CNN for 8x8 input (3x3 convolutions);
//  - otherwise on seeded synthetic data of MNIST's shape.
//
// Batches come from data::Loader (shuffled per epoch, prepared on a
// background thread). Each step records forward, backward (GradientTape)
// and the optimizer's update, and runs them as one cached trace; the
// program counts the traces compiled after the first two steps (none) and
// fails if there are any. Held-out accuracy takes the argmax on the device
// (lazyc::argmax) and counts the hits there too.
//
// `--autocast bf16|f16` trains in mixed precision: the forward pass and the
// loss under lazyc::AutocastScope, Float16 with an optim::GradScaler; the
// weights stay Float32, and so does the held-out evaluation.
//
//   lazyc-cnn-mnist [--data DIR | --digits [FILE]] [--epochs N] [--batch N]
//                   [--examples N] [--optimizer sgd|adam] [--lr X] [--seed N]
//                   [--autocast bf16|f16]
//
//===----------------------------------------------------------------------===//

#include <lazyc/nn.h>

#include "ExampleSupport.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#ifdef LAZYC_EXAMPLES_HAVE_ZLIB
#include <zlib.h>
#endif

using namespace lazyc;
using lazyc::examples::ProgressBar;

namespace {

const char *const digitsPath =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";

struct Settings {
  std::string dataDirectory; ///< MNIST IDX files
  std::string digitsFile;    ///< the sklearn digits (--digits)
  int epochs = -1;           ///< -1: 2 (MNIST, synthetic), 15 (digits)
  int64_t batch = 64;
  int64_t examples = 6400; ///< synthetic training examples
  std::string optimizer = "sgd";
  double learningRate = -1; ///< -1: 0.05 for SGD, 2e-3 for Adam
  int64_t seed = 1;
  std::optional<DType> autocast; ///< mixed precision (--autocast)
};

[[noreturn]] void usage(const char *program, const std::string &problem) {
  std::cerr << program << ": " << problem << "\n"
            << "usage: " << program
            << " [--data DIR | --digits [FILE]] [--epochs N] [--batch N]"
               " [--examples N] [--optimizer sgd|adam] [--lr X] [--seed N]"
               " [--autocast bf16|f16]\n";
  std::exit(2);
}

Settings parse(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h")
      usage(argv[0], "trains a CNN on MNIST, the sklearn digits or synthetic "
                     "data");
    if (flag == "--digits") {
      settings.digitsFile = digitsPath;
      if (i + 1 < argc && argv[i + 1][0] != '-')
        settings.digitsFile = argv[++i];
      continue;
    }
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
    else if (flag == "--seed")
      settings.seed = static_cast<int64_t>(number(0));
    else if (flag == "--autocast" && (value == "bf16" || value == "f16"))
      settings.autocast = value == "bf16" ? DType::BFloat16 : DType::Float16;
    else
      usage(argv[0], "unknown option " + flag + " " + value);
  }
  if (!settings.dataDirectory.empty() && !settings.digitsFile.empty())
    usage(argv[0], "--data and --digits exclude each other");
  if (settings.epochs < 0)
    settings.epochs = settings.digitsFile.empty() ? 2 : 15;
  return settings;
}

/// A data set's examples `first` .. `first + count - 1`.
data::Dataset part(const data::Dataset &all, int64_t first, int64_t count) {
  data::Dataset piece;
  piece.count = count;
  piece.features = all.features;
  piece.classes = all.classes;
  piece.inputs.assign(all.inputs.begin() + first * all.features,
                      all.inputs.begin() + (first + count) * all.features);
  piece.labels.assign(all.labels.begin() + first,
                      all.labels.begin() + first + count);
  return piece;
}

/// The text of a gzip file: zlib when the build has it, else `gzip -dc`.
bool readGzip(const std::string &path, std::string &text) {
#ifdef LAZYC_EXAMPLES_HAVE_ZLIB
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return false;
  char chunk[1 << 16];
  int read;
  while ((read = gzread(file, chunk, sizeof chunk)) > 0)
    text.append(chunk, static_cast<size_t>(read));
  bool ok = read == 0;
  gzclose(file);
  return ok;
#else
  FILE *pipe = popen(("gzip -dc '" + path + "' 2>/dev/null").c_str(), "r");
  if (!pipe)
    return false;
  char chunk[1 << 16];
  size_t read;
  while ((read = std::fread(chunk, 1, sizeof chunk, pipe)) > 0)
    text.append(chunk, read);
  return pclose(pipe) == 0;
#endif
}

/// The sklearn digits: CSV rows of 64 pixels (0..16) and the label. Pixels
/// are scaled to [0, 1]. The rows are shuffled with `seed` (Fisher-Yates on
/// SplitMix64, the same on every platform).
data::Dataset loadDigits(const std::string &path, uint64_t seed) {
  if (access(path.c_str(), R_OK) != 0)
    throw Error("loadDigits",
                "cannot read " + path +
                    ": the 8x8 digits ship with Debian's python3-sklearn "
                    "(apt-get install python3-sklearn; scripts/setup installs "
                    "it), or pass --digits FILE",
                Where::current());
  std::string text;
  if (!readGzip(path, text))
    throw Error("loadDigits", "cannot decompress " + path, Where::current());
  data::Dataset set;
  set.features = 64;
  set.classes = 10;
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
    if (n == 0) {
      while (*cursor && (*cursor == '\n' || *cursor == '\r'))
        ++cursor;
      if (*cursor && !std::isdigit(static_cast<unsigned char>(*cursor)))
        break;
      continue;
    }
    if (n != 65 || values[64] < 0 || values[64] > 9)
      throw Error("loadDigits",
                  path + ": row " + std::to_string(set.count + 1) +
                      " is not 64 pixels and a label",
                  Where::current());
    for (int i = 0; i < 64; ++i)
      set.inputs.push_back(static_cast<float>(values[i] / 16.0));
    set.labels.push_back(static_cast<int32_t>(values[64]));
    ++set.count;
  }
  uint64_t state = seed;
  auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int64_t i = set.count - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(next() % static_cast<uint64_t>(i + 1));
    std::swap(set.labels[i], set.labels[j]);
    std::swap_ranges(set.inputs.begin() + i * 64,
                     set.inputs.begin() + (i + 1) * 64,
                     set.inputs.begin() + j * 64);
  }
  return set;
}

/// LeNet for 28x28 images: conv 1->6 5x5 (padding 2) -> relu -> maxpool 2
/// -> conv 6->16 5x5 -> relu -> maxpool 2 -> 400 -> 120 -> relu -> 10.
/// For 8x8 images: conv 1->16 3x3 (padding 1) -> relu -> maxpool 2 -> conv
/// 16->32 3x3 (padding 1) -> relu -> maxpool 2 -> 128 -> 64 -> relu -> 10.
nn::Sequential makeCnn(int64_t side, int64_t seed) {
  bool small = side == 8;
  int64_t c1 = small ? 16 : 6, c2 = small ? 32 : 16, k = small ? 3 : 5;
  int64_t hidden = small ? 64 : 120;
  nn::Conv2d::Options first, second;
  first.conv.padding = small ? 1 : 2;
  second.conv.padding = small ? 1 : 0;
  int64_t afterFirst = side / 2;
  int64_t afterSecond =
      (afterFirst + 2 * second.conv.padding.height - k + 1) / 2;
  int64_t flat = c2 * afterSecond * afterSecond;
  auto pool = [](const Tensor &x) { return nn::maxPool2d(x, 2); };
  return nn::Sequential(
      nn::Conv2d(1, c1, k, seed, first, "conv1"), relu, pool,
      nn::Conv2d(c1, c2, k, seed + 1, second, "conv2"), relu, pool,
      [flat](const Tensor &x) { return reshape(x, {x.shape()[0], flat}); },
      nn::Linear(flat, hidden, seed + 2, "fc1"), relu,
      nn::Linear(hidden, 10, seed + 3, "fc2"));
}

/// The share of `set`'s examples whose largest logit is at their label: the
/// argmax and the count of hits on the device, one number read per batch.
double accuracy(nn::Sequential &model, const data::Dataset &set, int64_t side,
                int64_t batch) {
  int64_t correct = 0;
  for (int64_t first = 0; first < set.count; first += batch) {
    int64_t size = std::min(batch, set.count - first);
    Tensor images =
        reshape(set.batchInputs(first, size), {size, 1, side, side});
    Tensor labels = cast(set.batchLabels(first, size), DType::Int64);
    Tensor predicted = argmax(model(images), /*axis=*/1); // Int64 [size]
    Tensor hits = sum(cast(predicted - labels == 0, DType::Int32));
    correct += hits.item<int64_t>();
  }
  return set.count ? static_cast<double>(correct) / set.count : 0.0;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings = parse(argc, argv);
  data::Dataset train, test;
  int64_t side = 28;
  try {
    if (!settings.dataDirectory.empty()) {
      train = data::loadMnist(settings.dataDirectory, "train");
      test = data::loadMnist(settings.dataDirectory, "t10k");
      std::cout << "MNIST from " << settings.dataDirectory << ": "
                << train.count << " training and " << test.count
                << " test images\n";
    } else if (!settings.digitsFile.empty()) {
      data::Dataset all = loadDigits(settings.digitsFile, settings.seed);
      int64_t trainCount = all.count > 1600 ? 1500 : all.count * 5 / 6;
      train = part(all, 0, trainCount);
      test = part(all, trainCount, all.count - trainCount);
      side = 8;
      std::cout << "8x8 digits from " << settings.digitsFile << " (shuffled "
                << "with seed " << settings.seed << "): " << train.count
                << " training and " << test.count << " held-out images\n";
    } else {
      // One draw split in two, so both parts share the class centers.
      int64_t held = std::max<int64_t>(settings.batch, settings.examples / 10);
      data::Dataset all = data::syntheticClassification(
          settings.examples + held, 784, 10, settings.seed, /*noise=*/1.5);
      train = part(all, 0, settings.examples);
      test = part(all, settings.examples, held);
      std::cout << "synthetic data (seed " << settings.seed
                << "): " << train.count << " training and " << test.count
                << " held-out images of 28x28, 10 classes\n";
    }
  } catch (const Error &error) {
    std::cerr << argv[0] << ": " << error.what() << "\n";
    return 1;
  }
  if (train.count < settings.batch) {
    std::cerr << "fewer examples (" << train.count << ") than one batch ("
              << settings.batch << ")\n";
    return 1;
  }

  nn::Sequential model = makeCnn(side, settings.seed);
  std::vector<Variable *> parameters = model.parameters();
  std::unique_ptr<optim::Optimizer> optimizer;
  if (settings.optimizer == "sgd") {
    optim::SGD::Options options;
    options.learningRate =
        settings.learningRate >= 0 ? settings.learningRate : 0.05;
    options.momentum = 0.9;
    optimizer = std::make_unique<optim::SGD>(parameters, options);
  } else {
    optim::Adam::Options options;
    options.learningRate =
        settings.learningRate >= 0 ? settings.learningRate : 2e-3;
    optimizer = std::make_unique<optim::Adam>(parameters, options);
  }
  // Float16 gradients underflow without loss scaling (a disabled scaler
  // passes everything through).
  optim::GradScaler::Options scalerOptions;
  scalerOptions.enabled = settings.autocast == DType::Float16;
  optim::GradScaler scaler(scalerOptions);
  int64_t parameterCount = 0;
  for (Variable *parameter : parameters)
    parameterCount += parameter->numel();
  std::cout << (side == 8 ? "CNN for 8x8 (conv 3x3 16, pool, conv 3x3 32, "
                            "pool, 128-64-10)"
                          : "LeNet (conv 5x5 6, pool, conv 5x5 16, pool, "
                            "400-120-10)")
            << ", " << parameterCount << " parameters, batch " << settings.batch
            << ", " << settings.optimizer << " (lr "
            << optimizer->learningRate() << "), " << settings.epochs
            << " epochs"
            << (!settings.autocast ? ""
                : *settings.autocast == DType::BFloat16
                    ? ", autocast to BFloat16"
                    : ", autocast to Float16 with loss scaling")
            << "\n";

  data::LoaderOptions loaderOptions;
  loaderOptions.batchSize = settings.batch;
  loaderOptions.seed = static_cast<uint64_t>(settings.seed);
  loaderOptions.dropLast = true; // one batch size: one compiled step
  loaderOptions.exampleShape = {1, side, side};
  data::Loader loader(train, loaderOptions);
  int64_t stepsPerEpoch = loader.batchesPerEpoch();

  int64_t step = 0;
  uint64_t steadyCompiles = 0, steadySteps = 0;
  double trainSeconds = 0, steadySeconds = 0;
  double firstLoss = -1, lastLoss = 0;
  for (int epoch = 1; epoch <= settings.epochs; ++epoch) {
    ProgressBar progress(stepsPerEpoch);
    double lossSum = 0;
    int64_t b = 0;
    auto epochStart = std::chrono::steady_clock::now();
    for (const data::Batch &batch : loader.epoch()) {
      auto stepStart = std::chrono::steady_clock::now();
      uint64_t compiledBefore = metrics().tracesCompiled;
      Tensor loss;
      {
        GradientTape tape;
        {
          AutocastScope autocast(settings.autocast.value_or(DType::BFloat16),
                                 settings.autocast.has_value());
          loss = nn::crossEntropy(model(batch.inputs), batch.labels);
        }
        // The gradients stay temporaries: only the loss and the new state
        // become outputs of the trace.
        scaler.step(*optimizer, scaler.unscale(tape.gradient(
                                    scaler.scale(loss), nn::refs(parameters))));
      }
      lazyc::sync(); // forward, backward and update: one trace
      float value = loss.item<float>();
      if (firstLoss < 0)
        firstLoss = value;
      lossSum += value;
      ++b;
      ++step;
      if (step > 2) {
        steadyCompiles += metrics().tracesCompiled - compiledBefore;
        ++steadySteps;
        steadySeconds += std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - stepStart)
                             .count();
      }
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - epochStart)
                           .count();
      char suffix[96];
      std::snprintf(suffix, sizeof suffix, "loss %.4f, %.1f steps/s",
                    lossSum / b, b / seconds);
      progress.update(b, suffix);
    }
    progress.finish();
    trainSeconds += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - epochStart)
                        .count();
    lastLoss = lossSum / std::max<int64_t>(b, 1);
    bool report =
        settings.epochs <= 5 || epoch % 5 == 0 || epoch == settings.epochs;
    if (report) {
      std::printf("epoch %d/%d: mean loss %.4f, held-out accuracy %.2f%%\n",
                  epoch, settings.epochs, lastLoss,
                  100 * accuracy(model, test, side, 500));
      std::fflush(stdout);
    }
  }
  std::printf("held-out accuracy %.2f%% (%lld images); loss %.3f at the "
              "first step, %.4f in the last epoch\n",
              100 * accuracy(model, test, side, 500),
              static_cast<long long>(test.count), firstLoss, lastLoss);
  std::printf("%lld steps in %.2f s, compiles included; after the first "
              "two steps, %llu steps (%.1f steps/s) compiled %llu traces\n",
              static_cast<long long>(step), trainSeconds,
              static_cast<unsigned long long>(steadySteps),
              steadySteps / std::max(steadySeconds, 1e-9),
              static_cast<unsigned long long>(steadyCompiles));
  std::cout << metrics() << "\n";
  return steadyCompiles == 0 ? 0 : 1;
}
