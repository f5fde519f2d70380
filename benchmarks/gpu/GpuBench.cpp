//===- GpuBench.cpp - lazyc on the GPU workloads of the peers' benchmark --===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Times lazyc on an NVIDIA GPU on the workloads that the peers' benchmark
// (../shared/tools/gpu-peers/bench.py: PyTorch eager, torch.compile, CUDA
// graphs, jax.jit) measures, named as it names them, and appends one JSON
// record per figure to $OUT/results.jsonl in its format, so that
// `python3 bench.py report` prints lazyc's rows beside the peers' from the
// same run on the same device:
//
//   2 chain   the 8-op elementwise chain on 16M f32 (and 64M)
//   3 rows    softmax, layer norm, layer norm + affine, 4096x1024 and
//             16384x4096
//   4 gemm    f32 matmul 1024^3 and 4096^3 with TF32 off and on, bf16
//             4096^3, and a linear layer with relu (GEMM + bias + relu)
//   5 mlp     one SGD-momentum step of the 784-512-512-10 MLP, batch 128
//             and 4096 (full f32); and the same step data-parallel in a
//             world of one (its gradients averaged by NCCL: lazyc's own
//             row, the cost of the collective path)
//   6 launch  100 tiny ops on 16 f32 (y * 0.999, y + 0.001), one trace
//   7 compile the chain's first call (compile, cache off) and a 20-op trace
//
// Time per call: batches of back-to-back calls (each queues its trace on
// the GPU), a batch ending when the device has run them all
// (lazyc::synchronize), timed by the host clock; 30 batches after warm-up,
// the median per call (the peers' method for jax.jit; torch's uses CUDA
// events). Inputs rotate among copies spanning >= 256 MiB (the L2 cache
// holds 50 MB). Every workload's error is measured against a float64 host
// reference.
//
// Usage: lazyc-bench-gpu [--only SECTION] [--device cpu]
//   exit status 77 without a GPU; --device cpu runs the same workloads on
//   the CPU (fw "lazyc cpu"): a check of this program where there is none.
//
//===----------------------------------------------------------------------===//

#include <lazyc/Runtime/Cuda.h>
#include <lazyc/lazyc.h>
#include <lazyc/nn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace lazyc;

namespace {

using Clock = std::chrono::steady_clock;

/// The device the workloads run on (--device).
Device target = Device::cuda();

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// One figure: string and number fields, written as bench.py writes them.
class Record {
public:
  Record(std::string section, std::string name) {
    set("sec", std::move(section));
    set("name", std::move(name));
    set("fw", target == Device::cpu() ? "lazyc cpu" : "lazyc");
  }
  Record &set(const std::string &key, std::string value) {
    std::string quoted = "\"";
    for (char c : value)
      quoted +=
          c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    fields.push_back({key, quoted + "\""});
    return *this;
  }
  Record &set(const std::string &key, double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.6g", value);
    fields.push_back({key, std::isfinite(value) ? text : "null"});
    return *this;
  }
  std::string json() const {
    std::string out = "{";
    for (size_t i = 0; i < fields.size(); ++i)
      out += (i ? ", \"" : "\"") + fields[i].first + "\": " + fields[i].second;
    return out + "}";
  }

private:
  std::vector<std::pair<std::string, std::string>> fields;
};

std::string outputPath() {
  const char *out = std::getenv("OUT");
  std::string dir = out && *out ? out : "/tmp/gpuanchors_out";
  std::string command = "mkdir -p '" + dir + "'";
  if (std::system(command.c_str()) != 0)
    std::fprintf(stderr, "lazyc-bench-gpu: cannot create %s\n", dir.c_str());
  return dir + "/results.jsonl";
}

void emit(const Record &record) {
  static const std::string path = outputPath();
  std::printf("RES %s\n", record.json().c_str());
  std::fflush(stdout);
  std::ofstream(path, std::ios::app) << record.json() << "\n";
}

/// Per-call times of `call` (median, min, max in ms over 30 batches).
struct Timing {
  double ms = 0, minMs = 0, maxMs = 0;
  int perBatch = 0;
};

Timing timeCalls(const std::function<void()> &call, double batchMs = 4.0) {
  for (int i = 0; i < 3; ++i)
    call();
  synchronize(target);
  auto start = Clock::now();
  for (int i = 0; i < 5; ++i)
    call();
  synchronize(target);
  double estimate = msSince(start) / 5;
  int n = static_cast<int>(
      std::clamp(std::round(batchMs / std::max(estimate, 1e-4)), 1.0, 5000.0));
  std::vector<double> perCall;
  for (int batch = 0; batch < 30; ++batch) {
    auto begin = Clock::now();
    for (int i = 0; i < n; ++i)
      call();
    synchronize(target);
    perCall.push_back(msSince(begin) / n);
  }
  std::sort(perCall.begin(), perCall.end());
  return {perCall[perCall.size() / 2], perCall.front(), perCall.back(), n};
}

Record &withTiming(Record &record, const Timing &timing) {
  return record.set("ms", timing.ms)
      .set("ms_min", timing.minMs)
      .set("ms_max", timing.maxMs)
      .set("n", timing.perBatch)
      .set("reps", 30);
}

/// max |out - ref| / max |ref| (bench.py's relerr).
double relativeError(const std::vector<double> &out,
                     const std::vector<double> &ref) {
  double error = 0, scale = 0;
  for (size_t i = 0; i < out.size() && i < ref.size(); ++i) {
    error = std::max(error, std::abs(out[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return scale > 0 ? error / scale : error;
}

constexpr int64_t kMiB = int64_t(1) << 20;

/// Copies of an input of `bytes` bytes that together span 256 MiB.
int rotations(int64_t bytes) {
  return static_cast<int>(
      std::clamp<int64_t>((256 * kMiB + bytes - 1) / bytes, 1, 16));
}

Device gpu() { return target; }

/// `count` random normal tensors of `shape` on the GPU, computed.
std::vector<Tensor> inputs(const Shape &shape, int count, int64_t seed) {
  DeviceScope scope(gpu());
  std::vector<Tensor> made;
  for (int i = 0; i < count; ++i)
    made.push_back(randomNormal(shape, 0.0, 1.0, seed + i));
  sync();
  return made;
}

Tensor chain(const Tensor &x) {
  return relu(tanh(exp(x * 0.5f + 0.1f)) * 1.5f - 1.0f) / (x * x + 1.0f);
}

double chainReference(double x) {
  return std::max(std::tanh(std::exp(x * 0.5 + 0.1)) * 1.5 - 1.0, 0.0) /
         (x * x + 1.0);
}

void chainSection() {
  for (int64_t elements : {16 * kMiB, 64 * kMiB}) {
    std::string name =
        "elementwise chain relu(tanh(exp(x*.5+.1))*1.5-1)/(x*x+1), " +
        std::to_string(elements / kMiB) + "M f32";
    std::vector<Tensor> xs = inputs({elements}, rotations(4 * elements), 11);
    // The first call compiles (the persistent cache is off for this run).
    auto start = Clock::now();
    Tensor y = chain(xs[0]);
    sync();
    synchronize(target);
    double firstMs = msSince(start);
    std::vector<double> got = y.toVector<double>();
    std::vector<double> x = xs[0].toVector<double>(), ref(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      ref[i] = chainReference(x[i]);
    size_t next = 0;
    Timing timing = timeCalls([&] {
      y = chain(xs[next++ % xs.size()]);
      sync();
    });
    Record record("2 chain", name);
    withTiming(record, timing)
        .set("gbps", 8.0 * elements / (timing.ms * 1e-3) / 1e9)
        .set("nbytes", 8.0 * elements)
        .set("relerr", relativeError(got, ref));
    emit(record);
    if (elements == 16 * kMiB) {
      Record compile("7 compile latency",
                     "chain, 1st call in process (cache off)");
      emit(compile.set("wall_s", firstMs / 1e3));
    }
  }
}

void rowsSection() {
  for (auto [rowCount, columnCount] :
       {std::pair<int64_t, int64_t>{4096, 1024},
        std::pair<int64_t, int64_t>{16384, 4096}}) {
    int64_t rows = rowCount, columns = columnCount;
    int64_t bytes = rows * columns * 4;
    std::vector<Tensor> xs = inputs({rows, columns}, rotations(bytes), 21);
    Tensor weight = inputs({columns}, 1, 31)[0];
    Tensor bias = inputs({columns}, 1, 32)[0];
    std::vector<double> x = xs[0].toVector<double>();
    std::vector<double> w = weight.toVector<double>(),
                        b = bias.toVector<double>();
    for (std::string op : {"softmax", "layernorm", "layernorm+affine"}) {
      bool affine = op == "layernorm+affine";
      auto apply = [&](const Tensor &in) {
        if (op == "softmax")
          return softmax(in, -1);
        return affine ? nn::layerNorm(in, {columns}, weight, bias, 1e-5)
                      : nn::layerNorm(in, {columns}, Tensor(), Tensor(), 1e-5);
      };
      auto start = Clock::now();
      Tensor y = apply(xs[0]);
      sync();
      double compileMs = msSince(start);
      std::vector<double> got = y.toVector<double>(), ref(x.size());
      for (int64_t r = 0; r < rows; ++r) {
        const double *row = &x[r * columns];
        double *out = &ref[r * columns];
        if (op == "softmax") {
          double top = *std::max_element(row, row + columns), sum = 0;
          for (int64_t c = 0; c < columns; ++c)
            sum += out[c] = std::exp(row[c] - top);
          for (int64_t c = 0; c < columns; ++c)
            out[c] /= sum;
          continue;
        }
        double mean = 0, variance = 0;
        for (int64_t c = 0; c < columns; ++c)
          mean += row[c] / columns;
        for (int64_t c = 0; c < columns; ++c)
          variance += (row[c] - mean) * (row[c] - mean) / columns;
        for (int64_t c = 0; c < columns; ++c) {
          out[c] = (row[c] - mean) / std::sqrt(variance + 1e-5);
          if (affine)
            out[c] = out[c] * w[c] + b[c];
        }
      }
      size_t next = 0;
      Timing timing = timeCalls([&] {
        y = apply(xs[next++ % xs.size()]);
        sync();
      });
      double nbytes = 2.0 * bytes + (affine ? 2.0 * columns * 4 : 0.0);
      Record record("3 rows", op + " rows " + std::to_string(rows) + "x" +
                                  std::to_string(columns));
      withTiming(record, timing)
          .set("gbps", nbytes / (timing.ms * 1e-3) / 1e9)
          .set("nbytes", nbytes)
          .set("relerr", relativeError(got, ref))
          .set("compile_s", compileMs / 1e3);
      emit(record);
    }
  }
}

/// ||c - a b|| / ||a b|| over the first `checkedRows` rows, in float64.
double productError(const Tensor &a, const Tensor &b, const Tensor &c,
                    int64_t n, int64_t checkedRows) {
  std::vector<double> av = a.toVector<double>(), bv = b.toVector<double>(),
                      cv = c.toVector<double>();
  double error = 0, norm = 0;
  for (int64_t i = 0; i < checkedRows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k)
        sum += av[i * n + k] * bv[k * n + j];
      error += (cv[i * n + j] - sum) * (cv[i * n + j] - sum);
      norm += sum * sum;
    }
  return std::sqrt(error / norm);
}

/// Computes `product` (an n x n x n product) once, then times it: its
/// record, with its rate; `result` keeps the last value.
Record timeProduct(const std::string &name, int64_t n,
                   const std::function<Tensor()> &product, Tensor &result) {
  result = product();
  sync();
  Timing timing = timeCalls([&] {
    result = product();
    sync();
  });
  Record record("4 gemm", name);
  withTiming(record, timing)
      .set("tflops", 2.0 * n * n * n / (timing.ms * 1e-3) / 1e12);
  return record;
}

void gemmSection() {
  Tensor c;
  for (bool tf32 : {false, true}) {
    setAllowTf32(tf32);
    for (int64_t n : {1024, 4096}) {
      Tensor a = inputs({n, n}, 1, 41)[0], b = inputs({n, n}, 1, 42)[0];
      Record record = timeProduct(
          "f32 matmul " + std::to_string(n) + "^3, TF32 " +
              (tf32 ? "on" : "off"),
          n, [&] { return matmul(a, b); }, c);
      emit(record.set("relerr", productError(a, b, c, n, 16)));
    }
  }
  setAllowTf32(false);
  // bf16 products are tensor-core work; the CPU runs them as loop nests
  // (minutes at 4096): smaller there.
  int64_t n = target == Device::cpu() ? 512 : 4096;
  Tensor a = cast(inputs({n, n}, 1, 43)[0], DType::BFloat16);
  Tensor b = cast(inputs({n, n}, 1, 44)[0], DType::BFloat16);
  Record bf16 = timeProduct(
      "bf16 matmul " + std::to_string(n) + "^3", n,
      [&] { return matmul(a, b); }, c);
  emit(bf16.set("relerr", productError(a, b, c, n, 16)));

  // A linear layer with relu: lazy-gpu-gemm-to-cublas makes the bias
  // cuBLASLt's epilogue and leaves the relu to a kernel after it.
  n = target == Device::cpu() ? 1024 : 4096;
  Tensor x = inputs({n, n}, 1, 45)[0], w = inputs({n, n}, 1, 46)[0];
  Tensor bias = inputs({n}, 1, 47)[0];
  Record linear = timeProduct(
      "f32 linear + bias + relu " + std::to_string(n) + "^3, TF32 off", n,
      [&] { return relu(matmul(x, w) + bias); }, c);
  emit(linear);
}

void mlpSection() {
  const std::vector<int64_t> sizes = {784, 512, 512, 10};
  double parameters = 784 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10;
  distributed::init();
  for (auto [batch, dataParallel] : {std::pair<int64_t, bool>{128, false},
                                     {4096, false},
                                     {128, true},
                                     {4096, true}}) {
    DeviceScope scope(gpu());
    nn::Mlp model(sizes, /*seed=*/0);
    std::vector<Variable *> weights = model.parameters();
    optim::SGD::Options options;
    options.learningRate = 0.01;
    options.momentum = 0.9;
    optim::SGD optimizer(weights, options);
    std::optional<distributed::DataParallel> parallel;
    if (dataParallel)
      parallel.emplace(weights);
    Tensor x = randomNormal({batch, 784}, 0, 1, 51);
    std::vector<int64_t> labelData(batch);
    for (int64_t i = 0; i < batch; ++i)
      labelData[i] = (i * 7 + 3) % 10;
    Tensor labels = Tensor::fromVector<int64_t>(labelData, {batch}).to(gpu());
    Tensor loss;
    auto step = [&] {
      GradientTape tape;
      loss = nn::crossEntropy(model(x), labels);
      std::vector<Tensor> gradients = tape.gradient(loss, nn::refs(weights));
      optimizer.step(parallel ? parallel->averageGradients(gradients)
                              : gradients);
      sync();
    };
    auto start = Clock::now();
    step();
    double firstMs = msSince(start);
    float lossStart = loss.item<float>();
    Timing timing = timeCalls(step);
    float lossEnd = loss.item<float>();
    Record record("5 mlp",
                  "MLP 784-512-512-10 train step (SGD mom., CE), batch " +
                      std::to_string(batch) +
                      (dataParallel ? ", data-parallel, 1 rank" : ""));
    withTiming(record, timing)
        .set("gflop", 6.0 * batch * parameters / 1e9)
        .set("first_calls_s", firstMs / 1e3)
        .set("loss_start", lossStart)
        .set("loss_end", lossEnd);
    emit(record);
  }
}

void launchSection() {
  Tensor y0 = inputs({16}, 1, 61)[0];
  auto tiny = [](Tensor y) {
    for (int i = 0; i < 50; ++i) {
      y = y * 0.999f;
      y = y + 0.001f;
    }
    return y;
  };
  Tensor y = tiny(y0);
  sync();
  std::vector<double> got = y.toVector<double>(), ref = y0.toVector<double>();
  for (double &value : ref)
    for (int i = 0; i < 50; ++i)
      value = value * double(0.999f) + double(0.001f);
  Timing timing = timeCalls([&] {
    y = tiny(y0);
    sync();
  });
  Record record("6 launch",
                "100 tiny ops (16 f32, y*0.999 / y+0.001 alternating)");
  withTiming(record, timing)
      .set("us_per_op", timing.ms * 10)
      .set("us_per_call", timing.ms * 1e3)
      .set("relerr", relativeError(got, ref));
  emit(record);
}

/// 20 ops as lazyc-bench-cpu's compile benchmark records them: a linear
/// layer, activations, a softmax and reductions, on 64x128.
void compileSection() {
  std::vector<double> times;
  for (int round = 0; round < 5; ++round) {
    DeviceScope scope(gpu());
    Tensor x = randomUniform({64, 128}, -1, 1, 71 + round);
    Tensor w = randomUniform({128, 32}, -1, 1, 81 + round);
    Tensor b = randomUniform({32}, -1, 1, 91 + round);
    sync();
    clearCache(); // compiled anew each round
    auto start = Clock::now();
    Tensor h = relu(matmul(x, w) + b) * 0.5f;
    Tensor s = softmax(exp(tanh(h)) - h, 1);
    Tensor l = -log(s);
    Tensor r = sqrt(l / max(l, {1}, true));
    Tensor total = sum(transpose(r, {1, 0}));
    Tensor out = sigmoid(r);
    sync();
    synchronize(target);
    times.push_back(msSince(start));
  }
  std::sort(times.begin(), times.end());
  Record record("7 compile latency",
                "20-op trace (linear, softmax, reductions), warm process, "
                "cache off");
  emit(record.set("wall_s", times[times.size() / 2] / 1e3)
           .set("note", "median of 5 compiles"));
}

} // namespace

int main(int argc, char **argv) {
  std::string only;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--only")
      only = argv[i + 1];
    if (std::string(argv[i]) == "--device" && std::string(argv[i + 1]) == "cpu")
      target = Device::cpu();
  }
  std::string whyNot;
  if (target != Device::cpu() && !cudaAvailable(0, &whyNot)) {
    std::printf("lazyc-bench-gpu: no GPU to run on: %s\n", whyNot.c_str());
    return 77;
  }
  {
    // What ran, as bench.py's env records say it for the peers.
    Record env("env", "lazyc");
    if (target == Device::cpu()) {
      env.set("device", "cpu");
    } else {
      char name[256] = {};
      int32_t major = 0, minor = 0, driver = 0;
      lazyrt_cuda_device_name(0, name, sizeof(name));
      lazyrt_cuda_compute_capability(0, &major, &minor);
      lazyrt_cuda_driver_version(&driver);
      env.set("device", name)
          .set("compute_capability", major + minor / 10.0)
          .set("cuda_driver_api", driver);
    }
    emit(env.set("tf32_default", allowTf32() ? "on" : "off"));
  }
  // Every compile is timed: none may come from an earlier process.
  setenv("LAZYC_CACHE_DIR", "", 1);
  const std::map<std::string, void (*)()> sections = {
      {"chain", chainSection},   {"rows", rowsSection},
      {"gemm", gemmSection},     {"mlp", mlpSection},
      {"launch", launchSection}, {"compile", compileSection}};
  for (const auto &[name, run] : sections) {
    if (!only.empty() && only != name)
      continue;
    auto start = Clock::now();
    try {
      run();
    } catch (const Error &error) {
      Record failed("error", "lazyc " + name);
      emit(failed.set("err", error.what()));
    }
    std::printf("# lazyc %s: %.1f s\n", name.c_str(), msSince(start) / 1e3);
  }
  return 0;
}
