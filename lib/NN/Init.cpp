//===- Init.cpp - Seeded parameter initializers ---------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Init.h"

#include <cmath>
#include <string>

using namespace lazyc;

static void checkFan(const char *op, const char *what, int64_t fan,
                     Where where) {
  if (fan <= 0)
    throw Error(
        op, std::string(what) + " must be positive, got " + std::to_string(fan),
        where);
}

Tensor nn::kaimingUniform(Shape shape, int64_t fanIn, int64_t seed, DType dtype,
                          Where where) {
  checkFan("kaimingUniform", "fanIn", fanIn, where);
  double bound = std::sqrt(6.0 / static_cast<double>(fanIn));
  return randomUniform(std::move(shape), -bound, bound, seed, dtype, where);
}

Tensor nn::glorotUniform(Shape shape, int64_t fanIn, int64_t fanOut,
                         int64_t seed, DType dtype, Where where) {
  checkFan("glorotUniform", "fanIn", fanIn, where);
  checkFan("glorotUniform", "fanOut", fanOut, where);
  double bound = std::sqrt(6.0 / static_cast<double>(fanIn + fanOut));
  return randomUniform(std::move(shape), -bound, bound, seed, dtype, where);
}

Tensor nn::normal(Shape shape, double stddev, int64_t seed, DType dtype,
                  Where where) {
  if (!(stddev > 0))
    throw Error("normal",
                "the standard deviation must be positive, got " +
                    std::to_string(stddev),
                where);
  return randomNormal(std::move(shape), 0, stddev, seed, dtype, where);
}

Tensor nn::initialize(Init init, Shape shape, int64_t fanIn, int64_t fanOut,
                      int64_t seed, DType dtype, Where where) {
  switch (init) {
  case Init::KaimingUniform:
    return kaimingUniform(std::move(shape), fanIn, seed, dtype, where);
  case Init::GlorotUniform:
    return glorotUniform(std::move(shape), fanIn, fanOut, seed, dtype, where);
  case Init::Zeros:
    return zeros(std::move(shape), dtype, where);
  case Init::Normal:
    return normal(std::move(shape), 0.02, seed, dtype, where);
  }
  throw Error("initialize", "unknown initializer", where);
}
