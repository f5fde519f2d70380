//===- lazyc-fuzz.cpp - Differential fuzzing of the C++ API ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc-fuzz generates random seeded programs through the public API, runs
// each lazily, eagerly and in the reference evaluator, and checks that every
// value read agrees within the reference's tolerances (exactly for integers
// and booleans). On the first disagreement it prints the seed, the failure
// and a minimized reproducer as C++, and exits with status 1.
//
//   lazyc-fuzz --programs 300 --seed 1      # programs with seeds 1..300
//   lazyc-fuzz --seconds 600 --seed 1000    # as many as fit in 10 minutes
//   lazyc-fuzz --replay 1234 --print        # one program, printed
//   lazyc-fuzz --device cuda --programs 500 # the programs on GPU 0
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>
#include <unistd.h>

using namespace lazyc;
using namespace lazyc::fuzz;

namespace {

struct Options {
  uint64_t seed = 1;
  int64_t programs = 100;
  double seconds = 0;
  bool replay = false;
  /// --seeds: exactly these programs, in this order (to shrink the history a
  /// failure depends on).
  std::vector<uint64_t> seeds;
  bool print = false;
  bool minimize = true;
  bool keepGoing = false;
  bool verbose = false;
  std::vector<Mode> modes = {Mode::Lazy, Mode::Eager};
  /// Eager runs only every this many programs (eager mode compiles each op
  /// per shape, several times slower than lazy mode; CI samples it).
  int64_t eagerEvery = 1;
  /// Where the programs' tensors are made (and their ops run).
  Device device = Device::cpu();
  GeneratorOptions generator;
};

void usage() {
  std::cerr
      << "usage: lazyc-fuzz [options]\n"
         "  --programs N     run N programs (default 100)\n"
         "  --seed S         the first program's seed (default 1); program i "
         "has seed S + i\n"
         "  --seconds T      long mode: run programs until T seconds have "
         "passed\n"
         "  --replay S       run the one program with seed S\n"
         "  --seeds A,B,...  run the programs with these seeds, in this order "
         "(a failure that needs the programs before it)\n"
         "  --max-ops M      at most M ops per program (default 60)\n"
         "  --large-every K  programs whose seed is a multiple of K reduce "
         "millions of elements (default 50; 0: none)\n"
         "  --repeated-every K  programs whose seed is 1 past a multiple of "
         "K repeat a block of ops 20 to 40 times, as a deep model's layers "
         "(default 40; 0: none)\n"
         "  --mode lazy|eager|async|both|all   which compiled runs to check: "
         "both is lazy and eager, all adds async (asynchronous compiles; "
         "default both)\n"
         "  --eager-every K  check eager and async mode on every K-th program "
         "only (default 1)\n"
         "  --print          print each program as C++\n"
         "  --no-minimize    report failures without shrinking them\n"
         "  --keep-going     continue after a failure (exit status 1 at the "
         "end)\n"
         "  --verbose        one line per program\n"
         "  --device D       run the programs on D: cpu (default), cuda, "
         "cuda:N\n";
}

bool parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::cerr << "lazyc-fuzz: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--programs")
      options.programs = std::strtoll(value(), nullptr, 10);
    else if (arg == "--seed")
      options.seed = std::strtoull(value(), nullptr, 10);
    else if (arg == "--seconds")
      options.seconds = std::strtod(value(), nullptr);
    else if (arg == "--replay") {
      options.seed = std::strtoull(value(), nullptr, 10);
      options.programs = 1;
      options.replay = true;
    } else if (arg == "--seeds") {
      std::string list = value();
      for (size_t start = 0; start <= list.size();) {
        size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start)
          options.seeds.push_back(std::strtoull(
              list.substr(start, comma - start).c_str(), nullptr, 10));
        start = comma + 1;
      }
      if (options.seeds.empty())
        return false;
      options.seed = options.seeds.front();
      options.programs = static_cast<int64_t>(options.seeds.size());
    } else if (arg == "--max-ops")
      options.generator.maxOps =
          static_cast<int>(std::strtol(value(), nullptr, 10));
    else if (arg == "--large-every")
      options.generator.largeEvery = std::strtoull(value(), nullptr, 10);
    else if (arg == "--repeated-every")
      options.generator.repeatedEvery = std::strtoull(value(), nullptr, 10);
    else if (arg == "--mode") {
      std::string mode = value();
      if (mode == "lazy")
        options.modes = {Mode::Lazy};
      else if (mode == "eager")
        options.modes = {Mode::Eager};
      else if (mode == "async")
        options.modes = {Mode::Async};
      else if (mode == "both")
        options.modes = {Mode::Lazy, Mode::Eager};
      else if (mode == "all")
        options.modes = {Mode::Lazy, Mode::Eager, Mode::Async};
      else
        return false;
    } else if (arg == "--eager-every")
      options.eagerEvery =
          std::max<int64_t>(1, std::strtoll(value(), nullptr, 10));
    else if (arg == "--print")
      options.print = true;
    else if (arg == "--no-minimize")
      options.minimize = false;
    else if (arg == "--keep-going")
      options.keepGoing = true;
    else if (arg == "--verbose")
      options.verbose = true;
    else if (arg == "--device") {
      std::string device = value();
      if (device == "cpu")
        options.device = Device::cpu();
      else if (device == "cuda")
        options.device = Device::cuda();
      else if (device.rfind("cuda:", 0) == 0 && device.size() > 5)
        options.device = Device::cuda(std::atoi(device.c_str() + 5));
      else
        return false;
    } else
      return false;
  }
  return options.generator.maxOps >= 1;
}

/// The seed being run, for the crash handler.
volatile uint64_t currentSeed = 0;

/// A crash inside lazyc (which no check can report) still names the seed.
extern "C" void onCrash(int signal) {
  char text[192];
  int length = std::snprintf(
      text, sizeof text,
      "\nlazyc-fuzz: crashed (signal %d) in program with seed %llu "
      "(rerun: lazyc-fuzz --replay %llu)\n",
      signal, static_cast<unsigned long long>(currentSeed),
      static_cast<unsigned long long>(currentSeed));
  if (length > 0)
    (void)!write(2, text,
                 std::min(static_cast<size_t>(length), sizeof text - 1));
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void report(const Program &program, const Failure &failure,
            const Options &options) {
  std::cout << "lazyc-fuzz: FAILED: program with seed " << program.seed
            << " (rerun: lazyc-fuzz --replay " << program.seed << " --mode "
            << (failure.mode == Mode::Async ? "async" : "both")
            << (options.device == Device::cpu()
                    ? std::string()
                    : " --device " + options.device.str())
            << ")\n"
            << "  " << failure.describe() << "\n";
  if (!options.minimize) {
    std::cout << print(program, failure.mode == Mode::Eager);
    return;
  }
  std::cout << "lazyc-fuzz: minimizing ...\n" << std::flush;
  Program small = minimize(program, failure);
  Outcome outcome = run(small, {failure.mode});
  std::cout << "lazyc-fuzz: minimized from " << program.steps.size() << " to "
            << small.steps.size() << " steps";
  if (!outcome.failures.empty())
    std::cout << "; it fails with\n  " << outcome.failures.front().describe();
  std::cout << "\n\n" << print(small, failure.mode == Mode::Eager) << "\n";
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parse(argc, argv, options)) {
    usage();
    return 2;
  }
  // Eager mode compiles one function per op and shape: a larger function
  // cache than the default 1024 keeps them across programs.
  setenv("LAZYC_CACHE_SIZE", "2048", /*overwrite=*/0);
  for (int signal : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL})
    std::signal(signal, onCrash);
  // Programs may use collectives: in the world of one process this is.
  lazyc::distributed::init();
  // Every tensor a program makes is made on the device, so its ops run there
  // (the reference evaluator runs on the host).
  if (options.device != Device::cpu()) {
    std::string whyNot;
    if (!cudaAvailable(options.device.index(), &whyNot)) {
      std::cerr << "lazyc-fuzz: " << whyNot << "\n";
      return 2;
    }
  }
  DeviceScope onDevice(options.device);

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  int64_t programs = 0, failed = 0, iterations = 0, values = 0, elements = 0,
          unconstrained = 0, notIndependent = 0;
  for (int64_t i = 0;; ++i) {
    if (options.seconds > 0 && options.seeds.empty()
            ? elapsed() >= options.seconds
            : i >= options.programs)
      break;
    uint64_t seed = options.seeds.empty()
                        ? options.seed + static_cast<uint64_t>(i)
                        : options.seeds[static_cast<size_t>(i)];
    currentSeed = seed;
    Program program = generate(seed, options.generator);
    if (options.print)
      std::cout << print(program, false) << std::endl;
    std::vector<Mode> modes;
    for (Mode mode : options.modes)
      if (mode == Mode::Lazy || i % options.eagerEvery == 0)
        modes.push_back(mode);
    Outcome outcome = run(program, modes);
    ++programs;
    iterations += program.iterations;
    values += outcome.valuesChecked;
    elements += outcome.elementsChecked;
    unconstrained += outcome.elementsUnconstrained;
    notIndependent += outcome.referenceUsedComputedValues;
    if (options.verbose)
      std::cout << "seed " << seed << ": " << program.steps.size() << " steps, "
                << program.iterations << " iterations, "
                << outcome.valuesChecked << " values checked, "
                << outcome.failures.size() << " failures" << std::endl;
    if (outcome.failures.empty())
      continue;
    ++failed;
    report(program, outcome.failures.front(), options);
    if (!options.keepGoing)
      break;
  }
  Metrics m = metrics();
  std::cout << "lazyc-fuzz: " << programs << " programs (seeds "
            << (options.seeds.empty()
                    ? std::to_string(options.seed) + ".." +
                          std::to_string(options.seed + programs - 1)
                    : "as listed")
            << ", " << iterations << " iterations), " << values
            << " values and " << elements << " elements checked ("
            << unconstrained << " unconstrained), " << failed << " failed, in "
            << static_cast<int64_t>(elapsed()) << " s; " << m.tracesCompiled
            << " traces compiled (" << std::fixed << std::setprecision(1)
            << m.compileMs / 1000 << " s), " << m.cacheHits << " cache hits, "
            << m.constantsPromoted << " constants promoted, "
            << m.repeatedBlocks << " repeated blocks, " << m.updatedInPlace
            << " values updated in place\n";
  if (notIndependent)
    std::cout << "lazyc-fuzz: note: " << notIndependent
              << " programs had a reference fed by computed values (trace "
                 "size limit)\n";
  return failed ? 1 : 0;
}
