//===- OnnxRun.cpp - lazyc-run for ONNX models ----------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "OnnxRun.h"

#include "lazyc/API/Ops.h"
#include "lazyc/API/Serialization.h"
#include "lazyc/Onnx/Onnx.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

using namespace lazyc;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "lazyc-run: error: %s\n", message.c_str());
  return 1;
}

/// "4x8" as {4, 8}; nothing for anything else.
bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  shape.clear();
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('x', begin);
    std::string part = text.substr(begin, end - begin);
    if (part.empty() ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return false;
    shape.push_back(std::stoll(part));
    if (end == std::string::npos)
      return true;
    begin = end + 1;
  }
  return false;
}

} // namespace

int runOnnxModel(const OnnxRunOptions &options) {
  try {
    onnx::Model model = onnx::load(options.path);
    std::vector<Tensor> arguments;
    for (size_t index = 0; index < model.inputs().size(); ++index) {
      const onnx::ValueInfo &info = model.inputs()[index];
      std::string spec =
          index < options.inputs.size() ? options.inputs[index] : "random";
      Tensor value;
      if (spec.rfind("random", 0) == 0) {
        std::vector<int64_t> shape = info.shape;
        if (spec.rfind("random:", 0) == 0) {
          if (!parseShape(spec.substr(7), shape))
            return fail("input '" + info.name + "': bad shape '" +
                        spec.substr(7) + "' (expected e.g. random:4x8)");
        } else if (std::count(shape.begin(), shape.end(), -1)) {
          return fail("input '" + info.name +
                      "' has unknown dimensions: give a .npy file or "
                      "--input=random:AxB");
        }
        value = cast(randomUniform(shape, -1, 1, int64_t(options.seed + index),
                                   DType::Float64),
                     info.dtype);
      } else {
        value = loadNpy(spec);
      }
      arguments.push_back(value.to(options.device));
    }
    std::vector<Tensor> results;
    std::vector<double> times;
    for (unsigned run = 0; run <= options.runs; ++run) {
      auto start = std::chrono::steady_clock::now();
      results = model(arguments);
      for (const Tensor &result : results)
        (void)result.to(Device::cpu()).toVector<double>();
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
    if (!options.outputDir.empty()) {
      std::filesystem::create_directories(options.outputDir);
      for (size_t index = 0; index < results.size(); ++index)
        saveNpy(results[index].to(Device::cpu()),
                options.outputDir + "/out" + std::to_string(index) + ".npy");
    }
    if (options.print)
      for (size_t index = 0; index < results.size(); ++index) {
        const Tensor &result = results[index];
        std::vector<double> values =
            result.to(Device::cpu()).toVector<double>();
        std::printf("%s: %s [", model.outputs()[index].name.c_str(),
                    dtypeName(result.dtype()));
        for (size_t d = 0; d < result.shape().size(); ++d)
          std::printf("%s%lld", d ? ", " : "",
                      static_cast<long long>(result.shape()[d]));
        std::printf("]");
        for (size_t i = 0; i < std::min<size_t>(values.size(), 8); ++i)
          std::printf("%s%g", i ? ", " : " ", values[i]);
        std::printf("%s\n", values.size() > 8 ? ", ..." : "");
      }
    if (options.runs > 0) {
      // The first call records, compiles and runs; the others hit the cache.
      std::vector<double> timed(times.begin() + 1, times.end());
      std::sort(timed.begin(), timed.end());
      std::printf("first call: %.1f ms (compiles included)\n"
                  "run: median %.3f ms over %zu runs\n",
                  times.front(), timed[timed.size() / 2], timed.size());
    }
    return 0;
  } catch (const Error &error) {
    return fail(error.what());
  }
}
