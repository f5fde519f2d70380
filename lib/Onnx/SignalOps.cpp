//===- SignalOps.cpp - ONNX's signal ops: windows, DFT, STFT, mel bins ----===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The windows and MelWeightMatrix depend only on sizes: they are computed
// on the host, in double, when the node is recorded. DFT and STFT are
// products with the cosine and sine matrices of the transform's length
// (built on the host), so they fuse and differentiate like any product; a
// complex value is a last dimension of 2 (real, imaginary), as ONNX has it.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include <cmath>
#include <numbers>

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

/// The dtype an op's `output_datatype` attribute names (default FLOAT).
DType outputDType(const NodeContext &node) {
  return dtypeFromOnnx(
      int32_t(node.attribute("output_datatype",
                             int64_t(::onnx::TensorProto::FLOAT))),
      describeNode(node.graph, node.node) + ": output_datatype");
}

Tensor hostTensor(const std::vector<double> &values, Shape shape, DType dtype) {
  return cast(Tensor::fromVector(values, std::move(shape)), dtype);
}

/// HannWindow, HammingWindow, BlackmanWindow: a0 - a1 cos(2 pi n / D) +
/// a2 cos(4 pi n / D), D the size (periodic) or the size - 1.
Kernel window(double a0, double a1, double a2) {
  return [=](const NodeContext &node) {
    int64_t size = int64_t(node.scalar(0));
    if (size < 0)
      node.fail("the size is negative (" + std::to_string(size) + ")");
    bool periodic = node.attribute("periodic", int64_t(1)) != 0;
    double denominator = double(periodic ? size : size - 1);
    std::vector<double> values(size);
    for (int64_t n = 0; n < size; ++n) {
      double angle = 2 * std::numbers::pi * double(n) / denominator;
      values[n] = a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle);
    }
    return std::vector<Tensor>{hostTensor(values, {size}, outputDType(node))};
  };
}

/// The transform of `real` + i `imaginary` (empty: a real signal) along
/// the last axis, of `length` points (the signal cut or padded with zeros),
/// the first `bins` frequencies; `inverse` takes the conjugate exponent
/// and divides by the length. Returns the real and imaginary parts.
std::pair<Tensor, Tensor> transform(Tensor real, Tensor imaginary,
                                    int64_t length, int64_t bins,
                                    bool inverse) {
  int64_t rank = real.rank(), size = real.shape().back();
  auto fit = [&](Tensor part) {
    if (!part.defined() || size == length)
      return part;
    if (size > length) {
      std::vector<int64_t> start(rank, 0), limit = part.shape();
      limit.back() = length;
      return slice(part, start, limit);
    }
    Shape padding = part.shape();
    padding.back() = length - size;
    return concat({part, zeros(padding, part.dtype())}, rank - 1);
  };
  real = fit(real);
  imaginary = fit(imaginary);
  // cos and sin of 2 pi n k / length: [length, bins].
  std::vector<double> cosines(length * bins), sines(length * bins);
  for (int64_t n = 0; n < length; ++n)
    for (int64_t k = 0; k < bins; ++k) {
      // n k mod length keeps the angle small (exact for any length).
      double angle =
          2 * std::numbers::pi * double((n * k) % length) / double(length);
      cosines[n * bins + k] = std::cos(angle);
      sines[n * bins + k] = std::sin(angle);
    }
  Tensor c = hostTensor(cosines, {length, bins}, real.dtype());
  Tensor s = hostTensor(sines, {length, bins}, real.dtype());
  // e^{-i angle} forward, e^{+i angle} inverse.
  Tensor outReal = matmul(real, c), outImaginary = matmul(real, s);
  if (!inverse)
    outImaginary = -outImaginary;
  if (imaginary.defined()) {
    Tensor ic = matmul(imaginary, c), is = matmul(imaginary, s);
    outReal = inverse ? outReal - is : outReal + is;
    outImaginary = outImaginary + ic;
  }
  if (inverse) {
    Tensor scale = constant(1.0 / double(length), outReal);
    outReal = outReal * scale;
    outImaginary = outImaginary * scale;
  }
  return {outReal, outImaginary};
}

/// x [..., 1 or 2] as its real and imaginary parts (empty for 1).
std::pair<Tensor, Tensor> complexParts(const NodeContext &node,
                                       const Tensor &x) {
  int64_t rank = x.rank(), parts = rank ? x.shape().back() : 0;
  if (parts != 1 && parts != 2)
    node.fail("the last dimension must be 1 (real) or 2 (complex), not " +
              std::to_string(parts));
  std::vector<int64_t> start(rank, 0), limit = x.shape();
  limit.back() = 1;
  Shape partShape(x.shape().begin(), x.shape().end() - 1);
  Tensor real = reshape(slice(x, start, limit), partShape);
  if (parts == 1)
    return {real, Tensor()};
  start.back() = 1;
  limit.back() = 2;
  return {real, reshape(slice(x, start, limit), partShape)};
}

/// The real and imaginary parts stacked as a last dimension of 2.
Tensor complexOf(const Tensor &real, const Tensor &imaginary) {
  Shape shape = real.shape();
  shape.push_back(1);
  return concat({reshape(real, shape), reshape(imaginary, shape)},
                int64_t(shape.size()) - 1);
}

/// The permutation that swaps `axis` with the last one (its own inverse).
std::vector<int64_t> swapLast(int64_t rank, int64_t axis) {
  std::vector<int64_t> permutation(rank);
  for (int64_t d = 0; d < rank; ++d)
    permutation[d] = d;
  std::swap(permutation[axis], permutation[rank - 1]);
  return permutation;
}

std::vector<Tensor> dft(const NodeContext &node) {
  const Tensor &x = node.input(0);
  auto [real, imaginary] = complexParts(node, x);
  int64_t rank = real.rank();
  // The signal axis counts the trailing real/complex dimension: an
  // attribute (default 1) before opset 20, the third input (default -2)
  // from it.
  int64_t given = node.opset() >= 20
                      ? (node.has(2) ? int64_t(node.scalar(2)) : int64_t(-2))
                      : node.attribute("axis", int64_t(1));
  int64_t axis = given < 0 ? given + rank + 1 : given;
  if (axis < 0 || axis >= rank)
    node.fail("axis " + std::to_string(given) + " is not a signal axis of " +
              std::to_string(rank + 1) + "-d input");
  bool inverse = node.attribute("inverse", int64_t(0)) != 0;
  bool onesided = node.attribute("onesided", int64_t(0)) != 0;
  int64_t bins = real.shape()[axis];
  // A one-sided inverse reads the first length / 2 + 1 bins of a real
  // signal's spectrum (numpy's irfft; by default length 2 (bins - 1)).
  bool realInverse = inverse && onesided;
  int64_t length = node.has(1)   ? int64_t(node.scalar(1))
                   : realInverse ? 2 * (bins - 1)
                                 : bins;
  if (length <= 0)
    node.fail("dft_length must be positive, not " + std::to_string(length));
  std::vector<int64_t> permutation = swapLast(rank, axis);
  real = transpose(real, permutation);
  if (imaginary.defined())
    imaginary = transpose(imaginary, permutation);
  if (realInverse) {
    if (length / 2 + 1 > bins)
      node.fail(std::to_string(bins) + " bins are fewer than a signal of " +
                std::to_string(length) + " needs (" +
                std::to_string(length / 2 + 1) + ")");
    // The whole spectrum: X[length - k] = conj(X[k]).
    std::vector<int64_t> mirror(size_t(length), 0);
    std::vector<double> signs(size_t(length), 1.0);
    for (int64_t k = 0; k < length; ++k) {
      bool upper = k > length / 2;
      mirror[size_t(k)] = upper ? length - k : k;
      signs[size_t(k)] = upper ? -1.0 : 1.0;
    }
    Tensor index = Tensor::fromVector(mirror, {length});
    Tensor fullReal = indexSelect(real, rank - 1, index);
    Tensor fullImaginary =
        imaginary.defined() ? indexSelect(imaginary, rank - 1, index) *
                                  hostTensor(signs, {length}, imaginary.dtype())
                            : Tensor();
    Tensor signal =
        transform(fullReal, fullImaginary, length, length, true).first;
    signal = transpose(signal, permutation);
    Shape shape = signal.shape();
    shape.push_back(1);
    return {reshape(signal, shape)};
  }
  auto [outReal, outImaginary] = transform(
      real, imaginary, length, onesided ? length / 2 + 1 : length, inverse);
  return {complexOf(transpose(outReal, permutation),
                    transpose(outImaginary, permutation))};
}

std::vector<Tensor> stft(const NodeContext &node) {
  const Tensor &signal = node.input(0);
  if (signal.rank() != 3)
    node.fail("the signal must be [batch, length, 1 or 2], not rank " +
              std::to_string(signal.rank()));
  auto [real, imaginary] = complexParts(node, signal);
  int64_t step = int64_t(node.scalar(1));
  Tensor window = node.has(2) ? node.input(2) : Tensor();
  int64_t frameLength = node.has(3)        ? int64_t(node.scalar(3))
                        : window.defined() ? window.numel()
                                           : 0;
  if (frameLength <= 0)
    node.fail("needs a window or a frame_length");
  if (window.defined() && window.numel() != frameLength)
    node.fail("the window has " + std::to_string(window.numel()) +
              " values for frames of " + std::to_string(frameLength));
  int64_t length = real.shape()[1];
  if (step <= 0 || frameLength > length)
    node.fail("frames of " + std::to_string(frameLength) + " every " +
              std::to_string(step) + " do not fit a signal of " +
              std::to_string(length));
  int64_t frames = (length - frameLength) / step + 1;
  bool onesided = node.attribute("onesided", int64_t(1)) != 0;
  if (onesided && imaginary.defined())
    node.fail("onesided transforms of a complex signal are not supported");
  // [batch, frames, frameLength]: the frames' samples, windowed.
  std::vector<int64_t> at;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t n = 0; n < frameLength; ++n)
      at.push_back(f * step + n);
  Tensor index = Tensor::fromVector(at, {frames * frameLength});
  Shape framed = {real.shape()[0], frames, frameLength};
  auto frame = [&](const Tensor &part) {
    if (!part.defined())
      return part;
    Tensor samples = reshape(indexSelect(part, 1, index), framed);
    return window.defined() ? samples * cast(window, part.dtype()) : samples;
  };
  auto [outReal, outImaginary] =
      transform(frame(real), frame(imaginary), frameLength,
                onesided ? frameLength / 2 + 1 : frameLength, false);
  return {complexOf(outReal, outImaginary)};
}

/// The triangular filters of the mel scale, as ONNX's reference computes
/// them: bin edges at equal mel steps, rounded down to DFT bins.
std::vector<Tensor> melWeightMatrix(const NodeContext &node) {
  int64_t mels = int64_t(node.scalar(0)), dftLength = int64_t(node.scalar(1));
  double sampleRate = node.scalar(2), lower = node.scalar(3),
         upper = node.scalar(4);
  if (mels <= 0 || dftLength <= 0 || sampleRate <= 0 || lower < 0 ||
      upper <= lower || upper > sampleRate / 2)
    node.fail("needs positive sizes and 0 <= lower_edge_hertz < "
              "upper_edge_hertz <= sample_rate / 2");
  int64_t spectrogramBins = dftLength / 2 + 1;
  auto mel = [](double hertz) { return 2595 * std::log10(1 + hertz / 700); };
  double low = mel(lower), step = (mel(upper) - low) / double(mels + 2);
  std::vector<int64_t> edges(mels + 2);
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hertz = 700 * (std::pow(10, (double(i) * step + low) / 2595) - 1);
    edges[i] = int64_t(std::floor(double(dftLength + 1) * hertz / sampleRate));
  }
  std::vector<double> weights(spectrogramBins * mels, 0.0);
  auto at = [&](int64_t bin, int64_t m) -> double & {
    if (bin < 0 || bin >= spectrogramBins)
      node.fail("a filter edge falls outside the spectrogram's bins");
    return weights[bin * mels + m];
  };
  for (int64_t m = 0; m < mels; ++m) {
    int64_t left = edges[m], center = edges[m + 1], right = edges[m + 2];
    if (center == left)
      at(center, m) = 1;
    else
      for (int64_t j = left; j <= center; ++j)
        at(j, m) = double(j - left) / double(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, m) = double(right - j) / double(right - center);
  }
  return {hostTensor(weights, {spectrogramBins, mels}, outputDType(node))};
}

} // namespace

void lazyc::onnx::detail::addSignalKernels(
    std::map<std::string, Kernel> &table) {
  table["HannWindow"] = window(0.5, 0.5, 0);
  table["HammingWindow"] = window(25.0 / 46, 21.0 / 46, 0);
  table["BlackmanWindow"] = window(0.42, 0.5, 0.08);
  table["DFT"] = dft;
  table["STFT"] = stft;
  table["MelWeightMatrix"] = melWeightMatrix;
}
