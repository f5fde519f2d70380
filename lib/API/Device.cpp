//===- Device.cpp - The default device ------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the per-thread default device of creation functions.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Device.h"

using namespace lazyc;

static thread_local Device currentDefault;

Device lazyc::defaultDevice() { return currentDefault; }

DeviceScope::DeviceScope(Device device) : previous(currentDefault) {
  currentDefault = device;
}

DeviceScope::~DeviceScope() { currentDefault = previous; }
