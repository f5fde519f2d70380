//===- Autodiff.h - Reverse-mode gradients ----------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares lazyc::GradientTape. While a tape lives it records the
// ops that depend on what it watches (tensors passed to watch(), and every
// Variable read while it is active); gradient() then builds the backward
// pass out of ordinary lazy ops, so forward, backward and the update that
// uses the gradients compile into one fused trace.
//
// Tapes nest: every active tape records, and a tape's own gradient()
// computation is recorded by the tapes around it (not by itself), so
// the gradient of a gradient is an outer tape's gradient() of an inner
// tape's result.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_AUTODIFF_H
#define LAZYC_API_AUTODIFF_H

#include "lazyc/API/Tensor.h"
#include "lazyc/API/Variable.h"

#include <vector>

namespace lazyc {

namespace detail {
struct TapeState;
} // namespace detail

/// A Variable that gradients are taken with respect to:
/// `tape.gradient(loss, {w, b})`.
class VariableRef {
public:
  VariableRef(const Variable &variable) : variable(&variable) {}
  const Variable &get() const { return *variable; }

private:
  const Variable *variable;
};

class GradientTape {
public:
  /// Starts recording on this thread, until destroyed.
  explicit GradientTape(SourceLocation where = SourceLocation::current());
  ~GradientTape();
  GradientTape(const GradientTape &) = delete;
  GradientTape &operator=(const GradientTape &) = delete;

  /// Differentiates with respect to `x` (Variables are watched when read).
  void watch(const Tensor &x, SourceLocation where = SourceLocation::current());

  /// d target / d source for each source, with the sources' shapes. A
  /// non-scalar target is summed first (the gradient of sum(target)).
  /// Sources the target does not depend on get zeros. The target and the
  /// sources must be floating point. May be called several times.
  std::vector<Tensor>
  gradient(const Tensor &target, const std::vector<Tensor> &sources,
           SourceLocation where = SourceLocation::current());
  std::vector<Tensor>
  gradient(const Tensor &target, const std::vector<VariableRef> &sources,
           SourceLocation where = SourceLocation::current());
  /// For parameter lists (`std::vector<Variable *>`) as optimizers hold them.
  std::vector<Tensor>
  gradient(const Tensor &target, const std::vector<Variable *> &sources,
           SourceLocation where = SourceLocation::current());
  Tensor gradient(const Tensor &target, const Tensor &source,
                  SourceLocation where = SourceLocation::current());
  Tensor gradient(const Tensor &target, const Variable &source,
                  SourceLocation where = SourceLocation::current());

  /// Whether the tape is recording now (false inside its own gradient()).
  bool isRecording() const;
  /// Whether some tape of this thread is recording: a layer may then record
  /// a form whose gradient is cheaper (nn::conv2d's groups do).
  static bool anyRecording();

private:
  detail::TapeState *state;
};

/// While it lives, every tape of this thread is paused: nothing recorded
/// meanwhile is differentiated (optimizer updates, metrics).
class NoGradScope {
public:
  NoGradScope();
  ~NoGradScope();
  NoGradScope(const NoGradScope &) = delete;
  NoGradScope &operator=(const NoGradScope &) = delete;

private:
  bool previous;
};

} // namespace lazyc

#endif // LAZYC_API_AUTODIFF_H
