//===- tour.cpp - lazyc in one page ---------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The program of the README: ordinary C++ on lazyc::Tensor values; every op
// is recorded, and reading a value compiles and runs the pending work as one
// fused trace.
//
//===----------------------------------------------------------------------===//

#include <lazyc/lazyc.h>

#include <iostream>

using namespace lazyc;

int main() {
  Tensor a = Tensor::fromVector<float>({1, 1, 1, 1}, {2, 2});
  Tensor b = full({2, 2}, 2.0f);
  Tensor c = matmul(a, b); // recorded, nothing runs yet
  std::cout << c << "\n";  // runs: [[4, 4], [4, 4]]

  Tensor x = ones({}) * 3.0f; // a scalar
  Tensor counter = zeros({});
  while (x > 0.0f) { // a scalar bool tensor converts to bool
    x = x - 1.0f;
    counter = counter + 1.0f;
  }
  std::cout << counter.item<float>() << "\n"; // 3

  Tensor v = randomUniform({1 << 20}, -1.0f, 1.0f, /*seed=*/42);
  Tensor y = relu(tanh(exp(v * 0.5f + 1.0f)) * 2.0f - 1.0f); // one kernel
  std::vector<float> host = y.toVector<float>();
  Tensor s = sum(softmax(reshape(v, {1024, 1024}), /*axis=*/1), {1});
  sync();                         // materializes every live tensor, one trace
  std::cout << metrics() << "\n"; // traces compiled, cache hits, kernels run
  return 0;
}
