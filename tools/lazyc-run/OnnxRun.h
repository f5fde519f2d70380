//===- OnnxRun.h - lazyc-run for ONNX models --------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc-run model.onnx: the model through lazyc::onnx and the public API
// (a file of its own: the API reports errors with exceptions, which the
// rest of this LLVM tool is built without).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TOOLS_LAZYC_RUN_ONNXRUN_H
#define LAZYC_TOOLS_LAZYC_RUN_ONNXRUN_H

#include "lazyc/Runtime/Device.h"

#include <cstdint>
#include <string>
#include <vector>

struct OnnxRunOptions {
  std::string path;
  /// Per model input: a .npy file, `random` (its declared shape) or
  /// `random:AxB`; missing ones are `random`.
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  std::string outputDir; ///< Outputs as DIR/out<i>.npy, if set.
  bool print = false;
  unsigned runs = 0; ///< Timed calls after the first (0: no timing).
  lazyc::Device device = lazyc::Device::cpu();
};

/// Runs the model; prints what went wrong and returns 1 on an error.
int runOnnxModel(const OnnxRunOptions &options);

#endif // LAZYC_TOOLS_LAZYC_RUN_ONNXRUN_H
