//===- Autocast.h - Mixed precision by op ----------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares autocast: within a scope, products run in bf16 or f16
// (accumulating in f32) and the ops that need range or precision run in f32,
// whatever the dtypes of their inputs (PyTorch's torch.autocast; the table
// is in docs/API.md, "Mixed precision").
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_AUTOCAST_H
#define LAZYC_API_AUTOCAST_H

#include "lazyc/API/Ops.h"
#include "lazyc/API/Tensor.h"

#include <optional>

namespace lazyc {

/// On this thread, until the scope ends, the ops record under autocast to
/// `dtype` (BFloat16 or Float16):
/// - matmul, linear layers, convolutions and attention's products cast
///   their Float32 (and other narrow float) operands to `dtype` and give
///   `dtype` (the products accumulate in f32, as every narrow product does);
/// - sum, mean, cumsum, softmax, logSoftmax, layer and batch norms and the
///   losses cast narrow float inputs to Float32 and give Float32;
/// - every other op runs in the dtype its inputs promote to.
/// Float64 operands are never cast. The casts are recorded ops: they fuse
/// with their neighbours, and gradients flow through them, so Float32
/// Variables (the master weights) get Float32 gradients. Scopes nest; with
/// `enabled` false the scope turns autocast off (a region that must stay in
/// Float32 inside an autocast one). A staged lazyc::function is staged
/// again for each autocast setting it is called under.
class AutocastScope {
public:
  explicit AutocastScope(DType dtype = DType::BFloat16, bool enabled = true,
                         Where where = Where::current());
  ~AutocastScope();
  AutocastScope(const AutocastScope &) = delete;
  AutocastScope &operator=(const AutocastScope &) = delete;

private:
  std::optional<DType> previous;
};

/// The dtype ops autocast to on this thread, or none outside autocast.
std::optional<DType> autocastDType();

namespace detail {

/// The dtype a product (matmul, convolution) of operands promoting to
/// `promoted` runs in: the autocast dtype for Float32, Float16 and BFloat16
/// under autocast, else `promoted`.
DType autocastProductType(DType promoted);

/// `x` as an op that runs in Float32 under autocast takes it: cast to
/// Float32 if it is a Float16 or BFloat16 tensor under autocast, else x.
Tensor autocastToFloat32(const Tensor &x, Where where);

/// `bias` in the dtype of the `product` it is added to, when autocast made
/// that product narrow (a linear layer's or convolution's Float32 bias), so
/// the layer's output stays narrow, as PyTorch's does; else bias.
Tensor autocastBias(const Tensor &bias, const Tensor &product, Where where);

} // namespace detail

} // namespace lazyc

#endif // LAZYC_API_AUTOCAST_H
