//===- ExportTest.cpp - Saving staged functions and loading them ----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Expected values are computed by plain loops here; a loaded function must
// also agree with the original it was saved from.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using namespace lazyc;
using lazyc::test::expectError;

namespace {

std::string temporaryPath(const std::string &name) {
  return testing::TempDir() + "lazyc-export-" + name;
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// A model step: y = relu(x @ w + b) where sum(x) > 0, else -(x @ w); its
/// call count is a Variable it updates.
struct Model {
  Variable w{Tensor::fromVector<float>({0.5f, -1.0f, 2.0f, 0.25f, 1.0f, -0.5f},
                                       {3, 2}),
             "w"};
  Variable b{Tensor::fromVector<float>({0.1f, -0.2f}, {2}), "b"};
  Variable calls{zeros({}), "calls"};
};

std::vector<float> expectedStep(const std::vector<float> &x, int64_t rows) {
  const float w[6] = {0.5f, -1.0f, 2.0f, 0.25f, 1.0f, -0.5f};
  const float b[2] = {0.1f, -0.2f};
  float total = 0;
  for (float v : x)
    total += v;
  std::vector<float> y;
  for (int64_t r = 0; r < rows; ++r)
    for (int c = 0; c < 2; ++c) {
      float dot = 0;
      for (int k = 0; k < 3; ++k)
        dot += x[r * 3 + k] * w[k * 2 + c];
      y.push_back(total > 0 ? std::max(dot + b[c], 0.0f) : -dot);
    }
  return y;
}

TEST(ExportTest, ALoadedFunctionComputesWhatTheOriginalDid) {
  Model model;
  auto step = lazyc::function("step",
                              [&](Tensor x) {
                                model.calls.assignAdd(ones({}));
                                Tensor h = matmul(x, model.w.read());
                                return cond(
                                    sum(x) > 0.0f,
                                    [&] { return relu(h + model.b.read()); },
                                    [&] { return -h; });
                              },
                              {TensorSpec({2, 3}, DType::Float32, "x")});
  std::vector<float> xp = {1, 2, -0.5f, 0.25f, -1, 3};
  std::vector<float> xn = {-1, -2, 0.5f, 0.25f, -1, -3};
  Tensor positive = Tensor::fromVector<float>(xp, {2, 3});
  Tensor negative = Tensor::fromVector<float>(xn, {2, 3});
  EXPECT_EQ(step(positive).toVector<float>(), expectedStep(xp, 2));

  std::string path = temporaryPath("step.lazyc");
  lazyc::save(step, path);
  // Saving traced the body again but changed nothing.
  EXPECT_EQ(model.calls.read().item<float>(), 1.0f);

  LoadedFunction loaded = lazyc::load(path);
  EXPECT_EQ(loaded.name(), "step");
  ASSERT_EQ(loaded.signatures().size(), 1u);
  EXPECT_EQ(loaded.signatures()[0],
            "step(x: Float32 [2, 3]) -> Float32 [2, 2]");
  EXPECT_EQ(loaded.variableNames(),
            (std::vector<std::string>{"b", "calls", "w"}));
  // The saved state: one call so far.
  EXPECT_EQ(loaded.variable("calls").read().item<float>(), 1.0f);
  for (int round = 0; round < 2; ++round) {
    std::vector<Tensor> out = loaded({negative});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].toVector<float>(), expectedStep(xn, 2));
    out = loaded({positive});
    EXPECT_EQ(out[0].toVector<float>(), expectedStep(xp, 2));
  }
  EXPECT_EQ(loaded.variable("calls").read().item<float>(), 5.0f);
  std::remove(path.c_str());
}

TEST(ExportTest, ALoadedFunctionIsCalledAsTheSavedOneWas) {
  auto affine = lazyc::function(
      "affine", [](Tensor x, Tensor y) { return x * 3.0f + y; });
  auto split = lazyc::function(
      "split", [](Tensor x) { return std::make_tuple(x + 1.0f, x - 1.0f); });
  Tensor x = Tensor::fromVector<float>({1, 2}, {2});
  Tensor y = Tensor::fromVector<float>({10, 20}, {2});
  (void)affine(x, y);
  (void)split(x);
  std::string affinePath = temporaryPath("called-affine.lazyc");
  std::string splitPath = temporaryPath("called-split.lazyc");
  lazyc::save(affine, affinePath);
  lazyc::save(split, splitPath);
  LoadedFunction g = lazyc::load(affinePath);
  LoadedFunction h = lazyc::load(splitPath);
  // One result: a Tensor, as the original returned.
  Tensor z = g(x, y);
  EXPECT_EQ(z.toVector<float>(), (std::vector<float>{13, 26}));
  // The vector form still takes a braced list and returns a vector.
  std::vector<Tensor> again = g({x, y});
  EXPECT_EQ(again[0].toVector<float>(), (std::vector<float>{13, 26}));
  // Two results: a vector of both; taking one Tensor is an Error at the
  // caller's line.
  std::vector<Tensor> both = h(x);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].toVector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(both[1].toVector<float>(), (std::vector<float>{0, 1}));
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        Tensor one = h(x);
        (void)one;
      },
      "split",
      "returns 2 results, not one: take them as a std::vector<Tensor>");
  std::remove(affinePath.c_str());
  std::remove(splitPath.c_str());
}

TEST(ExportTest, CallsOutsideTheSavedSignaturesAreErrors) {
  auto twice = lazyc::function("twice", [](Tensor x) { return x * 2.0f; });
  (void)twice(ones({3}));
  (void)twice(ones({2, 2}, DType::Float64));
  std::string path = temporaryPath("twice.lazyc");
  lazyc::save(twice, path);
  LoadedFunction loaded = lazyc::load(path);
  EXPECT_EQ(loaded({ones({2, 2}, DType::Float64)})[0].toVector<double>(),
            (std::vector<double>{2, 2, 2, 2}));
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        loaded({ones({4})});
      },
      "twice",
      "no saved concrete function takes (Float32 [4]); it was saved for "
      "twice(arg0: Float32 [3]) -> Float32 [3]; twice(arg0: Float64 [2, 2]) -> "
      "Float64 [2, 2]");
  std::remove(path.c_str());

  auto never = lazyc::function("never", [](Tensor x) { return x; });
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::save(never, path);
      },
      "never", "has no concrete function to save yet");
}

TEST(ExportTest, DamagedFilesAreClearErrors) {
  auto square = lazyc::function("square", [](Tensor x) { return x * x; });
  (void)square(ones({4}));
  std::string path = temporaryPath("square.lazyc");
  lazyc::save(square, path);
  std::string good = readBytes(path);
  ASSERT_GT(good.size(), 32u);

  auto expectLoadError = [&](const std::string &bytes,
                             const std::string &mentions) {
    writeBytes(path, bytes);
    try {
      (void)lazyc::load(path);
      ADD_FAILURE() << "no error for: " << mentions;
    } catch (const Error &error) {
      EXPECT_EQ(error.op(), "load");
      EXPECT_NE(std::string(error.what()).find(mentions), std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find(path), std::string::npos)
          << error.what();
    }
  };
  expectLoadError(good.substr(0, good.size() / 2), "checksum mismatch");
  expectLoadError(good.substr(0, 10), "truncated");
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  expectLoadError(flipped, "checksum mismatch");
  std::string otherVersion = good;
  otherVersion[8] = 7;
  expectLoadError(otherVersion, "has format version 7, but this lazyc reads "
                                "versions 1 to 2");
  expectLoadError("not a model at all", "is not a lazyc function file");
  std::remove(path.c_str());
  expectLoadError("", "is not a lazyc function file");
  std::remove(path.c_str());
  try {
    (void)lazyc::load(path);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error &error) {
    // Worded as every format's reader words it (lib/Formats/Files.cpp).
    EXPECT_NE(std::string(error.what())
                  .find("' cannot be opened: No such file or directory"),
              std::string::npos)
        << error.what();
  }
}

TEST(ExportTest, LazycRunRunsASavedFunctionInAnotherProcess) {
  Variable scale(Tensor::fromVector<float>({2, -1, 0.5f}, {3}), "scale");
  auto affine = lazyc::function(
      "affine", [&](Tensor x) { return x * scale.read() + 1.0f; },
      {TensorSpec({2, 3}, DType::Float32, "x")});
  std::vector<float> xv = {1, 2, 3, -4, 5, -6};
  Tensor x = Tensor::fromVector<float>(xv, {2, 3});
  (void)affine(x);
  std::string model = temporaryPath("affine.lazyc");
  std::string input = temporaryPath("affine-x.npy");
  std::string outputs = temporaryPath("affine-out");
  lazyc::save(affine, model);
  saveNpy(x, input);
  std::string command = std::string(LAZYC_RUN_PATH) + " " + model +
                        " --input=" + input + " --output-dir=" + outputs;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<float> got = loadNpy(outputs + "/out0.npy").toVector<float>();
  const float s[3] = {2, -1, 0.5f};
  std::vector<float> expected;
  for (size_t i = 0; i < xv.size(); ++i)
    expected.push_back(xv[i] * s[i % 3] + 1.0f);
  EXPECT_EQ(got, expected);
  std::remove(model.c_str());
  std::remove(input.c_str());
}

/// x [B, 4] -> relu(x w + b) [B, 3] flattened to [3B], and its row means
/// [B]: sizes that follow B as the bias's broadcast, the reshape's target
/// and the results' shapes.
struct UnknownBatch {
  std::vector<float> wv = {0.5f, -1, 2,    0.25f, 1,     -0.5f,
                           -2,   1,  0.5f, 1.5f,  -1.5f, 0.75f};
  std::vector<float> bv = {0.1f, -0.2f, 0.3f};
  Variable w{Tensor::fromVector<float>(wv, {4, 3}), "w"};
  Variable b{Tensor::fromVector<float>(bv, {3}), "b"};

  auto function() {
    return lazyc::function("batch",
                           [this](Tensor x) {
                             Tensor h = relu(matmul(x, w.read()) + b.read());
                             return std::vector<Tensor>{reshape(h, {-1}),
                                                        mean(h, {1})};
                           },
                           {TensorSpec({-1, 4}, DType::Float32, "x")});
  }

  /// The hidden values for `rows` rows of `x`, in double.
  std::vector<double> hidden(const std::vector<float> &x, int64_t rows) const {
    std::vector<double> h;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < 3; ++c) {
        double dot = bv[c];
        for (int64_t k = 0; k < 4; ++k)
          dot += double(x[r * 4 + k]) * wv[k * 3 + c];
        h.push_back(std::max(dot, 0.0));
      }
    return h;
  }
};

std::vector<float> rowsOf(int64_t batch) {
  std::vector<float> x;
  for (int64_t i = 0; i < batch * 4; ++i)
    x.push_back(float((i * 7) % 11) * 0.25f - 1.0f);
  return x;
}

TEST(ExportTest, UnknownDimensionsStayUnknownWhenSaved) {
  UnknownBatch model;
  auto f = model.function();
  (void)f(Tensor::fromVector<float>(rowsOf(5), {5, 4}));
  std::string path = temporaryPath("batch.lazyc");
  lazyc::save(f, path);

  LoadedFunction loaded = lazyc::load(path);
  EXPECT_EQ(loaded.device(), Device::cpu());
  for (int64_t batch : {1, 5, 7, 33}) {
    std::vector<float> x = rowsOf(batch);
    std::vector<Tensor> out = loaded(Tensor::fromVector<float>(x, {batch, 4}));
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].shape(), (Shape{3 * batch})) << batch;
    ASSERT_EQ(out[1].shape(), (Shape{batch})) << batch;
    std::vector<double> h = model.hidden(x, batch);
    std::vector<float> flat = out[0].toVector<float>();
    std::vector<float> means = out[1].toVector<float>();
    for (int64_t i = 0; i < 3 * batch; ++i)
      EXPECT_NEAR(flat[i], h[i], 1e-5) << batch << " " << i;
    for (int64_t r = 0; r < batch; ++r)
      EXPECT_NEAR(means[r], (h[3 * r] + h[3 * r + 1] + h[3 * r + 2]) / 3, 1e-5)
          << batch << " " << r;
  }
  // The known dimension is still checked.
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        loaded({Tensor::fromVector<float>(rowsOf(2), {4, 2})});
      },
      "batch", "no saved concrete function takes (Float32 [4, 2])");
  std::remove(path.c_str());
}

TEST(ExportTest, SizesASavedFunctionCannotFollowAreClearErrors) {
  // A literal computed from the batch size would be baked in at its first
  // value.
  auto average = lazyc::function(
      "average", [](Tensor x) { return sum(x) / float(x.shape()[0]); },
      {TensorSpec({-1, 2}, DType::Float32, "x")});
  (void)average(ones({3, 2}));
  std::string path = temporaryPath("average.lazyc");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        lazyc::save(average, path);
      },
      "save",
      "average cannot be saved with its unknown dimensions: literal "
      "(recorded at ExportTest.cpp:");
  // A signature with sizes saves it.
  auto fixed = lazyc::function(
      "average", [](Tensor x) { return sum(x) / float(x.shape()[0]); },
      {TensorSpec({3, 2}, DType::Float32, "x")});
  (void)fixed(ones({3, 2}));
  lazyc::save(fixed, path);
  LoadedFunction loaded = lazyc::load(path);
  EXPECT_FLOAT_EQ(Tensor(loaded(full({3, 2}, 1.5f))).item<float>(), 3.0f);
  std::remove(path.c_str());
}

TEST(ExportTest, LazycRunRunsASavedFunctionAtAnyBatchSize) {
  UnknownBatch model;
  auto f = model.function();
  (void)f(Tensor::fromVector<float>(rowsOf(3), {3, 4}));
  std::string path = temporaryPath("batch-run.lazyc");
  std::string input = temporaryPath("batch-x.npy");
  std::string outputs = temporaryPath("batch-out");
  lazyc::save(f, path);
  const int64_t batch = 9;
  std::vector<float> x = rowsOf(batch);
  saveNpy(Tensor::fromVector<float>(x, {batch, 4}), input);
  std::string command = std::string(LAZYC_RUN_PATH) + " " + path +
                        " --input=" + input + " --output-dir=" + outputs;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<float> flat = loadNpy(outputs + "/out0.npy").toVector<float>();
  std::vector<double> h = model.hidden(x, batch);
  ASSERT_EQ(flat.size(), size_t(3 * batch));
  for (int64_t i = 0; i < 3 * batch; ++i)
    EXPECT_NEAR(flat[i], h[i], 1e-5) << i;
  std::remove(path.c_str());
  std::remove(input.c_str());
}

TEST(ExportTest, ALoadedFunctionRunsOnTheDeviceItIsLoadedOn) {
  UnknownBatch model;
  auto f = model.function();
  (void)f(Tensor::fromVector<float>(rowsOf(2), {2, 4}));
  std::string path = temporaryPath("device.lazyc");
  lazyc::save(f, path);
  LoadedFunction onCpu = lazyc::load(path, Device::cpu());
  LoadedFunction again = onCpu.to(Device::cpu());
  EXPECT_EQ(again.device(), Device::cpu());
  std::vector<float> x = rowsOf(4);
  std::vector<Tensor> out = again(Tensor::fromVector<float>(x, {4, 4}));
  EXPECT_NEAR(out[0].toVector<float>()[0], model.hidden(x, 4)[0], 1e-5);
  // Its Variables move with it, as calls left them.
  EXPECT_EQ(again.variable("w").read().toVector<float>(), model.wv);

  std::string whyNot;
  if (cudaAvailable(0, &whyNot)) {
    LoadedFunction onGpu = lazyc::load(path, Device::cuda());
    EXPECT_EQ(onGpu.device(), Device::cuda());
    std::vector<Tensor> gpuOut =
        onGpu(Tensor::fromVector<float>(x, {4, 4}).to(Device::cuda()));
    EXPECT_EQ(gpuOut[0].device(), Device::cuda());
    std::vector<float> flat = gpuOut[0].toVector<float>();
    std::vector<double> h = model.hidden(x, 4);
    for (size_t i = 0; i < flat.size(); ++i)
      EXPECT_NEAR(flat[i], h[i], 1e-5) << i;
    // An input elsewhere is an error naming both devices.
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          onGpu({Tensor::fromVector<float>(x, {4, 4})});
        },
        "batch", "runs on cuda:0, but input 1 is on cpu");
  } else {
    // Without a GPU, loading there says why.
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          (void)lazyc::load(path, Device::cuda());
        },
        "load", whyNot);
  }
  std::remove(path.c_str());
}

} // namespace
