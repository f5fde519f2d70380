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

Tensor nn::leakyRelu(const Tensor &x, double slope, Where where) {
  return lazyc::where(At(x, where) > 0.0, x, At(x, where) * slope, where);
}
