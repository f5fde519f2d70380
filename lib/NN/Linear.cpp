//===- Linear.cpp - Fully connected layers --------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Linear.h"

#include "lazyc/API/Autocast.h"

using namespace lazyc;
using namespace lazyc::nn;

Linear::Linear(int64_t inFeatures, int64_t outFeatures, int64_t seed,
               Options options, std::string name, Where where)
    : inSize(inFeatures), outSize(outFeatures) {
  if (inFeatures <= 0 || outFeatures <= 0)
    throw Error("Linear",
                "needs positive sizes, got " + std::to_string(inFeatures) +
                    " -> " + std::to_string(outFeatures),
                where);
  weightVariable =
      Variable(initialize(options.weightInit, {inFeatures, outFeatures},
                          inFeatures, outFeatures, seed, options.dtype, where),
               name + ".weight", where);
  if (options.bias)
    biasVariable = Variable(zeros({outFeatures}, options.dtype, where),
                            name + ".bias", where);
}

Linear::Linear(Variable &shared, bool transposed, Options options,
               std::string name, Where where)
    : sharedWeight(&shared), transposedWeight(transposed) {
  if (!shared.defined())
    throw Error("Linear", "the shared weight is an empty Variable", where);
  if (shared.shape().size() != 2)
    throw Error("Linear",
                "a shared weight must be 2-D, got rank " +
                    std::to_string(shared.shape().size()) + " (" +
                    shared.name() + ")",
                where);
  inSize = shared.shape()[transposed ? 1 : 0];
  outSize = shared.shape()[transposed ? 0 : 1];
  if (options.bias)
    biasVariable = Variable(zeros({outSize}, shared.dtype(), where),
                            name + ".bias", where);
}

Tensor Linear::forward(const Tensor &x, Where where) const {
  if (!x.defined())
    throw Error("Linear", "the input is an empty Tensor", where);
  if (x.rank() < 1 || x.shape().back() != inSize)
    throw Error("Linear",
                "the layer takes " + std::to_string(inSize) +
                    " input features, but the input's last dimension is " +
                    (x.rank() ? std::to_string(x.shape().back())
                              : std::string("missing (a scalar)")),
                where);
  Tensor weight =
      sharedWeight ? sharedWeight->read(where) : weightVariable.read(where);
  if (transposedWeight)
    weight = transpose(weight, {1, 0}, where);
  Tensor product = matmul(x, weight, where);
  if (!hasBias())
    return product;
  return At(product, where) +
         lazyc::detail::autocastBias(biasVariable.read(where), product, where);
}

std::vector<Variable *> Linear::parameters() {
  std::vector<Variable *> own;
  if (!sharedWeight)
    own.push_back(&weightVariable);
  if (hasBias())
    own.push_back(&biasVariable);
  return own;
}

Mlp::Mlp(const std::vector<int64_t> &sizes, int64_t seed, DType dtype,
         Where where) {
  if (sizes.size() < 2)
    throw Error("Mlp",
                "needs at least an input and an output size, got " +
                    std::to_string(sizes.size()) + " size(s)",
                where);
  Linear::Options options;
  options.dtype = dtype;
  stack.reserve(sizes.size() - 1);
  for (size_t i = 0; i + 1 < sizes.size(); ++i)
    stack.emplace_back(sizes[i], sizes[i + 1], seed + static_cast<int64_t>(i),
                       options, "layer" + std::to_string(i), where);
}

Tensor Mlp::forward(const Tensor &x, Where where) const {
  Tensor h = x;
  for (size_t i = 0; i < stack.size(); ++i) {
    h = stack[i].forward(h, where);
    if (i + 1 < stack.size())
      h = relu(h, where);
  }
  return h;
}

std::vector<Variable *> Mlp::parameters() {
  std::vector<Variable *> all;
  for (Linear &layer : stack)
    for (Variable *parameter : layer.parameters())
      all.push_back(parameter);
  return all;
}

std::vector<VariableRef> nn::refs(const std::vector<Variable *> &variables) {
  std::vector<VariableRef> references;
  references.reserve(variables.size());
  for (Variable *variable : variables)
    references.emplace_back(*variable);
  return references;
}

std::map<std::string, Variable *>
nn::namedParameters(const std::vector<Variable *> &parameters, Where where) {
  std::map<std::string, Variable *> named;
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < parameters.size(); ++i) {
    Variable *parameter = parameters[i];
    if (!parameter || !parameter->defined())
      throw Error("namedParameters",
                  "parameter " + std::to_string(i) +
                      " is a null pointer or an empty Variable",
                  where);
    const std::string &name = parameter->name();
    if (name.empty())
      throw Error("namedParameters",
                  "parameter " + std::to_string(i) + " has no name", where);
    auto [it, added] = position.try_emplace(name, i);
    if (!added)
      throw Error("namedParameters",
                  "parameters " + std::to_string(it->second) + " and " +
                      std::to_string(i) + " are both named '" + name + "'",
                  where);
    named[name] = parameter;
  }
  return named;
}
