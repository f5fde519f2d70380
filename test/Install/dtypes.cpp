//===- dtypes.cpp - DTypes across the library's boundary ------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Passes DTypes that the library returned straight back into it. Built with
// g++ against the library built by clang, `dtypeName(relu(x).dtype())`
// crashed: the DType was 8 bits wide, clang does not widen what it returns
// and assumes its 8-bit arguments were widened by the caller, g++ neither.
//
//===----------------------------------------------------------------------===//

#include <lazyc/lazyc.h>

#include <iostream>

int main() {
  using namespace lazyc;
  Tensor x = Tensor::fromVector<float>({-1, 2, -3, 4}, {2, 2});
  std::cout << dtypeName(relu(x).dtype()) << " "
            << dtypeName(cast(x, DType::Int32).dtype()) << " "
            << dtypeName(cast(relu(x), cast(x, DType::Float64).dtype()).dtype())
            << " " << dtypeName((x > 0.0f).dtype()) << "\n";
  std::cout << sum(cast(relu(x), relu(x).dtype())).item<float>() << "\n";
  return 0;
}
