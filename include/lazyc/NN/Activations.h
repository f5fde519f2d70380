//===- Activations.h - Activation functions ---------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Activation functions as compositions of lazy ops: they fuse with the ops
// around them, and GradientTape differentiates them through their parts.
// relu, sigmoid and tanh are lazyc's own ops, also reachable as nn::relu etc.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_ACTIVATIONS_H
#define LAZYC_NN_ACTIVATIONS_H

#include "lazyc/API/Ops.h"

namespace lazyc::nn {

using lazyc::relu;
using lazyc::sigmoid;
using lazyc::tanh;

/// x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)): the exact GELU, not the tanh
/// approximation.
Tensor gelu(const Tensor &x, Where where = Where::current());

/// x where x > 0, else slope * x.
Tensor leakyRelu(const Tensor &x, double slope = 0.01,
                 Where where = Where::current());

/// log(1 + exp(x)), computed as max(x, 0) + log(1 + exp(-|x|)) so that it
/// neither overflows for large x nor loses small values.
Tensor softplus(const Tensor &x, Where where = Where::current());

/// x * sigmoid(x) (also known as swish).
Tensor silu(const Tensor &x, Where where = Where::current());

} // namespace lazyc::nn

#endif // LAZYC_NN_ACTIVATIONS_H
