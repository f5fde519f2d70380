//===- Optimizer.cpp - The optimizers' common checks ----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Optim/Optimizer.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/Runtime/Shape.h"

#include <string>

using namespace lazyc;
using namespace lazyc::optim;

static std::string parameterName(const Variable &parameter, size_t index) {
  std::string text = "parameter " + std::to_string(index);
  if (!parameter.name().empty())
    text += " (" + parameter.name() + ")";
  return text;
}

Optimizer::Optimizer(std::vector<Variable *> parameters, Where where)
    : params(std::move(parameters)) {
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i] || !params[i]->defined())
      throw Error("optimizer",
                  "parameter " + std::to_string(i) +
                      " is a null pointer or an empty Variable",
                  where);
}

Optimizer::~Optimizer() = default;

void Optimizer::step(const std::vector<Tensor> &gradients, Where where) {
  if (gradients.size() != params.size())
    throw Error("step",
                "got " + std::to_string(gradients.size()) + " gradients for " +
                    std::to_string(params.size()) + " parameters",
                where);
  for (size_t i = 0; i < params.size(); ++i) {
    const Variable &parameter = *params[i];
    const Tensor &gradient = gradients[i];
    if (!gradient.defined())
      throw Error("step",
                  "the gradient of " + parameterName(parameter, i) +
                      " is an empty Tensor",
                  where);
    if (gradient.shape() != parameter.shape())
      throw Error("step",
                  "the gradient of " + parameterName(parameter, i) +
                      " has shape " + shapeText(gradient.shape()) +
                      ", the parameter " + shapeText(parameter.shape()),
                  where);
    if (gradient.dtype() != parameter.dtype())
      throw Error("step",
                  "the gradient of " + parameterName(parameter, i) + " is " +
                      dtypeName(gradient.dtype()) + ", the parameter " +
                      dtypeName(parameter.dtype()),
                  where);
  }
  // The update is not part of anything a tape should differentiate.
  NoGradScope noGradients;
  update(gradients, where);
}

Tensor lazyc::optim::clipGradNorm(std::vector<Tensor> &gradients,
                                  double maxNorm, Where where) {
  if (!(maxNorm > 0))
    throw Error("clipGradNorm",
                "the maximum norm must be positive, not " +
                    std::to_string(maxNorm),
                where);
  DType normType = DType::Float32;
  for (size_t i = 0; i < gradients.size(); ++i) {
    const Tensor &gradient = gradients[i];
    if (!gradient.defined() || !isFloatingPoint(gradient.dtype()))
      throw Error("clipGradNorm",
                  "gradient " + std::to_string(i) + " is " +
                      (gradient.defined()
                           ? std::string(dtypeName(gradient.dtype())) + " " +
                                 shapeText(gradient.shape())
                           : std::string("an empty Tensor")) +
                      "; gradients must be floating-point tensors",
                  where);
    if (gradient.dtype() == DType::Float64)
      normType = DType::Float64;
  }
  NoGradScope noGradients;
  // The squares summed in the norm's type (f16 and bf16 squares overflow
  // and round early), gradient by gradient, then all together.
  Tensor squares = zeros({}, normType, where);
  for (const Tensor &gradient : gradients) {
    Tensor wide = cast(gradient, normType, where);
    squares = At(squares, where) + sum(square(wide, where), {}, false, where);
  }
  Tensor norm = sqrt(squares, where);
  Tensor scale =
      minimum(At(full({}, maxNorm, normType), where) / (At(norm, where) + 1e-6),
              full({}, 1.0, normType), where);
  for (Tensor &gradient : gradients)
    gradient = At(gradient, where) * cast(scale, gradient.dtype(), where);
  return norm;
}
