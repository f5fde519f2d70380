//===- OnnxExportTest.cpp - lazyc::onnx::save: models others can run ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Staged functions are written as ONNX models and run again by another
// runtime: ONNX Runtime where scripts/setup installed it (its Node.js
// package; tools/onnxruntime-run.js), and lazyc::onnx::load, whose
// mapping ONNX's own conformance tests check. Values are compared with
// plain loops over the same numbers, or with lazyc's own run of the
// function (through a different path: the ONNX file).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Onnx/Onnx.h"

#include "lazyc/API/Ops.h"
#include "lazyc/API/Serialization.h"
#include "lazyc/NN/Layers.h"

#include <onnx/onnx_pb.h>

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace lazyc;
namespace fs = std::filesystem;

namespace {

std::vector<float> values(int64_t count, float scale, float phase = 0.3f) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = scale * std::sin(0.7f * float(i) + phase);
  return v;
}

std::string tempPath(const std::string &name) {
  return (fs::temp_directory_path() /
          (name + "-" + std::to_string(getpid()) + ".onnx"))
      .string();
}

::onnx::ModelProto readModel(const std::string &path) {
  ::onnx::ModelProto model;
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&file)) << path;
  return model;
}

void expectNear(const Tensor &actual, const Tensor &expected, double tolerance,
                const std::string &what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  std::vector<double> a = cast(actual, DType::Float64).toVector<double>();
  std::vector<double> e = cast(expected, DType::Float64).toVector<double>();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], e[i], tolerance * (1 + std::fabs(e[i])))
        << what << " element " << i;
}

/// A two-layer perceptron over a batch of any size, with its weights in
/// Variables.
struct Mlp {
  static constexpr int64_t kIn = 3, kHidden = 4, kOut = 2;
  Variable w1{Tensor::fromVector(values(kIn * kHidden, 0.8f), {kIn, kHidden}),
              "w1"};
  Variable b1{Tensor::fromVector(values(kHidden, 0.2f, 1.0f), {kHidden}), "b1"};
  Variable w2{
      Tensor::fromVector(values(kHidden * kOut, 0.6f, 2.0f), {kHidden, kOut}),
      "w2"};

  /// softmax(relu(x w1 + b1) w2) over a batch of any size.
  auto function() {
    return lazyc::function(
        "mlp",
        [this](Tensor x) {
          return softmax(
              matmul(relu(matmul(x, w1.read()) + b1.read()), w2.read()), -1);
        },
        {TensorSpec({-1, kIn}, DType::Float32, "x")});
  }

  /// The same numbers in plain loops: softmax(relu(x w1 + b1) w2).
  std::vector<float> expected(const std::vector<float> &x, int64_t batch) {
    std::vector<float> W1 = values(kIn * kHidden, 0.8f),
                       B1 = values(kHidden, 0.2f, 1.0f),
                       W2 = values(kHidden * kOut, 0.6f, 2.0f), out;
    for (int64_t n = 0; n < batch; ++n) {
      double h[kHidden], y[kOut], total = 0;
      for (int64_t j = 0; j < kHidden; ++j) {
        h[j] = B1[j];
        for (int64_t i = 0; i < kIn; ++i)
          h[j] += double(x[n * kIn + i]) * W1[i * kHidden + j];
        h[j] = std::max(h[j], 0.0);
      }
      for (int64_t k = 0; k < kOut; ++k) {
        y[k] = 0;
        for (int64_t j = 0; j < kHidden; ++j)
          y[k] += h[j] * W2[j * kOut + k];
        total += std::exp(y[k]);
      }
      for (int64_t k = 0; k < kOut; ++k)
        out.push_back(float(std::exp(y[k]) / total));
    }
    return out;
  }
};

TEST(OnnxExportTest, AFunctionOverAnyBatchIsAModelOverAnyBatch) {
  Mlp mlp;
  auto forward = mlp.function();
  forward(Tensor::fromVector(values(2 * Mlp::kIn, 1.0f), {2, Mlp::kIn}));
  std::string path = tempPath("mlp");
  lazyc::onnx::save(forward, path);

  // What the file says.
  ::onnx::ModelProto proto = readModel(path);
  EXPECT_EQ(proto.opset_import(0).version(), 17);
  ASSERT_EQ(proto.graph().input_size(), 1);
  EXPECT_EQ(proto.graph().input(0).name(), "x");
  const auto &dims = proto.graph().input(0).type().tensor_type().shape();
  EXPECT_EQ(dims.dim(0).dim_param(), "x_dim0");
  EXPECT_EQ(dims.dim(1).dim_value(), Mlp::kIn);
  std::vector<std::string> initializers;
  for (const auto &tensor : proto.graph().initializer())
    initializers.push_back(tensor.name());
  for (const char *name : {"w1", "b1", "w2"})
    EXPECT_NE(std::find(initializers.begin(), initializers.end(), name),
              initializers.end())
        << name;
  ASSERT_EQ(proto.graph().output_size(), 1);
  EXPECT_EQ(proto.graph().output(0).name(), "output");
  EXPECT_EQ(
      proto.graph().output(0).type().tensor_type().shape().dim(0).dim_param(),
      "x_dim0");

  // Run by another reader, at batch sizes the function never saw.
  lazyc::onnx::Model model = lazyc::onnx::load(path);
  for (int64_t batch : {1, 5}) {
    std::vector<float> x = values(batch * Mlp::kIn, 1.5f, 0.1f * batch);
    std::vector<float> y =
        model(Tensor::fromVector(x, {batch, Mlp::kIn})).toVector<float>();
    std::vector<float> expected = mlp.expected(x, batch);
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], expected[i], 1e-6) << "batch " << batch << " " << i;
  }
  std::remove(path.c_str());
}

/// Every op a trace holds, on inputs whose batch is unknown: the exported
/// model, read back, computes what the function does.
Tensor manyOps(const Tensor &x, const Tensor &indices, const Variable &scale) {
  Tensor a = x * scale.read() + 0.5f;
  Tensor b = floorDiv(a, 0.75f) + mod(a, -0.6f) + pow(abs(a) + 1.0f, 1.5f);
  Tensor c = maximum(exp(-abs(a)), minimum(tanh(a), sigmoid(a))) +
             sqrt(abs(a) + 1.0f) + rsqrt(abs(a) + 1.0f) + sin(a) * cos(a) +
             erf(a) + log(abs(a) + 2.0f) - relu(a) + asin(tanh(a) * 0.5f) +
             acos(sigmoid(a) - 0.5f) + atan(a);
  Tensor d = where(a > 0.0f, b, c) +
             cast(cast(a * 3.0f, DType::Int32), DType::Float32);
  Tensor rows = reshape(d, {-1, 4}); // [B * 3, 4]: a size from B.
  Tensor e = transpose(slice(d, {0, 1}, {-1, 12}, {1, 2}), {1, 0});
  Tensor f = concat({sum(e, {1}, true), mean(e, {1}, true), softmax(e, 0)}, 1);
  Tensor g = gather(d, 1, indices);
  Tensor h = scatterAdd(d, 1, indices, logSoftmax(g, 1)) + cumsum(d, 1, true);
  Tensor i = cast(argmax(h, 1, true), DType::Float32) + max(h, {1}, true) -
             min(h, {1}, true);
  return concat({sum(rows, {0}) * 0.01f, sum(h + i, {0})}, 0) + sum(f) * 0.001f;
}

auto manyOpsFunction(const Variable &scale) {
  return lazyc::function(
      "many_ops",
      [&scale](Tensor x, Tensor indices) { return manyOps(x, indices, scale); },
      {TensorSpec({-1, 12}, DType::Float32, "x"),
       TensorSpec({-1, 3}, DType::Int64, "indices")});
}

/// x [batch, 12] and indices [batch, 3], some negative (counting from the
/// end), both varying with `stride`.
std::pair<Tensor, Tensor> manyOpsInputs(int64_t batch, int64_t stride) {
  std::vector<int64_t> picks;
  for (int64_t i = 0; i < batch * 3; ++i)
    picks.push_back((i * stride) % (2 * stride + 5) - stride / 2 - 1);
  return {Tensor::fromVector(
              values(batch * 12, 2.0f, 0.1f * float(stride) * float(batch)),
              {batch, 12}),
          Tensor::fromVector(picks, {batch, 3})};
}

TEST(OnnxExportTest, EveryOpReadsBackAsItRuns) {
  Variable scale(Tensor::fromVector(values(12, 1.0f, 0.7f), {12}), "scale");
  auto step = manyOpsFunction(scale);
  auto inputs = [](int64_t batch) { return manyOpsInputs(batch, 5); };
  auto [x2, i2] = inputs(2);
  step(x2, i2);
  std::string path = tempPath("many-ops");
  lazyc::onnx::save(step, path);
  lazyc::onnx::Model model = lazyc::onnx::load(path);
  for (int64_t batch : {2, 7}) {
    auto [x, indices] = inputs(batch);
    Tensor expected = step(x, indices);
    Tensor actual = model({x, indices})[0];
    expectNear(actual, expected, 1e-5, "batch " + std::to_string(batch));
  }
  std::remove(path.c_str());
}

std::string onnxRuntimeDir();
std::vector<Tensor>
runInOnnxRuntime(const std::string &model,
                 const std::vector<std::pair<std::string, Tensor>> &inputs);

TEST(OnnxExportTest, ShiftsAreBitShiftAndBooleanBitsLogicalOps) {
  auto bits = lazyc::function(
      "bits",
      [](Tensor x, Tensor amount, Tensor flags) {
        Tensor mask = (x > 100u) ^ flags;
        return std::tuple{leftShift(x, amount), rightShift(x, amount),
                          cast(~mask | (flags & mask), DType::UInt32)};
      },
      {TensorSpec({-1}, DType::UInt32, "x"),
       TensorSpec({-1}, DType::UInt32, "amount"),
       TensorSpec({-1}, DType::Bool, "flags")});
  auto x = Tensor::fromVector<uint32_t>({1, 3000000000u, 7, 255, 200}, {5});
  auto amount = Tensor::fromVector<uint32_t>({31, 1, 32, 40, 0}, {5});
  auto flags = Tensor::fromBools({true, false, true, false, true}, {5});
  bits(x, amount, flags);
  std::string path = tempPath("bits");
  lazyc::onnx::save(bits, path);
  // By hand: 1 << 31; 3e9 << 1 wraps to 1705032704; amounts 32 and 40 give
  // 0; >> likewise. mask = (x > 100) ^ flags = {1, 1, 1, 1, 0}:
  // ~mask | (flags & mask) = {1, 0, 1, 0, 1}.
  auto check = [](const std::vector<Tensor> &got, const char *reader) {
    ASSERT_EQ(got.size(), 3u) << reader;
    EXPECT_EQ(got[0].toVector<uint32_t>(),
              (std::vector<uint32_t>{2147483648u, 1705032704u, 0, 0, 200}))
        << reader;
    EXPECT_EQ(got[1].toVector<uint32_t>(),
              (std::vector<uint32_t>{0, 1500000000u, 0, 0, 200}))
        << reader;
    EXPECT_EQ(got[2].toVector<uint32_t>(),
              (std::vector<uint32_t>{1, 0, 1, 0, 1}))
        << reader;
  };
  check(lazyc::onnx::load(path)({x, amount, flags}), "lazyc::onnx::load");
  if (!onnxRuntimeDir().empty())
    check(runInOnnxRuntime(path,
                           {{"x", x}, {"amount", amount}, {"flags", flags}}),
          "ONNX Runtime");
  std::remove(path.c_str());

  auto signedShift =
      lazyc::function("signed_shift", [](Tensor x) { return leftShift(x, 2); },
                      {TensorSpec({3}, DType::Int32, "x")});
  signedShift(Tensor::fromVector<int32_t>({1, 2, 3}, {3}));
  try {
    lazyc::onnx::save(signedShift, path);
    FAIL() << "exported a shift of Int32";
  } catch (const Error &error) {
    std::string message = error.what();
    EXPECT_NE(message.find("leftShift"), std::string::npos) << message;
    EXPECT_NE(message.find("cast to UInt32 first"), std::string::npos)
        << message;
  }
}

std::string onnxRuntimeDir();
std::vector<Tensor>
runInOnnxRuntime(const std::string &model,
                 const std::vector<std::pair<std::string, Tensor>> &inputs);

TEST(OnnxExportTest, TwoUnknownDimensionsAndAReshapeOfTheirProduct) {
  // [B, T, 4] -> [B * T, 4] x [4, 2] -> [B, T, 2] -> sum over T: the
  // flattening reshape's B * T is left to ONNX's -1, the other sizes come
  // from Shape(x).
  Variable w(Tensor::fromVector(values(8, 0.5f), {4, 2}), "w");
  auto f = lazyc::function("sequence",
                           [&](Tensor x) {
                             int64_t b = x.shape()[0], t = x.shape()[1];
                             Tensor rows =
                                 matmul(reshape(x, {b * t, 4}), w.read());
                             return sum(reshape(rows, {b, t, 2}), {1});
                           },
                           {TensorSpec({-1, -1, 4}, DType::Float32, "x")});
  f(Tensor::fromVector(values(2 * 3 * 4, 1.0f), {2, 3, 4}));
  std::string path = tempPath("sequence");
  lazyc::onnx::save(f, path);
  ::onnx::ModelProto proto = readModel(path);
  const auto &dims = proto.graph().input(0).type().tensor_type().shape();
  EXPECT_EQ(dims.dim(0).dim_param(), "x_dim0");
  EXPECT_EQ(dims.dim(1).dim_param(), "x_dim1");
  lazyc::onnx::Model model = lazyc::onnx::load(path);
  Tensor x = Tensor::fromVector(values(3 * 5 * 4, 1.0f, 0.4f), {3, 5, 4});
  expectNear(model(x), f(x), 1e-5, "B 3, T 5");
  if (!onnxRuntimeDir().empty()) // ONNX Runtime infers the -1 too.
    expectNear(runInOnnxRuntime(path, {{"x", x}}).at(0), f(x), 1e-5,
               "B 3, T 5 in ONNX Runtime");
  std::remove(path.c_str());
}

TEST(OnnxExportTest, AConvolutionAndTheVariablesAStepAssigns) {
  Variable weight(Tensor::fromVector(values(2 * 3 * 3 * 3, 0.3f), {2, 3, 3, 3}),
                  "weight");
  Variable count(Tensor::fromVector(std::vector<float>{0.0f}, {}), "count");
  auto step = lazyc::function("conv_step", [&](Tensor x) {
    nn::Conv2dOptions options;
    options.stride = 2;
    options.padding = 1;
    Tensor y = nn::conv2d(x, weight.read(), options);
    count.assign(count.read() + 1.0f);
    return relu(y);
  });
  Tensor x = Tensor::fromVector(values(2 * 3 * 7 * 7, 1.0f), {2, 3, 7, 7});
  Tensor expected = step(x);
  std::string path = tempPath("conv");
  lazyc::onnx::save(step, path);
  ::onnx::ModelProto proto = readModel(path);
  ASSERT_EQ(proto.graph().output_size(), 2);
  EXPECT_EQ(proto.graph().output(1).name(), "count_new");
  lazyc::onnx::Model model = lazyc::onnx::load(path);
  std::vector<Tensor> outputs = model(std::vector<Tensor>{x});
  expectNear(outputs[0], expected, 1e-5, "conv");
  EXPECT_EQ(outputs[1].toVector<float>(),
            std::vector<float>{2.0f}); // The saved count (1), plus one.
  std::remove(path.c_str());
}

TEST(OnnxExportTest, WhatOnnxCannotHoldIsAnErrorNamingTheOp) {
  auto perElement = lazyc::function(
      "per_element", [](Tensor x) { return sum(x) / float(x.shape()[0]); },
      {TensorSpec({-1}, DType::Float32, "x")});
  perElement(Tensor::fromVector(values(4, 1.0f), {4}));
  std::string path = tempPath("bad");
  try {
    lazyc::onnx::save(perElement, path);
    FAIL() << "exported a literal computed from an unknown size";
  } catch (const Error &error) {
    std::string message = error.what();
    EXPECT_NE(message.find("per_element cannot be exported"), std::string::npos)
        << message;
    EXPECT_NE(message.find("unknown dimension's size"), std::string::npos)
        << message;
    EXPECT_NE(message.find("OnnxExportTest.cpp"), std::string::npos) << message;
  }

  auto branches = lazyc::function("branches",
                                  [](Tensor x) {
                                    return cond(
                                        sum(x) > 0.0f, [&] { return x * 2.0f; },
                                        [&] { return -x; });
                                  },
                                  {TensorSpec({-1}, DType::Float32, "x")});
  branches(Tensor::fromVector(values(4, 1.0f), {4}));
  try {
    lazyc::onnx::save(branches, path);
    FAIL() << "exported control flow over an unknown dimension";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what())
                  .find("is control flow in a function with unknown "
                        "dimensions"),
              std::string::npos)
        << error.what();
  }

  auto never = lazyc::function("never", [](Tensor x) { return x; });
  EXPECT_THROW(lazyc::onnx::save(never, path), Error);
  std::remove(path.c_str());
}

/// cond, then a whileLoop over its result: ONNX's If and Loop.
Tensor controlFlow(const Tensor &x) {
  Tensor y =
      cond(sum(x) > 0.0f, [&] { return x * 2.0f; }, [&] { return 1.0f - x; });
  std::vector<Tensor> final = whileLoop(
      [](const std::vector<Tensor> &state) { return state[0] < int64_t(5); },
      [](const std::vector<Tensor> &state) {
        return std::vector<Tensor>{state[0] + int64_t(1),
                                   state[1] * 0.5f + 1.0f};
      },
      std::vector<Tensor>{full({}, 0, DType::Int64), y});
  return final[1];
}

/// The same in plain loops.
std::vector<float> controlFlowReference(std::vector<float> x) {
  double total = 0;
  for (float v : x)
    total += v;
  for (float &v : x) {
    v = total > 0 ? v * 2.0f : 1.0f - v;
    for (int i = 0; i < 5; ++i)
      v = v * 0.5f + 1.0f;
  }
  return x;
}

TEST(OnnxExportTest, CondAndWhileLoopAreIfAndLoop) {
  auto flow = lazyc::function("flow", controlFlow);
  std::vector<float> up = values(6, 1.0f, 0.9f), down = up;
  for (float &v : down)
    v = -std::fabs(v) - 0.1f;
  flow(Tensor::fromVector(up, {6}));
  std::string path = tempPath("flow");
  lazyc::onnx::save(flow, path);
  ::onnx::ModelProto proto = readModel(path);
  std::vector<std::string> ops;
  for (const auto &node : proto.graph().node())
    ops.push_back(node.op_type());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "If"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Loop"), ops.end());
  lazyc::onnx::Model model = lazyc::onnx::load(path);
  for (const std::vector<float> &x : {up, down}) {
    std::vector<float> y = model(Tensor::fromVector(x, {6})).toVector<float>();
    std::vector<float> expected = controlFlowReference(x);
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], expected[i], 1e-5) << i;
  }
  std::remove(path.c_str());
}

/// Where scripts/setup installs ONNX Runtime's Node.js package, if it did.
std::string onnxRuntimeDir() {
  const char *set = std::getenv("LAZYC_ONNXRUNTIME_DIR");
  const char *home = std::getenv("HOME");
  std::string dir = set    ? set
                    : home ? std::string(home) + "/.cache/lazyc/onnxruntime"
                           : "";
  bool installed =
      !dir.empty() && std::string(LAZYC_NODE).size() > 0 &&
      fs::exists(dir + "/node_modules/onnxruntime-node/package.json");
  return installed ? dir : "";
}

/// Runs `model` in ONNX Runtime on `inputs` (named as the model names its
/// inputs) and returns its outputs, in the model's order.
std::vector<Tensor>
runInOnnxRuntime(const std::string &model,
                 const std::vector<std::pair<std::string, Tensor>> &inputs) {
  fs::path dir =
      fs::temp_directory_path() / ("lazyc-ort-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string command = std::string(LAZYC_NODE) + " " + LAZYC_ONNXRUNTIME_RUN +
                        " " + model + " --output-dir " + dir.string();
  for (const auto &[name, tensor] : inputs) {
    std::string file = (dir / (name + ".input.npy")).string();
    saveNpy(tensor, file);
    command += " --input " + name + "=" + file;
  }
  int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  std::vector<Tensor> outputs;
  ::onnx::ModelProto proto = readModel(model);
  for (const auto &output : proto.graph().output())
    outputs.push_back(loadNpy((dir / (output.name() + ".npy")).string()));
  fs::remove_all(dir);
  return outputs;
}

TEST(OnnxExportTest, OnnxRuntimeRunsWhatLazycWrites) {
  if (onnxRuntimeDir().empty())
    GTEST_SKIP() << "ONNX Runtime is not installed (scripts/setup installs "
                    "onnxruntime-node with npm into ~/.cache/lazyc)";
  Mlp mlp;
  auto forward = mlp.function();
  forward(Tensor::fromVector(values(2 * Mlp::kIn, 1.0f), {2, Mlp::kIn}));
  std::string path = tempPath("ort-mlp");
  lazyc::onnx::save(forward, path);
  for (int64_t batch : {1, 6}) {
    std::vector<float> x = values(batch * Mlp::kIn, 1.5f, 0.1f * batch);
    std::vector<Tensor> outputs = runInOnnxRuntime(
        path, {{"x", Tensor::fromVector(x, {batch, Mlp::kIn})}});
    ASSERT_EQ(outputs.size(), 1u);
    std::vector<float> y = outputs[0].toVector<float>();
    std::vector<float> expected = mlp.expected(x, batch);
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], expected[i], 1e-6) << "batch " << batch << " " << i;
  }

  // Every op, at a batch the function was not traced at.
  Variable scale(Tensor::fromVector(values(12, 1.0f, 0.7f), {12}), "scale");
  auto step = manyOpsFunction(scale);
  auto inputs = [](int64_t batch) { return manyOpsInputs(batch, 7); };
  auto [x3, i3] = inputs(3);
  step(x3, i3);
  lazyc::onnx::save(step, path);
  auto [x5, i5] = inputs(5);
  std::vector<Tensor> outputs =
      runInOnnxRuntime(path, {{"x", x5}, {"indices", i5}});
  ASSERT_EQ(outputs.size(), 1u);
  expectNear(outputs[0], step(x5, i5), 1e-5, "many_ops in ONNX Runtime");

  // If and Loop, both branches.
  auto flow = lazyc::function("flow", controlFlow);
  std::vector<float> up = values(6, 1.0f, 0.9f), down = up;
  for (float &v : down)
    v = -std::fabs(v) - 0.1f;
  flow(Tensor::fromVector(up, {6}));
  lazyc::onnx::save(flow, path);
  for (const std::vector<float> &x : {up, down}) {
    std::vector<Tensor> y =
        runInOnnxRuntime(path, {{"arg0", Tensor::fromVector(x, {6})}});
    ASSERT_EQ(y.size(), 1u);
    std::vector<float> got = y[0].toVector<float>();
    std::vector<float> expected = controlFlowReference(x);
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_NEAR(got[k], expected[k], 1e-5) << k;
  }
  std::remove(path.c_str());
}

} // namespace
