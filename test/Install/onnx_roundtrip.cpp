//===- onnx_roundtrip.cpp - lazyc::onnx from the installed package --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// relu(2 x - 1) over a batch of any size, saved as an ONNX model and run
// again through lazyc::onnx::load: prints "onnx: 1 0 0 3".
//
//===----------------------------------------------------------------------===//

#include <lazyc/Onnx/Onnx.h>
#include <lazyc/lazyc.h>

#include <cstdio>
#include <vector>

using namespace lazyc;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: onnx_roundtrip model.onnx\n");
    return 2;
  }
  auto f = lazyc::function("relu_affine",
                           [](Tensor x) { return relu(x * 2.0f - 1.0f); },
                           {TensorSpec({-1, 2}, DType::Float32, "x")});
  f(ones({3, 2}));
  lazyc::onnx::save(f, argv[1]);
  lazyc::onnx::Model model = lazyc::onnx::load(argv[1]);
  std::vector<float> y =
      model(Tensor::fromVector<float>({1, -1, 0.5f, 2}, {2, 2}))
          .toVector<float>();
  std::printf("onnx: %g %g %g %g\n", y[0], y[1], y[2], y[3]);
  return 0;
}
