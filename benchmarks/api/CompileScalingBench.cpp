//===- CompileScalingBench.cpp - Compile stages against trace size --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compiles one trace of each size asked for (default 1,000, 10,000 and
// 100,000 ops) and prints, per compile stage, its time, its time per trace
// node and that per-node time against the smallest trace's: a stage whose
// ratio grows with the trace is superlinear (issue 41 asks for every stage
// within 2x from 1,000 to 100,000 ops).
//
// The program is a seeded random mix of the ops a model records over
// 64x64 Float32 values: elementwise ops (each reading one of the last 16
// values, sometimes any earlier one), scaled copies, row-centering with a
// reduction, products with a few weights, softmaxes and transposes; every
// 100th value is held, so the trace has many outputs. Nothing repeats back
// to back, and repeated blocks are off anyway: the stages see one function
// of the whole trace. The persistent compile cache is off. Stage times come
// from lazyc's own timeline (startProfile/stopProfile).
//
// With --default-limit the engine's trace-size limit stays (2,000 nodes
// unless LAZYC_MAX_TRACE_NODES says otherwise), as a user's program gets
// it: the program is cut into traces of that size as it records, and the
// timeline covers the recording. The program then holds only its last 16
// values and the held ones (an operand "from any earlier" is a held one):
// a value a handle holds is an output of every trace that computes it.
//
//   lazyc-bench-compile-scaling [--ops 1000,10000,100000] [--default-limit]
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace lazyc;

namespace {

constexpr int64_t kSide = 64;

/// Records a random program of about `ops` ops; returns the values it
/// holds (its trace's outputs). With `windowOnly`, it drops its handles of
/// values past the last 16 that it does not hold.
std::vector<Tensor> recordProgram(int64_t ops, unsigned seed, bool windowOnly) {
  std::mt19937 random(seed);
  auto uniform = [&](size_t count) {
    return std::uniform_int_distribution<size_t>(0, count - 1)(random);
  };
  auto data = [&](float scale) {
    std::vector<float> values(kSide * kSide);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = scale * std::sin(0.37f * float(i) + float(uniform(97)));
    return Tensor::fromVector(values, {kSide, kSide});
  };
  std::vector<Tensor> weights;
  for (int i = 0; i < 4; ++i)
    weights.push_back(data(0.05f));
  std::vector<Tensor> values;
  for (int i = 0; i < 4; ++i)
    values.push_back(data(1.0f));
  std::vector<Tensor> held;
  // An operand: one of the last 16 values, or now and then any earlier.
  auto operand = [&]() -> const Tensor & {
    if (uniform(20) == 0) {
      if (!windowOnly)
        return values[uniform(values.size())];
      if (!held.empty())
        return held[uniform(held.size())];
    }
    size_t window = std::min<size_t>(16, values.size());
    return values[values.size() - 1 - uniform(window)];
  };
  for (int64_t op = 0; op < ops; ++op) {
    const Tensor &x = operand();
    Tensor y;
    switch (uniform(100) / 5) {
    case 0:
    case 1:
      y = tanh(x);
      break;
    case 2:
      y = sigmoid(x);
      break;
    case 3:
      y = exp(x * 0.01f);
      break;
    case 4:
      y = abs(x);
      break;
    case 5:
    case 6:
      y = x + operand();
      break;
    case 7:
    case 8:
      y = x * operand();
      break;
    case 9:
      y = x - operand();
      break;
    case 10:
      y = maximum(x, operand());
      break;
    case 11:
    case 12:
      y = x * 0.5f + 0.25f;
      break;
    case 13:
      y = x - mean(x, {1}, true);
      break;
    case 14:
      y = matmul(x, weights[uniform(weights.size())]);
      break;
    case 15:
      y = softmax(x, 1);
      break;
    case 16:
      y = transpose(x, {1, 0});
      break;
    case 17:
      y = x / (abs(x) + 1.0f);
      break;
    default:
      y = 0.0f - x;
      break;
    }
    values.push_back(y);
    if (op % 100 == 99)
      held.push_back(y);
    if (windowOnly && values.size() > 16)
      values[values.size() - 17] = Tensor();
  }
  held.push_back(values.back());
  return held;
}

/// Milliseconds of each compile stage in the timeline at `path`, and of
/// the whole compiles.
std::map<std::string, double> stageTimes(const std::string &path) {
  std::map<std::string, double> times;
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text)
    return times;
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*text)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return times;
  }
  const llvm::json::Array *events =
      parsed->getAsObject()->getArray("traceEvents");
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object *event = value.getAsObject();
    std::optional<llvm::StringRef> category = event->getString("cat");
    std::optional<llvm::StringRef> name = event->getString("name");
    std::optional<double> duration = event->getNumber("dur");
    if (!category || !name || !duration)
      continue;
    if (*category == "compile stage" || *category == "compile" ||
        *name == "extract trace")
      times[name->str()] += *duration / 1000.0;
  }
  return times;
}

struct Measurement {
  int64_t ops, nodes;
  std::map<std::string, double> ms;
};

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {1000, 10000, 100000};
  bool defaultLimit = false;
  for (int i = 1; i < argc; ++i)
    defaultLimit = defaultLimit || std::string(argv[i]) == "--default-limit";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--ops") {
      sizes.clear();
      for (const char *at = argv[i + 1]; *at;) {
        char *end;
        sizes.push_back(std::strtoll(at, &end, 10));
        at = *end ? end + 1 : end;
      }
    }
  // One trace however long, compiled every time.
  if (!defaultLimit)
    setenv("LAZYC_MAX_TRACE_NODES", "100000000", 0);
  setenv("LAZYC_CACHE_DIR", "", 1);
  setRepeatedBlocks(false);

  llvm::SmallString<128> profile;
  llvm::sys::fs::createTemporaryFile("lazyc-bench-compile-scaling", "json",
                                     profile);
  std::vector<Measurement> results;
  for (int64_t ops : sizes) {
    clearCache();
    resetMetrics();
    // Cut by size, the program compiles as it records.
    if (defaultLimit)
      startProfile();
    auto start = std::chrono::steady_clock::now();
    std::vector<Tensor> outputs = recordProgram(ops, 7, defaultLimit);
    if (!defaultLimit) {
      startProfile();
      start = std::chrono::steady_clock::now();
    }
    lazyc::sync();
    double wall = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    stopProfile(std::string(profile));
    Measurement measured{ops, 0, stageTimes(std::string(profile))};
    measured.ms["sync (wall)"] = wall;
    measured.nodes = static_cast<int64_t>(metrics().opsRecorded);
    results.push_back(measured);
    std::fprintf(stderr, "%lld ops: %.1f s\n", static_cast<long long>(ops),
                 wall / 1000);
  }
  llvm::sys::fs::remove(profile);

  // Stages in pipeline order, then the totals.
  const char *const stages[] = {
      "extract trace", "verify the input",     "lower to linalg",
      "fuse",          "tile and vectorize",   "bufferize",
      "lower to LLVM", "translate to LLVM IR",
      nullptr, // LLVM's code generation, by prefix
      "link",          "MLIR pipeline",        "code generation",
      "compile",       "sync (wall)"};
  std::printf("| stage |");
  for (const Measurement &m : results)
    std::printf(" %lld ops (%lld recorded): ms, us/op |",
                static_cast<long long>(m.ops), static_cast<long long>(m.nodes));
  std::printf(" per op, largest / smallest |\n| --- |");
  for (size_t i = 0; i <= results.size(); ++i)
    std::printf(" --- |");
  std::printf("\n");
  for (const char *stage : stages) {
    std::string name = stage ? stage : "";
    if (!stage)
      for (const auto &[key, value] : results.front().ms)
        if (key.rfind("LLVM:", 0) == 0)
          name = key;
    if (name.empty())
      continue;
    std::printf("| %s |", name.c_str());
    std::vector<double> perOp;
    for (const Measurement &m : results) {
      double ms = 0;
      for (const auto &[key, value] : m.ms)
        if (key == name || (!stage && key.rfind("LLVM:", 0) == 0))
          ms += value;
      perOp.push_back(ms * 1000.0 / double(m.nodes));
      std::printf(" %.1f, %.1f |", ms, perOp.back());
    }
    std::printf(" %.2fx |\n", perOp.back() / std::max(perOp.front(), 1e-9));
  }
  return 0;
}
