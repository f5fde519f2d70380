//===- TorchModels.cpp - The CNN and the GPT in libtorch eager ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch baselines, written the way a libtorch user writes them (what
// torch::nn's Conv2d, MaxPool2d, Linear, LayerNorm, Embedding and a GPT
// attention block do underneath: conv2d, max_pool2d, addmm, layer_norm,
// embedding, matmul + masked_fill + softmax; F.cross_entropy as log_softmax
// + nll_loss; autograd's backward; torch::optim's SGD or Adam), from lazyc's
// initial parameters. libtorch 1.13 has no scaled_dot_product_attention, so
// attention is spelled out as in minGPT.
//
// Threads: ATen's OpenMP calls resolve to libomp, the runtime lazyc's code
// runs on, and ATen's thread-pool setup calls omp_set_num_threads with its
// own count; setTorchThreads puts the caller's count back after it
// (benchmarks/api/TorchBaseline.cpp has the story).
//
//===----------------------------------------------------------------------===//

#include "TorchModels.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>
#include <torch/version.h>

#include <cmath>
#include <memory>

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

using namespace lazyc::bench;

std::string lazyc::bench::torchDescription() {
  return std::string("libtorch ") + TORCH_VERSION + ", " +
         std::to_string(at::get_num_threads()) + " intra-op thread(s)";
}

void lazyc::bench::setTorchThreads(int threads) {
  int openmp = omp_get_max_threads();
  at::set_num_threads(threads);
  omp_set_num_threads(openmp);
}

namespace {

/// The model's parameters as leaf tensors, and its optimizer.
struct Trained {
  std::vector<at::Tensor> parameters;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  bool autocast = false;

  Trained(const std::vector<Parameter> &initial, const OptimizerSetup &setup,
          bool autocast)
      : autocast(autocast) {
    for (const Parameter &parameter : initial)
      parameters.push_back(
          at::from_blob(const_cast<float *>(parameter.values.data()),
                        parameter.shape, at::kFloat)
              .clone()
              .set_requires_grad(true));
    if (setup.adam)
      optimizer = std::make_unique<torch::optim::Adam>(
          parameters, torch::optim::AdamOptions(setup.learningRate));
    else
      optimizer = std::make_unique<torch::optim::SGD>(
          parameters, torch::optim::SGDOptions(setup.learningRate)
                          .momentum(setup.momentum));
  }

  /// One step on the loss that `forward` computes.
  float step(const std::function<at::Tensor()> &loss) {
    // PyTorch's fastest zero_grad (set_to_none): backward then hands its
    // gradient buffers over instead of adding into zeroed ones.
    for (at::Tensor &parameter : parameters)
      parameter.mutable_grad() = at::Tensor();
    at::Tensor value;
    if (autocast) {
      // torch.autocast("cpu", torch.bfloat16) around the forward pass and
      // the loss, as its documentation places it; its cast cache cleared
      // on leaving, as the context manager does.
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
      value = loss();
      at::autocast::set_cpu_enabled(false);
      at::autocast::clear_cache();
    } else {
      value = loss();
    }
    value.backward();
    optimizer->step();
    return value.item<float>();
  }
};

at::Tensor labelsOf(const std::vector<int32_t> &labels, int64_t n) {
  return at::from_blob(const_cast<int32_t *>(labels.data()), {n}, at::kInt)
      .to(at::kLong);
}

int64_t countCorrect(const at::Tensor &logits, const at::Tensor &labels) {
  return at::eq(at::argmax(logits, 1), labels).sum().item<int64_t>();
}

} // namespace

TorchModel lazyc::bench::makeTorchCnn(const CnnSetup &setup) {
  auto model = std::make_shared<Trained>(setup.parameters, setup.optimizer,
                                         setup.autocast);
  int64_t side = setup.side, p1 = setup.padding1, p2 = setup.padding2;
  auto forward = [model, side, p1, p2](const std::vector<float> &inputs,
                                       int64_t n) {
    const std::vector<at::Tensor> &w = model->parameters;
    at::Tensor x = at::from_blob(const_cast<float *>(inputs.data()),
                                 {n, 1, side, side}, at::kFloat);
    at::Tensor h = at::relu(at::conv2d(x, w[0], w[1], 1, p1));
    h = at::max_pool2d(h, {2, 2});
    h = at::relu(at::conv2d(h, w[2], w[3], 1, p2));
    h = at::max_pool2d(h, {2, 2});
    h = h.reshape({n, -1});
    h = at::relu(at::addmm(w[5], h, w[4]));
    return at::addmm(w[7], h, w[6]);
  };
  TorchModel result;
  result.step = [model, forward](const std::vector<float> &inputs,
                                 const std::vector<int32_t> &labels,
                                 int64_t n) {
    return model->step([&] {
      return at::nll_loss(at::log_softmax(forward(inputs, n), 1),
                          labelsOf(labels, n));
    });
  };
  result.correct = [forward](const std::vector<float> &inputs,
                             const std::vector<int32_t> &labels, int64_t n) {
    at::NoGradGuard noGrad;
    return countCorrect(forward(inputs, n), labelsOf(labels, n));
  };
  return result;
}

TorchModel lazyc::bench::makeTorchGpt(const GptSetup &setup) {
  auto model = std::make_shared<Trained>(setup.parameters, setup.optimizer,
                                         setup.autocast);
  GptSetup shape = setup;
  shape.parameters.clear();
  auto forward = [model, shape](const std::vector<float> &inputs, int64_t n) {
    const std::vector<at::Tensor> &w = model->parameters;
    int64_t T = shape.context, D = shape.dim, H = shape.heads, d = D / H;
    at::Tensor ids =
        at::from_blob(const_cast<float *>(inputs.data()), {n, T}, at::kFloat)
            .to(at::kLong);
    at::Tensor x = at::embedding(w[0], ids) + w[1]; // [n, T, D]
    x = x.reshape({n * T, D});
    at::Tensor future = at::ones({T, T}, at::kBool).triu(1);
    double scale = 1.0 / std::sqrt(static_cast<double>(d));
    size_t next = 2;
    for (int64_t layer = 0; layer < shape.layers; ++layer) {
      const at::Tensor *p = &w[next];
      next += 12;
      at::Tensor h = at::layer_norm(x, {D}, p[0], p[1]);
      at::Tensor qkv = at::addmm(p[3], h, p[2])
                           .view({n, T, 3, H, d})
                           .permute({2, 0, 3, 1, 4}); // [3, n, H, T, d]
      at::Tensor scores =
          at::matmul(qkv[0], qkv[1].transpose(-2, -1)) * scale; // [n,H,T,T]
      scores = scores.masked_fill(future, -INFINITY);
      at::Tensor attended = at::matmul(at::softmax(scores, -1), qkv[2]);
      attended = attended.transpose(1, 2).reshape({n * T, D});
      x = x + at::addmm(p[5], attended, p[4]);
      h = at::layer_norm(x, {D}, p[6], p[7]);
      h = at::gelu(at::addmm(p[9], h, p[8]));
      x = x + at::addmm(p[11], h, p[10]);
    }
    at::Tensor h = at::layer_norm(x, {D}, w[next], w[next + 1]);
    return at::addmm(w[next + 3], h, w[next + 2]); // [n * T, V]
  };
  TorchModel result;
  result.step = [model, forward, shape](const std::vector<float> &inputs,
                                        const std::vector<int32_t> &targets,
                                        int64_t n) {
    return model->step([&] {
      return at::nll_loss(at::log_softmax(forward(inputs, n), 1),
                          labelsOf(targets, n * shape.context));
    });
  };
  result.correct = [forward, shape](const std::vector<float> &inputs,
                                    const std::vector<int32_t> &targets,
                                    int64_t n) {
    at::NoGradGuard noGrad;
    return countCorrect(forward(inputs, n),
                        labelsOf(targets, n * shape.context));
  };
  return result;
}
