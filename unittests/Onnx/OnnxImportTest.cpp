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

/// y = relu(x W1 + b1) W2 + b2, x [batch, 3], y [batch, 2].
::onnx::ModelProto perceptron() {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name("perceptron");
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
  EXPECT_NE(message.find("(Relu, domain com.example, opset 13): lazyc does "
                         "not support this op (nor this domain)"),
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
    ::onnx::TensorProto *tensor = graph.add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(::onnx::TensorProto::INT64);
    tensor->add_dims(int64_t(values.size()));
    for (int64_t value : values)
      tensor->add_int64_data(value);
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

TEST_F(OnnxImportTest, TheOpTableIsListed) {
  std::vector<std::string> ops = lazyc::onnx::supportedOps();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char *op : {"Conv", "Gemm", "MatMul", "Softmax", "Reshape", "If",
                         "Loop", "Scan", "ai.onnx.preview.training:Adam"})
    EXPECT_TRUE(std::count(ops.begin(), ops.end(), op)) << op;
}

} // namespace
