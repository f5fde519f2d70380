//===- gpu.cpp - The same program on an NVIDIA GPU ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A trace on the GPU: the device is named once, the code is the CPU's. The
// result is compared with the same program on the CPU. Without a usable GPU
// the program says why and exits successfully.
//
//===----------------------------------------------------------------------===//

#include <lazyc/lazyc.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

using namespace lazyc;

/// softmax(relu(x @ w + 1)) for x and w made on `device`.
static std::vector<float> run(Device device) {
  DeviceScope scope(device); // creation functions make tensors there
  Tensor x = randomUniform({512, 256}, -1.0f, 1.0f, /*seed=*/1);
  Tensor w = randomUniform({256, 128}, -0.1f, 0.1f, /*seed=*/2);
  Tensor y = softmax(relu(matmul(x, w) + 1.0f), 1); // one trace
  return y.toVector<float>();                       // device -> host
}

int main() {
  std::string whyNot;
  if (!cudaAvailable(0, &whyNot)) {
    std::cout << "No GPU to run on: " << whyNot << "\n"
              << "(lazyc still compiles for one: lazyc-opt "
                 "--lazy-gpu-pipeline prints the PTX.)\n";
    return 0;
  }
  std::vector<float> onGpu = run(Device::cuda());
  std::vector<float> onCpu = run(Device::cpu());
  double largest = 0;
  for (size_t i = 0; i < onGpu.size(); ++i)
    largest = std::max(largest, double(std::abs(onGpu[i] - onCpu[i])));
  std::cout << "softmax(relu(x @ w + 1)) on cuda:0 and on the CPU, "
            << onGpu.size() << " values: largest difference " << largest
            << "\n";
  std::cout << metrics() << "\n";
  return largest < 1e-5 ? 0 : 1;
}
