//===- Init.h - Seeded parameter initializers -------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Initial values for parameters. Each is an ordinary lazy tensor (a random
// op with its seed), so the same seed gives the same numbers in lazy and
// eager mode. A Variable's initial values are computed in a trace of their
// own, just before the first trace that reads them.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_INIT_H
#define LAZYC_NN_INIT_H

#include "lazyc/API/Ops.h"

namespace lazyc::nn {

/// The initializers Linear knows by name.
enum class Init {
  KaimingUniform, ///< He et al.: U(-b, b), b = sqrt(6 / fanIn); for ReLU.
  GlorotUniform,  ///< Glorot & Bengio: b = sqrt(6 / (fanIn + fanOut)).
  Zeros,
  Normal, ///< N(0, 0.02^2), GPT-2's (nn::normal for another deviation).
};

/// U(-sqrt(6 / fanIn), sqrt(6 / fanIn)) in `shape`.
Tensor kaimingUniform(Shape shape, int64_t fanIn, int64_t seed,
                      DType dtype = DType::Float32,
                      Where where = Where::current());

/// U(-sqrt(6 / (fanIn + fanOut)), sqrt(6 / (fanIn + fanOut))) in `shape`.
Tensor glorotUniform(Shape shape, int64_t fanIn, int64_t fanOut, int64_t seed,
                     DType dtype = DType::Float32,
                     Where where = Where::current());

/// N(0, stddev^2) in `shape`, as torch.nn.init.normal_ (GPT-2 initializes
/// its weights with stddev 0.02). `stddev` must be positive.
Tensor normal(Shape shape, double stddev, int64_t seed,
              DType dtype = DType::Float32, Where where = Where::current());

/// `init`'s values for a tensor of `shape` (the seed is unused by Zeros).
Tensor initialize(Init init, Shape shape, int64_t fanIn, int64_t fanOut,
                  int64_t seed, DType dtype = DType::Float32,
                  Where where = Where::current());

} // namespace lazyc::nn

#endif // LAZYC_NN_INIT_H
