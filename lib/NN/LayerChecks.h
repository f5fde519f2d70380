//===- LayerChecks.h - Operand checks shared by the layers ------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/NN: the checks the layers make of their operands, each a
// lazyc::Error naming the layer, what is wrong, and the caller's line.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_NN_LAYERCHECKS_H
#define LAZYC_LIB_NN_LAYERCHECKS_H

#include "lazyc/API/Ops.h"
#include "lazyc/Runtime/DType.h"
#include "lazyc/Runtime/Shape.h"

#include <string>

namespace lazyc::nn::detail {

/// "Float32 [2, 3]".
inline std::string describe(const Tensor &x) {
  return typeText(x.dtype(), x.shape());
}

/// Throws unless `x` is defined and floating point; `what` names it
/// ("the input").
inline void requireFloat(const Tensor &x, const char *op, const char *what,
                         Where where) {
  if (!x.defined())
    throw Error(op, std::string(what) + " is an empty Tensor", where);
  if (!isFloatingPoint(x.dtype()))
    throw Error(
        op, std::string(what) + " must be floating point, got " + describe(x),
        where);
}

/// Throws unless an optional per-channel tensor (weight, bias) is empty or
/// floating point of exactly `shape`.
inline void requireOptional(const Tensor &x, const Shape &shape, const char *op,
                            const char *what, Where where) {
  if (!x.defined())
    return;
  requireFloat(x, op, what, where);
  if (x.shape() != shape)
    throw Error(op,
                std::string(what) + " must be " + shapeText(shape) + ", got " +
                    shapeText(x.shape()),
                where);
}

/// A rank-0 tensor of `dtype` holding `value` (for where, maximum).
inline Tensor scalarOf(double value, DType dtype, Where where) {
  return full({}, Scalar(value, where), dtype);
}

} // namespace lazyc::nn::detail

#endif // LAZYC_LIB_NN_LAYERCHECKS_H
