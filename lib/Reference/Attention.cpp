//===- Attention.cpp - Reference tiled attention and its gradients --------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazy.attention and lazy.attention_grad, evaluated the plain way: each row
// of scores materialized in double, an exact softmax, the gradients from
// their definitions (dV = P~^T dO, dP = dO V^T, dS = P (dP~ - rowsum(dO O)),
// dQ = scale dS K, dK = scale dS^T Q), none of the kernel's tiling.
//
// Tolerances bound the compiled kernel's error to first order: a score's
// error (the dot product's gamma(d), the inputs' tolerances, one rounding)
// moves a softmax weight by at most a factor exp(2 error); the kernel's
// exp (a polynomial within a few ulps) and its sums over keys, queries and
// depth add c u (Tk + Tq + d + dv) relative. A score that a mask of the
// lowest value absorbs is exact in both (it rounds to the mask), so it adds
// no error.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "lazyc/Trace/Node.h"

#include <cmath>
#include <limits>
#include <stdexcept>

using namespace lazyc;
using namespace lazyc::reference;
using namespace lazyc::reference::impl;
using lazyc::trace::Node;

namespace {

/// The shapes and attributes of an attention node, and its operands'
/// row-major addressing.
struct Problem {
  const Node &node;
  const Value &q, &k, &v;
  const Value *bias;
  int64_t seed;
  int64_t batch = 1, queries, keys, depth, valueDepth;
  /// Bias strides over [batch dims..., queries, keys] (0 where broadcast).
  std::vector<int64_t> biasStrides;
  double scale, dropout, keepScale;
  bool causal;
  DType dtype;
  /// The compute type's unit roundoff, and c u for the kernel's sums.
  double computeU, kernelU;

  Problem(const Node &node, const Value &q, const Value &k, const Value &v,
          const Value &seedValue, const Value *bias)
      : node(node), q(q), k(k), v(v), bias(bias), seed(seedValue.ints.at(0)),
        scale(node.scalar), dropout(node.scalar2), causal(node.flag),
        dtype(q.dtype) {
    size_t rank = q.shape.size();
    for (size_t d = 0; d + 2 < rank; ++d)
      batch *= q.shape[d];
    queries = q.shape[rank - 2];
    keys = k.shape[rank - 2];
    depth = q.shape[rank - 1];
    valueDepth = v.shape[rank - 1];
    keepScale = dropout < 1 ? 1.0 / (1.0 - dropout) : 0.0;
    computeU = dtype == DType::Float64 ? 0x1p-53 : 0x1p-24;
    kernelU = 8 * computeU;
    if (bias) {
      biasStrides.assign(rank, 0);
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        biasStrides[d] = bias->shape[d] == 1 ? 0 : stride;
        stride *= bias->shape[d];
      }
    }
  }

  /// The bias element of scores (n, i, j), n the flat batch index.
  int64_t biasIndex(int64_t n, int64_t i, int64_t j) const {
    size_t rank = q.shape.size();
    int64_t index = i * biasStrides[rank - 2] + j * biasStrides[rank - 1];
    for (size_t d = rank - 2; d-- > 0;) {
      index += (n % q.shape[d]) * biasStrides[d];
      n /= q.shape[d];
    }
    return index;
  }

  /// Whether dropout keeps softmax element (n, i, j): the f32 uniform of
  /// lazy.random_uniform at that counter is not below the probability.
  bool keeps(int64_t n, int64_t i, int64_t j) const {
    if (dropout == 0)
      return true;
    uint64_t counter = (static_cast<uint64_t>(n) * queries + i) * keys + j;
    uint64_t top = numerics::randomBits(seed, counter) >> 40;
    return static_cast<float>(std::ldexp(static_cast<double>(top), -24)) >=
           static_cast<float>(dropout);
  }
  double dropScale(int64_t n, int64_t i, int64_t j) const {
    return keeps(n, i, j) ? keepScale : 0.0;
  }
};

/// One row of scores with each score's error bound.
struct ScoreRow {
  std::vector<double> score, error;
  double max = -INFINITY, maxError = 0;
};

ScoreRow scoreRow(const Problem &p, int64_t n, int64_t i) {
  ScoreRow row;
  row.score.resize(p.keys);
  row.error.resize(p.keys);
  double lowest = -numerics::maxFinite(p.dtype);
  // A score this large is a mask's: rounded to the dtype it is the mask.
  double absorbed = numerics::maxFinite(p.dtype) * 0x1p-20;
  double dotU = p.depth * p.computeU;
  for (int64_t j = 0; j < p.keys; ++j) {
    double dot = 0, magnitude = 0, inputError = 0;
    for (int64_t c = 0; c < p.depth; ++c) {
      int64_t qi = (n * p.queries + i) * p.depth + c;
      int64_t kj = (n * p.keys + j) * p.depth + c;
      dot += p.q.floats[qi] * p.k.floats[kj];
      magnitude += std::fabs(p.q.floats[qi] * p.k.floats[kj]);
      inputError += p.q.tolerance[qi] * std::fabs(p.k.floats[kj]) +
                    std::fabs(p.q.floats[qi]) * p.k.tolerance[kj];
    }
    double s = dot * p.scale;
    double error = std::fabs(p.scale) * (dotU * magnitude + inputError);
    if (p.bias) {
      int64_t b = p.biasIndex(n, i, j);
      s = numerics::roundTo(s + p.bias->floats[b], p.dtype);
      error += p.bias->tolerance[b];
    }
    if (p.causal && j > i)
      s = numerics::roundTo(s + lowest, p.dtype);
    error += p.computeU * std::fabs(s);
    if (std::fabs(s) >= absorbed)
      error = 0;
    row.score[j] = s;
    row.error[j] = error;
    row.max = std::max(row.max, s);
    row.maxError = std::max(row.maxError, error);
  }
  return row;
}

Value evaluateForward(const Problem &p) {
  int64_t width = p.valueDepth + 1;
  Value out = makeValue(p.dtype, p.node.shape);
  double u = unitRoundoff(p.dtype);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t i = 0; i < p.queries; ++i) {
      ScoreRow row = scoreRow(p, n, i);
      // A row without a finite score (no keys, a mask of -inf everywhere)
      // is 0, its log-sum-exp -inf (the kernel's rule; softmax would be
      // NaN).
      double sum = 0;
      std::vector<double> weight(p.keys);
      if (row.max != -INFINITY)
        for (int64_t j = 0; j < p.keys; ++j)
          sum += weight[j] = std::exp(row.score[j] - row.max);
      double relative = std::expm1(2 * row.maxError) +
                        p.kernelU * (p.keys + p.valueDepth + 8);
      int64_t base = (n * p.queries + i) * width;
      for (int64_t c = 0; c < p.valueDepth; ++c) {
        double value = 0, magnitude = 0, inputError = 0;
        for (int64_t j = 0; j < p.keys; ++j) {
          double w = sum == 0 ? 0 : weight[j] / sum * p.dropScale(n, i, j);
          int64_t vj = (n * p.keys + j) * p.valueDepth + c;
          value += w * p.v.floats[vj];
          magnitude += w * std::fabs(p.v.floats[vj]);
          inputError += w * p.v.tolerance[vj];
        }
        double rounded = numerics::roundTo(value, p.dtype);
        out.floats[base + c] = rounded;
        out.tolerance[base + c] = settle(
            rounded, relative * magnitude + inputError + u * std::fabs(rounded),
            p.dtype);
      }
      double lse = row.max + std::log(sum);
      double rounded = numerics::roundTo(lse, p.dtype);
      out.floats[base + p.valueDepth] = rounded;
      out.tolerance[base + p.valueDepth] = settle(
          rounded,
          row.maxError + p.kernelU * (p.keys + 8) + u * std::fabs(rounded),
          p.dtype);
    }
  return out;
}

/// The gradient rows of one attention_grad, with their error bounds.
Value evaluateGradient(const Problem &p, const Value &out, const Value &dOut) {
  bool isQuery = p.node.integer == 0;
  Value result = makeValue(p.dtype, p.node.shape);
  int64_t width = p.valueDepth + 1;
  double u = unitRoundoff(p.dtype);
  double sumU = p.kernelU * (p.keys + p.queries + p.depth + p.valueDepth + 8);
  // Accumulated in double, rounded at the end.
  std::vector<double> value(result.numel()), bound(result.numel());
  auto add = [&](int64_t index, double term, double error) {
    value[index] += term;
    bound[index] += error;
  };
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t i = 0; i < p.queries; ++i) {
      ScoreRow row = scoreRow(p, n, i);
      int64_t outBase = (n * p.queries + i) * width;
      double lse = out.floats[outBase + p.valueDepth];
      double lseError = out.tolerance[outBase + p.valueDepth];
      // D = rowsum(dO * O), its magnitude and error.
      double rowDot = 0, rowDotAbs = 0, rowDotError = 0;
      for (int64_t c = 0; c < p.valueDepth; ++c) {
        int64_t o = outBase + c, g = (n * p.queries + i) * p.valueDepth + c;
        rowDot += dOut.floats[g] * out.floats[o];
        rowDotAbs += std::fabs(dOut.floats[g] * out.floats[o]);
        rowDotError += dOut.tolerance[g] * std::fabs(out.floats[o]) +
                       std::fabs(dOut.floats[g]) * out.tolerance[o];
      }
      for (int64_t j = 0; j < p.keys; ++j) {
        // No gradient through a row without a finite score.
        double weight = lse == -INFINITY ? 0 : std::exp(row.score[j] - lse);
        double weightError =
            weight * (std::expm1(row.error[j] + lseError) + sumU);
        double drop = p.dropScale(n, i, j);
        double dot = 0, dotAbs = 0, dotError = 0; // dO_i . v_j
        for (int64_t c = 0; c < p.valueDepth; ++c) {
          int64_t g = (n * p.queries + i) * p.valueDepth + c;
          int64_t vj = (n * p.keys + j) * p.valueDepth + c;
          dot += dOut.floats[g] * p.v.floats[vj];
          dotAbs += std::fabs(dOut.floats[g] * p.v.floats[vj]);
          dotError += dOut.tolerance[g] * std::fabs(p.v.floats[vj]) +
                      std::fabs(dOut.floats[g]) * p.v.tolerance[vj];
        }
        double scoreGrad = weight * (dot * drop - rowDot);
        double scoreGradAbs = weight * (dotAbs * drop + rowDotAbs);
        double scoreGradError = weightError * (dotAbs * drop + rowDotAbs) +
                                weight * (dotError * drop + rowDotError) +
                                sumU * scoreGradAbs;
        if (isQuery) {
          for (int64_t c = 0; c < p.depth; ++c) {
            int64_t kj = (n * p.keys + j) * p.depth + c;
            add((n * p.queries + i) * p.depth + c,
                p.scale * scoreGrad * p.k.floats[kj],
                std::fabs(p.scale) *
                    (scoreGradError * std::fabs(p.k.floats[kj]) +
                     scoreGradAbs * p.k.tolerance[kj]));
          }
          continue;
        }
        int64_t rowBase = (n * p.keys + j) * (p.depth + p.valueDepth);
        for (int64_t c = 0; c < p.depth; ++c) {
          int64_t qi = (n * p.queries + i) * p.depth + c;
          add(rowBase + c, p.scale * scoreGrad * p.q.floats[qi],
              std::fabs(p.scale) * (scoreGradError * std::fabs(p.q.floats[qi]) +
                                    scoreGradAbs * p.q.tolerance[qi]));
        }
        for (int64_t c = 0; c < p.valueDepth; ++c) {
          int64_t g = (n * p.queries + i) * p.valueDepth + c;
          add(rowBase + p.depth + c, weight * drop * dOut.floats[g],
              drop * (weightError * std::fabs(dOut.floats[g]) +
                      weight * dOut.tolerance[g]));
        }
      }
    }
  for (int64_t e = 0; e < result.numel(); ++e) {
    double rounded = numerics::roundTo(value[e], p.dtype);
    result.floats[e] = rounded;
    result.tolerance[e] =
        settle(rounded, bound[e] + u * std::fabs(rounded), p.dtype);
  }
  return result;
}

} // namespace

Value impl::evaluateAttention(const Node &node, const Inputs &in) {
  if (node.kind == trace::OpKind::Attention) {
    Problem problem(node, *in[0], *in[1], *in[2], *in[3],
                    in.size() > 4 ? in[4] : nullptr);
    return evaluateForward(problem);
  }
  if (node.kind != trace::OpKind::AttentionGrad)
    throw std::logic_error("reference: not an attention op");
  Problem problem(node, *in[0], *in[1], *in[2], *in[5],
                  in.size() > 6 ? in[6] : nullptr);
  return evaluateGradient(problem, *in[3], *in[4]);
}
