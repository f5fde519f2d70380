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

#include "lazyc/API/Autocast.h"

#include <algorithm>
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

/// q, k and v after the checks: the shapes fit, `factor` is the scale.
struct AttentionInputs {
  Tensor q, k, v;
  double factor;
  Shape scores; ///< [..., Tq, Tk], the batch dimensions broadcast.
};

AttentionInputs checkAttention(const Tensor &q, const Tensor &k,
                               const Tensor &v, const AttentionOptions &options,
                               Where where) {
  const char *op = "scaledDotProductAttention";
  nn::detail::requireFloat(q, op, "the queries", where);
  nn::detail::requireFloat(k, op, "the keys", where);
  nn::detail::requireFloat(v, op, "the values", where);
  auto shapes = [&] {
    return shapeText(q.shape()) + ", " + shapeText(k.shape()) + " and " +
           shapeText(v.shape());
  };
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
    throw Error(op,
                "needs q [..., Tq, d], k [..., Tk, d] and v [..., Tk, dv], "
                "got " +
                    shapes(),
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
  if (options.scale && !std::isfinite(*options.scale))
    throw Error(op, "the scale must be finite", where);
  if (!(options.dropout >= 0 && options.dropout <= 1))
    throw Error(op,
                "the dropout must be in [0, 1], got " +
                    std::to_string(options.dropout),
                where);
  // The batch dimensions broadcast (numpy's rule, aligned at the end).
  int64_t batchRank = std::max({q.rank(), k.rank(), v.rank()}) - 2;
  Shape batch(batchRank, 1);
  for (const Tensor *t : {&q, &k, &v})
    for (int64_t d = 0; d + 2 < t->rank(); ++d) {
      int64_t size = t->shape()[d];
      int64_t &into = batch[batchRank - (t->rank() - 2) + d];
      if (size != 1 && into != 1 && size != into)
        throw Error(op,
                    "the batch dimensions of q, k and v do not broadcast: " +
                        shapes(),
                    where);
      if (size != 1)
        into = size;
    }
  Shape scores = batch;
  scores.push_back(queries);
  scores.push_back(keys);
  if (options.mask.defined()) {
    const Tensor &mask = options.mask;
    int64_t rank = static_cast<int64_t>(scores.size());
    bool fits = mask.rank() <= rank;
    for (int64_t d = 0; fits && d < mask.rank(); ++d) {
      int64_t size = mask.shape()[d], into = scores[rank - mask.rank() + d];
      fits = size == 1 || size == into;
    }
    if (!fits)
      throw Error(op,
                  "the mask " + shapeText(mask.shape()) +
                      " does not broadcast to the scores " + shapeText(scores),
                  where);
    if (mask.dtype() != DType::Bool && !isFloatingPoint(mask.dtype()))
      throw Error(op,
                  std::string("the mask must be Bool or floating-point, got ") +
                      dtypeName(mask.dtype()),
                  where);
  }
  double factor =
      options.scale.value_or(1.0 / std::sqrt(double(depth ? depth : 1)));
  return {q, k, v, factor, scores};
}

/// The additive bias of a mask for scores of `dtype`: a Bool mask is 0
/// where true and the lowest value where false.
Tensor maskBias(const Tensor &mask, DType dtype, Where where) {
  if (mask.dtype() != DType::Bool)
    return cast(mask, dtype, where);
  // Floats, not a Bool mask, in the loops that apply it (and the gradient,
  // which passes through an addition unchanged): they stay vectorized.
  return lazyc::where(mask, nn::detail::scalarOf(0.0, dtype, where),
                      nn::detail::scalarOf(lowestFinite(dtype), dtype, where),
                      where);
}

/// Today's form: the scores, the weights and the product, fused with what
/// is around them.
Tensor materializedAttention(const AttentionInputs &in,
                             const AttentionOptions &options, Where where) {
  const Tensor &k = in.k;
  std::vector<int64_t> swap;
  for (int64_t d = 0; d < k.rank(); ++d)
    swap.push_back(d);
  std::swap(swap[k.rank() - 2], swap[k.rank() - 1]);
  Tensor scores =
      At(matmul(in.q, transpose(k, swap, where), where), where) * in.factor;
  if (options.mask.defined())
    scores = At(scores, where) + maskBias(options.mask, scores.dtype(), where);
  if (options.causal) {
    int64_t queries = in.scores[in.scores.size() - 2], keys = in.scores.back();
    Tensor rows = reshape(arange(0, double(queries), 1, DType::Int32, where),
                          {queries, 1}, where);
    Tensor columns = arange(0, double(keys), 1, DType::Int32, where);
    Tensor visible = At(columns, where) <= rows; // [Tq, Tk]
    scores = At(scores, where) + maskBias(visible, scores.dtype(), where);
  }
  Tensor weights = softmax(scores, -1, where);
  if (options.dropout > 0) {
    // Over the broadcast scores' shape: the tiled form draws the same.
    if (weights.shape() != in.scores)
      weights = broadcastTo(weights, in.scores, where);
    weights = nn::dropout(weights, options.dropout, options.seed, true, where);
  }
  return matmul(weights, in.v, where);
}

/// lazyc::tiledAttention over the broadcast batch dimensions, in Float32
/// for narrow inputs (after autocast's rounding of the product operands),
/// the result in the type the materialized form would have.
Tensor tiledAttentionOf(const AttentionInputs &in,
                        const AttentionOptions &options, Where where) {
  DType product = lazyc::detail::autocastProductType(
      promoteTypes(promoteTypes(in.q.dtype(), in.k.dtype()), in.v.dtype()));
  DType compute = product == DType::Float64 ? DType::Float64 : DType::Float32;
  Shape batch(in.scores.begin(), in.scores.end() - 2);
  auto prepare = [&](const Tensor &t) {
    Shape shape = batch;
    shape.push_back(t.shape()[t.rank() - 2]);
    shape.push_back(t.shape().back());
    Tensor x = cast(cast(t, product, where), compute, where);
    return x.shape() == shape ? x : broadcastTo(x, shape, where);
  };
  Tensor bias;
  if (options.mask.defined()) {
    bias = maskBias(options.mask, compute, where);
    Shape shape(in.scores.size() - bias.rank(), 1);
    shape.insert(shape.end(), bias.shape().begin(), bias.shape().end());
    bias = reshape(bias, shape, where);
  }
  Tensor out = tiledAttention(prepare(in.q), prepare(in.k), prepare(in.v), bias,
                              in.factor, options.causal, options.dropout,
                              options.seed, where);
  return cast(out, product, where);
}

} // namespace

Tensor nn::scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                     const Tensor &v,
                                     const AttentionOptions &options,
                                     Where where) {
  AttentionInputs in = checkAttention(q, k, v, options, where);
  bool tiled = options.tiles == AttentionTiles::Always;
  if (options.tiles == AttentionTiles::Auto) {
    int64_t perHead = in.scores[in.scores.size() - 2] * in.scores.back();
    auto onCpu = [](const Tensor &t) {
      return t.device().kind() == Device::Kind::CPU;
    };
    tiled = onCpu(q) && onCpu(k) && onCpu(v) && in.scores.size() <= 6 &&
            perHead >= kTiledAttentionScores;
  }
  return tiled ? tiledAttentionOf(in, options, where)
               : materializedAttention(in, options, where);
}

Tensor nn::scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                     const Tensor &v, bool causal,
                                     std::optional<double> scale, Where where) {
  AttentionOptions options;
  options.causal = causal;
  options.scale = scale;
  return scaledDotProductAttention(q, k, v, options, where);
}
