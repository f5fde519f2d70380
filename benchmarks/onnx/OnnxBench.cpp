//===- OnnxBench.cpp - lazyc beside ONNX Runtime on the same models -------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each workload is a lazyc::function of one input, forward only (what a
// user runs a trained model for). lazyc runs it; lazyc::onnx::save writes
// it as an ONNX model, which ONNX Runtime 1.30 (CPU, its Node.js package:
// tools/onnxruntime-run/onnxruntime-run.js) runs on the same input with the
// same number of threads, all graph optimizations on. The LSTM and one
// layer norm are the other way round: an ONNX model of one node (LSTM,
// LayerNormalization), written here, that lazyc runs through
// lazyc::onnx::load and ONNX Runtime with its own kernel for that op.
//
// Per side: warm-up calls, then as many timed calls as fill about a second
// (at least 10); reported: the median call, ORT / lazyc (above 1: lazyc is
// faster), and the largest difference between the two outputs relative to
// the largest output magnitude. ONNX Runtime's time is the smaller of two
// upper bounds (onnxruntime-run.js): its call from JavaScript, and its
// profiler's model_run; neither counts process start or file reading.
//
//   lazyc-bench-onnx [--threads N] [--only NAME] [--seconds S]
//                    [--lazyc-only]   (lazyc's side alone, for profiling)
//                    [--metrics]      (lazyc's metrics report of each row's
//                                      timed calls, on stderr)
//
//===----------------------------------------------------------------------===//

#include <lazyc/Onnx/Onnx.h>
#include <lazyc/nn.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" void omp_set_num_threads(int threads);

using namespace lazyc;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  int threads = 2;
  double seconds = 1.0;
  std::string only;
  bool lazycOnly = false; ///< Profiling lazyc: no ONNX Runtime side.
  bool metrics = false;   ///< Print lazyc's metrics of the timed calls.
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// SplitMix64 in [-scale, scale): the same numbers on every run.
std::vector<float> numbers(int64_t count, float scale, uint64_t seed) {
  std::vector<float> values(count);
  uint64_t state = seed;
  for (float &value : values) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    value = scale * (float(z >> 40) / float(1 << 24) * 2 - 1);
  }
  return values;
}

Tensor input(const Shape &shape, uint64_t seed) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return Tensor::fromVector(numbers(count, 1.0f, seed), shape);
}

struct Row {
  std::string name, what;
  double lazycMs = 0, ortMs = 0, difference = 0;
};

/// Times `call` (which must leave its result computed) over about
/// `seconds`; returns the median and the call count. `resetMetrics`: the
/// metrics count the timed calls only.
std::pair<double, int> timeCalls(const std::function<void()> &call,
                                 double seconds, bool resetMetrics = false) {
  for (int i = 0; i < 3; ++i)
    call();
  if (resetMetrics)
    lazyc::resetMetrics();
  auto start = Clock::now();
  call();
  double first =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  int count = std::clamp(int(seconds * 1000 / std::max(first, 1e-3)), 10, 500);
  std::vector<double> times;
  for (int i = 0; i < count; ++i) {
    auto begin = Clock::now();
    call();
    times.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - begin)
            .count());
  }
  return {median(times), count};
}

std::string ortDir() {
  const char *set = std::getenv("LAZYC_ONNXRUNTIME_DIR");
  const char *home = std::getenv("HOME");
  return set ? set
             : std::string(home ? home : "") + "/.cache/lazyc/onnxruntime";
}

/// Runs `model` in ONNX Runtime on `x` (input `name`), `runs` timed runs;
/// returns its median and its first output.
std::pair<double, Tensor> runOrt(const std::string &model,
                                 const std::string &name, const Tensor &x,
                                 int runs, const Settings &settings) {
  fs::path dir = fs::temp_directory_path() /
                 ("lazyc-bench-onnx-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string file = (dir / "input.npy").string();
  saveNpy(x, file);
  std::string command = std::string(LAZYC_NODE) + " " + LAZYC_ONNXRUNTIME_RUN +
                        " " + model + " --input " + name + "=" + file +
                        " --output-dir " + dir.string() + " --threads " +
                        std::to_string(settings.threads) + " --repeat " +
                        std::to_string(runs) + " --warmup 3";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    throw std::runtime_error("cannot run " + command);
  char line[512] = {0};
  std::string output;
  while (std::fgets(line, sizeof line, pipe))
    output += line;
  if (pclose(pipe) != 0)
    throw std::runtime_error("ONNX Runtime failed: " + command + "\n" + output);
  size_t at = output.find("\"median_ms\":");
  if (at == std::string::npos)
    throw std::runtime_error("no timing from ONNX Runtime: " + output);
  double ms = std::strtod(output.c_str() + at + 12, nullptr);
  ::onnx::ModelProto proto;
  std::ifstream stream(model, std::ios::binary);
  proto.ParseFromIstream(&stream);
  Tensor y =
      loadNpy((dir / (proto.graph().output(0).name() + ".npy")).string());
  fs::remove_all(dir);
  return {ms, y};
}

double relativeDifference(const Tensor &a, const Tensor &b) {
  if (a.shape() != b.shape())
    return INFINITY;
  std::vector<float> x = cast(a, DType::Float32).toVector<float>();
  std::vector<float> y = cast(b, DType::Float32).toVector<float>();
  double largest = 0, worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    largest = std::max(largest, double(std::fabs(y[i])));
    worst = std::max(worst, double(std::fabs(x[i] - y[i])));
  }
  return worst / std::max(largest, 1e-30);
}

/// Times `call` (lazyc computing the row's workload on `x`), then the model
/// `writeModel` writes (to the path it is given) in ONNX Runtime, as many
/// times, and compares their outputs.
Row measure(Row row, const std::function<Tensor()> &call,
            const std::function<void(const std::string &)> &writeModel,
            const Tensor &x, const Settings &settings) {
  Tensor y;
  auto [ms, runs] = timeCalls(
      [&] {
        y = call();
        lazyc::sync();
      },
      settings.seconds, settings.metrics);
  row.lazycMs = ms;
  if (settings.metrics)
    std::cerr << "== " << row.name << ": lazyc's metrics of the timed calls\n"
              << lazyc::metricsReport() << "\n";
  if (settings.lazycOnly)
    return row;
  std::string model =
      (fs::temp_directory_path() / (row.name + ".onnx")).string();
  writeModel(model);
  auto [ortMs, ortY] = runOrt(model, "x", x, runs, settings);
  row.ortMs = ortMs;
  row.difference = relativeDifference(y, ortY);
  std::remove(model.c_str());
  return row;
}

/// Times `function` on `x` in lazyc and, exported, in ONNX Runtime.
template <typename Function>
Row compare(const std::string &name, const std::string &what,
            Function &function, const Tensor &x, const Settings &settings) {
  return measure(
      Row{name, what}, [&] { return Tensor(function(x)); },
      [&](const std::string &path) { lazyc::onnx::save(function, path); }, x,
      settings);
}

//===----------------------------------------------------------------------===//
// The LSTM: an ONNX model with one LSTM node
//===----------------------------------------------------------------------===//

void addFloats(::onnx::GraphProto &graph, const std::string &name,
               const Shape &shape, uint64_t seed, float scale) {
  ::onnx::TensorProto &tensor = *graph.add_initializer();
  tensor.set_name(name);
  tensor.set_data_type(::onnx::TensorProto::FLOAT);
  int64_t count = 1;
  for (int64_t size : shape) {
    tensor.add_dims(size);
    count *= size;
  }
  for (float value : numbers(count, scale, seed))
    tensor.add_float_data(value);
}

void declare(::onnx::ValueInfoProto &info, const std::string &name,
             const Shape &shape) {
  info.set_name(name);
  auto &type = *info.mutable_type()->mutable_tensor_type();
  type.set_elem_type(::onnx::TensorProto::FLOAT);
  for (int64_t size : shape)
    type.mutable_shape()->add_dim()->set_dim_value(size);
}

/// A model of one node, `op`, over input x and the initializers the caller
/// adds; its output y.
::onnx::ModelProto oneNodeModel(const std::string &op, const Shape &inShape,
                                const Shape &outShape) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name(op);
  declare(*graph.add_input(), "x", inShape);
  declare(*graph.add_output(), "y", outShape);
  ::onnx::NodeProto &node = *graph.add_node();
  node.set_op_type(op);
  node.add_input("x");
  node.add_output("y");
  return model;
}

void addAttribute(::onnx::NodeProto &node, const std::string &name,
                  int64_t value) {
  ::onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(::onnx::AttributeProto::INT);
  attribute.set_i(value);
}

/// Times `model` run by lazyc (lazyc::onnx::load) and by ONNX Runtime.
Row compareModel(const std::string &name, const std::string &what,
                 const ::onnx::ModelProto &model, const Tensor &x,
                 const Settings &settings) {
  auto write = [&](const std::string &path) {
    std::ofstream file(path, std::ios::binary);
    model.SerializeToOstream(&file);
  };
  std::string path =
      (fs::temp_directory_path() / (name + ".lazyc.onnx")).string();
  write(path);
  lazyc::onnx::Model loaded = lazyc::onnx::load(path);
  std::remove(path.c_str());
  return measure(
      Row{name, what}, [&] { return loaded(x); }, write, x, settings);
}

Row compareLstm(const Settings &settings) {
  const int64_t T = 32, B = 16, I = 64, H = 128;
  ::onnx::ModelProto model = oneNodeModel("LSTM", {T, B, I}, {T, 1, B, H});
  ::onnx::GraphProto &graph = *model.mutable_graph();
  float scale = 1.0f / std::sqrt(float(H));
  addFloats(graph, "W", {1, 4 * H, I}, 11, scale);
  addFloats(graph, "R", {1, 4 * H, H}, 12, scale);
  addFloats(graph, "B", {1, 8 * H}, 13, scale);
  ::onnx::NodeProto &node = *graph.mutable_node(0);
  for (const char *in : {"W", "R", "B"})
    node.add_input(in);
  addAttribute(node, "hidden_size", H);
  return compareModel("lstm", "ONNX LSTM node, T 32, B 16, 64 -> 128", model,
                      input({T, B, I}, 5), settings);
}

Row compareLayerNormNode(const Settings &settings) {
  ::onnx::ModelProto model =
      oneNodeModel("LayerNormalization", {4096, 1024}, {4096, 1024});
  ::onnx::GraphProto &graph = *model.mutable_graph();
  addFloats(graph, "scale", {1024}, 14, 1.0f);
  addFloats(graph, "bias", {1024}, 15, 1.0f);
  ::onnx::NodeProto &node = *graph.mutable_node(0);
  node.add_input("scale");
  node.add_input("bias");
  addAttribute(node, "axis", -1);
  return compareModel("layernorm-node",
                      "ONNX LayerNormalization node [4096, 1024]", model,
                      input({4096, 1024}, 6), settings);
}

//===----------------------------------------------------------------------===//
// The workloads
//===----------------------------------------------------------------------===//

/// A BERT-base encoder layer (post-norm): d 768, 12 heads, FFN 3072, GELU.
struct BertLayer {
  nn::MultiHeadAttention attention{768, 12, 1, "attention"};
  nn::LayerNorm ln1{{768}, 1e-12, true, DType::Float32, "ln1"};
  nn::LayerNorm ln2{{768}, 1e-12, true, DType::Float32, "ln2"};
  nn::Linear fc1{768, 3072, 3, "fc1"}, fc2{3072, 768, 4, "fc2"};
  Tensor operator()(const Tensor &x) const {
    Tensor h = ln1(x + attention(x));
    return ln2(h + fc2(gelu(fc1(h))));
  }
};

/// A ResNet-style CNN on 32x32 images: a 3x3 stem, two residual blocks of
/// two 3x3 convolutions with (inference) batch norm folded in as a scale and
/// shift, global average pooling, a linear classifier.
struct ResNet {
  static nn::Conv2d::Options padded() {
    nn::Conv2d::Options options;
    options.conv.padding = 1;
    return options;
  }
  nn::Conv2d stem{3, 32, 3, 1, padded(), "stem"};
  std::vector<nn::Conv2d> convs;
  std::vector<Variable> scales, shifts;
  nn::Linear fc{32, 10, 9, "fc"};
  ResNet() {
    for (int i = 0; i < 4; ++i) {
      convs.emplace_back(32, 32, 3, 2 + i, padded(),
                         "conv" + std::to_string(i));
      scales.emplace_back(
          Tensor::fromVector(numbers(32, 0.2f, 20 + i), {1, 32, 1, 1}) + 1.0f,
          "scale" + std::to_string(i));
      shifts.emplace_back(
          Tensor::fromVector(numbers(32, 0.1f, 30 + i), {1, 32, 1, 1}),
          "shift" + std::to_string(i));
    }
  }
  Tensor bn(const Tensor &x, int i) const {
    return x * scales[i].read() + shifts[i].read();
  }
  Tensor operator()(const Tensor &x) const {
    Tensor h = relu(stem(x));
    for (int block = 0; block < 2; ++block) {
      Tensor r = relu(bn(convs[2 * block](h), 2 * block));
      h = relu(h + bn(convs[2 * block + 1](r), 2 * block + 1));
    }
    return fc(mean(h, {2, 3}));
  }
};

void print(const Row &row) {
  std::printf("| %-14s | %-52s | %9.3f | %9.3f | %5.2fx | %.1e |\n",
              row.name.c_str(), row.what.c_str(), row.lazycMs, row.ortMs,
              row.ortMs / row.lazycMs, row.difference);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "lazyc-bench-onnx: %s needs a value\n",
                     arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--threads")
      settings.threads = std::stoi(value());
    else if (arg == "--only")
      settings.only = value();
    else if (arg == "--lazyc-only")
      settings.lazycOnly = true;
    else if (arg == "--metrics")
      settings.metrics = true;
    else if (arg == "--seconds")
      settings.seconds = std::stod(value());
    else {
      std::fprintf(stderr,
                   "usage: lazyc-bench-onnx [--threads N] [--only NAME] "
                   "[--seconds S] [--lazyc-only] [--metrics]\n");
      return 2;
    }
  }
  if (!fs::exists(ortDir() + "/node_modules/onnxruntime-node/package.json")) {
    std::fprintf(stderr,
                 "lazyc-bench-onnx: ONNX Runtime is not installed in %s "
                 "(scripts/setup installs it)\n",
                 ortDir().c_str());
    return 1;
  }
  omp_set_num_threads(settings.threads);
  std::printf("lazyc beside ONNX Runtime 1.30 (CPU), %d threads, forward, "
              "float32; median ms per call\n\n",
              settings.threads);
  std::printf("| workload | what | lazyc ms | ORT ms | ORT / lazyc | max diff "
              "|\n| --- | --- | --- | --- | --- | --- |\n");
  auto wanted = [&](const char *name) {
    return settings.only.empty() || settings.only == name;
  };
  auto spec = [](const Shape &shape) {
    return std::vector<TensorSpec>{TensorSpec(shape, DType::Float32, "x")};
  };

  if (wanted("softmax")) {
    auto f = lazyc::function(
        "softmax", [](Tensor x) { return softmax(x, -1); }, spec({4096, 1024}));
    print(compare("softmax", "row softmax [4096, 1024]", f,
                  input({4096, 1024}, 1), settings));
  }
  if (wanted("mlp")) {
    nn::Linear l1(784, 512, 1, "l1"), l2(512, 512, 2, "l2"),
        l3(512, 10, 3, "l3");
    auto f = lazyc::function(
        "mlp", [&](Tensor x) { return l3(relu(l2(relu(l1(x))))); },
        spec({128, 784}));
    print(compare("mlp", "MLP 784-512-512-10, batch 128", f,
                  input({128, 784}, 2), settings));
  }
  if (wanted("conv3x3")) {
    nn::Conv2d::Options options;
    options.conv.padding = 1;
    nn::Conv2d conv(16, 16, 3, 1, options, "conv");
    auto f = lazyc::function(
        "conv3x3", [&](Tensor x) { return conv(x); }, spec({64, 16, 8, 8}));
    print(compare("conv3x3", "conv 3x3 pad 1, [64, 16, 8, 8] -> 16", f,
                  input({64, 16, 8, 8}, 3), settings));
  }
  if (wanted("conv5x5")) {
    nn::Conv2d conv1(1, 6, 5, 1, "conv1"), conv2(6, 16, 5, 2, "conv2");
    auto f = lazyc::function(
        "conv5x5",
        [&](Tensor x) { return conv2(nn::maxPool2d(relu(conv1(x)), 2)); },
        spec({64, 1, 28, 28}));
    print(compare("conv5x5", "LeNet convs 5x5 (1->6, pool, 6->16), batch 64", f,
                  input({64, 1, 28, 28}, 4), settings));
  }
  if (wanted("chain")) {
    auto f = lazyc::function(
        "chain",
        [](Tensor x) { return sigmoid(x * 1.5f + 0.5f) * tanh(x) + x * x; },
        spec({16 << 20}));
    print(compare("chain", "elementwise chain, 16M", f, input({16 << 20}, 5),
                  settings));
  }
  if (wanted("layernorm")) {
    nn::LayerNorm norm({1024}, 1e-5, true, DType::Float32, "norm");
    auto f = lazyc::function(
        "layernorm", [&](Tensor x) { return norm(x); }, spec({4096, 1024}));
    print(compare("layernorm", "layer norm [4096, 1024]", f,
                  input({4096, 1024}, 6), settings));
  }
  if (wanted("layernorm-node"))
    print(compareLayerNormNode(settings));
  if (wanted("tiny")) {
    auto f = lazyc::function(
        "tiny",
        [](Tensor x) {
          for (int i = 0; i < 25; ++i)
            x = tanh(x * 0.9f + 0.1f) - x * 0.01f;
          return x;
        },
        spec({64}));
    print(compare("tiny", "100 tiny elementwise ops on [64]", f, input({64}, 7),
                  settings));
  }
  if (wanted("resnet")) {
    ResNet net;
    auto f = lazyc::function(
        "resnet", [&](Tensor x) { return net(x); }, spec({8, 3, 32, 32}));
    print(compare("resnet", "ResNet-style CNN, 32 ch, 2 blocks, 8x3x32x32", f,
                  input({8, 3, 32, 32}, 8), settings));
  }
  if (wanted("bert")) {
    BertLayer layer;
    auto f = lazyc::function(
        "bert", [&](Tensor x) { return layer(x); }, spec({1, 128, 768}));
    print(compare("bert", "BERT-base encoder layer, T 128, batch 1", f,
                  input({1, 128, 768}, 9), settings));
  }
  if (wanted("lstm"))
    print(compareLstm(settings));
  return 0;
}
