//===- AttentionOps.cpp - ONNX's transformer ops: Attention, RoPE, caches -===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ops that opsets 23 and 24 added for the language models people export
// today: Attention (multi-head, grouped-query and multi-query; causal and
// explicit masks; a key/value cache concatenated inside the op or padded
// outside it; softcap), RotaryEmbedding, RMSNormalization and TensorScatter
// (a key/value cache written at each sample's position). Each follows
// ONNX's reference (onnx/reference/ops) and records lazyc ops only: the
// positions a cache is written at and the lengths that pad it are data.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "lazyc/NN/Layers.h"

#include <cmath>
#include <limits>

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

using Tensors = std::vector<Tensor>;

/// [B, S, H * d] as [B, H, S, d].
Tensor splitHeads(const NodeContext &node, const Tensor &x, int64_t heads,
                  const char *what) {
  if (heads <= 0 || x.shape()[2] % heads != 0)
    node.fail(std::string(what) + "'s hidden size " +
              std::to_string(x.shape()[2]) + " is not a multiple of " +
              std::to_string(heads) + " heads");
  return transpose(
      reshape(x, {x.shape()[0], x.shape()[1], heads, x.shape()[2] / heads}),
      {0, 2, 1, 3});
}

/// The lowest finite value of a float dtype.
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

/// An additive bias of -infinity where `allowed` is false, 0 elsewhere.
Tensor blockedWhereFalse(const Tensor &allowed, DType dtype) {
  return where(allowed, full({}, 0, dtype),
               full({}, -std::numeric_limits<double>::infinity(), dtype));
}

/// Attention (opsets 23 and 24), as ONNX's reference computes it:
/// softmax(softcap(q k^T * scale) + bias) v, the bias from attn_mask (Bool:
/// hidden where false; numbers: added; a short last axis padded with hidden
/// keys), is_causal (key j hidden from query i past the cache when
/// j > past + i) and nonpad_kv_seqlen (each sample's keys past its length
/// hidden). A hidden score gets the lowest finite value, so a query that
/// sees no key attends to all evenly (the reference gives NaN there).
/// Grouped-query heads repeat each key/value head over its group.
/// Without softcap, a requested qk_matmul_output or softmax_precision, it
/// is nn::scaledDotProductAttention, which computes long sequences in tiles.
Tensors attention(const NodeContext &node) {
  Tensor q = node.input(0), k = node.input(1), v = node.input(2);
  int64_t rank = q.rank();
  if ((rank != 3 && rank != 4) || k.rank() != rank || v.rank() != rank)
    node.fail("needs Q, K and V of rank 4 [B, heads, S, d], or of rank 3 "
              "[B, S, heads * d] with q_num_heads and kv_num_heads");
  if (!isFloat(q.dtype()))
    node.fail(std::string("Q of ") + dtypeName(q.dtype()) +
              " is not supported");
  if (rank == 3) {
    q = splitHeads(node, q, node.attribute("q_num_heads", int64_t(0)), "Q");
    int64_t kvHeads = node.attribute("kv_num_heads", int64_t(0));
    k = splitHeads(node, k, kvHeads, "K");
    v = splitHeads(node, v, kvHeads, "V");
  }
  int64_t batch = q.shape()[0], heads = q.shape()[1], queries = q.shape()[2];
  double scale = node.hasAttribute("scale")
                     ? node.attribute("scale", 1.0)
                     : 1.0 / std::sqrt(double(q.shape()[3]));

  // The cache: past keys and values before the new ones.
  bool cached = node.has(4) || node.has(5);
  if (cached && !(node.has(4) && node.has(5)))
    node.fail("past_key and past_value go together");
  int64_t past = cached ? node.input(4).shape()[2] : 0;
  if (cached) {
    k = concat({node.input(4), k}, 2);
    v = concat({node.input(5), v}, 2);
  }
  Tensor presentKey = k, presentValue = v;
  int64_t keys = k.shape()[2];

  // The additive bias, broadcast to [B or 1, heads or 1, Tq, Tk].
  DType dtype = q.dtype();
  Tensor bias;
  auto add = [&](const Tensor &term) {
    bias = bias.defined() ? bias + term : term;
  };
  if (node.has(3)) {
    Tensor mask = node.input(3);
    int64_t short_ = keys - mask.shape().back();
    if (short_ < 0)
      node.fail("attn_mask has " + std::to_string(mask.shape().back()) +
                " keys, more than the " + std::to_string(keys) + " there are");
    bool flags = mask.dtype() == DType::Bool;
    if (short_ > 0) {
      Shape tail = mask.shape();
      tail.back() = short_;
      mask = concat(
          {mask, flags ? full(tail, 0, DType::Bool)
                       : full(tail, -std::numeric_limits<double>::infinity(),
                              mask.dtype())},
          -1);
    }
    add(flags ? blockedWhereFalse(mask, dtype) : cast(mask, dtype));
  }
  if (node.attribute("is_causal", int64_t(0))) {
    Tensor query =
        reshape(arange(0, double(queries), 1, DType::Int64), {queries, 1});
    Tensor key = reshape(arange(0, double(keys), 1, DType::Int64), {1, keys});
    add(blockedWhereFalse(key <= query + full({}, double(past), DType::Int64),
                          dtype));
  }
  if (node.has(6)) {
    if (cached)
      node.fail("nonpad_kv_seqlen does not go with past_key and past_value");
    Tensor lengths = reshape(cast(node.input(6), DType::Int64), {batch, 1});
    Tensor key = reshape(arange(0, double(keys), 1, DType::Int64), {1, keys});
    add(reshape(blockedWhereFalse(key < lengths, dtype), {batch, 1, 1, keys}));
  }

  // Hidden scores get the dtype's lowest finite value in the softmax (as
  // lazyc's masks do), not -infinity: two hiding terms add up to no more,
  // and the tiled kernel's running maximum stays finite. qk_matmul_output
  // shows the bias as given.
  Tensor shownBias = bias;
  if (bias.defined())
    bias = maximum(bias, full({}, lowestOf(dtype), dtype));

  // Grouped-query attention: key/value head h serves query heads
  // h * group ... (h + 1) * group - 1.
  int64_t kvHeads = k.shape()[1];
  if (kvHeads != heads) {
    if (kvHeads <= 0 || heads % kvHeads != 0)
      node.fail(std::to_string(heads) + " query heads are not a multiple of " +
                std::to_string(kvHeads) + " key/value heads");
    std::vector<int64_t> owner(size_t(heads), 0);
    for (int64_t h = 0; h < heads; ++h)
      owner[size_t(h)] = h / (heads / kvHeads);
    Tensor index = Tensor::fromVector(owner, {heads});
    k = indexSelect(k, 1, index);
    v = indexSelect(v, 1, index);
  }

  double softcap = node.attribute("softcap", 0.0);
  int64_t mode = node.attribute("qk_matmul_output_mode", int64_t(0));
  bool wantsScores =
      node.node.output_size() > 3 && !node.node.output(3).empty();
  bool plain =
      softcap <= 0 && !wantsScores && !node.hasAttribute("softmax_precision");
  Tensor y, scores;
  if (plain) {
    nn::AttentionOptions options;
    options.scale = scale;
    options.mask = bias;
    y = nn::scaledDotProductAttention(q, k, v, options);
  } else {
    scores = matmul(q, transpose(k, {0, 1, 3, 2})) * constant(scale, q);
    if (softcap > 0)
      scores =
          tanh(scores / constant(softcap, scores)) * constant(softcap, scores);
    Tensor shown = scores;
    if (mode == 2 && shownBias.defined())
      shown = scores + shownBias;
    if (bias.defined())
      scores = scores + bias;
    Tensor weights = scores;
    if (node.hasAttribute("softmax_precision"))
      weights = cast(
          weights, dtypeFromOnnx(
                       int32_t(node.attribute("softmax_precision", int64_t(1))),
                       "softmax_precision"));
    weights = softmax(weights, -1);
    if (mode == 3)
      shown = weights;
    else if (mode < 0 || mode > 3)
      node.fail("qk_matmul_output_mode " + std::to_string(mode) +
                " is not supported");
    scores = cast(shown, dtype);
    y = matmul(cast(weights, dtype), v);
  }
  if (rank == 3)
    y = reshape(transpose(y, {0, 2, 1, 3}), {batch, queries, -1});
  Tensors outputs = {y, presentKey, presentValue};
  if (wantsScores)
    outputs.push_back(scores);
  return outputs;
}

/// RotaryEmbedding (opset 23): the first rotary_embedding_dim features of
/// each head rotated pairwise by the position's angle (halves, or with
/// `interleaved` even and odd features), the cos and sin caches read at
/// position_ids when given.
Tensors rotaryEmbedding(const NodeContext &node) {
  Tensor x = node.input(0);
  Tensor cosines = node.input(1), sines = node.input(2);
  int64_t rank = x.rank();
  // As [B, S, heads, d].
  if (rank == 4) {
    x = transpose(x, {0, 2, 1, 3});
  } else if (rank == 3) {
    int64_t heads = node.attribute("num_heads", int64_t(0));
    if (heads <= 0 || x.shape()[2] % heads != 0)
      node.fail("a 3-D input needs num_heads dividing its hidden size " +
                std::to_string(x.shape()[2]));
    x = reshape(x, {x.shape()[0], x.shape()[1], heads, x.shape()[2] / heads});
  } else {
    node.fail("needs an input of rank 3 or 4, not " + std::to_string(rank));
  }
  int64_t batch = x.shape()[0], length = x.shape()[1], heads = x.shape()[2],
          size = x.shape()[3];
  int64_t rotated = node.attribute("rotary_embedding_dim", int64_t(0));
  if (rotated == 0)
    rotated = size;
  if (rotated > size || rotated % 2 != 0)
    node.fail("rotary_embedding_dim " + std::to_string(rotated) +
              " must be even and at most the head size " +
              std::to_string(size));
  int64_t half = rotated / 2;
  if (node.has(3)) {
    Tensor positions = cast(node.input(3), DType::Int64);
    cosines = indexSelect(cosines, 0, reshape(positions, {-1}));
    sines = indexSelect(sines, 0, reshape(positions, {-1}));
  }
  if (cosines.numel() != batch * length * half ||
      sines.numel() != batch * length * half)
    node.fail("cos_cache and sin_cache need [B, S, " + std::to_string(half) +
              "] values (or [positions, " + std::to_string(half) +
              "] with position_ids)");
  cosines = reshape(cosines, {batch, length, 1, half});
  sines = reshape(sines, {batch, length, 1, half});

  Tensor first, second;
  bool interleaved = node.attribute("interleaved", int64_t(0)) != 0;
  if (interleaved) {
    first =
        slice(x, {0, 0, 0, 0}, {batch, length, heads, rotated}, {1, 1, 1, 2});
    second =
        slice(x, {0, 0, 0, 1}, {batch, length, heads, rotated}, {1, 1, 1, 2});
  } else {
    first = slice(x, {0, 0, 0, 0}, {batch, length, heads, half});
    second = slice(x, {0, 0, 0, half}, {batch, length, heads, rotated});
  }
  Tensor real = cosines * first - sines * second;
  Tensor imaginary = sines * first + cosines * second;
  Tensor turned =
      interleaved
          ? reshape(
                concat({reshape(real, {batch, length, heads, half, 1}),
                        reshape(imaginary, {batch, length, heads, half, 1})},
                       4),
                {batch, length, heads, rotated})
          : concat({real, imaginary}, 3);
  if (rotated < size)
    turned = concat(
        {turned, slice(x, {0, 0, 0, rotated}, {batch, length, heads, size})},
        3);
  if (rank == 4)
    return {transpose(turned, {0, 2, 1, 3})};
  return {reshape(turned, node.input(0).shape())};
}

/// RMSNormalization (opset 23): x / sqrt(mean(x^2) + epsilon) over the axes
/// from `axis` on, times scale; in Float32 at least (stash_type 1).
Tensors rmsNormalization(const NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t rank = x.rank(), axis = node.attribute("axis", int64_t(-1));
  if (axis < -rank || axis >= rank)
    node.fail("axis " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank));
  axis = axis < 0 ? axis + rank : axis;
  if (node.attribute("stash_type", int64_t(1)) != 1)
    node.fail("stash_type " +
              std::to_string(node.attribute("stash_type", int64_t(1))) +
              " is not supported (1, Float32, is)");
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  bool narrow = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
  Tensor wide = narrow ? cast(x, DType::Float32) : x;
  Tensor meanSquare = mean(wide * wide, axes, true);
  Tensor normalized =
      wide *
      rsqrt(meanSquare + constant(node.attribute("epsilon", 1e-5), meanSquare));
  if (narrow)
    normalized = cast(normalized, x.dtype());
  return {normalized * node.input(1)};
}

/// TensorScatter (opset 24): the cache with `update`'s rows written along
/// `axis` from each sample's write index on (wrapping in `circular` mode).
/// Each cache row reads the update row it receives, if any: one gather and
/// one where, the write indices staying data.
Tensors tensorScatter(const NodeContext &node) {
  const Tensor &cache = node.input(0), &update = node.input(1);
  int64_t rank = cache.rank(), axis = node.attribute("axis", int64_t(-2));
  axis = axis < 0 ? axis + rank : axis;
  if (axis <= 0 || axis >= rank)
    node.fail("axis " + std::to_string(node.attribute("axis", int64_t(-2))) +
              " must name a dimension after the batch's");
  std::string mode = node.attribute("mode", std::string("linear"));
  if (mode != "linear" && mode != "circular")
    node.fail("mode '" + mode + "' is not supported");
  Shape expected = cache.shape();
  expected[axis] = update.shape()[axis];
  if (update.rank() != rank || update.shape() != expected ||
      update.shape()[axis] > cache.shape()[axis])
    node.fail("update must have the cache's shape, up to as many rows along "
              "axis " +
              std::to_string(axis));
  int64_t batch = cache.shape()[0], rows = cache.shape()[axis],
          count = update.shape()[axis];
  Tensor start = node.has(2)
                     ? reshape(cast(node.input(2), DType::Int64), {batch, 1})
                     : zeros({batch, 1}, DType::Int64);
  // offset[b, r]: which update row cache row r of sample b receives.
  Tensor offset =
      reshape(arange(0, double(rows), 1, DType::Int64), {1, rows}) - start;
  if (mode == "circular")
    offset = mod(offset, full({}, double(rows), DType::Int64));
  Tensor zero = full({}, 0, DType::Int64);
  Tensor written = (offset >= zero) & (offset < count);
  Shape perRow(rank, 1);
  perRow[0] = batch;
  perRow[axis] = rows;
  Tensor index = reshape(clamp(offset, int64_t(0), count - 1), perRow);
  Shape gathered = cache.shape();
  Tensor rowsRead = gather(update, axis, broadcastTo(index, gathered));
  return {where(reshape(written, perRow), rowsRead, cache)};
}

} // namespace

void lazyc::onnx::detail::addAttentionKernels(
    std::map<std::string, Kernel> &table) {
  table["Attention"] = attention;
  table["RotaryEmbedding"] = rotaryEmbedding;
  table["RMSNormalization"] = rmsNormalization;
  table["TensorScatter"] = tensorScatter;
}
