//===- user.cpp - A user's program against the installed lazyc ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Links only lazyc::lazyc, as the README tells users to. Exits non-zero on a
// wrong value: 2x2 of ones times 2x2 of twos is 4 everywhere, and an error
// must name the op.
//
//===----------------------------------------------------------------------===//

#include "lazyc/lazyc.h"

#include <cstdio>
#include <string>

int main() {
  lazyc::Tensor a = lazyc::ones({2, 2});
  lazyc::Tensor b = lazyc::full({2, 2}, 2.0f);
  std::vector<float> c = lazyc::matmul(a, b).toVector<float>();
  for (float value : c)
    if (value != 4.0f) {
      std::fprintf(stderr, "matmul gave %f, expected 4\n", value);
      return 1;
    }
  try {
    (void)lazyc::matmul(a, lazyc::ones({3, 1}));
    std::fprintf(stderr, "expected a shape error\n");
    return 1;
  } catch (const lazyc::Error &error) {
    if (error.op() != "matmul") {
      std::fprintf(stderr, "error names '%s'\n", error.op().c_str());
      return 1;
    }
  }
  return 0;
}
