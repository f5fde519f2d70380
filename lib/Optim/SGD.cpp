//===- SGD.cpp - Stochastic gradient descent ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Optim/SGD.h"

#include <string>

using namespace lazyc;
using namespace lazyc::optim;

SGD::SGD(std::vector<Variable *> parameters, Options options, Where where)
    : Optimizer(std::move(parameters), where), settings(options) {
  if (!(options.learningRate >= 0) || !(options.momentum >= 0) ||
      !(options.weightDecay >= 0))
    throw Error("SGD",
                "the learning rate, momentum and weight decay must be "
                "non-negative",
                where);
  rate = options.learningRate;
  if (options.momentum != 0)
    for (Variable *parameter : this->parameters())
      velocities.emplace_back(
          zeros(parameter->shape(), parameter->dtype(), where),
          parameter->name() + ".velocity", where);
}

SGD::~SGD() = default;

std::vector<Variable *> SGD::stateVariables() {
  std::vector<Variable *> state;
  for (Variable &velocity : velocities)
    state.push_back(&velocity);
  return state;
}

void SGD::update(const std::vector<Tensor> &gradients, Where where) {
  const std::vector<Variable *> &params = parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    Variable &weight = *params[i];
    Tensor direction = gradients[i];
    if (settings.weightDecay != 0)
      direction = At(direction, where) +
                  At(weight.read(where), where) * settings.weightDecay;
    if (!velocities.empty()) {
      Tensor velocity =
          At(At(velocities[i].read(where), where) * settings.momentum, where) +
          direction;
      velocities[i].assign(velocity, where);
      direction = velocity;
    }
    weight.assignSub(At(direction, where) * rate, where);
  }
}
