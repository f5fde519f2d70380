//===- Layers.h - Convolution, pooling, normalization, attention -*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The layers of CNNs and transformers as functions composed of recorded
// primitives (slices with steps, concat, reshape, transpose, matmul,
// reductions, where, randomUniform): fusion sees their parts, and
// GradientTape differentiates them through those parts. Each checks its
// operands when it is called and throws lazyc::Error at the caller's line.
// docs/API.md ("Layers") has the semantics and every gradient.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_LAYERS_H
#define LAZYC_NN_LAYERS_H

#include "lazyc/API/Ops.h"
#include "lazyc/API/Variable.h"

#include <optional>

namespace lazyc::nn {

/// A (height, width) pair; one number means both.
struct Size2 {
  Size2(int64_t both) : height(both), width(both) {}
  Size2(int64_t height, int64_t width) : height(height), width(width) {}
  int64_t height, width;
};

struct Conv2dOptions {
  Size2 stride = 1;
  /// Zeros added on each side of the height and width.
  Size2 padding = 0;
  /// The step between kernel taps (1: adjacent pixels).
  Size2 dilation = 1;
  /// Channels split into this many groups, each convolved with its own
  /// outChannels / groups filters.
  int64_t groups = 1;
};

/// 2-D cross-correlation (PyTorch's conv2d). `x` is [N, C, H, W], `weight`
/// [outC, C / groups, kH, kW], `bias` (empty for none) [outC]; the result
/// is [N, outC, OH, OW] with OH = (H + 2 padding - dilation (kH - 1) - 1) /
/// stride + 1 (likewise OW). One group is one convolution op (direct
/// convolution on the CPU, docs/API.md); groups are im2col (kH kW strided
/// slices of the padded input, or one indexSelect under a recording
/// GradientTape) and one matrix product per group.
Tensor conv2d(const Tensor &x, const Tensor &weight, const Tensor &bias,
              Conv2dOptions options = {}, Where where = Where::current());
Tensor conv2d(const Tensor &x, const Tensor &weight, Conv2dOptions options,
              Where where = Where::current());

/// The maximum over each kernel window of [N, C, H, W] (or [C, H, W]);
/// a `stride` of 0 (the default) means the kernel; padding (at most half
/// the kernel) is -infinity. OH = (H + 2 padding - kernel) / stride + 1.
Tensor maxPool2d(const Tensor &x, Size2 kernel, Size2 stride = 0,
                 Size2 padding = 0, Where where = Where::current());

/// The mean over each kernel window. Padding (at most half the kernel, as
/// for maxPool2d) counts as zeros in the mean (PyTorch's
/// count_include_pad=True) unless `countIncludePad` is false, which divides
/// by the number of input pixels in the window.
Tensor avgPool2d(const Tensor &x, Size2 kernel, Size2 stride = 0,
                 Size2 padding = 0, bool countIncludePad = true,
                 Where where = Where::current());

/// (x - mean) / sqrt(var + eps) * weight + bias, the mean and (biased)
/// variance over the trailing dimensions `normalizedShape` (which must end
/// x's shape). `weight` and `bias` (each may be empty) have that shape.
Tensor layerNorm(const Tensor &x, const Shape &normalizedShape,
                 const Tensor &weight = Tensor(), const Tensor &bias = Tensor(),
                 double eps = 1e-5, Where where = Where::current());

/// Batch normalization of x [N, C, ...] per channel C. In training the
/// statistics are the batch's (mean and biased variance over every axis but
/// 1) and the running averages, when given, are updated in the same trace:
/// running = (1 - momentum) running + momentum batch, the variance's with
/// the unbiased estimate (as PyTorch). Outside training the running averages
/// normalize (both are then required). Running averages, weight and bias
/// (each may be empty) are [C].
Tensor batchNorm(const Tensor &x, Variable *runningMean, Variable *runningVar,
                 const Tensor &weight, const Tensor &bias, bool training,
                 double momentum = 0.1, double eps = 1e-5,
                 Where where = Where::current());

/// In training, each element of x is zeroed with probability p and the
/// others scaled by 1 / (1 - p); the mask is randomUniform(x.shape, 0, 1,
/// seed) >= p (Float32 samples). The seed is data: a new seed reuses the
/// compiled trace. Outside training, or for p = 0, returns x.
Tensor dropout(const Tensor &x, double p, int64_t seed, bool training = true,
               Where where = Where::current());

/// Rows of `weight` [V, D] picked by integer `ids` of any shape:
/// ids.shape + [D]. Its gradient adds each output row into its id's row.
Tensor embedding(const Tensor &weight, const Tensor &ids,
                 Where where = Where::current());

/// How scaledDotProductAttention computes.
enum class AttentionTiles {
  /// In tiles (lazyc::tiledAttention) on the CPU once the scores would
  /// have kTiledAttentionScores elements per head, materialized otherwise.
  Auto,
  /// In tiles: no [Tq, Tk] buffer, forward or backward (CPU only).
  Always,
  /// Materialized: a matmul, a softmax and a matmul, fused with what is
  /// around them; differentiable any number of times, and exportable.
  Never,
};

/// Scores per head (Tq * Tk) from which AttentionTiles::Auto computes in
/// tiles: below it the materialized form is as fast and its memory small.
inline constexpr int64_t kTiledAttentionScores = 512 * 512;

struct AttentionOptions {
  /// Query i sees keys j <= i only (the top-left aligned mask of
  /// PyTorch's is_causal).
  bool causal = false;
  /// Multiplies q k^T; 1 / sqrt(d) by default.
  std::optional<double> scale;
  /// Broadcasts to the scores [..., Tq, Tk]: Bool (true: the query sees
  /// the key) or float (added to the scores). Masks get no gradient.
  Tensor mask;
  /// Drops each attention weight with this probability (the mask is
  /// nn::dropout's, drawn over the weights [..., Tq, Tk] with `seed`),
  /// scaling the others by 1 / (1 - dropout). Pass 0 outside training.
  double dropout = 0;
  int64_t seed = 0;
  AttentionTiles tiles = AttentionTiles::Auto;
};

/// softmax(q k^T * scale + mask) v for q [..., Tq, d], k [..., Tk, d],
/// v [..., Tk, dv] (batch dimensions broadcast as matmul's): [..., Tq, dv].
/// Masked scores (a false Bool mask, a causal mask) get the dtype's lowest
/// value added before the softmax, so a row with every key masked
/// attends to all of them evenly. Both forms compute the same values (to
/// rounding) and draw the same dropout; see AttentionTiles for which runs.
Tensor scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                 const Tensor &v,
                                 const AttentionOptions &options,
                                 Where where = Where::current());
Tensor scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                 const Tensor &v, bool causal = false,
                                 std::optional<double> scale = std::nullopt,
                                 Where where = Where::current());

} // namespace lazyc::nn

#endif // LAZYC_NN_LAYERS_H
