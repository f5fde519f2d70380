//===- TorchBaseline.cpp - libtorch eager baseline for lazyc-bench-api ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch eager baseline: the same alternating scalar ops as lazyc's
// cached 100-op trace, one ATen dispatch per op (at::Tensor is torch::Tensor;
// ATen's header is much lighter than torch/torch.h). Built only when CMake
// finds libtorch, as C++17 and in a translation unit of its own (libtorch
// 1.13's headers are not written for C++20 or LLVM's warning flags).
//
// Threads: ATen's OpenMP calls resolve to libomp in this process, the
// runtime lazyc's fused code and the reference kernels run on, and ATen's
// lazy thread-pool setup calls omp_set_num_threads with its own default
// (1 here), which would make every later lazyc and reference kernel of this
// thread single-threaded. So this file forces that setup once, up front, and
// puts the OpenMP thread count back. libtorch's own count is left at its
// default: on 16 elements every ATen elementwise op runs serially anyway
// (its grain size is 32768 elements).
//
//===----------------------------------------------------------------------===//

#include "TorchBaseline.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <optional>

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

namespace {
/// ATen's intra-op thread count, set up (once) without changing the OpenMP
/// thread count of the calling thread.
int atenThreads() {
  static int threads = [] {
    int openmp = omp_get_max_threads();
    int aten = at::get_num_threads();
    omp_set_num_threads(openmp);
    return aten;
  }();
  return threads;
}
} // namespace

std::string lazyc::bench::torchDescription() {
  return std::string("libtorch ") + TORCH_VERSION + ", " +
         std::to_string(atenThreads()) + " intra-op thread(s) (its default)";
}

std::function<void()>
lazyc::bench::makeTorchScalarChain(const std::vector<float> &input, int ops,
                                   bool inferenceMode,
                                   std::vector<float> &out) {
  atenThreads();
  at::Tensor x = at::from_blob(const_cast<float *>(input.data()),
                               {static_cast<int64_t>(input.size())}, at::kFloat)
                     .clone();
  return [x, ops, inferenceMode, &out] {
    std::optional<c10::InferenceMode> guard;
    if (inferenceMode)
      guard.emplace();
    at::Tensor y = x;
    for (int i = 0; i < ops; ++i)
      y = i % 2 == 0 ? y * 0.999f : y + 0.001f;
    const float *data = y.data_ptr<float>();
    out = std::vector<float>(data, data + y.numel());
  };
}
