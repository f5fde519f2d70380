//===- TorchConv.cpp - libtorch conv2d for lazyc-bench-layers -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// at::conv2d as a libtorch user calls it (torch::nn::Conv2d's forward is
// this call): ATen picks its own kernel (oneDNN when it was built with it,
// else its im2col + GEMM "slow" path, or NNPACK). Threads as in
// benchmarks/train/TorchTrain.cpp: ATen's thread-pool setup changes the
// OpenMP thread count of the calling thread, which is put back.
//
//===----------------------------------------------------------------------===//

#include "TorchConv.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

std::string lazyc::bench::torchConvDescription() {
  return std::string("libtorch ") + TORCH_VERSION + ", " +
         std::to_string(at::get_num_threads()) + " intra-op thread(s), " +
         (at::hasMKLDNN() ? "oneDNN (mkldnn) built in"
                          : "no oneDNN (ATen's own convolution)");
}

void lazyc::bench::setTorchConvThreads(int threads) {
  int openmp = omp_get_max_threads();
  at::set_num_threads(threads);
  omp_set_num_threads(openmp);
}

namespace {
at::Tensor copyOf(const std::vector<float> &values,
                  std::vector<int64_t> shape) {
  return at::from_blob(const_cast<float *>(values.data()), shape, at::kFloat)
      .clone();
}
} // namespace

std::function<void(bool)> lazyc::bench::makeTorchConv(
    const std::vector<float> &x, std::vector<int64_t> xShape,
    const std::vector<float> &w, std::vector<int64_t> wShape,
    const std::vector<float> &b, int64_t stride, int64_t padding,
    std::vector<float> &out) {
  at::Tensor input = copyOf(x, xShape), weight = copyOf(w, wShape),
             bias = copyOf(b, {wShape[0]});
  return [=, &out](bool copyOut) {
    c10::InferenceMode guard;
    at::Tensor y =
        at::conv2d(input, weight, bias, {stride, stride}, {padding, padding});
    if (copyOut) {
      at::Tensor contiguous = y.contiguous();
      const float *data = contiguous.data_ptr<float>();
      out.assign(data, data + contiguous.numel());
    }
  };
}

std::function<void()> lazyc::bench::makeTorchConvBackward(
    const std::vector<float> &x, std::vector<int64_t> xShape,
    const std::vector<float> &w, std::vector<int64_t> wShape,
    const std::vector<float> &b, int64_t stride, int64_t padding,
    const std::vector<float> &g, std::vector<int64_t> gShape) {
  at::Tensor input = copyOf(x, xShape).set_requires_grad(true);
  at::Tensor weight = copyOf(w, wShape).set_requires_grad(true);
  at::Tensor bias = copyOf(b, {wShape[0]}).set_requires_grad(true);
  at::Tensor upstream = copyOf(g, gShape);
  return [=]() mutable {
    at::Tensor y =
        at::conv2d(input, weight, bias, {stride, stride}, {padding, padding});
    y.backward(upstream);
    input.mutable_grad().reset();
    weight.mutable_grad().reset();
    bias.mutable_grad().reset();
  };
}
