//===- Losses.h - Loss functions --------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Losses, averaged over the batch, as compositions of lazy ops (they fuse
// into the training step's trace and differentiate through their parts).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_NN_LOSSES_H
#define LAZYC_NN_LOSSES_H

#include "lazyc/API/Ops.h"

namespace lazyc::nn {

/// A [batch, classes] tensor of `dtype`: row b is 1 at column labels[b] and
/// 0 elsewhere (all zeros for a label outside [0, classes)). `labels` is a
/// rank-1 Int32 or Int64 tensor.
Tensor oneHot(const Tensor &labels, int64_t classes,
              DType dtype = DType::Float32, Where where = Where::current());

/// The mean over the batch of -log softmax(logits)[b, target]. `logits` is
/// [batch, classes] and floating point; `targets` is either a rank-1 Int32
/// or Int64 tensor of class indices (in [0, classes): checked when the
/// labels are already materialized, otherwise a label out of range adds 0)
/// or a [batch, classes] float tensor of target probabilities (one-hot or
/// soft). Computed from logits through logSoftmax, which subtracts the row
/// maximum, so large logits do not overflow.
Tensor crossEntropy(const Tensor &logits, const Tensor &targets,
                    Where where = Where::current());

/// mean((prediction - target)^2) over every element; the shapes must be
/// equal.
Tensor mseLoss(const Tensor &prediction, const Tensor &target,
               Where where = Where::current());

} // namespace lazyc::nn

#endif // LAZYC_NN_LOSSES_H
