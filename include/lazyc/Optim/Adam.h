//===- Adam.h - The Adam optimizer ------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_OPTIM_ADAM_H
#define LAZYC_OPTIM_ADAM_H

#include "lazyc/Optim/Optimizer.h"

namespace lazyc::optim {

/// Adam (Kingma & Ba) with bias correction, as torch.optim.Adam (L2 weight
/// decay added to the gradient, no AMSGrad). At step t (from 1):
///   g = grad + weightDecay * w
///   m = beta1 * m + (1 - beta1) * g
///   v = beta2 * v + (1 - beta2) * g^2
///   w = w - (learningRate / (1 - beta1^t)) * m
///           / (sqrt(v) / sqrt(1 - beta2^t) + epsilon)
/// t is a Variable updated inside the trace, so the bias corrections change
/// every step without changing the trace or its constants.
///
/// With `decoupledWeightDecay` (AdamW, Loshchilov & Hutter; as
/// torch.optim.AdamW) the decay is not added to the gradient but applied to
/// the weight before the update: w = w - learningRate * weightDecay * w,
/// then the step above with g = grad.
/// Parameters with a weight decay of their own (PyTorch's parameter
/// groups): GPT-style training decays the weights of matrix products but
/// not biases, norms' scales or embeddings.
struct ParameterGroup {
  std::vector<Variable *> parameters;
  double weightDecay = 0;
};

class Adam : public Optimizer {
public:
  struct Options {
    double learningRate = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weightDecay = 0;
    bool decoupledWeightDecay = false;
  };

  Adam(std::vector<Variable *> parameters, Options options,
       Where where = Where::current());
  /// Each group's parameters decay by the group's weightDecay
  /// (options.weightDecay is unused); parameters() lists the groups' in
  /// order.
  Adam(std::vector<ParameterGroup> groups, Options options,
       Where where = Where::current());
  ~Adam() override;

  const Options &options() const { return settings; }
  /// The number of steps recorded so far (a lazy scalar, Float32).
  Tensor stepCount() const { return steps.read(); }
  /// The step count ("adam.steps"), then each parameter's first moment
  /// ("<name>.m"), then each one's second moment ("<name>.v").
  std::vector<Variable *> stateVariables() override;

private:
  void update(const std::vector<Tensor> &gradients, Where where) override;

  Options settings;
  std::vector<double> weightDecays; ///< Per parameter.
  Variable steps;
  std::vector<Variable> firstMoments, secondMoments;
};

/// AdamW: Adam with decoupled weight decay (always), with
/// torch.optim.AdamW's default weight decay, 0.01.
class AdamW : public Adam {
public:
  struct Options : Adam::Options {
    Options() { weightDecay = 1e-2; }
  };

  AdamW(std::vector<Variable *> parameters, Options options,
        Where where = Where::current());
  AdamW(std::vector<ParameterGroup> groups, Options options,
        Where where = Where::current());
};

} // namespace lazyc::optim

#endif // LAZYC_OPTIM_ADAM_H
