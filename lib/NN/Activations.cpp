//===- Activations.cpp - Activation functions -----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `At(x, where) * s` gives the op the user's line (an operator cannot take a
// location argument), so errors and LAZYC_EXPLAIN point at the caller.
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Activations.h"

#include <cmath>

using namespace lazyc;

Tensor nn::gelu(const Tensor &x, Where where) {
  Tensor phi = At(erf(At(x, where) * M_SQRT1_2, where), where) + 1.0;
  return At(At(x, where) * 0.5, where) * phi;
}

Tensor nn::leakyRelu(const Tensor &x, double slope, Where where) {
  return lazyc::where(At(x, where) > 0.0, x, At(x, where) * slope, where);
}

Tensor nn::softplus(const Tensor &x, Where where) {
  Tensor decay = exp(-At(abs(x, where), where), where); // in (0, 1]
  return At(relu(x, where), where) + log(At(decay, where) + 1.0, where);
}

Tensor nn::silu(const Tensor &x, Where where) {
  return At(x, where) * sigmoid(x, where);
}
