//===- Device.cpp - The default device ------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the per-thread default device of creation functions
// and the questions about CUDA devices a program asks before naming one.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Device.h"
#include "lazyc/API/Error.h"
#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Cuda.h"

#include <algorithm>

using namespace lazyc;

bool lazyc::cudaAvailable(int index, std::string *whyNot) {
  std::string ignored;
  return jit::cudaTarget().isAvailable(Device::cuda(index),
                                       whyNot ? *whyNot : ignored);
}

int lazyc::cudaDeviceCount() { return std::max(0, lazyrt_cuda_device_count()); }

void lazyc::setAllowTf32(bool allow) { lazyrt_cuda_set_allow_tf32(allow); }

bool lazyc::allowTf32() { return lazyrt_cuda_get_allow_tf32() != 0; }

void lazyc::synchronize(Device device, SourceLocation where) {
  if (device == Device::cpu())
    return;
  if (llvm::Error error = jit::targetFor(device.kind()).synchronize(device))
    throw Error("synchronize", llvm::toString(std::move(error)), where);
}

static thread_local Device currentDefault;

Device lazyc::defaultDevice() { return currentDefault; }

DeviceScope::DeviceScope(Device device) : previous(currentDefault) {
  currentDefault = device;
}

DeviceScope::~DeviceScope() { currentDefault = previous; }
