//===- GradScaler.h - Dynamic loss scaling for f16 training ----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares GradScaler: Float16 gradients underflow below 6e-8, so
// the loss is multiplied by a large scale before the backward pass and the
// gradients divided by it after; a step whose gradients overflowed is
// skipped and the scale lowered (PyTorch's torch.amp.GradScaler). The check,
// the skip and the scale's update are recorded in the step's trace: nothing
// is read back to the host.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_OPTIM_GRADSCALER_H
#define LAZYC_OPTIM_GRADSCALER_H

#include "lazyc/Optim/Optimizer.h"

#include <vector>

namespace lazyc::optim {

class GradScaler {
public:
  struct Options {
    /// The first scale (2^16, as PyTorch's).
    double initialScale = 65536.0;
    /// The scale is multiplied by this after `growthInterval` steps in a
    /// row without an inf or NaN ...
    double growthFactor = 2.0;
    int64_t growthInterval = 2000;
    /// ... and by this at a step with one, which is skipped.
    double backoffFactor = 0.5;
    /// Off: scale() and unscale() return their inputs and step() always
    /// steps (one program for both settings).
    bool enabled = true;
  };

  explicit GradScaler(Where where = Where::current());
  explicit GradScaler(Options options, Where where = Where::current());

  /// `loss` times the scale: Float32 for a Float32, Float16 or BFloat16
  /// loss (the product of a Float16 loss and 2^16 would overflow), Float64
  /// for a Float64 one.
  Tensor scale(const Tensor &loss, Where where = Where::current()) const;

  /// The gradients of a scaled loss divided by the scale (each in its own
  /// dtype). Clip them (clipGradNorm) between unscale and step, as in
  /// PyTorch.
  std::vector<Tensor> unscale(const std::vector<Tensor> &scaledGradients,
                              Where where = Where::current()) const;

  /// Records `optimizer`'s step with the unscaled `gradients` unless one of
  /// them holds an inf or a NaN, in which case the parameters and the
  /// optimizer's state keep their values (the step is skipped); then the
  /// scale's update. Returns a lazy Bool scalar: whether the step was
  /// skipped.
  Tensor step(Optimizer &optimizer, const std::vector<Tensor> &gradients,
              Where where = Where::current());

  /// The current scale (a lazy Float32 scalar).
  Tensor currentScale() const { return scaleVariable.read(); }
  const Options &options() const { return settings; }
  /// The scale ("scaler.scale") and the count of good steps since the last
  /// change ("scaler.growthTracker"), for checkpoints.
  std::vector<Variable *> stateVariables();

private:
  Options settings;
  Variable scaleVariable, growthTracker;
};

} // namespace lazyc::optim

#endif // LAZYC_OPTIM_GRADSCALER_H
