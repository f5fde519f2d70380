//===- Device.h - Where tensors live ----------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_DEVICE_H
#define LAZYC_API_DEVICE_H

#include <string>

namespace lazyc {

/// A device tensors live and run on. Only the CPU exists so far;
/// `Device::cuda(n)` comes with the GPU backend.
class Device {
public:
  enum class Kind { CPU };

  static Device cpu() { return Device(Kind::CPU, 0); }

  Kind kind() const { return deviceKind; }
  int index() const { return deviceIndex; }
  std::string str() const { return "cpu"; }

  bool operator==(const Device &other) const {
    return deviceKind == other.deviceKind && deviceIndex == other.deviceIndex;
  }

private:
  Device(Kind kind, int index) : deviceKind(kind), deviceIndex(index) {}
  Kind deviceKind;
  int deviceIndex;
};

} // namespace lazyc

#endif // LAZYC_API_DEVICE_H
