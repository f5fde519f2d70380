//===- AttentionOps.cpp - ONNX's transformer ops: Attention, RoPE, caches -===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ops that opsets 23, 24 and 27 added for the language models people
// export today: Attention (multi-head, grouped-query and multi-query; causal
// and explicit masks; a key/value cache concatenated inside the op or
// padded outside it; softcap), RotaryEmbedding, RMSNormalization,
// TensorScatter (a key/value cache written at each sample's position),
// LinearAttention (the recurrences of linear, gated and delta-rule
// attention) and CausalConvWithState (a depthwise causal convolution
// carrying its last inputs). Each follows
// ONNX's reference (onnx/reference/ops) and records lazyc ops only: the
// positions a cache is written at and the lengths that pad it are data.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/API/ControlFlow.h"
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
    bias = maximum(bias, full({}, lowestFinite(dtype), dtype));

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
  int64_t rank = x.rank();
  int64_t axis = normalizeAxis(node, node.attribute("axis", int64_t(-1)), rank);
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  Tensor wide = statisticsOf(node, x);
  Tensor meanSquare = mean(wide * wide, axes, true);
  Tensor normalized =
      wide *
      rsqrt(meanSquare + constant(node.attribute("epsilon", 1e-5), meanSquare));
  return {cast(normalized, x.dtype()) * node.input(1)};
}

/// TensorScatter (opset 24): the cache with `update`'s rows written along
/// `axis` from each sample's write index on (wrapping in `circular` mode).
/// Each cache row reads the update row it receives, if any: one gather and
/// one where, the write indices staying data.
Tensors tensorScatter(const NodeContext &node) {
  const Tensor &cache = node.input(0), &update = node.input(1);
  int64_t rank = cache.rank();
  int64_t axis = normalizeAxis(node, node.attribute("axis", int64_t(-2)), rank);
  if (axis == 0)
    node.fail("axis must name a dimension after the batch's");
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

/// [B, T, H * d] as [T, B, H, d]: one row per step.
Tensor stepRows(const NodeContext &node, const Tensor &x, int64_t heads,
                const char *what) {
  if (x.rank() != 3 || heads <= 0 || x.shape()[2] % heads != 0)
    node.fail(std::string(what) + " must be [B, T, " + std::to_string(heads) +
              " * d]");
  return transpose(
      reshape(x, {x.shape()[0], x.shape()[1], heads, x.shape()[2] / heads}),
      {1, 0, 2, 3});
}

/// LinearAttention (opset 27): per step t, the state S [B, kv heads, dk,
/// dv] decays by exp(decay) (gated rules), the value is corrected by what S
/// already holds for the key, times beta (delta rules), k v^T is added, and
/// the output is scale * q^T S, each query head reading its group's state;
/// in Float32, as ONNX's reference. The steps are one whileLoop (unrolled
/// under a recording GradientTape, as RNN, GRU and LSTM are).
Tensors linearAttention(const NodeContext &node) {
  std::string rule = node.attribute("update_rule", std::string("gated_delta"));
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    node.fail("update_rule '" + rule + "' is not supported");
  bool gating = rule == "gated" || rule == "gated_delta";
  bool correcting = rule == "delta" || rule == "gated_delta";
  if (gating != node.has(4) || correcting != node.has(5))
    node.fail("update_rule '" + rule + "' " + (gating ? "needs" : "takes no") +
              " decay and " + (correcting ? "needs" : "takes no") + " beta");
  int64_t qHeads = node.attribute("q_num_heads", int64_t(0));
  int64_t kvHeads = node.attribute("kv_num_heads", int64_t(0));
  if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads != 0)
    node.fail("q_num_heads " + std::to_string(qHeads) +
              " must be a positive multiple of kv_num_heads " +
              std::to_string(kvHeads));
  DType outType = node.input(0).dtype(), f32 = DType::Float32;
  Tensor q = cast(stepRows(node, node.input(0), qHeads, "query"), f32);
  Tensor k = cast(stepRows(node, node.input(1), kvHeads, "key"), f32);
  Tensor v = cast(stepRows(node, node.input(2), kvHeads, "value"), f32);
  int64_t steps = q.shape()[0], batch = q.shape()[1], dk = q.shape()[3],
          dv = v.shape()[3];
  if (k.shape() != Shape{steps, batch, kvHeads, dk} || v.shape()[0] != steps ||
      v.shape()[1] != batch)
    node.fail("query, key and value disagree in batch, steps or key size");
  Tensor decay, beta;
  if (gating) {
    const Tensor &given = node.input(4);
    int64_t last = given.rank() == 3 ? given.shape()[2] : -1;
    if (last != kvHeads && last != kvHeads * dk)
      node.fail("decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads "
                "* d_k]");
    decay = cast(stepRows(node, given, kvHeads, "decay"), f32);
  }
  if (correcting) {
    const Tensor &given = node.input(5);
    int64_t last = given.rank() == 3 ? given.shape()[2] : -1;
    if (last != kvHeads && last != 1)
      node.fail("beta must be [B, T, kv_num_heads] or [B, T, 1]");
    beta = cast(stepRows(node, given, last, "beta"), f32);
  }
  DType stateType = node.has(3) ? node.input(3).dtype() : outType;
  Shape stateShape = {batch, kvHeads, dk, dv};
  Tensor state =
      node.has(3) ? cast(node.input(3), f32) : zeros(stateShape, f32);
  if (state.shape() != stateShape)
    node.fail("past_state must be [B, kv_num_heads, d_k, d_v]");
  double scale = node.attribute("scale", 0.0);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt(double(dk));
  std::vector<int64_t> owner(size_t(qHeads), 0);
  for (int64_t h = 0; h < qHeads; ++h)
    owner[size_t(h)] = h / (qHeads / kvHeads);
  Tensor groupOf = Tensor::fromVector(owner, {qHeads});

  // One step: the state after it and the step's output [B, q heads, dv].
  auto step = [&](Tensor s, const Tensor &t) {
    Tensor keyColumn = reshape(rowAt(k, t), {batch, kvHeads, dk, 1});
    Tensor value = rowAt(v, t);
    if (gating)
      s = s * reshape(exp(rowAt(decay, t)), {batch, kvHeads, -1, 1});
    if (correcting) {
      Tensor held = sum(s * keyColumn, {2});
      value = rowAt(beta, t) * (value - held);
    }
    s = s + keyColumn * reshape(value, {batch, kvHeads, 1, dv});
    Tensor read = qHeads == kvHeads ? s : indexSelect(s, 1, groupOf);
    Tensor out = sum(reshape(rowAt(q, t), {batch, qHeads, dk, 1}) * read, {2}) *
                 full({}, scale, f32);
    return std::make_pair(s, out);
  };
  Tensor outputs;
  if (GradientTape::anyRecording()) {
    std::vector<Tensor> rows;
    for (int64_t t = 0; t < steps; ++t) {
      auto [next, out] = step(state, full({}, double(t), DType::Int64));
      state = next;
      rows.push_back(reshape(out, {1, batch, qHeads, dv}));
    }
    outputs = concat(rows, 0);
  } else {
    std::vector<Tensor> final = whileLoop(
        [&](const std::vector<Tensor> &carried) {
          return carried[0] < full({}, double(steps), DType::Int64);
        },
        [&](const std::vector<Tensor> &carried) {
          auto [next, out] = step(carried[1], carried[0]);
          return std::vector<Tensor>{carried[0] + full({}, 1, DType::Int64),
                                     next,
                                     replaceRowAt(carried[2], carried[0], out)};
        },
        {full({}, 0, DType::Int64), state,
         zeros({steps, batch, qHeads, dv}, f32)});
    state = final[1];
    outputs = final[2];
  }
  Tensor y = reshape(transpose(outputs, {1, 0, 2, 3}), {batch, steps, -1});
  return {cast(y, outType), cast(state, stateType)};
}

/// CausalConvWithState (opset 27): a depthwise convolution of each channel
/// over the carried state (or zeros) then the input, k taps ending at each
/// position; SiLU if asked; the new state is the last k - 1 positions.
Tensors causalConvWithState(const NodeContext &node) {
  const Tensor &x = node.input(0), &weight = node.input(1);
  if (x.rank() != 3 || weight.rank() != 3 ||
      weight.shape()[0] != x.shape()[1] || weight.shape()[1] != 1)
    node.fail("needs input [B, C, L] and weight [C, 1, k]");
  std::string activation = node.attribute("activation", std::string("none"));
  if (activation != "none" && activation != "silu" && activation != "swish")
    node.fail("activation '" + activation + "' is not supported");
  int64_t batch = x.shape()[0], channels = x.shape()[1], length = x.shape()[2],
          taps = weight.shape()[2];
  Tensor carried = node.has(3) ? node.input(3)
                               : zeros({batch, channels, taps - 1}, x.dtype());
  if (carried.shape() != Shape{batch, channels, taps - 1})
    node.fail("past_state must be [B, C, k - 1]");
  Tensor padded = taps > 1 ? concat({carried, x}, 2) : x;
  Tensor y;
  for (int64_t j = 0; j < taps; ++j) {
    Tensor term = slice(padded, {0, 0, j}, {batch, channels, j + length}) *
                  reshape(slice(weight, {0, 0, j}, {channels, 1, j + 1}),
                          {1, channels, 1});
    y = y.defined() ? y + term : term;
  }
  if (node.has(2))
    y = y + reshape(node.input(2), {1, channels, 1});
  if (activation != "none") {
    Tensor wide = cast(y, DType::Float32);
    y = cast(wide * sigmoid(wide), x.dtype());
  }
  int64_t total = padded.shape()[2];
  Tensor present =
      slice(padded, {0, 0, total - (taps - 1)}, {batch, channels, total});
  return {y, present};
}

} // namespace

void lazyc::onnx::detail::addAttentionKernels(
    std::map<std::string, Kernel> &table) {
  table["Attention"] = attention;
  table["RotaryEmbedding"] = rotaryEmbedding;
  table["RMSNormalization"] = rmsNormalization;
  table["TensorScatter"] = tensorScatter;
  table["LinearAttention"] = linearAttention;
  table["CausalConvWithState"] = causalConvWithState;
}
