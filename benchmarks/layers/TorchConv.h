//===- TorchConv.h - libtorch side of lazyc-bench-layers --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch baseline of lazyc-bench-layers behind a header with no torch
// (or lazyc) types: TorchConv.cpp implements it in its own C++17
// translation unit (libtorch 1.13's headers are not written for C++20).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_BENCHMARKS_LAYERS_TORCHCONV_H
#define LAZYC_BENCHMARKS_LAYERS_TORCHCONV_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lazyc::bench {

/// "libtorch 1.13.0, N intra-op thread(s), mkldnn on/off".
std::string torchConvDescription();

/// Sets libtorch's intra-op threads, leaving the calling thread's OpenMP
/// thread count as it was (ATen's setup changes it).
void setTorchConvThreads(int threads);

/// A callable running at::conv2d(x, w, b, stride, padding) in eager mode
/// (inference mode, as a forward pass without autograd) on copies of the
/// given row-major data; each call writes the output into `out` when
/// `copyOut` is set (for the correctness check), else only computes it.
std::function<void(bool copyOut)>
makeTorchConv(const std::vector<float> &x, std::vector<int64_t> xShape,
              const std::vector<float> &w, std::vector<int64_t> wShape,
              const std::vector<float> &b, int64_t stride, int64_t padding,
              std::vector<float> &out);

/// The same convolution forward and backward (autograd: the gradients of
/// sum(y * g) with respect to x, w and b, g fixed), as a training step
/// computes them.
std::function<void()>
makeTorchConvBackward(const std::vector<float> &x, std::vector<int64_t> xShape,
                      const std::vector<float> &w, std::vector<int64_t> wShape,
                      const std::vector<float> &b, int64_t stride,
                      int64_t padding, const std::vector<float> &g,
                      std::vector<int64_t> gShape);

} // namespace lazyc::bench

#endif // LAZYC_BENCHMARKS_LAYERS_TORCHCONV_H
