//===- export_function.cpp - A staged function saved and loaded -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `lazyc-export-function save model.lazyc` stages a small classifier step
// (a Variable weight matrix, a data-dependent branch, a step counter),
// calls it on a fixed batch and saves it; `lazyc-export-function load
// model.lazyc` loads it in a new process and calls it on the same batch.
// Both print the scores and the counter: the loaded function computes what
// the original did. `lazyc-run model.lazyc --input=x.npy` runs it too.
//
//===----------------------------------------------------------------------===//

#include <lazyc/lazyc.h>

#include <cstdio>
#include <cstring>
#include <string>

using namespace lazyc;

namespace {

Tensor batch() {
  return Tensor::fromVector<float>({0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f},
                                   {2, 3});
}

void print(const char *what, const Tensor &scores, float steps) {
  std::printf("%s:", what);
  for (float value : scores.toVector<float>())
    std::printf(" %.6g", value);
  std::printf(" | steps %.0f\n", steps);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 || (std::strcmp(argv[1], "save") != 0 &&
                    std::strcmp(argv[1], "load") != 0)) {
    std::fprintf(stderr, "usage: %s save|load FILE.lazyc\n", argv[0]);
    return 2;
  }
  std::string path = argv[2];
  try {
    if (std::strcmp(argv[1], "save") == 0) {
      Variable w(Tensor::fromVector<float>({1, -2, 0.5f, 3, -1, 0.25f}, {3, 2}),
                 "w");
      Variable steps(zeros({}), "steps");
      auto classify = lazyc::function(
          "classify",
          [&](Tensor x) {
            steps.assignAdd(ones({}));
            Tensor logits = matmul(x, w.read());
            // Confident batches are sharpened, the others smoothed.
            return cond(
                max(logits) > 2.0f, [&] { return softmax(logits * 2.0f, 1); },
                [&] { return softmax(logits * 0.5f, 1); });
          },
          {TensorSpec({2, 3}, DType::Float32, "x")});
      Tensor scores = classify(batch());
      print("original", scores, steps.read().item<float>());
      lazyc::save(classify, path);
      return 0;
    }
    LoadedFunction classify = lazyc::load(path);
    std::printf("loaded %s: %s\n", classify.name().c_str(),
                classify.signatures().front().c_str());
    // The saved counter is 1; this call makes it 2 here, as a second call
    // would have in the saving process.
    Tensor scores = classify(batch());
    print("loaded", scores,
          classify.variable("steps").read().item<float>() - 1);
  } catch (const Error &error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
