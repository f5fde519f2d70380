//===- Device.h - Where tensors live ----------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares how programs choose devices: `Device` itself (shared
// with every layer, lazyc/Runtime/Device.h) and the default device that
// creation functions use.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_DEVICE_H
#define LAZYC_API_DEVICE_H

#include "lazyc/API/SourceLocation.h"
#include "lazyc/Runtime/Device.h"

#include <string>

namespace lazyc {

/// Whether CUDA device `index` can run lazyc's traces in this process; if
/// not and `whyNot` is given, it says why in a sentence ("libcuda.so.1 not
/// found (no NVIDIA driver on this machine): ...", "no CUDA device 3 (this
/// machine has 1)").
bool cudaAvailable(int index = 0, std::string *whyNot = nullptr);

/// The number of CUDA devices; 0 where the driver cannot be used.
int cudaDeviceCount();

/// Lets float32 matrix products on CUDA devices run on TF32 tensor cores
/// (inputs rounded to 10 mantissa bits, products accumulated in f32; about
/// 7x the speed on an H100) when `allow` is true. Off by default: f32
/// products compute in full f32. Read each time a product runs, so it
/// takes effect without recompiling; the CPU is unaffected.
void setAllowTf32(bool allow);

/// Whether float32 products on CUDA devices may use TF32 (false unless
/// setAllowTf32(true) was called).
bool allowTf32();

/// The device creation functions (`zeros`, `randomUniform`, `fromVector`,
/// ...) put tensors on: the innermost DeviceScope's on this thread, else the
/// CPU. Every other op runs where its operands live.
Device defaultDevice();

/// Waits until `device` has run the work queued on it. A GPU runs traces
/// asynchronously: sync() and an op that materializes return once the work
/// is queued, and reading a value (toVector, item, printing) waits for it.
/// Call this to time GPU work or to see whether queued kernels failed: a
/// failure is a lazyc::Error naming the driver's error. On the CPU, where a
/// trace has run when it is materialized, it does nothing.
void synchronize(Device device = defaultDevice(),
                 SourceLocation where = SourceLocation::current());

/// Makes `device` this thread's default device while it lives:
/// `{ DeviceScope scope(Device::cuda()); Tensor z = zeros({8}); }`.
class DeviceScope {
public:
  explicit DeviceScope(Device device);
  ~DeviceScope();
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

private:
  Device previous;
};

} // namespace lazyc

#endif // LAZYC_API_DEVICE_H
