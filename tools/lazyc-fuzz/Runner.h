//===- Runner.h - Running a fuzz program three ways -------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Runs a program through the reference evaluator, then lazily and eagerly,
// and checks every value the program reads against the reference.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TOOLS_FUZZ_RUNNER_H
#define LAZYC_TOOLS_FUZZ_RUNNER_H

#include "Program.h"

#include <string>
#include <vector>

namespace lazyc::fuzz {

/// How a program's compiled run executes: traces compiled before they run
/// (Lazy), op by op (Eager), or traces that miss run op by op while they
/// compile in the background (Async, setAsyncCompile).
enum class Mode { Lazy, Eager, Async };

const char *modeName(Mode mode);

/// A value that disagreed with the reference, or a run that threw.
struct Failure {
  Mode mode = Mode::Lazy;
  int iteration = 0;
  size_t step = 0; ///< The step whose value disagreed (or that threw).
  bool threw = false;
  std::string message;

  std::string describe() const;
};

struct Outcome {
  std::vector<Failure> failures;
  /// The reference value of every step, per iteration (empty for reads).
  std::vector<std::vector<reference::Value>> reference;
  int64_t valuesChecked = 0;
  int64_t elementsChecked = 0;
  /// Elements any value would have passed (unspecified or undecided).
  int64_t elementsUnconstrained = 0;
  /// The reference was fed by compiled values (a trace size limit cut):
  /// its checks were not independent.
  bool referenceUsedComputedValues = false;
};

/// Runs `program` in the reference evaluator and in each of `modes`.
Outcome run(const Program &program, const std::vector<Mode> &modes);

/// A smaller program that still fails like `failure` in its mode (delta
/// debugging on the steps: unneeded steps removed, computed steps replaced
/// by their reference values as inputs, reads and iterations dropped).
/// `trials` bounds how many candidate programs are run.
Program minimize(const Program &program, const Failure &failure,
                 int trials = 300);

} // namespace lazyc::fuzz

#endif // LAZYC_TOOLS_FUZZ_RUNNER_H
