//===- TrainingOps.cpp - ONNX's ai.onnx.preview.training optimizers -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Adagrad, Adam and Momentum (with Nesterov's variant) of the training
// domain: one update of any number of tensors, as the operators' formulas
// state them. The step count T is data (a new T compiles nothing): the
// choices that depend on it are `where`s.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

/// The tensors of an update: R and T, then `groups` lists of `count` inputs
/// each (X..., G..., and the optimizer's state).
struct Update {
  Tensor rate, step;
  int64_t count;
  std::vector<Tensor> at(const NodeContext &node, int64_t group) const {
    std::vector<Tensor> tensors;
    for (int64_t i = 0; i < count; ++i)
      tensors.push_back(node.input(2 + group * count + i));
    return tensors;
  }
};

Update updateOf(const NodeContext &node, int64_t groups) {
  int64_t tensors = int64_t(node.inputCount()) - 2;
  if (tensors <= 0 || tensors % groups != 0)
    node.fail("takes R, T and " + std::to_string(groups) +
              " lists of the same length; it has " +
              std::to_string(node.inputCount()) + " inputs");
  return {node.input(0), node.input(1), tensors / groups};
}

/// `x` regularized: norm_coefficient * x + g.
Tensor regularized(const NodeContext &node, const Tensor &x, const Tensor &g) {
  double norm = node.attribute("norm_coefficient", 0.0);
  return constant(norm, x) * x + g;
}

std::vector<Tensor> adagrad(const NodeContext &node) {
  Update update = updateOf(node, 3);
  double decay = node.attribute("decay_factor", 0.0);
  double epsilon = node.attribute("epsilon", 1e-6);
  std::vector<Tensor> xs = update.at(node, 0), gs = update.at(node, 1),
                      hs = update.at(node, 2), newX, newH;
  Tensor step = cast(update.step, update.rate.dtype());
  Tensor rate =
      update.rate / (constant(1, step) + step * constant(decay, step));
  for (int64_t i = 0; i < update.count; ++i) {
    Tensor g = regularized(node, xs[i], gs[i]);
    Tensor h = hs[i] + g * g;
    newX.push_back(xs[i] - cast(rate, xs[i].dtype()) * g /
                               (sqrt(h) + constant(epsilon, h)));
    newH.push_back(h);
  }
  newX.insert(newX.end(), newH.begin(), newH.end());
  return newX;
}

std::vector<Tensor> adam(const NodeContext &node) {
  Update update = updateOf(node, 4);
  double alpha = node.attribute("alpha", 0.9);
  double beta = node.attribute("beta", 0.999);
  double epsilon = node.attribute("epsilon", 1e-6);
  double post = node.attribute("norm_coefficient_post", 0.0);
  std::vector<Tensor> xs = update.at(node, 0), gs = update.at(node, 1),
                      vs = update.at(node, 2), hs = update.at(node, 3), newX,
                      newV, newH;
  // Bias correction from the second step on.
  Tensor step = cast(update.step, DType::Float64);
  Tensor corrected = cast(update.rate, DType::Float64) *
                     sqrt(constant(1, step) - pow(constant(beta, step), step)) /
                     (constant(1, step) - pow(constant(alpha, step), step));
  Tensor rate = where(update.step > int64_t(0), corrected,
                      cast(update.rate, DType::Float64));
  for (int64_t i = 0; i < update.count; ++i) {
    const Tensor &x = xs[i];
    Tensor g = regularized(node, x, gs[i]);
    Tensor v = constant(alpha, x) * vs[i] + constant(1 - alpha, x) * g;
    Tensor h = constant(beta, x) * hs[i] + constant(1 - beta, x) * (g * g);
    Tensor moved =
        x - cast(rate, x.dtype()) * (v / (sqrt(h) + constant(epsilon, h)));
    newX.push_back(constant(1 - post, x) * moved);
    newV.push_back(v);
    newH.push_back(h);
  }
  newX.insert(newX.end(), newV.begin(), newV.end());
  newX.insert(newX.end(), newH.begin(), newH.end());
  return newX;
}

std::vector<Tensor> momentum(const NodeContext &node) {
  Update update = updateOf(node, 3);
  double alpha = node.attribute("alpha", 0.0);
  double beta = node.attribute("beta", 0.0);
  std::string mode = node.attribute("mode", std::string("standard"));
  if (mode != "standard" && mode != "nesterov")
    node.fail("mode '" + mode + "' is not supported (standard or nesterov)");
  std::vector<Tensor> xs = update.at(node, 0), gs = update.at(node, 1),
                      vs = update.at(node, 2), newX, newV;
  // The gradient's coefficient is 1 at the first step.
  Tensor later = update.step > int64_t(0);
  for (int64_t i = 0; i < update.count; ++i) {
    const Tensor &x = xs[i];
    Tensor g = regularized(node, x, gs[i]);
    Tensor coefficient = where(later, constant(beta, x), constant(1, x));
    Tensor v = constant(alpha, x) * vs[i] + coefficient * g;
    Tensor rate = cast(update.rate, x.dtype());
    newX.push_back(mode == "standard"
                       ? x - rate * v
                       : x - rate * (g + constant(alpha, x) * v));
    newV.push_back(v);
  }
  newX.insert(newX.end(), newV.begin(), newV.end());
  return newX;
}

} // namespace

void lazyc::onnx::detail::addTrainingKernels(
    std::map<std::string, Kernel> &table) {
  table["ai.onnx.preview.training:Adagrad"] = adagrad;
  table["ai.onnx.preview.training:Adam"] = adam;
  table["ai.onnx.preview.training:Momentum"] = momentum;
}
