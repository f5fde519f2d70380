//===- Attention.h - Tiled scaled dot-product attention ----------*- C -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the C ABI of the CPU attention kernels: the calls
// generated code makes for `lazy.attention` and `lazy.attention_grad`. They
// compute softmax(q k^T * scale + bias) v in tiles of queries and keys with
// a running maximum and sum (the FlashAttention scheme), so no buffer of
// queries x keys scores exists: the memory is O(queries + keys) per head.
//
// Every tensor is contiguous and row-major, over `batch` slices (the product
// of sizes[0..3]):
//   q     [batch, queries, depth]        k  [batch, keys, depth]
//   v     [batch, keys, valueDepth]
//   bias  sizes[8..13] over [batch0..3, queries, keys]: each 1 (broadcast)
//         or that dimension's size; null for no bias. An additive mask.
//   out   [batch, queries, valueDepth + 1]: each output row, then the
//         row's log-sum-exp of its scores (what the gradients read).
//
// The scores are s = (q k^T) * scale + bias, then, where `causal` and
// key > query, s + lowest (the lowest finite value): the same float
// operations as the materialized form lazyc records for short sequences,
// so a fully masked row is uniform there and here alike.
//
// Dropout with probability `dropout` drops the softmax's element (n, i, j)
// when the uniform of counter (n * queries + i) * keys + j, seeded with
// `seed`, is below it (lazy.random_uniform's generator: the bits of
// SplitMix64 at state seed + (counter + 1) * 0x9E3779B97F4A7C15, the top 24
// as an f32 in [0, 1)), and scales the kept ones by 1 / (1 - dropout) (0 for
// dropout 1): a dropout over the materialized [batch, queries, keys]
// softmax with that seed drops the same elements.
//
// The kernels run on the OpenMP threads of generated code.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_ATTENTION_H
#define LAZYC_RUNTIME_ATTENTION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The length of the `sizes` array: batch0..batch3 (leading 1s), queries,
/// keys, depth, valueDepth, then the bias's six sizes (0s without a bias).
enum { LAZYRT_ATTENTION_SIZES = 14 };

/// out = softmax(s) v, with each row's log-sum-exp after it.
void lazyrt_attention_forward_f32(const float *q, const float *k,
                                  const float *v, const float *bias, float *out,
                                  const int64_t *sizes, double scale,
                                  double dropout, int64_t seed, int32_t causal);
void lazyrt_attention_forward_f64(const double *q, const double *k,
                                  const double *v, const double *bias,
                                  double *out, const int64_t *sizes,
                                  double scale, double dropout, int64_t seed,
                                  int32_t causal);

/// The gradient of the forward's rows with respect to q, given `out` (the
/// forward's result, statistics included) and `dOut` [batch, queries,
/// valueDepth]: dq [batch, queries, depth].
void lazyrt_attention_backward_query_f32(const float *q, const float *k,
                                         const float *v, const float *bias,
                                         const float *out, const float *dOut,
                                         float *dq, const int64_t *sizes,
                                         double scale, double dropout,
                                         int64_t seed, int32_t causal);
void lazyrt_attention_backward_query_f64(const double *q, const double *k,
                                         const double *v, const double *bias,
                                         const double *out, const double *dOut,
                                         double *dq, const int64_t *sizes,
                                         double scale, double dropout,
                                         int64_t seed, int32_t causal);

/// The gradients with respect to k and v, side by side:
/// dkv [batch, keys, depth + valueDepth], each row dk's then dv's.
void lazyrt_attention_backward_key_value_f32(
    const float *q, const float *k, const float *v, const float *bias,
    const float *out, const float *dOut, float *dkv, const int64_t *sizes,
    double scale, double dropout, int64_t seed, int32_t causal);
void lazyrt_attention_backward_key_value_f64(
    const double *q, const double *k, const double *v, const double *bias,
    const double *out, const double *dOut, double *dkv, const int64_t *sizes,
    double scale, double dropout, int64_t seed, int32_t causal);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // LAZYC_RUNTIME_ATTENTION_H
