//===- Attention.cpp - Dropout, embedding, attention ----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The sequence-model layers: dropout (a seeded random mask and where),
// embedding (indexSelect of rows), and scaled dot-product attention (two
// matmuls around a softmax, with a causal mask from comparing two aranges).
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Layers.h"

#include "LayerChecks.h"

#include <cmath>
#include <limits>

using namespace lazyc;
using namespace lazyc::nn;
using lazyc::nn::detail::describe;

Tensor nn::dropout(const Tensor &x, double p, int64_t seed, bool training,
                   Where where) {
  const char *op = "dropout";
  nn::detail::requireFloat(x, op, "the input", where);
  if (!(p >= 0 && p <= 1))
    throw Error(op, "p must be in [0, 1], got " + std::to_string(p), where);
  if (!training || p == 0)
    return x;
  // u < p drops: P(drop) = p for u uniform in [0, 1). For p = 1 everything
  // drops and the scale is 0 (not infinity, whose gradient would be NaN).
  Tensor keep =
      At(randomUniform(x.shape(), 0.0, 1.0, seed, DType::Float32, where),
         where) >= p;
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  return lazyc::where(keep, At(x, where) * scale,
                      nn::detail::scalarOf(0.0, x.dtype(), where), where);
}

Tensor nn::embedding(const Tensor &weight, const Tensor &ids, Where where) {
  const char *op = "embedding";
  nn::detail::requireFloat(weight, op, "the weight", where);
  if (weight.rank() != 2)
    throw Error(op, "needs a weight [V, D], got " + describe(weight), where);
  if (!ids.defined())
    throw Error(op, "the ids are an empty Tensor", where);
  if (ids.dtype() != DType::Int32 && ids.dtype() != DType::Int64)
    throw Error(op, "the ids must be Int32 or Int64, got " + describe(ids),
                where);
  return indexSelect(weight, 0, ids, where);
}

namespace {

/// The lowest finite value of a float dtype: the mask of attention.
double lowestOf(DType dtype) {
  switch (dtype) {
  case DType::Float16:
    return -65504.0;
  case DType::BFloat16:
    return -3.3895313892515355e38;
  case DType::Float64:
    return std::numeric_limits<double>::lowest();
  default:
    return std::numeric_limits<float>::lowest();
  }
}

} // namespace

Tensor nn::scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                     const Tensor &v, bool causal,
                                     std::optional<double> scale, Where where) {
  const char *op = "scaledDotProductAttention";
  nn::detail::requireFloat(q, op, "the queries", where);
  nn::detail::requireFloat(k, op, "the keys", where);
  nn::detail::requireFloat(v, op, "the values", where);
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
    throw Error(op,
                "needs q [..., Tq, d], k [..., Tk, d] and v [..., Tk, dv], "
                "got " +
                    shapeText(q.shape()) + ", " + shapeText(k.shape()) +
                    " and " + shapeText(v.shape()),
                where);
  int64_t depth = q.shape().back();
  int64_t queries = q.shape()[q.rank() - 2], keys = k.shape()[k.rank() - 2];
  if (k.shape().back() != depth || v.shape()[v.rank() - 2] != keys)
    throw Error(op,
                "q " + shapeText(q.shape()) + ", k " + shapeText(k.shape()) +
                    " and v " + shapeText(v.shape()) +
                    " do not fit: q and k need one depth d, k and v one "
                    "length Tk",
                where);
  if (scale && !std::isfinite(*scale))
    throw Error(op, "the scale must be finite", where);
  double factor = scale.value_or(1.0 / std::sqrt(double(depth ? depth : 1)));
  std::vector<int64_t> swap;
  for (int64_t d = 0; d < k.rank(); ++d)
    swap.push_back(d);
  std::swap(swap[k.rank() - 2], swap[k.rank() - 1]);
  Tensor scores =
      At(matmul(q, transpose(k, swap, where), where), where) * factor;
  if (causal) {
    Tensor rows = reshape(arange(0, double(queries), 1, DType::Int32, where),
                          {queries, 1}, where);
    Tensor columns = arange(0, double(keys), 1, DType::Int32, where);
    Tensor visible = At(columns, where) <= rows; // [Tq, Tk]
    // An additive bias, 0 or the lowest value: the loops that apply it (and
    // the gradient, which passes through an addition unchanged) read floats,
    // not a Bool mask, which keeps them vectorized.
    Tensor bias = lazyc::where(
        visible, nn::detail::scalarOf(0.0, scores.dtype(), where),
        nn::detail::scalarOf(lowestOf(scores.dtype()), scores.dtype(), where),
        where);
    scores = At(scores, where) + bias;
  }
  return matmul(softmax(scores, -1, where), v, where);
}
