//===- NoTorchTrain.cpp - lazyc-bench-train without libtorch --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Linked instead of TorchTrain.cpp when CMake did not find libtorch (Debian:
// libtorch-dev): the comparison is reported as skipped.
//
//===----------------------------------------------------------------------===//

#include "TorchTrain.h"

std::string lazyc::bench::torchDescription() { return ""; }

void lazyc::bench::setTorchThreads(int) {}

std::function<float()> lazyc::bench::makeTorchTrainStep(const TrainSetup &) {
  return nullptr;
}
