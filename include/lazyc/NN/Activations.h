//===- Activations.h - Activation functions ---------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Activation functions as compositions of lazy ops: they fuse with the ops
// around them, and GradientTape differentiates them through their parts.
// relu, sigmoid, tanh, gelu, softplus and silu are lazyc's own functions
// (lazyc/API/Ops.h), also reachable as nn::relu etc.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_ACTIVATIONS_H
#define LAZYC_NN_ACTIVATIONS_H

#include "lazyc/API/Ops.h"

namespace lazyc::nn {

using lazyc::gelu;
using lazyc::GeluApproximation;
using lazyc::relu;
using lazyc::sigmoid;
using lazyc::silu;
using lazyc::softplus;
using lazyc::tanh;

/// x where x > 0, else slope * x.
Tensor leakyRelu(const Tensor &x, double slope = 0.01,
                 Where where = Where::current());

} // namespace lazyc::nn

#endif // LAZYC_NN_ACTIVATIONS_H
