//===- staged.cpp - Issue 20's examples against an installed lazyc --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// cond, whileLoop, a staged function with a signature, and its export, as
// docs/API.md shows them. Prints values run.cmake checks (by hand:
// cond doubles [1, -2, 3]; ten halvings of [1, -2, 3] are x / 1024; the
// step's loss for the batches below is 0.5 * mean((x @ w - y)^2)).
//
//===----------------------------------------------------------------------===//

#include <lazyc/lazyc.h>

#include <cstdio>
#include <string>

using namespace lazyc;

int main(int argc, char **argv) {
  std::string path = argc > 1 ? argv[1] : "model.lazyc";
  Tensor x = Tensor::fromVector<float>({1, -2, 3}, {3});
  Tensor y = cond(sum(x) > 0.0f, [&] { return x * 2.0f; }, [&] { return -x; });
  auto [i, acc] = whileLoop(
      [](Tensor i, Tensor) { return i < 10; },
      [](Tensor i, Tensor acc) { return std::tuple{i + 1, acc * 0.5f}; },
      std::tuple{zeros({}, DType::Int32), x});
  std::vector<float> yv = y.toVector<float>(), av = acc.toVector<float>();
  std::printf("cond: %g %g %g\n", yv[0], yv[1], yv[2]);
  std::printf("whileLoop: %d %g %g %g\n", i.item<int32_t>(), av[0] * 1024,
              av[1] * 1024, av[2] * 1024);

  Variable w(Tensor::fromVector<float>({1, 0, 0, 1}, {2, 2}), "w");
  auto step = lazyc::function("train_step",
                              [&](Tensor x, Tensor labels) {
                                Tensor error = matmul(x, w.read()) - labels;
                                return mean(error * error) * 0.5f;
                              },
                              {TensorSpec({-1, 2}, DType::Float32, "x"),
                               TensorSpec({-1, 2}, DType::Float32, "labels")});
  for (int64_t batch : {1, 2, 3}) {
    std::vector<float> xs, ls;
    for (int64_t r = 0; r < batch; ++r) {
      xs.insert(xs.end(), {1.0f, 2.0f});
      ls.insert(ls.end(), {0.0f, 0.0f});
    }
    Tensor loss = step(Tensor::fromVector<float>(xs, {batch, 2}),
                       Tensor::fromVector<float>(ls, {batch, 2}));
    std::printf("loss[%lld]: %g\n", static_cast<long long>(batch),
                loss.item<float>());
  }
  for (const ConcreteFunction &c : step.concreteFunctions())
    std::printf("%s\n", c.signature().c_str());
  lazyc::save(step, path);
  LoadedFunction loaded = lazyc::load(path);
  Tensor again = loaded({Tensor::fromVector<float>({1, 2}, {1, 2}),
                         Tensor::fromVector<float>({0, 0}, {1, 2})})
                     .front();
  std::printf("loaded: %g\n", again.item<float>());
  return 0;
}
