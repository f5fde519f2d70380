//===- Runner.cpp - Lazy, eager and reference runs; minimization ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file runs a program three ways and compares, and shrinks a failing
// program. The reference run records every step lazily and evaluates the
// recorded graph with the reference evaluator before anything is
// materialized, so the reference never sees a compiled value. The lazy and
// eager runs make the same calls, materialize at the program's reads and
// drop each handle after its last use (held handles decide what a trace
// outputs), and check each value read, and each output at the end of every
// iteration, against the reference.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

using namespace lazyc;
using namespace lazyc::fuzz;

const char *fuzz::modeName(Mode mode) {
  switch (mode) {
  case Mode::Lazy:
    return "lazy";
  case Mode::Eager:
    return "eager";
  case Mode::Async:
    return "async";
  }
  return "?";
}

std::string Failure::describe() const {
  std::ostringstream os;
  os << modeName(mode) << " mode, iteration " << iteration << ", t" << step
     << ": " << (threw ? "threw: " : "") << message;
  return os.str();
}

namespace {

/// The steps a step's handle is last used by (-1: never used).
std::vector<long> lastUses(const Program &program) {
  std::vector<long> last(program.steps.size(), -1);
  for (size_t i = 0; i < program.steps.size(); ++i)
    for (int operand : program.steps[i].operands)
      last[operand] = static_cast<long>(i);
  return last;
}

/// Reference values of every step of one iteration.
std::vector<reference::Value>
referenceRun(const Program &program, int iteration, bool &usedComputedValues) {
  std::vector<Tensor> slots(program.steps.size());
  ProgramTape tape(ProgramTape::neededBy(program));
  for (size_t i = 0; i < program.steps.size(); ++i)
    if (program.steps[i].kind != StepKind::Read)
      slots[i] = apply(program, i, slots, iteration);
  reference::Evaluator evaluator;
  std::vector<reference::Value> values(program.steps.size());
  for (size_t i = 0; i < program.steps.size(); ++i) {
    if (!slots[i].defined())
      continue;
    values[i] = evaluator.evaluate(slots[i]);
    // A float step the trace size limit computed is its own reference:
    // the other modes' rounding of it is unchecked (seed 69019 with
    // --repeated-every 3: eager's tanh 1 ulp from lazy mode's, "tolerance
    // 0"). Integer results are exact in every mode and stay checked.
    if (values[i].isFloat() && reference::Evaluator::isComputedLeaf(slots[i]))
      std::fill(values[i].tolerance.begin(), values[i].tolerance.end(),
                std::numeric_limits<double>::infinity());
  }
  usedComputedValues |= evaluator.computedLeaves() > 0;
  return values;
}

struct Checker {
  Outcome &outcome;
  Mode mode;
  int iteration;

  void mismatch(size_t step, const std::string &what,
                const reference::Mismatch &m, const reference::Value &ref) {
    outcome.failures.push_back(
        {mode, iteration, step, false, what + ": " + m.describe(ref)});
  }

  void count(const reference::Value &ref, int64_t elements) {
    ++outcome.valuesChecked;
    outcome.elementsChecked += elements;
    for (int64_t i = 0; i < elements && i < ref.numel(); ++i)
      outcome.elementsUnconstrained += std::isinf(ref.tolerance[i]);
  }

  void whole(size_t step, const std::string &what, const Tensor &tensor,
             const reference::Value &ref) {
    std::vector<reference::Mismatch> found = reference::check(ref, tensor);
    count(ref, ref.numel());
    if (!found.empty())
      mismatch(step, what, found.front(), ref);
  }

  void item(size_t step, const Tensor &tensor, const reference::Value &ref) {
    // 64-bit integers compare exactly; a UInt64 as the bits the reference
    // holds it in (a double of 2^63 read as signed bits was -2^63: seed 1137).
    std::vector<reference::Mismatch> found =
        ref.dtype == DType::Int64
            ? reference::check(ref,
                               std::vector<int64_t>{tensor.item<int64_t>()})
        : ref.dtype == DType::UInt64
            ? reference::check(ref, std::vector<int64_t>{static_cast<int64_t>(
                                        tensor.item<uint64_t>())})
            : reference::check(ref, std::vector<double>{tensor.item<double>()});
    count(ref, 1);
    if (!found.empty())
      mismatch(step, "item()", found.front(), ref);
  }

  void truth(size_t step, const Tensor &tensor, const reference::Value &ref) {
    bool value = static_cast<bool>(tensor);
    count(ref, 1);
    double tolerance = ref.tolerance[0];
    bool expected;
    if (ref.isFloat()) {
      double x = ref.floats[0];
      expected = x != 0; // NaN is true
      // Undecided if the tolerance reaches zero.
      if (tolerance != 0 && (std::isnan(x) || std::fabs(x) <= tolerance))
        return;
    } else {
      expected = ref.ints[0] != 0;
      if (tolerance != 0)
        return;
    }
    if (value != expected)
      outcome.failures.push_back({mode, iteration, step, false,
                                  std::string("bool conversion: expected ") +
                                      (expected ? "true" : "false") + ", got " +
                                      (value ? "true" : "false")});
  }
};

void compiledRun(const Program &program, Mode mode, Outcome &outcome) {
  std::vector<long> last = lastUses(program);
  for (int iteration = 0; iteration < program.iterations; ++iteration) {
    const std::vector<reference::Value> &ref = outcome.reference[iteration];
    Checker checker{outcome, mode, iteration};
    size_t at = 0;
    try {
      std::vector<Tensor> slots(program.steps.size());
      ProgramTape tape(ProgramTape::neededBy(program));
      for (; at < program.steps.size(); ++at) {
        const Step &step = program.steps[at];
        if (step.kind != StepKind::Read) {
          slots[at] = apply(program, at, slots, iteration);
        } else {
          size_t operand = static_cast<size_t>(step.operands[0]);
          const Tensor &tensor = slots[operand];
          switch (static_cast<ReadKind>(step.op)) {
          case ReadKind::ToVector:
            checker.whole(operand, "toVector() at step " + std::to_string(at),
                          tensor, ref[operand]);
            break;
          case ReadKind::Item:
            checker.item(operand, tensor, ref[operand]);
            break;
          case ReadKind::Bool:
            checker.truth(operand, tensor, ref[operand]);
            break;
          case ReadKind::Sync:
            lazyc::sync();
            break;
          }
        }
        for (int operand : step.operands)
          if (last[operand] == static_cast<long>(at) &&
              !program.steps[operand].output)
            slots[operand] = Tensor();
      }
      for (at = 0; at < program.steps.size(); ++at)
        if (program.steps[at].output)
          checker.whole(at, "output", slots[at], ref[at]);
    } catch (const std::exception &error) {
      outcome.failures.push_back({mode, iteration, at, true, error.what()});
    }
  }
}

} // namespace

Outcome fuzz::run(const Program &program, const std::vector<Mode> &modes) {
  Outcome outcome;
  for (int iteration = 0; iteration < program.iterations; ++iteration)
    outcome.reference.push_back(
        referenceRun(program, iteration, outcome.referenceUsedComputedValues));
  for (Mode mode : modes) {
    if (mode == Mode::Eager) {
      EagerScope eager;
      compiledRun(program, mode, outcome);
    } else if (mode == Mode::Async) {
      // From an empty cache, so that the program's traces miss.
      clearCache();
      setAsyncCompile(true);
      compiledRun(program, mode, outcome);
      waitForCompiles();
      setAsyncCompile(false);
    } else {
      compiledRun(program, mode, outcome);
    }
  }
  return outcome;
}

//===----------------------------------------------------------------------===//
// Minimization
//===----------------------------------------------------------------------===//

namespace {

/// Keeps only the steps `keep` marks, renumbering operands.
Program select(const Program &program, const std::vector<bool> &keep) {
  Program result = program;
  result.steps.clear();
  std::vector<int> renumbered(program.steps.size(), -1);
  for (size_t i = 0; i < program.steps.size(); ++i) {
    if (!keep[i])
      continue;
    Step step = program.steps[i];
    for (int &operand : step.operands)
      operand = renumbered[operand];
    renumbered[i] = static_cast<int>(result.steps.size());
    result.steps.push_back(std::move(step));
  }
  return result;
}

/// Drops steps nothing observes: not outputs, not read, not feeding either.
Program removeDeadSteps(const Program &program) {
  std::vector<bool> live(program.steps.size(), false);
  for (size_t i = program.steps.size(); i-- > 0;) {
    const Step &step = program.steps[i];
    if (step.output || step.kind == StepKind::Read)
      live[i] = true;
    if (live[i])
      for (int operand : step.operands)
        live[operand] = true;
  }
  // A read of a value nothing else needs still decides trace boundaries:
  // keep it (the minimizer tries removing reads one by one).
  return select(program, live);
}

/// An input step holding `value` (a reference value: exact in its dtype).
Step inputOf(const reference::Value &value) {
  Step step;
  step.kind = StepKind::Input;
  step.dtype = value.dtype;
  step.shape = value.shape;
  if (value.isFloat())
    step.floatData = value.floats;
  else
    step.intData = value.ints;
  return step;
}

class Minimizer {
public:
  Minimizer(const Failure &failure, int trials)
      : mode(failure.mode), threw(failure.threw), trialsLeft(trials) {}

  /// Whether `candidate` still fails in the same mode, the same way.
  bool fails(const Program &candidate) {
    if (trialsLeft-- <= 0)
      return false;
    Outcome outcome = run(candidate, {mode});
    for (const Failure &failure : outcome.failures)
      if (failure.mode == mode && failure.threw == threw)
        return true;
    return false;
  }

  Program shrink(Program program);

private:
  Mode mode;
  bool threw;
  int trialsLeft;
};

Program Minimizer::shrink(Program program) {
  program = removeDeadSteps(program);
  bool changed = true;
  while (changed && trialsLeft > 0) {
    changed = false;
    // One iteration, unless the loop matters (cache hits, promotion).
    if (program.iterations > 1) {
      Program candidate = program;
      candidate.iterations = 1;
      if (fails(candidate)) {
        program = candidate;
        changed = true;
      }
    }
    // Fewer observed values: drop outputs and reads, latest first.
    for (size_t i = program.steps.size(); i-- > 0 && trialsLeft > 0;) {
      Program candidate = program;
      Step &step = candidate.steps[i];
      if (step.kind == StepKind::Read) {
        std::vector<bool> keep(candidate.steps.size(), true);
        keep[i] = false;
        candidate = removeDeadSteps(select(candidate, keep));
      } else if (step.output) {
        step.output = false;
        candidate = removeDeadSteps(candidate);
      } else {
        continue;
      }
      if (candidate.steps.empty() || !fails(candidate))
        continue;
      program = candidate;
      changed = true;
      i = std::min(i, program.steps.size());
    }
    // Computed steps become inputs holding their reference values: the
    // steps above them then fall away. Earliest first, so that whole
    // prefixes collapse.
    Outcome reference = run(program, {});
    for (size_t i = 0; i < program.steps.size() && trialsLeft > 0; ++i) {
      const Step &step = program.steps[i];
      if (step.kind == StepKind::Input || step.kind == StepKind::Read)
        continue;
      // Varying values cannot be one input: only in a single iteration.
      if (program.iterations > 1)
        break;
      // A step whose reference threw (the failure may be that throw) has
      // no value to stand in for it.
      const reference::Value &value = reference.reference[0][i];
      size_t elements = 1;
      for (int64_t size : value.shape)
        elements *= static_cast<size_t>(size);
      if ((value.isFloat() ? value.floats.size() : value.ints.size()) !=
          elements)
        continue;
      Program candidate = program;
      bool output = step.output;
      candidate.steps[i] = inputOf(value);
      candidate.steps[i].output = output;
      candidate = removeDeadSteps(candidate);
      if (!fails(candidate))
        continue;
      program = candidate;
      changed = true;
      reference = run(program, {});
      i = 0;
    }
    // Constants that need not vary.
    for (size_t i = 0; i < program.steps.size() && trialsLeft > 0; ++i) {
      if (program.steps[i].constants.size() <= 1)
        continue;
      Program candidate = program;
      candidate.steps[i].constants.resize(1);
      if (fails(candidate)) {
        program = candidate;
        changed = true;
      }
    }
  }
  return program;
}

} // namespace

Program fuzz::minimize(const Program &program, const Failure &failure,
                       int trials) {
  return Minimizer(failure, trials).shrink(program);
}
