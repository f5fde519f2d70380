//===- TorchTrain.cpp - libtorch eager training step ----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The libtorch baseline: the MLP trained the way a libtorch user writes it
// (what torch::nn::Linear and F.cross_entropy do underneath: addmm, relu,
// log_softmax, nll_loss; autograd's backward; torch::optim's SGD or Adam),
// from the same initial weights and on the same batches as lazyc. Weights
// are kept [in, out] like lazyc's, so the forward GEMMs need no transpose.
// Built only when CMake finds libtorch, as C++17 in a translation unit of its
// own (libtorch 1.13's headers are not written for C++20).
//
// Threads: ATen's OpenMP calls resolve to libomp, the runtime lazyc's code
// runs on, and ATen's thread-pool setup calls omp_set_num_threads with its
// own count; setTorchThreads puts the caller's OpenMP count back after it
// (benchmarks/api/TorchBaseline.cpp has the story).
//
//===----------------------------------------------------------------------===//

#include "TorchTrain.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>
#include <torch/version.h>

#include <memory>

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int threads);
}

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
at::Tensor copyOf(const std::vector<float> &values,
                  std::vector<int64_t> shape) {
  return at::from_blob(const_cast<float *>(values.data()), shape, at::kFloat)
      .clone();
}
} // namespace

std::function<float()>
lazyc::bench::makeTorchTrainStep(const TrainSetup &setup) {
  struct State {
    std::vector<at::Tensor> weights, biases, inputs, labels;
    std::vector<at::Tensor> parameters;
    std::unique_ptr<torch::optim::Optimizer> optimizer;
    size_t next = 0;
  };
  auto state = std::make_shared<State>();
  std::vector<at::Tensor> &parameters = state->parameters;
  for (size_t i = 0; i + 1 < setup.sizes.size(); ++i) {
    state->weights.push_back(
        copyOf(setup.weights[i], {setup.sizes[i], setup.sizes[i + 1]})
            .set_requires_grad(true));
    state->biases.push_back(
        copyOf(setup.biases[i], {setup.sizes[i + 1]}).set_requires_grad(true));
    parameters.push_back(state->weights.back());
    parameters.push_back(state->biases.back());
  }
  for (size_t b = 0; b < setup.inputs.size(); ++b) {
    state->inputs.push_back(
        copyOf(setup.inputs[b], {setup.batch, setup.sizes[0]}));
    // nll_loss takes int64 class indices.
    state->labels.push_back(
        at::from_blob(const_cast<int32_t *>(setup.labels[b].data()),
                      {setup.batch}, at::kInt)
            .to(at::kLong));
  }
  if (setup.adam)
    state->optimizer = std::make_unique<torch::optim::Adam>(
        parameters, torch::optim::AdamOptions(setup.learningRate));
  else
    state->optimizer = std::make_unique<torch::optim::SGD>(
        parameters,
        torch::optim::SGDOptions(setup.learningRate).momentum(setup.momentum));

  return [state] {
    size_t b = state->next++ % state->inputs.size();
    // PyTorch's fastest form of zero_grad (set_to_none): backward then
    // hands its gradient buffers over instead of adding into zeroed ones.
    for (at::Tensor &parameter : state->parameters)
      parameter.mutable_grad() = at::Tensor();
    at::Tensor h = state->inputs[b];
    size_t layers = state->weights.size();
    for (size_t i = 0; i < layers; ++i) {
      h = at::addmm(state->biases[i], h, state->weights[i]);
      if (i + 1 < layers)
        h = at::relu(h);
    }
    at::Tensor loss = at::nll_loss(at::log_softmax(h, 1), state->labels[b]);
    loss.backward();
    state->optimizer->step();
    return loss.item<float>();
  };
}
