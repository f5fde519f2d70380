//===- SGD.h - Stochastic gradient descent ----------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_OPTIM_SGD_H
#define LAZYC_OPTIM_SGD_H

#include "lazyc/Optim/Optimizer.h"

namespace lazyc::optim {

/// SGD with optional momentum and L2 weight decay, as torch.optim.SGD
/// (dampening 0, no Nesterov):
///   g = grad + weightDecay * w
///   v = momentum * v + g        (v starts at 0; without momentum v = g)
///   w = w - learningRate * v
class SGD : public Optimizer {
public:
  struct Options {
    double learningRate = 0.01;
    double momentum = 0;
    double weightDecay = 0;
  };

  SGD(std::vector<Variable *> parameters, Options options,
      Where where = Where::current());
  ~SGD() override;

  const Options &options() const { return settings; }
  /// Each parameter's velocity ("<name>.velocity"), none without momentum.
  std::vector<Variable *> stateVariables() override;

private:
  void update(const std::vector<Tensor> &gradients, Where where) override;

  Options settings;
  std::vector<Variable> velocities; ///< empty without momentum
};

} // namespace lazyc::optim

#endif // LAZYC_OPTIM_SGD_H
