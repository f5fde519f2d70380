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
