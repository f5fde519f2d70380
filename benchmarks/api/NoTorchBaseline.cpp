//===- NoTorchBaseline.cpp - lazyc-bench-api without libtorch -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Linked instead of TorchBaseline.cpp when CMake did not find libtorch
// (Debian: libtorch-dev): the comparison is reported as skipped.
//
//===----------------------------------------------------------------------===//

#include "TorchBaseline.h"

std::string lazyc::bench::torchDescription() { return ""; }

std::function<void()>
lazyc::bench::makeTorchScalarChain(const std::vector<float> &, int, bool,
                                   std::vector<float> &) {
  return nullptr;
}
