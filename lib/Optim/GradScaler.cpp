//===- GradScaler.cpp - Dynamic loss scaling for f16 training -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A skipped step is a select: the optimizer's step is recorded as usual,
// then every parameter and state variable it assigned takes back its value
// from before the step where an inf or NaN was found. Both sides are in
// the trace, so the decision costs no host round trip.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Optim/GradScaler.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/Runtime/Shape.h"

#include <cmath>
#include <limits>
#include <string>

using namespace lazyc;
using namespace lazyc::optim;

GradScaler::GradScaler(Where where) : GradScaler(Options(), where) {}

GradScaler::GradScaler(Options options, Where where)
    : settings(options),
      scaleVariable(full({}, options.initialScale, DType::Float32),
                    "scaler.scale", where),
      growthTracker(zeros({}, DType::Float32, where), "scaler.growthTracker",
                    where) {
  auto positive = [](double value) {
    return std::isfinite(value) && value > 0;
  };
  if (!positive(options.initialScale) || !(options.growthFactor >= 1) ||
      !std::isfinite(options.growthFactor) ||
      !(options.backoffFactor > 0 && options.backoffFactor < 1) ||
      options.growthInterval < 1)
    throw Error("GradScaler",
                "needs a positive finite initial scale, a finite growth "
                "factor >= 1, a backoff factor in (0, 1) and a growth "
                "interval >= 1; got " +
                    std::to_string(options.initialScale) + ", " +
                    std::to_string(options.growthFactor) + ", " +
                    std::to_string(options.backoffFactor) + " and " +
                    std::to_string(options.growthInterval),
                where);
}

Tensor GradScaler::scale(const Tensor &loss, Where where) const {
  if (!settings.enabled)
    return loss;
  if (!loss.defined() || !isFloatingPoint(loss.dtype()))
    throw Error("GradScaler::scale",
                "needs a floating-point loss, got " +
                    (loss.defined() ? typeText(loss.dtype(), loss.shape())
                                    : std::string("an empty Tensor")),
                where);
  // A narrow loss is scaled in f32: 2^16 times a Float16 loss overflows.
  return At(loss, where) * scaleVariable.read(where);
}

std::vector<Tensor>
GradScaler::unscale(const std::vector<Tensor> &scaledGradients,
                    Where where) const {
  if (!settings.enabled)
    return scaledGradients;
  // The reciprocal in f32, as PyTorch's, then each gradient's dtype.
  Tensor inverse = 1.0 / scaleVariable.read(where);
  std::vector<Tensor> gradients;
  for (const Tensor &gradient : scaledGradients) {
    if (!gradient.defined() || !isFloatingPoint(gradient.dtype()))
      throw Error("GradScaler::unscale",
                  "gradient " + std::to_string(gradients.size()) +
                      " is not a floating-point tensor",
                  where);
    gradients.push_back(At(gradient, where) *
                        cast(inverse, gradient.dtype(), where));
  }
  return gradients;
}

Tensor GradScaler::step(Optimizer &optimizer,
                        const std::vector<Tensor> &gradients, Where where) {
  NoGradScope noGrad;
  if (!settings.enabled) {
    optimizer.step(gradients, where);
    return full({}, false, DType::Bool);
  }
  // Whether any gradient holds an inf or a NaN: |g| < inf is false for both.
  Tensor found = full({}, false, DType::Bool);
  double infinity = std::numeric_limits<double>::infinity();
  for (const Tensor &gradient : gradients) {
    if (!gradient.defined())
      throw Error("GradScaler::step", "a gradient is an empty Tensor", where);
    Tensor finite = all(At(abs(gradient, where), where) < infinity, {},
                        /*keepDims=*/false, where);
    found = logicalOr(found, logicalNot(finite, where), where);
  }

  std::vector<Variable *> touched = optimizer.parameters();
  for (Variable *state : optimizer.stateVariables())
    touched.push_back(state);
  std::vector<Tensor> before;
  for (Variable *variable : touched)
    before.push_back(variable->read(where));
  optimizer.step(gradients, where);
  for (size_t i = 0; i < touched.size(); ++i)
    touched[i]->assign(
        lazyc::where(found, before[i], touched[i]->read(where), where), where);

  // The scale halves at an overflow and doubles after growthInterval good
  // steps in a row.
  Tensor scaleNow = scaleVariable.read(where);
  Tensor goodSteps = At(growthTracker.read(where), where) + 1.0;
  Tensor grows = At(goodSteps, where) >= double(settings.growthInterval);
  Tensor zero = zeros({}, DType::Float32, where);
  scaleVariable.assign(
      lazyc::where(found, At(scaleNow, where) * settings.backoffFactor,
                   lazyc::where(grows,
                                At(scaleNow, where) * settings.growthFactor,
                                scaleNow, where),
                   where),
      where);
  growthTracker.assign(
      lazyc::where(logicalOr(found, grows, where), zero, goodSteps, where),
      where);
  return found;
}

std::vector<Variable *> GradScaler::stateVariables() {
  return {&scaleVariable, &growthTracker};
}
