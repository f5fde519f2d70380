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

/// The groups' parameters, in order.
static std::vector<Variable *>
allParameters(const std::vector<ParameterGroup> &groups) {
  std::vector<Variable *> parameters;
  for (const ParameterGroup &group : groups)
    parameters.insert(parameters.end(), group.parameters.begin(),
                      group.parameters.end());
  return parameters;
}

Adam::Adam(std::vector<Variable *> parameters, Options options, Where where)
    : Adam(std::vector<ParameterGroup>{{std::move(parameters),
                                        options.weightDecay}},
           options, where) {}

Adam::Adam(std::vector<ParameterGroup> groups, Options options, Where where)
    : Optimizer(allParameters(groups), where), settings(options),
      steps(zeros({}, DType::Float64, where), "adam.steps", where) {
  if (!(options.learningRate >= 0) || !(options.epsilon >= 0))
    throw Error("Adam", "the learning rate and epsilon must be non-negative",
                where);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!(groups[g].weightDecay >= 0))
      throw Error("Adam",
                  "the weight decay must be non-negative, got " +
                      std::to_string(groups[g].weightDecay) +
                      (groups.size() > 1
                           ? " for parameter group " + std::to_string(g)
                           : std::string()),
                  where);
    weightDecays.insert(weightDecays.end(), groups[g].parameters.size(),
                        groups[g].weightDecay);
  }
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

AdamW::AdamW(std::vector<ParameterGroup> groups, Options options, Where where)
    : Adam(std::move(groups), decoupled(options), where) {}

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
    double weightDecay = weightDecays[i];
    if (weightDecay != 0 && !settings.decoupledWeightDecay)
      g = At(g, where) + At(weight.read(where), where) * weightDecay;
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
    if (weightDecay != 0 && settings.decoupledWeightDecay)
      change = At(change, where) +
               At(weight.read(where), where) * (rate * weightDecay);
    weight.assignSub(change, where);
  }
}
