//===- TorchBaseline.h - libtorch baseline of lazyc-bench-api ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch side of lazyc-bench-api, behind a header with no torch (or
// lazyc) types: TorchBaseline.cpp implements it with libtorch, compiled in its
// own C++17 translation unit; NoTorchBaseline.cpp is the stub linked when
// CMake did not find libtorch.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_BENCHMARKS_API_TORCHBASELINE_H
#define LAZYC_BENCHMARKS_API_TORCHBASELINE_H

#include <functional>
#include <string>
#include <vector>

namespace lazyc::bench {

/// "libtorch 1.13.0, N intra-op threads", or "" when lazyc-bench-api was
/// built without libtorch.
std::string torchDescription();

/// A callable that runs `ops` eager libtorch ops on a float32 tensor holding
/// `input` (created once, here), alternating `y = y * 0.999f` and
/// `y = y + 0.001f`, and copies the result into a fresh vector in `out`.
/// With `inferenceMode`, the ops run under c10::InferenceMode (no autograd
/// bookkeeping). Returns an empty function without libtorch.
std::function<void()> makeTorchScalarChain(const std::vector<float> &input,
                                           int ops, bool inferenceMode,
                                           std::vector<float> &out);

} // namespace lazyc::bench

#endif // LAZYC_BENCHMARKS_API_TORCHBASELINE_H
