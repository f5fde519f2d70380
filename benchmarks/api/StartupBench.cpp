//===- StartupBench.cpp - A fresh process's time to its first result ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Runs short lazyc programs as fresh processes (this binary with --child)
// and reports medians over --runs processes:
//
// - a 20-op trace (a linear layer, activations, a softmax, reductions): the
//   time from main() to its first result and the process's wall time, with
//   the persistent compile cache off, empty, and filled by an earlier
//   process;
// - a short program (a 200-op trace of few op kinds, run 4 times with new
//   data), with compiles on the calling thread and asynchronous
//   (LAZYC_ASYNC_COMPILE=1), both with the compile cache off.
//
//   lazyc-bench-startup [--runs N]
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

extern char **environ;

using namespace lazyc;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::vector<float> values(size_t count, float scale) {
  std::vector<float> result(count);
  for (size_t i = 0; i < count; ++i)
    result[i] = scale * std::sin(0.37f * float(i));
  return result;
}

/// The 20 ops of lazyc-bench-cpu's compile-latency trace.
std::vector<float> twentyOps(const Tensor &x, const Tensor &w,
                             const Tensor &b) {
  Tensor h = relu(matmul(x, w) + b) * 0.5f;
  Tensor t = exp(tanh(h)) - h;
  Tensor l = -log(softmax(t, 1));
  Tensor q = sqrt(l / max(l, {1}, true));
  Tensor total = sum(transpose(q, {1, 0}));
  Tensor s = sigmoid(q);
  lazyc::sync();
  return {s.toVector<float>()[0], total.item<float>()};
}

/// A child process: runs `program`, prints "first=<ms> total=<ms>
/// compiled=<traces> loaded=<traces from the compile cache>" once the
/// background compiles are done.
int child(const std::string &program) {
  auto start = Clock::now();
  double first = 0;
  if (program == "twenty") {
    Tensor x = Tensor::fromVector(values(64 * 128, 1.0f), {64, 128});
    Tensor w = Tensor::fromVector(values(128 * 32, 0.1f), {128, 32});
    Tensor b = Tensor::fromVector(values(32, 0.5f), {32});
    twentyOps(x, w, b);
    first = msSince(start);
  } else {
    // 200 ops of 5 kinds on 64K elements, run with 4 inputs.
    for (int run = 0; run < 4; ++run) {
      Tensor y = Tensor::fromVector(values(1 << 16, 1.0f + run), {1 << 16});
      for (int i = 0; i < 40; ++i)
        y = tanh(y * 0.9f + 0.1f) - y * 0.01f;
      y.toVector<float>();
      if (run == 0)
        first = msSince(start);
    }
  }
  double total = msSince(start);
  waitForCompiles();
  Metrics counts = metrics();
  llvm::outs() << llvm::formatv(
      "first={0:f3} total={1:f3} compiled={2} loaded={3}\n", first, total,
      counts.tracesCompiled - counts.diskCacheHits, counts.diskCacheHits);
  return 0;
}

struct ChildRun {
  double first, total, wall;
  unsigned compiled, loaded;
};

/// Runs this binary with `--child program` and `environment` set on top of
/// ours.
ChildRun runChild(const std::string &self, const std::string &program,
                  const std::map<std::string, std::string> &environment) {
  std::vector<std::string> variables;
  for (char **entry = environ; *entry; ++entry) {
    llvm::StringRef name = llvm::StringRef(*entry).split('=').first;
    if (!environment.count(name.str()))
      variables.push_back(*entry);
  }
  for (const auto &[name, value] : environment)
    variables.push_back(name + "=" + value);
  std::vector<llvm::StringRef> env(variables.begin(), variables.end());
  llvm::SmallString<128> output;
  llvm::sys::fs::createTemporaryFile("lazyc-bench-startup", "txt", output);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, output.str(),
                                                std::nullopt};
  llvm::StringRef args[] = {self, "--child", program};
  auto start = Clock::now();
  std::string error;
  int status =
      llvm::sys::ExecuteAndWait(self, args, env, redirects, 0, 0, &error);
  double wall = msSince(start);
  auto text = llvm::MemoryBuffer::getFile(output);
  llvm::sys::fs::remove(output);
  ChildRun run{0, 0, wall, 0, 0};
  if (status != 0 || !text ||
      std::sscanf((*text)->getBuffer().str().c_str(),
                  "first=%lf total=%lf compiled=%u loaded=%u", &run.first,
                  &run.total, &run.compiled, &run.loaded) != 4) {
    llvm::errs() << "lazyc-bench-startup: the child (" << program
                 << ") failed: " << error << "\n";
    std::exit(1);
  }
  return run;
}

struct Summary {
  std::string what;
  std::vector<ChildRun> runs;
};

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--child")
    return child(argv[2]);
  int runs = 7;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--runs")
      runs = std::max(1, std::atoi(argv[i + 1]));
  std::string self = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&runChild));
  llvm::SmallString<128> cacheRoot;
  if (llvm::sys::fs::createUniqueDirectory("lazyc-bench-startup", cacheRoot))
    return 1;
  std::string warm = std::string(cacheRoot) + "/warm";
  // Fill the warm cache once.
  runChild(self, "twenty", {{"LAZYC_CACHE_DIR", warm}});

  std::vector<Summary> twenty = {
      {"compile cache off", {}},
      {"compile cache empty (compiles, stores)", {}},
      {"compile cache filled by an earlier process", {}}};
  std::vector<Summary> shortProgram = {{"compiles on the calling thread", {}},
                                       {"asynchronous compiles", {}}};
  // Interleaved, round by round.
  for (int round = 0; round < runs; ++round) {
    std::string cold = std::string(cacheRoot) + "/cold" + std::to_string(round);
    twenty[0].runs.push_back(
        runChild(self, "twenty", {{"LAZYC_CACHE_DIR", ""}}));
    twenty[1].runs.push_back(
        runChild(self, "twenty", {{"LAZYC_CACHE_DIR", cold}}));
    twenty[2].runs.push_back(
        runChild(self, "twenty", {{"LAZYC_CACHE_DIR", warm}}));
    shortProgram[0].runs.push_back(
        runChild(self, "short",
                 {{"LAZYC_CACHE_DIR", ""}, {"LAZYC_ASYNC_COMPILE", "0"}}));
    shortProgram[1].runs.push_back(
        runChild(self, "short",
                 {{"LAZYC_CACHE_DIR", ""}, {"LAZYC_ASYNC_COMPILE", "1"}}));
  }
  llvm::sys::fs::remove_directories(cacheRoot);

  auto medians = [](const Summary &summary, double ChildRun::*field) {
    std::vector<double> values;
    for (const ChildRun &run : summary.runs)
      values.push_back(run.*field);
    return median(values);
  };
  llvm::outs() << llvm::formatv("{0} processes each, interleaved; medians\n\n",
                                runs);
  llvm::outs() << "| 20-op trace, fresh process | first result (from main) "
                  "| process wall time | traces compiled / loaded |\n"
                  "| --- | --- | --- | --- |\n";
  for (const Summary &summary : twenty)
    llvm::outs() << llvm::formatv(
        "| {0} | {1:f1} ms | {2:f1} ms | {3} / {4} |\n", summary.what,
        medians(summary, &ChildRun::first), medians(summary, &ChildRun::wall),
        summary.runs.back().compiled, summary.runs.back().loaded);
  llvm::outs() << "\n| short program (200-op trace x 4 inputs) | first result "
                  "| all 4 results | process wall time (exit waits for the "
                  "background compile) | traces compiled |\n"
                  "| --- | --- | --- | --- | --- |\n";
  for (const Summary &summary : shortProgram)
    llvm::outs() << llvm::formatv(
        "| {0} | {1:f1} ms | {2:f1} ms | {3:f1} ms | {4} |\n", summary.what,
        medians(summary, &ChildRun::first), medians(summary, &ChildRun::total),
        medians(summary, &ChildRun::wall), summary.runs.back().compiled);
  return 0;
}
