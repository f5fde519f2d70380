//===- GradientCheck.h - Finite differences for the layer tests -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The layer tests' gradient check: the tape's gradient of a scalar built
// from a layer against central finite differences of the same function in
// float64, element by element, and deterministic test data.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_UNITTESTS_NN_GRADIENTCHECK_H
#define LAZYC_UNITTESTS_NN_GRADIENTCHECK_H

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace lazyc::test {

/// Reproducible values in [-1, 1) (a linear congruential generator).
inline std::vector<double> testValues(size_t count, uint64_t seed) {
  std::vector<double> values(count);
  uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (double &value : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    value = double(state >> 11) * 0x1.0p-53 * 2 - 1;
  }
  return values;
}

inline int64_t elementsOf(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// Checks d sum(f(inputs) * weights) / d inputs from GradientTape against
/// central differences with step `step`, in Float64. `weights` are fixed
/// random values of f's result shape, so that every output element counts
/// differently.
inline void expectGradientsMatchDifferences(
    const std::function<Tensor(const std::vector<Tensor> &)> &f,
    const std::vector<std::vector<double>> &values,
    const std::vector<std::vector<int64_t>> &shapes, double tolerance = 1e-6,
    double step = 1e-5) {
  auto tensorsOf = [&](const std::vector<std::vector<double>> &data) {
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < data.size(); ++i)
      tensors.push_back(Tensor::fromVector<double>(data[i], shapes[i]));
    return tensors;
  };
  Tensor probe = f(tensorsOf(values));
  Tensor weights = Tensor::fromVector<double>(
      testValues(static_cast<size_t>(probe.numel()), 99), probe.shape());
  auto loss = [&](const std::vector<Tensor> &inputs) {
    return sum(f(inputs) * weights);
  };
  std::vector<Tensor> inputs = tensorsOf(values);
  std::vector<Tensor> gradients;
  {
    GradientTape tape;
    for (const Tensor &input : inputs)
      tape.watch(input);
    Tensor target = loss(inputs);
    gradients = tape.gradient(target, inputs);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<double> analytic = gradients[i].toVector<double>();
    ASSERT_EQ(analytic.size(), values[i].size());
    for (size_t j = 0; j < values[i].size(); ++j) {
      std::vector<std::vector<double>> plus = values, minus = values;
      plus[i][j] += step;
      minus[i][j] -= step;
      double numeric = (loss(tensorsOf(plus)).item<double>() -
                        loss(tensorsOf(minus)).item<double>()) /
                       (2 * step);
      EXPECT_NEAR(analytic[j], numeric,
                  tolerance * std::max(1.0, std::abs(numeric)))
          << "input " << i << ", element " << j;
    }
  }
}

} // namespace lazyc::test

#endif // LAZYC_UNITTESTS_NN_GRADIENTCHECK_H
