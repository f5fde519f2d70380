//===- Adam.cpp - The Adam optimizer --------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Optim/Adam.h"

#include <string>

using namespace lazyc;
using namespace lazyc::optim;

Adam::Adam(std::vector<Variable *> parameters, Options options, Where where)
    : Optimizer(std::move(parameters), where), settings(options),
      steps(zeros({}, DType::Float64, where), "adam.steps", where) {
  if (!(options.learningRate >= 0) || !(options.epsilon >= 0) ||
      !(options.weightDecay >= 0))
    throw Error("Adam",
                "the learning rate, epsilon and weight decay must be "
                "non-negative",
                where);
  if (!(options.beta1 >= 0 && options.beta1 < 1) ||
      !(options.beta2 >= 0 && options.beta2 < 1))
    throw Error("Adam", "beta1 and beta2 must be in [0, 1)", where);
  rate = options.learningRate;
  for (Variable *parameter : this->parameters()) {
    firstMoments.emplace_back(
        zeros(parameter->shape(), parameter->dtype(), where),
        parameter->name() + ".m", where);
    secondMoments.emplace_back(
        zeros(parameter->shape(), parameter->dtype(), where),
        parameter->name() + ".v", where);
  }
}

Adam::~Adam() = default;

/// `options` with the weight decay decoupled.
static Adam::Options decoupled(Adam::Options options) {
  options.decoupledWeightDecay = true;
  return options;
}

AdamW::AdamW(std::vector<Variable *> parameters, Options options, Where where)
    : Adam(std::move(parameters), decoupled(options), where) {}

std::vector<Variable *> Adam::stateVariables() {
  std::vector<Variable *> state{&steps};
  for (Variable &moment : firstMoments)
    state.push_back(&moment);
  for (Variable &moment : secondMoments)
    state.push_back(&moment);
  return state;
}

void Adam::update(const std::vector<Tensor> &gradients, Where where) {
  // The step count and both bias corrections are rank-0 tensors computed in
  // the trace (in double precision), so they change without changing it.
  Tensor t = At(steps.read(where), where) + 1.0;
  steps.assign(t, where);
  Tensor beta1 = full({}, settings.beta1, DType::Float64);
  Tensor beta2 = full({}, settings.beta2, DType::Float64);
  Tensor correction1 = 1.0 - pow(beta1, t, where);
  Tensor correction2 = 1.0 - pow(beta2, t, where);
  Tensor stepSize = rate / correction1;
  Tensor correction2Root = sqrt(correction2, where);

  const std::vector<Variable *> &params = parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    Variable &weight = *params[i];
    DType dtype = weight.dtype();
    Tensor g = gradients[i];
    if (settings.weightDecay != 0 && !settings.decoupledWeightDecay)
      g = At(g, where) + At(weight.read(where), where) * settings.weightDecay;
    Tensor m =
        At(At(firstMoments[i].read(where), where) * settings.beta1, where) +
        At(g, where) * (1 - settings.beta1);
    Tensor v =
        At(At(secondMoments[i].read(where), where) * settings.beta2, where) +
        At(At(g, where) * g, where) * (1 - settings.beta2);
    firstMoments[i].assign(m, where);
    secondMoments[i].assign(v, where);
    Tensor denominator =
        At(At(sqrt(v, where), where) / cast(correction2Root, dtype, where),
           where) +
        settings.epsilon;
    Tensor change =
        At(At(cast(stepSize, dtype, where), where) * m, where) / denominator;
    // AdamW: the weight shrinks by rate * decay before the step (one
    // assignment: both read the old weight).
    if (settings.weightDecay != 0 && settings.decoupledWeightDecay)
      change = At(change, where) +
               At(weight.read(where), where) * (rate * settings.weightDecay);
    weight.assignSub(change, where);
  }
}
