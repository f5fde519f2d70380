//===- Ops.h - The ops users record on tensors ------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the ops: each checks its operands (shapes, dtypes,
// axes) when it is recorded, and throws lazyc::Error at the user's line if
// they do not fit. Binary ops broadcast numpy-style and promote dtypes as
// numpy does (docs/API.md has the table); a C++ scalar operand is "weak": it
// takes the tensor's dtype when it is of the same kind.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_OPS_H
#define LAZYC_API_OPS_H

#include "lazyc/API/Tensor.h"

#include "lazyc/API/SourceLocation.h"
#include <cstdint>
#include <vector>

namespace lazyc {

using Shape = std::vector<int64_t>;
using Where = SourceLocation;

/// A tensor operand that remembers where the expression using it was
/// written (operators cannot take a defaulted source_location parameter).
struct At {
  At(const Tensor &tensor, Where where = Where::current())
      : tensor(tensor), where(where) {}
  const Tensor &tensor;
  Where where;
};

/// A C++ scalar operand: its value, its kind, and where it was written.
struct Scalar {
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  Scalar(T value, Where where = Where::current())
      : value(static_cast<double>(value)), dtype(kindOf<T>()), where(where) {}
  double value;
  DType dtype; ///< Float32 (float), Float64 (double), Int32, Int64 or Bool.
  Where where;

private:
  template <typename T> static constexpr DType kindOf() {
    if constexpr (std::is_same_v<T, bool>)
      return DType::Bool;
    else if constexpr (std::is_same_v<T, float>)
      return DType::Float32;
    else if constexpr (std::is_floating_point_v<T>)
      return DType::Float64;
    else if constexpr (sizeof(T) <= 4)
      return DType::Int32;
    else
      return DType::Int64;
  }
};

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

Tensor full(Shape shape, Scalar value);
Tensor full(Shape shape, Scalar value, DType dtype);
Tensor zeros(Shape shape, DType dtype = DType::Float32,
             Where where = Where::current());
Tensor ones(Shape shape, DType dtype = DType::Float32,
            Where where = Where::current());
/// start, start + step, ... below stop (numpy's arange).
Tensor arange(double start, double stop, double step = 1,
              DType dtype = DType::Float32, Where where = Where::current());
/// Uniform samples in [low, high): a function of the seed and each element's
/// index, so eager and lazy mode give the same numbers.
Tensor randomUniform(Shape shape, double low, double high, int64_t seed,
                     DType dtype = DType::Float32,
                     Where where = Where::current());
Tensor randomNormal(Shape shape, double mean, double stddev, int64_t seed,
                    DType dtype = DType::Float32,
                    Where where = Where::current());

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Tensor operator+(At lhs, const Tensor &rhs);
Tensor operator-(At lhs, const Tensor &rhs);
Tensor operator*(At lhs, const Tensor &rhs);
Tensor operator/(At lhs, const Tensor &rhs);
Tensor operator+(At lhs, Scalar rhs);
Tensor operator-(At lhs, Scalar rhs);
Tensor operator*(At lhs, Scalar rhs);
Tensor operator/(At lhs, Scalar rhs);
Tensor operator+(Scalar lhs, const Tensor &rhs);
Tensor operator-(Scalar lhs, const Tensor &rhs);
Tensor operator*(Scalar lhs, const Tensor &rhs);
Tensor operator/(Scalar lhs, const Tensor &rhs);
Tensor operator-(At operand);

Tensor operator<(At lhs, const Tensor &rhs);
Tensor operator<=(At lhs, const Tensor &rhs);
Tensor operator>(At lhs, const Tensor &rhs);
Tensor operator>=(At lhs, const Tensor &rhs);
Tensor operator==(At lhs, const Tensor &rhs);
Tensor operator!=(At lhs, const Tensor &rhs);
Tensor operator<(At lhs, Scalar rhs);
Tensor operator<=(At lhs, Scalar rhs);
Tensor operator>(At lhs, Scalar rhs);
Tensor operator>=(At lhs, Scalar rhs);
Tensor operator==(At lhs, Scalar rhs);
Tensor operator!=(At lhs, Scalar rhs);

Tensor pow(const Tensor &base, const Tensor &exponent,
           Where where = Where::current());
Tensor pow(const Tensor &base, Scalar exponent);
Tensor maximum(const Tensor &lhs, const Tensor &rhs,
               Where where = Where::current());
Tensor minimum(const Tensor &lhs, const Tensor &rhs,
               Where where = Where::current());

Tensor exp(const Tensor &x, Where where = Where::current());
Tensor log(const Tensor &x, Where where = Where::current());
Tensor tanh(const Tensor &x, Where where = Where::current());
Tensor sigmoid(const Tensor &x, Where where = Where::current());
Tensor relu(const Tensor &x, Where where = Where::current());
Tensor sqrt(const Tensor &x, Where where = Where::current());
Tensor rsqrt(const Tensor &x, Where where = Where::current());
Tensor abs(const Tensor &x, Where where = Where::current());
Tensor sin(const Tensor &x, Where where = Where::current());
Tensor cos(const Tensor &x, Where where = Where::current());
Tensor erf(const Tensor &x, Where where = Where::current());

/// Elements of `onTrue` where `condition` holds, of `onFalse` elsewhere
/// (all three broadcast together).
Tensor where(const Tensor &condition, const Tensor &onTrue,
             const Tensor &onFalse, Where where = Where::current());
Tensor cast(const Tensor &x, DType dtype, Where where = Where::current());

//===----------------------------------------------------------------------===//
// Linear algebra, reductions, composites
//===----------------------------------------------------------------------===//

/// Matrix product of [..., m, k] and [..., k, n]; batch dimensions broadcast.
Tensor matmul(const Tensor &lhs, const Tensor &rhs,
              Where where = Where::current());

/// Reductions over `axes` (negative axes count from the end; empty: all).
Tensor sum(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepDims = false, Where where = Where::current());
Tensor mean(const Tensor &x, std::vector<int64_t> axes = {},
            bool keepDims = false, Where where = Where::current());
Tensor max(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepDims = false, Where where = Where::current());
Tensor min(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepDims = false, Where where = Where::current());

Tensor softmax(const Tensor &x, int64_t axis = -1,
               Where where = Where::current());
Tensor logSoftmax(const Tensor &x, int64_t axis = -1,
                  Where where = Where::current());

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// A new shape with the same number of elements; one dimension may be -1.
Tensor reshape(const Tensor &x, Shape shape, Where where = Where::current());
/// Permutes dimensions; an empty permutation reverses them.
Tensor transpose(const Tensor &x, std::vector<int64_t> permutation = {},
                 Where where = Where::current());
Tensor broadcastTo(const Tensor &x, Shape shape,
                   Where where = Where::current());
/// Elements start[d], start[d] + step[d], ... below limit[d] (steps default
/// to 1; negative start/limit count from the end).
Tensor slice(const Tensor &x, std::vector<int64_t> start,
             std::vector<int64_t> limit, std::vector<int64_t> step = {},
             Where where = Where::current());
Tensor concat(const std::vector<Tensor> &tensors, int64_t axis = 0,
              Where where = Where::current());

/// The dtype numpy gives `lhs op rhs` for two tensors of these dtypes.
DType promoteTypes(DType lhs, DType rhs);

} // namespace lazyc

#endif // LAZYC_API_OPS_H
