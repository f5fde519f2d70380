//===- Target.cpp - The targets by device kind ----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the lookup of a device kind's target.
//
//===----------------------------------------------------------------------===//

#include "lazyc/JIT/Target.h"

using namespace lazyc;
using namespace lazyc::jit;

const Target &jit::targetFor(Device::Kind kind) {
  switch (kind) {
  case Device::Kind::CPU:
    return cpuTarget();
  case Device::Kind::CUDA:
    return cudaTarget();
  }
  return cpuTarget();
}
