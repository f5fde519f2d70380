//===- OnnxImportTest.cpp - lazyc::onnx::load: values, training, errors ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Models are written here with ONNX's own protobuf classes (a two-layer
// perceptron with trained weights as initializers, and broken variants of
// it); values are checked against plain loops over the same numbers.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Onnx/Onnx.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/API/Metrics.h"
#include "lazyc/API/Ops.h"

#include <onnx/onnx_pb.h>

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <unistd.h>

using namespace lazyc;

namespace {

constexpr int64_t kIn = 3, kHidden = 4, kOut = 2;

std::vector<float> weights(int64_t count, float scale) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = scale * std::sin(0.7f * float(i) + 0.3f);
  return values;
}

void addInitializer(::onnx::GraphProto &graph, const std::string &name,
                    const std::vector<int64_t> &shape,
                    const std::vector<float> &values) {
  ::onnx::TensorProto *tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(::onnx::TensorProto::FLOAT);
  for (int64_t size : shape)
    tensor->add_dims(size);
  for (float value : values)
    tensor->add_float_data(value);
}

/// A 1-D Int64 initializer (a shape, axes, indices).
void addInt64Initializer(::onnx::GraphProto &graph, const std::string &name,
                         const std::vector<int64_t> &values) {
  ::onnx::TensorProto *tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(::onnx::TensorProto::INT64);
  tensor->add_dims(int64_t(values.size()));
  for (int64_t value : values)
    tensor->add_int64_data(value);
}

void declare(::onnx::ValueInfoProto *info, const std::string &name,
             int32_t elementType, const std::vector<int64_t> &shape) {
  info->set_name(name);
  auto *tensorType = info->mutable_type()->mutable_tensor_type();
  tensorType->set_elem_type(elementType);
  for (int64_t size : shape) {
    auto *dimension = tensorType->mutable_shape()->add_dim();
    if (size < 0)
      dimension->set_dim_param("batch");
    else
      dimension->set_dim_value(size);
  }
}

::onnx::NodeProto *addNode(::onnx::GraphProto &graph, const std::string &op,
                           std::vector<std::string> inputs,
                           std::vector<std::string> outputs,
                           const std::string &name) {
  ::onnx::NodeProto *node = graph.add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string &input : inputs)
    node->add_input(input);
  for (const std::string &output : outputs)
    node->add_output(output);
  return node;
}

/// A model of IR version 8 importing `opset` of the default domain, with
/// an empty graph named `name`.
::onnx::ModelProto emptyModel(int64_t opset, const std::string &name) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  auto *import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name(name);
  return model;
}

/// y = relu(x W1 + b1) W2 + b2, x [batch, 3], y [batch, 2].
::onnx::ModelProto perceptron() {
  ::onnx::ModelProto model = emptyModel(13, "perceptron");
  ::onnx::GraphProto &graph = *model.mutable_graph();
  addInitializer(graph, "w1", {kIn, kHidden}, weights(kIn * kHidden, 0.5f));
  addInitializer(graph, "b1", {kHidden}, weights(kHidden, 0.1f));
  addInitializer(graph, "w2", {kHidden, kOut}, weights(kHidden * kOut, 0.4f));
  addInitializer(graph, "b2", {kOut}, weights(kOut, 0.2f));
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {-1, kIn});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {-1, kOut});
  addNode(graph, "MatMul", {"x", "w1"}, {"h0"}, "fc1");
  addNode(graph, "Add", {"h0", "b1"}, {"h1"}, "bias1");
  addNode(graph, "Relu", {"h1"}, {"h"}, "relu");
  auto *gemm = addNode(graph, "Gemm", {"h", "w2", "b2"}, {"y"}, "fc2");
  (void)gemm;
  return model;
}

/// The same network over plain floats.
std::vector<float> perceptronReference(const std::vector<float> &x,
                                       int64_t batch) {
  std::vector<float> w1 = weights(kIn * kHidden, 0.5f),
                     b1 = weights(kHidden, 0.1f),
                     w2 = weights(kHidden * kOut, 0.4f),
                     b2 = weights(kOut, 0.2f);
  std::vector<float> y(batch * kOut);
  for (int64_t n = 0; n < batch; ++n) {
    float h[kHidden];
    for (int64_t j = 0; j < kHidden; ++j) {
      float total = b1[j];
      for (int64_t i = 0; i < kIn; ++i)
        total += x[n * kIn + i] * w1[i * kHidden + j];
      h[j] = std::max(total, 0.0f);
    }
    for (int64_t k = 0; k < kOut; ++k) {
      float total = b2[k];
      for (int64_t j = 0; j < kHidden; ++j)
        total += h[j] * w2[j * kOut + k];
      y[n * kOut + k] = total;
    }
  }
  return y;
}

class OnnxImportTest : public ::testing::Test {
protected:
  std::string write(const ::onnx::ModelProto &model,
                    const std::string &name = "model.onnx") {
    std::string path = directory + "/" + name;
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
    return path;
  }
  void SetUp() override {
    char pattern[] = "/tmp/lazyc-onnx-XXXXXX";
    directory = mkdtemp(pattern);
    clearCache(); // Each test counts its own compiles.
  }
  void TearDown() override {
    std::string command = "rm -rf '" + directory + "'";
    (void)std::system(command.c_str());
  }
  /// The message of the Error `f` throws, "" if none.
  template <typename F> std::string errorOf(F f) {
    try {
      f();
    } catch (const Error &error) {
      return error.what();
    }
    return "";
  }
  std::string directory;
};

TEST_F(OnnxImportTest, RunsAModelWithItsWeightsAtAnyBatchSize) {
  lazyc::onnx::Model model = lazyc::onnx::load(write(perceptron()));
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].shape, (std::vector<int64_t>{-1, kIn}));
  EXPECT_EQ(model.inputs()[0].dimensionNames[0], "batch");
  EXPECT_EQ(model.parameters().size(), 4u);
  EXPECT_EQ(model.opsetVersion(), 13);
  for (int64_t batch : {1, 5}) {
    std::vector<float> x = weights(batch * kIn, 1.5f);
    std::vector<float> y =
        model(Tensor::fromVector(x, {batch, kIn})).toVector<float>();
    std::vector<float> expected = perceptronReference(x, batch);
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], expected[i], 1e-5) << "batch " << batch << " @" << i;
  }
}

TEST_F(OnnxImportTest, AnUnknownBatchCompilesOnce) {
  // The model names its batch dimension: it is dynamic from the first
  // call, and batches of other sizes compile nothing new.
  lazyc::onnx::Model model = lazyc::onnx::load(write(perceptron()));
  uint64_t before = metrics().tracesCompiled;
  for (int64_t batch : {6, 9, 11, 6}) {
    std::vector<float> x = weights(batch * kIn, 0.8f);
    std::vector<float> y =
        model(Tensor::fromVector(x, {batch, kIn})).toVector<float>();
    std::vector<float> expected = perceptronReference(x, batch);
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], expected[i], 1e-5) << "batch " << batch << " @" << i;
  }
  EXPECT_EQ(metrics().tracesCompiled - before, 1u);
}

TEST_F(OnnxImportTest, ASecondCallOfTheSameShapeCompilesNothing) {
  lazyc::onnx::Model model = lazyc::onnx::load(write(perceptron()));
  Tensor x = Tensor::fromVector(weights(2 * kIn, 1.0f), {2, kIn});
  model(x).toVector<float>();
  int64_t compiled = metrics().tracesCompiled;
  Tensor other = Tensor::fromVector(weights(2 * kIn, -2.0f), {2, kIn});
  model(other).toVector<float>();
  EXPECT_EQ(metrics().tracesCompiled, compiled);
}

TEST_F(OnnxImportTest, AnImportedModelFineTunes) {
  // One gradient step on the output bias: d(sum(y)) / d(b2) is the batch
  // size for every output, whatever the weights.
  lazyc::onnx::Model model = lazyc::onnx::load(write(perceptron()));
  std::vector<Variable *> parameters = model.parameters();
  Variable *b2 = parameters[3];
  ASSERT_EQ(b2->name(), "b2");
  std::vector<float> before = b2->read().toVector<float>();
  Tensor x = Tensor::fromVector(weights(3 * kIn, 1.0f), {3, kIn});
  GradientTape tape;
  Tensor loss = sum(model(x));
  std::vector<Tensor> gradients = tape.gradient(loss, {b2});
  std::vector<float> gradient = gradients[0].toVector<float>();
  for (float value : gradient)
    EXPECT_FLOAT_EQ(value, 3.0f);
  b2->assign(b2->read() - gradients[0] * 0.5f);
  std::vector<float> after = b2->read().toVector<float>();
  for (size_t i = 0; i < after.size(); ++i)
    EXPECT_FLOAT_EQ(after[i], before[i] - 1.5f);
  // The next call sees the new bias.
  std::vector<float> y = model(x).toVector<float>();
  std::vector<float> expected = perceptronReference(weights(3 * kIn, 1.0f), 3);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], expected[i] - 1.5f, 1e-5);
}

TEST_F(OnnxImportTest, AMissingOrBrokenFileIsAnErrorNamingIt) {
  std::string missing = directory + "/none.onnx";
  EXPECT_NE(errorOf([&] {
              lazyc::onnx::load(missing);
            }).find(missing + ": cannot be opened"),
            std::string::npos);
  std::string bytes = perceptron().SerializeAsString();
  std::string truncated = directory + "/truncated.onnx";
  std::ofstream(truncated, std::ios::binary)
      << bytes.substr(0, bytes.size() / 2);
  std::string message = errorOf([&] { lazyc::onnx::load(truncated); });
  EXPECT_NE(
      message.find(truncated + ": not an ONNX model (truncated or corrupt"),
      std::string::npos)
      << message;
  // The user's line, not the library's.
  EXPECT_NE(message.find("OnnxImportTest.cpp"), std::string::npos) << message;
}

TEST_F(OnnxImportTest, AnUnsupportedOpNamesTheNode) {
  ::onnx::ModelProto model = perceptron();
  model.mutable_graph()->mutable_node(2)->set_op_type("Celu2");
  std::string message = errorOf([&] { lazyc::onnx::load(write(model)); });
  EXPECT_NE(message.find("node 'relu' (Celu2, opset 13): lazyc does not "
                         "support this op"),
            std::string::npos)
      << message;
  model.mutable_graph()->mutable_node(2)->set_op_type("Relu");
  model.mutable_graph()->mutable_node(2)->set_domain("com.example");
  message = errorOf([&] { lazyc::onnx::load(write(model)); });
  EXPECT_NE(message.find("(Relu, domain com.example, which the model does "
                         "not import): lazyc does not support this op (nor "
                         "this domain)"),
            std::string::npos)
      << message;
}

TEST_F(OnnxImportTest, ANewerOpsetOrAMissingDtypeIsAnError) {
  ::onnx::ModelProto model = perceptron();
  model.mutable_opset_import(0)->set_version(
      lazyc::onnx::supportedOpsetVersion() + 1);
  std::string message = errorOf([&] { lazyc::onnx::load(write(model)); });
  EXPECT_NE(
      message.find("imports opset " +
                   std::to_string(lazyc::onnx::supportedOpsetVersion() + 1)),
      std::string::npos)
      << message;
  model = perceptron();
  model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(::onnx::TensorProto::COMPLEX64);
  message = errorOf([&] { lazyc::onnx::load(write(model)); });
  EXPECT_NE(message.find("input: 'x' has element type COMPLEX64, which lazyc "
                         "lacks"),
            std::string::npos)
      << message;
}

namespace {
/// One node of opset 18 over x [1, 4, 2, 2] (Float32), its other inputs
/// integer initializers.
::onnx::ModelProto opset18Node(
    const std::string &op,
    const std::vector<std::pair<std::string, std::vector<int64_t>>> &integers,
    const std::vector<std::pair<std::string, int64_t>> &attributes) {
  ::onnx::ModelProto model = emptyModel(18, "one_node");
  ::onnx::GraphProto &graph = *model.mutable_graph();
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {1, 4, 2, 2});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {});
  graph.mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  std::vector<std::string> inputs = {"x"};
  for (const auto &[name, values] : integers) {
    addInt64Initializer(graph, name, values);
    inputs.push_back(name);
  }
  ::onnx::NodeProto *node = addNode(graph, op, inputs, {"y"}, "n");
  for (const auto &[name, value] : attributes) {
    ::onnx::AttributeProto *attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::INT);
    attribute->set_i(value);
  }
  return model;
}
} // namespace

TEST_F(OnnxImportTest, Opset18NodesNameWhatDoesNotFit) {
  Tensor x = Tensor::fromVector(weights(16, 1.0f), {1, 4, 2, 2});
  auto messageOf = [&](const ::onnx::ModelProto &model) {
    lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
    return errorOf([&] { loaded(x).toVector<float>(); });
  };
  ::onnx::ModelProto groups =
      opset18Node("GroupNormalization", {}, {{"num_groups", 3}});
  // Scale and bias as float initializers.
  addInitializer(*groups.mutable_graph(), "scale", {3}, {1, 1, 1});
  addInitializer(*groups.mutable_graph(), "bias", {3}, {0, 0, 0});
  groups.mutable_graph()->mutable_node(0)->add_input("scale");
  groups.mutable_graph()->mutable_node(0)->add_input("bias");
  std::string message = messageOf(groups);
  EXPECT_NE(message.find("node 'n' (GroupNormalization, opset 18): "
                         "num_groups 3 does not divide the 4 channels"),
            std::string::npos)
      << message;

  // Col2Im reads columns [N, C * prod(block), L]; x is an image.
  message = messageOf(
      opset18Node("Col2Im", {{"image", {3, 3}}, {"block", {2, 2}}}, {}));
  EXPECT_NE(message.find("(Col2Im, opset 18): needs input [N, C * "
                         "prod(block_shape), L], not rank 4"),
            std::string::npos)
      << message;

  message = messageOf(opset18Node("CenterCropPad", {{"shape", {2, 2}}}, {}));
  EXPECT_NE(message.find("(CenterCropPad, opset 18): shape has 2 entries "
                         "for 4 axes"),
            std::string::npos)
      << message;
}

TEST_F(OnnxImportTest, FlexAttentionNamesWhatDoesNotFit) {
  // FlexAttention (ai.onnx.preview) with 3 query heads over 2 key heads:
  // grouped queries need a multiple.
  ::onnx::ModelProto model = emptyModel(26, "flex");
  auto *preview = model.add_opset_import();
  preview->set_domain("ai.onnx.preview");
  preview->set_version(1);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  declare(graph.add_input(), "q", ::onnx::TensorProto::FLOAT, {1, 3, 2, 4});
  declare(graph.add_input(), "k", ::onnx::TensorProto::FLOAT, {1, 2, 2, 4});
  declare(graph.add_input(), "v", ::onnx::TensorProto::FLOAT, {1, 2, 2, 4});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {1, 3, 2, 4});
  addNode(graph, "FlexAttention", {"q", "k", "v"}, {"y"}, "attention")
      ->set_domain("ai.onnx.preview");
  lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
  Tensor q = Tensor::fromVector(weights(24, 1.0f), {1, 3, 2, 4});
  Tensor kv = Tensor::fromVector(weights(16, 1.0f), {1, 2, 2, 4});
  std::string message = errorOf(
      [&] { loaded(std::vector<Tensor>{q, kv, kv})[0].toVector<float>(); });
  EXPECT_NE(message.find("node 'attention' (FlexAttention, domain "
                         "ai.onnx.preview, opset 1): needs K and V of Q's "
                         "batch and head size, V of K's heads and length, "
                         "and Q's heads a multiple of K's; given [1, 3, 2, "
                         "4], [1, 2, 2, 4] and [1, 2, 2, 4]"),
            std::string::npos)
      << message;
}

namespace {
/// A TreeEnsemble (ai.onnx.ml opset 5) of two trees over x [4, 2], two
/// targets. Tree 1: x0 <= 0.5 (NaN counts as true) ? leaf 0 (target 0,
/// weight 1) : (x1 < 2 ? leaf 1 (target 1, weight 2) : leaf 2 (target 0,
/// weight 3)). Tree 2 is one leaf (target 1, weight 10).
::onnx::ModelProto treeEnsemble(int64_t aggregate, int64_t transform) {
  ::onnx::ModelProto model = emptyModel(21, "trees");
  auto *ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(5);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {4, 2});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {4, 2});
  ::onnx::NodeProto *node = addNode(graph, "TreeEnsemble", {"x"}, {"y"}, "t");
  node->set_domain("ai.onnx.ml");
  auto ints = [&](const std::string &name, std::vector<int64_t> values) {
    ::onnx::AttributeProto *attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::INTS);
    for (int64_t value : values)
      attribute->add_ints(value);
  };
  auto tensor = [&](const std::string &name, int32_t type,
                    std::vector<float> values) {
    ::onnx::AttributeProto *attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::TENSOR);
    ::onnx::TensorProto *t = attribute->mutable_t();
    t->set_data_type(type);
    t->add_dims(int64_t(values.size()));
    for (float value : values)
      if (type == ::onnx::TensorProto::FLOAT)
        t->add_float_data(value);
      else
        t->add_int32_data(int32_t(value));
  };
  // Nodes 0 and 1 are tree 1's, node 2 tree 2's degenerate root.
  tensor("nodes_splits", ::onnx::TensorProto::FLOAT, {0.5f, 2.0f, 0.0f});
  tensor("nodes_modes", ::onnx::TensorProto::UINT8, {0, 1, 0});
  ints("nodes_featureids", {0, 1, 0});
  ints("nodes_truenodeids", {0, 1, 3});
  ints("nodes_trueleafs", {1, 1, 1});
  ints("nodes_falsenodeids", {1, 2, 3});
  ints("nodes_falseleafs", {0, 1, 1});
  ints("nodes_missing_value_tracks_true", {1, 0, 0});
  ints("leaf_targetids", {0, 1, 0, 1});
  tensor("leaf_weights", ::onnx::TensorProto::FLOAT, {1, 2, 3, 10});
  ints("tree_roots", {0, 2});
  auto one = [&](const std::string &name, int64_t value) {
    ::onnx::AttributeProto *attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::INT);
    attribute->set_i(value);
  };
  one("n_targets", 2);
  one("aggregate_function", aggregate);
  one("post_transform", transform);
  return model;
}
} // namespace

TEST_F(OnnxImportTest, TreeEnsembleAggregatesTheLeavesEachTreeReaches) {
  // Rows: (0.2, 5) reaches leaf 0; (1, 1) leaf 1; (1, 3) leaf 2; (NaN, 0)
  // leaf 0 (a missing value goes the true way at node 0). Tree 2 gives
  // leaf 3 to every row.
  Tensor x = Tensor::fromVector<float>(
      {0.2f, 5.0f, 1.0f, 1.0f, 1.0f, 3.0f, NAN, 0.0f}, {4, 2});
  auto run = [&](int64_t aggregate, int64_t transform) {
    return lazyc::onnx::load(write(treeEnsemble(aggregate, transform)))(x)
        .toVector<float>();
  };
  // AVERAGE: each tree's weight over the 2 trees.
  EXPECT_EQ(run(0, 0), (std::vector<float>{0.5f, 5, 0, 6, 1.5f, 5, 0.5f, 5}));
  // MAX: a target no tree reached keeps Float32's lowest value.
  float lowest = std::numeric_limits<float>::lowest();
  EXPECT_EQ(run(3, 0), (std::vector<float>{1, 10, lowest, 10, 3, 10, 1, 10}));
  // SUM, then LOGISTIC.
  std::vector<float> sums{1, 10, 0, 12, 3, 10, 1, 10}, logistic = run(1, 2);
  for (size_t i = 0; i < sums.size(); ++i)
    EXPECT_NEAR(logistic[i], 1 / (1 + std::exp(-double(sums[i]))), 1e-7);
  std::string message = errorOf([&] { run(1, 4); });
  EXPECT_NE(message.find("(TreeEnsemble, domain ai.onnx.ml, opset 5): "
                         "post_transform 4 (PROBIT) is not supported"),
            std::string::npos)
      << message;
}

TEST_F(OnnxImportTest, ScatterElementsCombinesRepeatedIndices) {
  // x [3, 4]; along axis 1 (and 0), updates [3, 3] land on indices with
  // repeats; each reduction against plain loops over the same numbers.
  const std::vector<float> x = weights(12, 2.0f), updates = weights(9, 3.0f);
  const std::vector<int64_t> index = {1, 1, 3, 0, 2, 0, -1, 3, 3};
  for (int64_t axis : {0, 1})
    for (const std::string reduction : {"mul", "min", "max"}) {
      ::onnx::ModelProto model = emptyModel(18, "scatter");
      ::onnx::GraphProto &graph = *model.mutable_graph();
      declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {3, 4});
      declare(graph.add_input(), "i", ::onnx::TensorProto::INT64, {3, 3});
      declare(graph.add_input(), "u", ::onnx::TensorProto::FLOAT, {3, 3});
      declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {3, 4});
      ::onnx::NodeProto *node =
          addNode(graph, "ScatterElements", {"x", "i", "u"}, {"y"}, "s");
      ::onnx::AttributeProto *attribute = node->add_attribute();
      attribute->set_name("axis");
      attribute->set_type(::onnx::AttributeProto::INT);
      attribute->set_i(axis);
      attribute = node->add_attribute();
      attribute->set_name("reduction");
      attribute->set_type(::onnx::AttributeProto::STRING);
      attribute->set_s(reduction);

      // Along axis 0 the indices must be rows: 0..2 (and -1).
      std::vector<int64_t> at = index;
      if (axis == 0)
        for (int64_t &i : at)
          i = i == 3 ? 2 : i;
      std::vector<float> expected = x;
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t c = 0; c < 3; ++c) {
          int64_t i = at[r * 3 + c], extent = axis == 0 ? 3 : 4;
          i = i < 0 ? i + extent : i;
          float &target = expected[axis == 0 ? i * 4 + c : r * 4 + i];
          float u = updates[r * 3 + c];
          target = reduction == "mul"   ? target * u
                   : reduction == "min" ? std::min(target, u)
                                        : std::max(target, u);
        }
      lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
      std::vector<float> y =
          loaded({Tensor::fromVector(x, {3, 4}), Tensor::fromVector(at, {3, 3}),
                  Tensor::fromVector(updates, {3, 3})})[0]
              .toVector<float>();
      ASSERT_EQ(y.size(), expected.size());
      for (size_t k = 0; k < y.size(); ++k)
        EXPECT_FLOAT_EQ(y[k], expected[k])
            << reduction << " along " << axis << " at " << k;
    }
}

TEST_F(OnnxImportTest, GradientOfInputsInitializersAndIntermediates) {
  // c = x * w; y = c * c summed: dy/dx = 2 c w, dy/dw = 2 c x, dy/dc = 2 c
  // (the training domain's Gradient, w.r.t. an input, an initializer and
  // a node's output).
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  for (auto [domain, version] : {std::pair<const char *, int>{"", 13},
                                 {"ai.onnx.preview.training", 1}}) {
    auto *opset = model.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(version);
  }
  ::onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name("gradient");
  addInitializer(graph, "w", {3}, {0.5f, -2.0f, 3.0f});
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {3});
  for (const char *name : {"y", "dx", "dw", "dc"})
    declare(graph.add_output(), name, ::onnx::TensorProto::FLOAT,
            std::string(name) == "y" ? std::vector<int64_t>{}
                                     : std::vector<int64_t>{3});
  addNode(graph, "Mul", {"x", "w"}, {"c"}, "c");
  addNode(graph, "Mul", {"c", "c"}, {"cc"}, "square");
  addNode(graph, "ReduceSum", {"cc"}, {"y"}, "sum")
      ->add_attribute()
      ->CopyFrom([] {
        ::onnx::AttributeProto keep;
        keep.set_name("keepdims");
        keep.set_type(::onnx::AttributeProto::INT);
        keep.set_i(0);
        return keep;
      }());
  ::onnx::NodeProto *gradient =
      addNode(graph, "Gradient", {"x", "w", "c"}, {"dx", "dw", "dc"}, "grad");
  gradient->set_domain("ai.onnx.preview.training");
  auto *xs = gradient->add_attribute();
  xs->set_name("xs");
  xs->set_type(::onnx::AttributeProto::STRINGS);
  for (const char *name : {"x", "w", "c"})
    xs->add_strings(name);
  auto *y = gradient->add_attribute();
  y->set_name("y");
  y->set_type(::onnx::AttributeProto::STRING);
  y->set_s("y");

  std::vector<Tensor> inputs = {
      Tensor::fromVector<float>({1.0f, 2.0f, -1.0f}, {3})};
  std::vector<Tensor> out = lazyc::onnx::load(write(model))(inputs);
  ASSERT_EQ(out.size(), 4u);
  // c = {0.5, -4, -3}.
  EXPECT_FLOAT_EQ(out[0].item<float>(), 0.25f + 16.0f + 9.0f);
  EXPECT_EQ(out[1].toVector<float>(),
            (std::vector<float>{0.5f, 16.0f, -18.0f}));
  EXPECT_EQ(out[2].toVector<float>(), (std::vector<float>{1.0f, -16.0f, 6.0f}));
  EXPECT_EQ(out[3].toVector<float>(), (std::vector<float>{1.0f, -8.0f, -6.0f}));
}

TEST_F(OnnxImportTest, ExternalDataIsReadAndItsAbsenceNamed) {
  ::onnx::ModelProto model = perceptron();
  // w1's values move to a file beside the model.
  ::onnx::TensorProto &w1 = *model.mutable_graph()->mutable_initializer(0);
  std::vector<float> values(w1.float_data().begin(), w1.float_data().end());
  w1.clear_float_data();
  w1.set_data_location(::onnx::TensorProto::EXTERNAL);
  auto *location = w1.add_external_data();
  location->set_key("location");
  location->set_value("w1.bin");
  std::string path = write(model);
  std::string message = errorOf([&] { lazyc::onnx::load(path); });
  EXPECT_NE(message.find("its external data '" + directory +
                         "/w1.bin' cannot be read"),
            std::string::npos)
      << message;
  std::ofstream(directory + "/w1.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(values.data()),
             values.size() * sizeof(float));
  lazyc::onnx::Model loaded = lazyc::onnx::load(path);
  std::vector<float> x = weights(2 * kIn, 1.0f);
  std::vector<float> y =
      loaded(Tensor::fromVector(x, {2, kIn})).toVector<float>();
  std::vector<float> expected = perceptronReference(x, 2);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], expected[i], 1e-5);
}

TEST_F(OnnxImportTest, AnInputOfTheWrongShapeIsAnErrorAtTheCall) {
  lazyc::onnx::Model model = lazyc::onnx::load(write(perceptron()));
  std::string message =
      errorOf([&] { model(Tensor::fromVector(weights(8, 1.0f), {2, 4})); });
  EXPECT_NE(message.find("input 'x' is declared Float32 [?, 3], given "
                         "Float32 [2, 4]"),
            std::string::npos)
      << message;
  message = errorOf([&] { model(std::vector<Tensor>{}); });
  EXPECT_NE(message.find("takes 1 inputs, not 0"), std::string::npos)
      << message;
}

TEST_F(OnnxImportTest, AnOpErrorNamesTheNodeItCameFrom) {
  // A Reshape to a size the input does not have fails in lazyc's reshape;
  // the error says which node asked for it.
  ::onnx::ModelProto model = perceptron();
  ::onnx::GraphProto &graph = *model.mutable_graph();
  ::onnx::TensorProto *shape = graph.add_initializer();
  shape->set_name("shape");
  shape->set_data_type(::onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(5);
  shape->add_int64_data(5);
  graph.mutable_node(3)->set_output(0, "y0");
  addNode(graph, "Reshape", {"y0", "shape"}, {"y"}, "bad_reshape");
  lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
  std::string message = errorOf(
      [&] { loaded(Tensor::fromVector(weights(2 * kIn, 1.0f), {2, kIn})); });
  EXPECT_NE(message.find("node 'bad_reshape' (Reshape, opset 13)"),
            std::string::npos)
      << message;
}

TEST_F(OnnxImportTest, ShapeArithmeticRunsOnTheHost) {
  // y = reshape(x, concat(unsqueeze(shape(x)[0]), [2, 3])): what exporters
  // write for a reshape that keeps the batch. The shape arithmetic is known
  // when the call is recorded: the calls compile one trace (the reshape's
  // consumer, its batch dynamic), not one more per shape computation, nor
  // one per batch size.
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 6});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 2, 3});
  auto addInts = [&](const std::string &name, std::vector<int64_t> values) {
    addInt64Initializer(graph, name, values);
  };
  addInts("zero", {0});
  addInts("rest", {2, 3});
  ::onnx::TensorProto *scalarIndex = graph.add_initializer();
  scalarIndex->set_name("first");
  scalarIndex->set_data_type(::onnx::TensorProto::INT64);
  scalarIndex->add_int64_data(0);
  addNode(graph, "Shape", {"x"}, {"shape"}, "shape");
  addNode(graph, "Gather", {"shape", "first"}, {"batch"}, "batch");
  addNode(graph, "Unsqueeze", {"batch", "zero"}, {"batch1"}, "batch1");
  addNode(graph, "Concat", {"batch1", "rest"}, {"target"}, "target")
      ->add_attribute()
      ->CopyFrom([] {
        ::onnx::AttributeProto axis;
        axis.set_name("axis");
        axis.set_type(::onnx::AttributeProto::INT);
        axis.set_i(0);
        return axis;
      }());
  addNode(graph, "Reshape", {"x", "target"}, {"r"}, "reshape");
  addNode(graph, "Relu", {"r"}, {"y"}, "relu");
  lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
  uint64_t before = metrics().tracesCompiled;
  for (int64_t batch : {4, 7}) {
    std::vector<float> x = weights(batch * 6, 1.0f);
    Tensor y = loaded(Tensor::fromVector(x, {batch, 6}));
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{batch, 2, 3}));
    std::vector<float> values = y.toVector<float>();
    for (size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(values[i], std::max(x[i], 0.0f));
  }
  EXPECT_EQ(metrics().tracesCompiled - before, 1u);
}

TEST_F(OnnxImportTest, IfIsACondOverTheValuesAroundIt) {
  // y = x + 1 if c else x * 2, the branches reading the graph's x: one
  // cond, traced once, which both outcomes run.
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  declare(graph.add_input(), "c", ::onnx::TensorProto::BOOL, {});
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {3});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {3});
  addInitializer(graph, "one", {}, {1.0f});
  addInitializer(graph, "two", {}, {2.0f});
  ::onnx::NodeProto *branchy = addNode(graph, "If", {"c"}, {"y"}, "choose");
  auto branch = [&](const std::string &name, const std::string &op,
                    const std::string &constant) {
    ::onnx::AttributeProto *attribute = branchy->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto &body = *attribute->mutable_g();
    addNode(body, op, {"x", constant}, {name + "_out"}, name);
    declare(body.add_output(), name + "_out", ::onnx::TensorProto::FLOAT, {3});
  };
  branch("then_branch", "Add", "one");
  branch("else_branch", "Mul", "two");
  lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
  Tensor x = Tensor::fromVector<float>({1, 2, 3}, {3});
  uint64_t before = metrics().tracesCompiled;
  Tensor yes = loaded({Tensor::fromBools({true}, {}), x}).front();
  EXPECT_EQ(yes.toVector<float>(), (std::vector<float>{2, 3, 4}));
  Tensor no = loaded({Tensor::fromBools({false}, {}), x}).front();
  EXPECT_EQ(no.toVector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(metrics().tracesCompiled - before, 1u);
}

TEST_F(OnnxImportTest, ALoopWithoutScanOutputsIsOneWhileLoop) {
  // v = v * 2 + i for i < M: one whileLoop, so trip counts 3 and 6 (data)
  // run the same compiled trace.
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  declare(graph.add_input(), "M", ::onnx::TensorProto::INT64, {});
  declare(graph.add_input(), "x", ::onnx::TensorProto::FLOAT, {2});
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT, {2});
  addInitializer(graph, "two", {}, {2.0f});
  ::onnx::NodeProto *loop =
      addNode(graph, "Loop", {"M", "", "x"}, {"y"}, "loop");
  ::onnx::AttributeProto *attribute = loop->add_attribute();
  attribute->set_name("body");
  attribute->set_type(::onnx::AttributeProto::GRAPH);
  ::onnx::GraphProto &body = *attribute->mutable_g();
  declare(body.add_input(), "i", ::onnx::TensorProto::INT64, {});
  declare(body.add_input(), "cond_in", ::onnx::TensorProto::BOOL, {});
  declare(body.add_input(), "v", ::onnx::TensorProto::FLOAT, {2});
  addNode(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  addNode(body, "Mul", {"v", "two"}, {"doubled"}, "double");
  ::onnx::NodeProto *cast = addNode(body, "Cast", {"i"}, {"fi"}, "as_float");
  ::onnx::AttributeProto *to = cast->add_attribute();
  to->set_name("to");
  to->set_type(::onnx::AttributeProto::INT);
  to->set_i(::onnx::TensorProto::FLOAT);
  addNode(body, "Add", {"doubled", "fi"}, {"v_out"}, "plus_i");
  declare(body.add_output(), "cond_out", ::onnx::TensorProto::BOOL, {});
  declare(body.add_output(), "v_out", ::onnx::TensorProto::FLOAT, {2});
  lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));

  uint64_t before = metrics().tracesCompiled;
  for (int64_t trips : {3, 6}) {
    std::vector<float> expected = {1.0f, -0.5f};
    for (int64_t i = 0; i < trips; ++i)
      for (float &v : expected)
        v = v * 2 + float(i);
    Tensor y = loaded({Tensor::fromVector<int64_t>({trips}, {}),
                       Tensor::fromVector<float>({1.0f, -0.5f}, {2})})
                   .front();
    EXPECT_EQ(y.toVector<float>(), expected) << trips << " trips";
  }
  EXPECT_EQ(metrics().tracesCompiled - before, 1u);
}

//===----------------------------------------------------------------------===//
// RNN, GRU and LSTM
//===----------------------------------------------------------------------===//

/// One recurrent node: X [steps, batch, input] (layout 0) or [batch,
/// steps, input] (layout 1), with W, R, B and (unless !initialStates)
/// initial_h (and initial_c) as initializers.
struct RecurrentSpec {
  std::string op;                // "RNN", "GRU" or "LSTM"
  std::string direction;         // "forward", "reverse" or "bidirectional"
  int64_t linearBeforeReset = 0; // GRU only.
  int64_t layout = 0;
  bool initialStates = true; // Else zeros, as ONNX's default.
  int64_t steps = 5, batch = 3;
  static constexpr int64_t inputs = 4, hidden = 6;

  int64_t gates() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  int64_t directions() const { return direction == "bidirectional" ? 2 : 1; }
  bool lstm() const { return op == "LSTM"; }
  std::string name() const {
    return op + " " + direction + " layout " + std::to_string(layout) +
           (op == "GRU"
                ? " linear_before_reset " + std::to_string(linearBeforeReset)
                : "") +
           (initialStates ? "" : " no initial states") + " steps " +
           std::to_string(steps) + " batch " + std::to_string(batch);
  }
};

/// The node's operands, in ONNX's layout-0 order: x [steps, batch, input],
/// w [dirs, gates * H, I], r [dirs, gates * H, H], b [dirs, 2 * gates * H]
/// (the input biases, then the state biases), h0 and c0 [dirs, batch, H].
struct RecurrentData {
  std::vector<double> x, w, r, b, h0, c0;
};

std::vector<double> wave(int64_t count, double scale, double phase) {
  std::vector<double> values(count);
  for (int64_t i = 0; i < count; ++i)
    // Rounded to float: the model holds these very numbers.
    values[i] = float(scale * std::sin(0.37 * double(i) + phase));
  return values;
}

RecurrentData recurrentData(const RecurrentSpec &spec) {
  int64_t d = spec.directions(), g = spec.gates(), h = spec.hidden;
  int64_t n = spec.batch, in = spec.inputs;
  RecurrentData data{
      wave(spec.steps * n * in, 1.0, 0.1), wave(d * g * h * in, 0.45, 0.7),
      wave(d * g * h * h, 0.35, 1.3),      wave(d * 2 * g * h, 0.25, 2.1),
      wave(d * n * h, 0.5, 0.4),           wave(d * n * h, 0.6, 2.9)};
  if (!spec.initialStates) {
    data.h0.assign(d * n * h, 0.0);
    data.c0.assign(d * n * h, 0.0);
  }
  return data;
}

/// `values` of shape `shape` with its axes permuted: result axis k is axis
/// perm[k] of the input (numpy's transpose).
std::vector<double> permuted(const std::vector<double> &values,
                             const std::vector<int64_t> &shape,
                             const std::vector<int64_t> &perm) {
  size_t rank = shape.size();
  std::vector<int64_t> strides(rank, 1), outShape(rank);
  for (size_t k = rank - 1; k > 0; --k)
    strides[k - 1] = strides[k] * shape[k];
  for (size_t k = 0; k < rank; ++k)
    outShape[k] = shape[perm[k]];
  std::vector<double> out(values.size());
  std::vector<int64_t> at(rank, 0); // The output's multi-index.
  for (size_t e = 0; e < out.size(); ++e) {
    int64_t from = 0;
    for (size_t k = 0; k < rank; ++k)
      from += at[k] * strides[perm[k]];
    out[e] = values[from];
    for (size_t k = rank; k-- > 0;) {
      if (++at[k] < outShape[k])
        break;
      at[k] = 0;
    }
  }
  return out;
}

double sigmoidOf(double v) { return 1.0 / (1.0 + std::exp(-v)); }

/// ONNX's equations for RNN, GRU and LSTM in double, written from the
/// operator's specification (default activations, no peepholes, no clip):
/// y [steps, dirs, batch, H], yh and yc [dirs, batch, H] (layout 0).
struct RecurrentResult {
  std::vector<double> y, yh, yc;
};
RecurrentResult recurrentReference(const RecurrentSpec &spec,
                                   const RecurrentData &data) {
  int64_t steps = spec.steps, dirs = spec.directions(), g = spec.gates();
  int64_t n = spec.batch, in = spec.inputs, h = spec.hidden;
  RecurrentResult result;
  result.y.assign(steps * dirs * n * h, 0.0);
  for (int64_t d = 0; d < dirs; ++d) {
    bool backwards = spec.direction == "reverse" || d == 1;
    const double *w = &data.w[d * g * h * in], *r = &data.r[d * g * h * h];
    const double *wb = &data.b[d * 2 * g * h], *rb = wb + g * h;
    std::vector<double> ht(data.h0.begin() + d * n * h,
                           data.h0.begin() + (d + 1) * n * h);
    std::vector<double> ct(data.c0.begin() + d * n * h,
                           data.c0.begin() + (d + 1) * n * h);
    for (int64_t s = 0; s < steps; ++s) {
      int64_t t = backwards ? steps - 1 - s : s;
      std::vector<double> nextH(n * h), nextC(n * h);
      for (int64_t b = 0; b < n; ++b) {
        const double *xt = &data.x[(t * n + b) * in];
        const double *hPrev = &ht[b * h];
        // Xt W_k^T + Wb_k, and state Ht-1 R_k^T (no bias), of unit j of
        // gate k; the state part of a given state vector.
        auto xw = [&](int64_t k, int64_t j) {
          double total = wb[k * h + j];
          for (int64_t i = 0; i < in; ++i)
            total += xt[i] * w[(k * h + j) * in + i];
          return total;
        };
        auto hr = [&](int64_t k, int64_t j, const double *state) {
          double total = 0;
          for (int64_t m = 0; m < h; ++m)
            total += state[m] * r[(k * h + j) * h + m];
          return total;
        };
        auto pre = [&](int64_t k, int64_t j) {
          return xw(k, j) + hr(k, j, hPrev) + rb[k * h + j];
        };
        if (spec.op == "RNN") {
          for (int64_t j = 0; j < h; ++j)
            nextH[b * h + j] = std::tanh(pre(0, j));
        } else if (spec.op == "GRU") { // Gates z, r, h.
          std::vector<double> z(h), reset(h), resetState(h);
          for (int64_t j = 0; j < h; ++j) {
            z[j] = sigmoidOf(pre(0, j));
            reset[j] = sigmoidOf(pre(1, j));
            resetState[j] = reset[j] * hPrev[j];
          }
          for (int64_t j = 0; j < h; ++j) {
            double candidate =
                spec.linearBeforeReset
                    ? std::tanh(xw(2, j) +
                                reset[j] * (hr(2, j, hPrev) + rb[2 * h + j]))
                    : std::tanh(xw(2, j) + hr(2, j, resetState.data()) +
                                rb[2 * h + j]);
            nextH[b * h + j] = (1 - z[j]) * candidate + z[j] * hPrev[j];
          }
        } else { // LSTM: gates i, o, f, c.
          for (int64_t j = 0; j < h; ++j) {
            double i = sigmoidOf(pre(0, j)), o = sigmoidOf(pre(1, j));
            double f = sigmoidOf(pre(2, j)), c = std::tanh(pre(3, j));
            double cell = f * ct[b * h + j] + i * c;
            nextC[b * h + j] = cell;
            nextH[b * h + j] = o * std::tanh(cell);
          }
        }
      }
      ht = nextH;
      if (spec.lstm())
        ct = nextC;
      for (int64_t e = 0; e < n * h; ++e)
        result.y[(t * dirs + d) * n * h + e] = ht[e];
    }
    result.yh.insert(result.yh.end(), ht.begin(), ht.end());
    result.yc.insert(result.yc.end(), ct.begin(), ct.end());
  }
  return result;
}

std::vector<float> asFloats(const std::vector<double> &values) {
  return std::vector<float>(values.begin(), values.end());
}

/// The model of one node (opset 14, for `layout`), whose only graph input
/// is X.
::onnx::ModelProto recurrentModel(const RecurrentSpec &spec,
                                  const RecurrentData &data) {
  int64_t steps = spec.steps, dirs = spec.directions(), g = spec.gates();
  int64_t n = spec.batch, in = spec.inputs, h = spec.hidden;
  bool batchFirst = spec.layout == 1;
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name("recurrent");
  addInitializer(graph, "W", {dirs, g * h, in}, asFloats(data.w));
  addInitializer(graph, "R", {dirs, g * h, h}, asFloats(data.r));
  addInitializer(graph, "B", {dirs, 2 * g * h}, asFloats(data.b));
  // The states are [dirs, batch, H], or [batch, dirs, H] in layout 1.
  auto state = [&](const std::vector<double> &values) {
    return asFloats(batchFirst ? permuted(values, {dirs, n, h}, {1, 0, 2})
                               : values);
  };
  std::vector<int64_t> stateShape = batchFirst
                                        ? std::vector<int64_t>{n, dirs, h}
                                        : std::vector<int64_t>{dirs, n, h};
  std::vector<std::string> inputs = {"X", "W", "R", "B"};
  if (spec.initialStates) {
    addInitializer(graph, "initial_h", stateShape, state(data.h0));
    inputs.insert(inputs.end(), {"", "initial_h"});
    if (spec.lstm()) {
      addInitializer(graph, "initial_c", stateShape, state(data.c0));
      inputs.push_back("initial_c");
    }
  }
  declare(graph.add_input(), "X", ::onnx::TensorProto::FLOAT,
          batchFirst ? std::vector<int64_t>{n, steps, in}
                     : std::vector<int64_t>{steps, n, in});
  std::vector<std::string> outputs = {"Y", "Y_h"};
  if (spec.lstm())
    outputs.push_back("Y_c");
  declare(graph.add_output(), "Y", ::onnx::TensorProto::FLOAT,
          batchFirst ? std::vector<int64_t>{n, steps, dirs, h}
                     : std::vector<int64_t>{steps, dirs, n, h});
  for (size_t k = 1; k < outputs.size(); ++k)
    declare(graph.add_output(), outputs[k], ::onnx::TensorProto::FLOAT,
            stateShape);
  ::onnx::NodeProto *node = addNode(graph, spec.op, inputs, outputs, "rnn");
  auto integer = [&](const std::string &name, int64_t value) {
    ::onnx::AttributeProto *attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::INT);
    attribute->set_i(value);
  };
  integer("hidden_size", h);
  integer("layout", spec.layout);
  if (spec.op == "GRU")
    integer("linear_before_reset", spec.linearBeforeReset);
  ::onnx::AttributeProto *direction = node->add_attribute();
  direction->set_name("direction");
  direction->set_type(::onnx::AttributeProto::STRING);
  direction->set_s(spec.direction);
  return model;
}

/// X as the model takes it.
Tensor recurrentInput(const RecurrentSpec &spec, const RecurrentData &data) {
  int64_t steps = spec.steps, n = spec.batch, in = spec.inputs;
  if (spec.layout == 1)
    return Tensor::fromVector(
        asFloats(permuted(data.x, {steps, n, in}, {1, 0, 2})), {n, steps, in});
  return Tensor::fromVector(asFloats(data.x), {steps, n, in});
}

/// Compares the model's outputs with the reference's (layout 0), in the
/// model's layout. Tolerance: the model computes in float32 (epsilon 6e-8)
/// from the very float values the reference reads in double; an output
/// goes through 5 steps of dot products of 4 to 6 terms and activations
/// accurate to a few ulps, a few ulps of error each (2e-7 at most
/// measured, |h| < 1). 1e-5 relative (absolute below 1) leaves a wide
/// margin, and is far below what a wrong gate order, bias, direction or
/// reset placement changes (1e-3 and more).
void expectRecurrentOutputs(const RecurrentSpec &spec,
                            const std::vector<Tensor> &outputs,
                            const RecurrentResult &expected) {
  int64_t steps = spec.steps, dirs = spec.directions();
  int64_t n = spec.batch, h = spec.hidden;
  bool batchFirst = spec.layout == 1;
  std::vector<std::vector<double>> want = {
      batchFirst ? permuted(expected.y, {steps, dirs, n, h}, {2, 0, 1, 3})
                 : expected.y,
      batchFirst ? permuted(expected.yh, {dirs, n, h}, {1, 0, 2})
                 : expected.yh};
  if (spec.lstm())
    want.push_back(batchFirst ? permuted(expected.yc, {dirs, n, h}, {1, 0, 2})
                              : expected.yc);
  ASSERT_EQ(outputs.size(), want.size());
  std::vector<std::vector<int64_t>> shapes = {
      batchFirst ? std::vector<int64_t>{n, steps, dirs, h}
                 : std::vector<int64_t>{steps, dirs, n, h},
      batchFirst ? std::vector<int64_t>{n, dirs, h}
                 : std::vector<int64_t>{dirs, n, h}};
  shapes.push_back(shapes[1]);
  for (size_t k = 0; k < outputs.size(); ++k) {
    EXPECT_EQ(outputs[k].shape(), shapes[k]) << "output " << k;
    std::vector<float> got = outputs[k].toVector<float>();
    ASSERT_EQ(got.size(), want[k].size()) << "output " << k;
    // One failure per output, naming the first element off and the count.
    size_t off = 0, first = 0;
    for (size_t e = 0; e < got.size(); ++e)
      if (!(std::abs(got[e] - want[k][e]) <=
            1e-5 * std::max(1.0, std::abs(want[k][e]))) &&
          off++ == 0)
        first = e;
    EXPECT_EQ(off, 0u) << "output " << k << ": first @" << first << ": "
                       << got[first] << ", expected " << want[k][first];
  }
}

std::vector<RecurrentSpec> recurrentSpecs() {
  std::vector<RecurrentSpec> specs;
  for (const char *direction : {"forward", "reverse", "bidirectional"}) {
    specs.push_back({"RNN", direction});
    specs.push_back({"GRU", direction, 0});
    specs.push_back({"GRU", direction, 1});
    specs.push_back({"LSTM", direction});
  }
  // Batch first, without initial states (with them:
  // ABatchFirstLayerReadsItsInitialStatesBatchFirst).
  specs.push_back({"LSTM", "bidirectional", 0, 1, false});
  specs.push_back({"GRU", "reverse", 1, 1, false});
  specs.push_back({"GRU", "forward", 0, 1, false});
  specs.push_back({"RNN", "bidirectional", 0, 1, false});
  // Without initial states in layout 0 too.
  specs.push_back({"LSTM", "reverse", 0, 0, false});
  return specs;
}

TEST_F(OnnxImportTest, RecurrentLayersComputeOnnxsEquations) {
  // Each node three times: plainly (one whileLoop per direction), under a
  // recording GradientTape (the steps unrolled), and eagerly.
  for (const RecurrentSpec &spec : recurrentSpecs()) {
    SCOPED_TRACE(spec.name());
    RecurrentData data = recurrentData(spec);
    RecurrentResult expected = recurrentReference(spec, data);
    lazyc::onnx::Model model =
        lazyc::onnx::load(write(recurrentModel(spec, data)));
    Tensor x = recurrentInput(spec, data);
    {
      SCOPED_TRACE("loop");
      ASSERT_FALSE(GradientTape::anyRecording());
      expectRecurrentOutputs(spec, model(std::vector<Tensor>{x}), expected);
    }
    {
      SCOPED_TRACE("unrolled");
      GradientTape tape;
      ASSERT_TRUE(GradientTape::anyRecording());
      expectRecurrentOutputs(spec, model(std::vector<Tensor>{x}), expected);
    }
    {
      SCOPED_TRACE("eager"); // The loop run as a C++ loop.
      EagerScope eager;
      expectRecurrentOutputs(spec, model(std::vector<Tensor>{x}), expected);
    }
  }
}

TEST_F(OnnxImportTest, ABatchFirstLayerReadsItsInitialStatesBatchFirst) {
  // In layout 1, initial_h and initial_c are [batch, dirs, H] (ONNX's
  // spec of `layout`), as Y_h and Y_c are. Read as [dirs, batch, H], batch
  // 3 failed to reshape, and batch 2 with two directions was silently
  // transposed.
  for (int64_t batch : {3, 2}) {
    for (const char *op : {"LSTM", "GRU", "RNN"}) {
      RecurrentSpec spec{op, "bidirectional", 1, 1};
      spec.batch = batch;
      SCOPED_TRACE(spec.name());
      RecurrentData data = recurrentData(spec);
      lazyc::onnx::Model model =
          lazyc::onnx::load(write(recurrentModel(spec, data)));
      Tensor x = recurrentInput(spec, data);
      std::vector<Tensor> outputs;
      try {
        outputs = model(std::vector<Tensor>{x});
      } catch (const Error &error) {
        ADD_FAILURE() << error.what();
        continue;
      }
      expectRecurrentOutputs(spec, outputs, recurrentReference(spec, data));
    }
  }
}

TEST_F(OnnxImportTest, ARecurrentLayerRecordsItsStepOnce) {
  // The ops one call records do not grow with the sequence's length
  // (a loop whose body is recorded once), unless a tape records (the steps
  // unrolled, each recorded).
  auto opsOfOneCall = [&](int64_t steps, bool taped) {
    RecurrentSpec spec{"LSTM", "bidirectional"};
    spec.steps = steps;
    RecurrentData data = recurrentData(spec);
    lazyc::onnx::Model model = lazyc::onnx::load(
        write(recurrentModel(spec, data), "lstm" + std::to_string(steps)));
    Tensor x = recurrentInput(spec, data);
    std::unique_ptr<GradientTape> tape;
    if (taped)
      tape = std::make_unique<GradientTape>();
    uint64_t before = metrics().opsRecorded;
    std::vector<Tensor> outputs = model(std::vector<Tensor>{x});
    uint64_t recorded = metrics().opsRecorded - before;
    // And the loop's values are right at either length.
    expectRecurrentOutputs(spec, outputs, recurrentReference(spec, data));
    return recorded;
  };
  uint64_t loop5 = opsOfOneCall(5, false), loop20 = opsOfOneCall(20, false);
  uint64_t unrolled5 = opsOfOneCall(5, true),
           unrolled20 = opsOfOneCall(20, true);
  EXPECT_EQ(loop5, loop20);
  EXPECT_GT(unrolled20, unrolled5);
  EXPECT_LT(loop5, unrolled5);
}

TEST_F(OnnxImportTest, AnLstmsWeightGradientMatchesFiniteDifferences) {
  // Fine-tuning: d sum(Y) / d W of a forward LSTM under a tape, against
  // central differences of the double reference (step 1e-4: truncation
  // error ~1e-8, rounding ~1e-12). The float32 gradient sums 90 outputs'
  // chains of 5 steps: 1e-7 off at most measured, 1e-5 leaves a margin.
  RecurrentSpec spec{"LSTM", "forward"};
  RecurrentData data = recurrentData(spec);
  lazyc::onnx::Model model =
      lazyc::onnx::load(write(recurrentModel(spec, data)));
  Variable *w = nullptr;
  for (Variable *parameter : model.parameters())
    if (parameter->name() == "W")
      w = parameter;
  ASSERT_NE(w, nullptr);
  Tensor x = recurrentInput(spec, data);
  GradientTape tape;
  Tensor loss = sum(model(std::vector<Tensor>{x})[0]);
  std::vector<float> gradient = tape.gradient(loss, {w})[0].toVector<float>();
  ASSERT_EQ(gradient.size(), data.w.size());
  auto sumOfY = [&](const RecurrentData &changed) {
    double total = 0;
    for (double v : recurrentReference(spec, changed).y)
      total += v;
    return total;
  };
  EXPECT_NEAR(loss.item<float>(), sumOfY(data), 1e-4);
  // Entries of every gate (i, o, f, c: rows of H = 6 columns of I = 4).
  for (size_t e : {size_t(0), size_t(5), size_t(27), size_t(50), size_t(71),
                   size_t(76), size_t(95)}) {
    constexpr double step = 1e-4;
    RecurrentData plus = data, minus = data;
    plus.w[e] += step;
    minus.w[e] -= step;
    double expected = (sumOfY(plus) - sumOfY(minus)) / (2 * step);
    EXPECT_NEAR(gradient[e], expected, 1e-5 * std::max(1.0, std::abs(expected)))
        << "W entry " << e;
  }
}

TEST_F(OnnxImportTest, TheOpTableIsListed) {
  std::vector<std::string> ops = lazyc::onnx::supportedOps();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char *op : {"Conv", "Gemm", "MatMul", "Softmax", "Reshape", "If",
                         "Loop", "Scan", "ai.onnx.preview.training:Adam"})
    EXPECT_TRUE(std::count(ops.begin(), ops.end(), op)) << op;
}

} // namespace

TEST_F(OnnxImportTest, LinearAttentionRunsItsRecurrenceLoopedUnrolledEagerly) {
  // gated_delta, B 1, T 3, two query heads sharing one key/value head,
  // d_k = d_v = 2, per-head decay, a past state; against plain loops over
  // the same numbers (ONNX's update rule, step by step).
  constexpr int64_t steps = 3, qHeads = 2, dk = 2, dv = 2;
  std::vector<float> q = weights(steps * qHeads * dk, 0.8f),
                     k = weights(steps * dk, 0.6f),
                     v = weights(steps * dv, 1.1f),
                     decay = weights(steps, 0.3f), beta = {0.9f, 0.4f, 0.7f},
                     past = weights(dk * dv, 0.2f);
  ::onnx::ModelProto model = emptyModel(27, "linear_attention");
  ::onnx::GraphProto &graph = *model.mutable_graph();
  const std::vector<std::pair<const char *, std::vector<int64_t>>> inputs = {
      {"q", {1, steps, qHeads * dk}}, {"k", {1, steps, dk}},
      {"v", {1, steps, dv}},          {"past", {1, 1, dk, dv}},
      {"decay", {1, steps, 1}},       {"beta", {1, steps, 1}}};
  for (const auto &[name, shape] : inputs)
    declare(graph.add_input(), name, ::onnx::TensorProto::FLOAT, shape);
  declare(graph.add_output(), "y", ::onnx::TensorProto::FLOAT,
          {1, steps, qHeads * dv});
  declare(graph.add_output(), "state", ::onnx::TensorProto::FLOAT,
          {1, 1, dk, dv});
  ::onnx::NodeProto *node = addNode(graph, "LinearAttention",
                                    {"q", "k", "v", "past", "decay", "beta"},
                                    {"y", "state"}, "linear_attention");
  for (auto [name, value] : {std::pair<const char *, int64_t>{"q_num_heads", 2},
                             {"kv_num_heads", 1}}) {
    ::onnx::AttributeProto *attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(::onnx::AttributeProto::INT);
    attribute->set_i(value);
  }

  // S = exp(g) S; S += beta k (v - S^T k)^T; y_h = q_h^T S / sqrt(d_k).
  float s[dk][dv];
  for (int64_t i = 0; i < dk; ++i)
    for (int64_t j = 0; j < dv; ++j)
      s[i][j] = past[i * dv + j];
  std::vector<float> y(steps * qHeads * dv);
  for (int64_t t = 0; t < steps; ++t) {
    for (auto &row : s)
      for (float &value : row)
        value *= std::exp(decay[t]);
    float correction[dv];
    for (int64_t j = 0; j < dv; ++j) {
      float held = 0;
      for (int64_t i = 0; i < dk; ++i)
        held += s[i][j] * k[t * dk + i];
      correction[j] = beta[t] * (v[t * dv + j] - held);
    }
    for (int64_t i = 0; i < dk; ++i)
      for (int64_t j = 0; j < dv; ++j)
        s[i][j] += k[t * dk + i] * correction[j];
    for (int64_t h = 0; h < qHeads; ++h)
      for (int64_t j = 0; j < dv; ++j) {
        float total = 0;
        for (int64_t i = 0; i < dk; ++i)
          total += q[(t * qHeads + h) * dk + i] * s[i][j];
        y[(t * qHeads + h) * dv + j] = total / std::sqrt(float(dk));
      }
  }

  lazyc::onnx::Model loaded = lazyc::onnx::load(write(model));
  std::vector<Tensor> arguments = {
      Tensor::fromVector(q, {1, steps, qHeads * dk}),
      Tensor::fromVector(k, {1, steps, dk}),
      Tensor::fromVector(v, {1, steps, dv}),
      Tensor::fromVector(past, {1, 1, dk, dv}),
      Tensor::fromVector(decay, {1, steps, 1}),
      Tensor::fromVector(beta, {1, steps, 1})};
  auto check = [&](const std::vector<Tensor> &outputs) {
    std::vector<float> gotY = outputs.at(0).toVector<float>();
    std::vector<float> gotState = outputs.at(1).toVector<float>();
    ASSERT_EQ(gotY.size(), y.size());
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(gotY[i], y[i], 1e-5) << "y " << i;
    for (int64_t i = 0; i < dk * dv; ++i)
      EXPECT_NEAR(gotState[i], s[i / dv][i % dv], 1e-5) << "state " << i;
  };
  {
    SCOPED_TRACE("loop");
    check(loaded(arguments));
  }
  {
    SCOPED_TRACE("unrolled");
    GradientTape tape;
    check(loaded(arguments));
  }
  {
    SCOPED_TRACE("eager");
    EagerScope eager;
    check(loaded(arguments));
  }
}
