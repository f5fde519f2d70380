//===- Optimizer.h - Optimizers over lazyc::Variable ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The optimizers' common interface. step() records the update of every
// parameter with Variable::assign/assignSub and runs nothing, so the update
// compiles into the same trace as the forward and backward pass that made
// the gradients (materialize the step with lazyc::sync()). Values that change
// every step (Adam's step count and bias corrections) live in the trace as
// tensors, never as C++ constants, so that steady-state steps hit one cached
// function.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_OPTIM_OPTIMIZER_H
#define LAZYC_OPTIM_OPTIMIZER_H

#include "lazyc/API/Ops.h"
#include "lazyc/API/Variable.h"

#include <vector>

namespace lazyc::optim {

class Optimizer {
public:
  /// The parameters must outlive the optimizer and stay where they are.
  explicit Optimizer(std::vector<Variable *> parameters,
                     Where where = Where::current());
  virtual ~Optimizer();
  Optimizer(const Optimizer &) = delete;
  Optimizer &operator=(const Optimizer &) = delete;

  /// Records one update: `gradients[i]` is the gradient of the loss with
  /// respect to `parameters()[i]` (as GradientTape::gradient returns them).
  /// Runs under a NoGradScope, so an enclosing tape does not record it.
  void step(const std::vector<Tensor> &gradients,
            Where where = Where::current());

  const std::vector<Variable *> &parameters() const { return params; }
  /// Changing the rate between steps costs one recompile (the rate is then
  /// promoted to an argument), not one per change.
  double learningRate() const { return rate; }
  void setLearningRate(double learningRate) { rate = learningRate; }

  /// The optimizer's own state (momenta, step counts), for checkpoints:
  /// saving it with the parameters and loading both into a new optimizer
  /// over a new model resumes training exactly. The learning rate is a C++
  /// setting, not state: set it again after loading if it changed.
  virtual std::vector<Variable *> stateVariables() { return {}; }

protected:
  /// Records the updates; the gradients have been checked against the
  /// parameters' shapes and dtypes.
  virtual void update(const std::vector<Tensor> &gradients, Where where) = 0;
  double rate = 0;

private:
  std::vector<Variable *> params;
};

/// Scales `gradients` in place so that their global norm (the 2-norm of all
/// their elements together) is at most `maxNorm`, as PyTorch's
/// clip_grad_norm_: each is multiplied by min(1, maxNorm / (norm + 1e-6)).
/// Recorded, not run: the norm and the scaling join the step's trace, with
/// no host round trip. Returns the norm before clipping (a Float32 scalar;
/// Float64 if a gradient is). Every gradient must be a floating-point
/// tensor; `maxNorm` must be positive.
Tensor clipGradNorm(std::vector<Tensor> &gradients, double maxNorm,
                    Where where = Where::current());

} // namespace lazyc::optim

#endif // LAZYC_OPTIM_OPTIMIZER_H
