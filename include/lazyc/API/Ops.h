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
#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>
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
/// Both operands of == and != are At: in C++20 `x == y` also weighs the
/// reversed `y == x`, and with one side a plain Tensor the two were equally
/// good (clang warns that the comparison is ambiguous).
Tensor operator==(At lhs, At rhs);
Tensor operator!=(At lhs, At rhs);
Tensor operator<(At lhs, Scalar rhs);
Tensor operator<=(At lhs, Scalar rhs);
Tensor operator>(At lhs, Scalar rhs);
Tensor operator>=(At lhs, Scalar rhs);
Tensor operator==(At lhs, Scalar rhs);
Tensor operator!=(At lhs, Scalar rhs);

/// A C++ scalar on the left of a comparison (`0.5f < x`): the same as the
/// mirrored comparison with the scalar on the right.
Tensor operator<(Scalar lhs, At rhs);
Tensor operator<=(Scalar lhs, At rhs);
Tensor operator>(Scalar lhs, At rhs);
Tensor operator>=(Scalar lhs, At rhs);
Tensor operator==(Scalar lhs, At rhs);
Tensor operator!=(Scalar lhs, At rhs);

/// Compound assignment: `x += y` records `x + y` and rebinds the handle `x`
/// to it (nothing is updated in place: other handles to the old value keep
/// it). The result keeps `x`'s dtype: a result of the same kind (Bool <
/// integer < floating point) is cast back, e.g. an Int64 sum into an Int32
/// `x` or a Float64 one into a Float32 `x`; a result of a higher kind (a
/// float into an integer tensor, `/=` on integers) is an Error, as in
/// PyTorch. The shape is the broadcast shape, so `x` may grow.
Tensor &operator+=(Tensor &lhs, At rhs);
Tensor &operator-=(Tensor &lhs, At rhs);
Tensor &operator*=(Tensor &lhs, At rhs);
Tensor &operator/=(Tensor &lhs, At rhs);
Tensor &operator+=(Tensor &lhs, Scalar rhs);
Tensor &operator-=(Tensor &lhs, Scalar rhs);
Tensor &operator*=(Tensor &lhs, Scalar rhs);
Tensor &operator/=(Tensor &lhs, Scalar rhs);

/// Logical ops on truth values (nonzero is true, NaN too), giving Bool;
/// operands broadcast.
Tensor logicalAnd(const Tensor &lhs, const Tensor &rhs,
                  Where where = Where::current());
Tensor logicalOr(const Tensor &lhs, const Tensor &rhs,
                 Where where = Where::current());
Tensor logicalXor(const Tensor &lhs, const Tensor &rhs,
                  Where where = Where::current());
Tensor logicalNot(const Tensor &x, Where where = Where::current());
/// Bitwise ops of integer tensors (of Bool ones: logical), as numpy's
/// bitwise_and, bitwise_or, bitwise_xor and invert: operands broadcast and
/// promote (an integer with Bool takes the integer's dtype); floats are an
/// Error. No gradient.
Tensor bitwiseAnd(const Tensor &lhs, const Tensor &rhs,
                  Where where = Where::current());
Tensor bitwiseOr(const Tensor &lhs, const Tensor &rhs,
                 Where where = Where::current());
Tensor bitwiseXor(const Tensor &lhs, const Tensor &rhs,
                  Where where = Where::current());
/// `~x`: `-x - 1` for signed integers, `2^n - 1 - x` for unsigned ones.
Tensor bitwiseNot(const Tensor &x, Where where = Where::current());
/// `&`, `|`, `^`, `~`: bitwiseAnd, bitwiseOr, bitwiseXor, bitwiseNot.
Tensor operator&(At lhs, const Tensor &rhs);
Tensor operator|(At lhs, const Tensor &rhs);
Tensor operator^(At lhs, const Tensor &rhs);
Tensor operator~(At operand);

/// numpy's left_shift and right_shift of integer tensors: the bits shifted
/// out are lost; a right shift of a signed integer shifts in its sign. A
/// shift amount of the width or more (or negative) gives 0 (-1 for a
/// right shift of a negative signed value). Operands promote as `+`.
Tensor leftShift(const Tensor &x, const Tensor &amount,
                 Where where = Where::current());
Tensor leftShift(const Tensor &x, Scalar amount);
Tensor rightShift(const Tensor &x, const Tensor &amount,
                  Where where = Where::current());
Tensor rightShift(const Tensor &x, Scalar amount);

/// numpy's floor_divide: the quotient rounded toward negative infinity.
/// Integer division by zero gives 0 (numpy's value, without its warning).
Tensor floorDiv(const Tensor &lhs, const Tensor &rhs,
                Where where = Where::current());
Tensor floorDiv(const Tensor &lhs, Scalar rhs);
Tensor floorDiv(Scalar lhs, const Tensor &rhs);
/// numpy's mod (Python's `%`): lhs - floorDiv(lhs, rhs) * rhs, with the
/// divisor's sign. An integer divisor of zero gives 0, a float one NaN.
Tensor mod(const Tensor &lhs, const Tensor &rhs,
           Where where = Where::current());
Tensor mod(const Tensor &lhs, Scalar rhs);
Tensor mod(Scalar lhs, const Tensor &rhs);

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
/// asin and acos are NaN outside [-1, 1].
Tensor asin(const Tensor &x, Where where = Where::current());
Tensor acos(const Tensor &x, Where where = Where::current());
Tensor atan(const Tensor &x, Where where = Where::current());

/// x * x (Bool computes in Int32, as `x * x` does).
Tensor square(const Tensor &x, Where where = Where::current());
/// minimum(maximum(x, lo), hi): so `lo > hi` gives `hi` everywhere, and a
/// NaN stays NaN. The bounds broadcast (tensor form).
Tensor clamp(const Tensor &x, Scalar lo, Scalar hi);
Tensor clamp(const Tensor &x, const Tensor &lo, const Tensor &hi,
             Where where = Where::current());

/// GELU's two forms: x * Phi(x) with the normal CDF (None, the exact one)
/// or PyTorch's `approximate="tanh"` form.
enum class GeluApproximation { None, Tanh };
/// 0.5 x (1 + erf(x / sqrt 2)), or with Tanh
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Tensor gelu(const Tensor &x,
            GeluApproximation approximation = GeluApproximation::None,
            Where where = Where::current());
Tensor gelu(const Tensor &x, Where where);
/// log(1 + exp(x)), as max(x, 0) + log(1 + exp(-|x|)): no overflow.
Tensor softplus(const Tensor &x, Where where = Where::current());
/// x * sigmoid(x).
Tensor silu(const Tensor &x, Where where = Where::current());

/// Elements of `onTrue` where `condition` holds, of `onFalse` elsewhere
/// (all three broadcast together).
Tensor where(const Tensor &condition, const Tensor &onTrue,
             const Tensor &onFalse, Where where = Where::current());
Tensor cast(const Tensor &x, DType dtype, Where where = Where::current());
/// `x`'s bits read as `dtype`, of the same width (Float32 and Int32 or
/// UInt32, Float16 and BFloat16, ...): numpy's `x.view(dtype)`. Bool is a
/// byte holding 0 or 1; an 8-bit integer read as Bool keeps its lowest bit.
/// No gradient.
Tensor bitcast(const Tensor &x, DType dtype, Where where = Where::current());

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
/// Whether any (all) elements along `axes` are nonzero (NaN counts), as
/// Bool; over no elements, false (true).
Tensor any(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepDims = false, Where where = Where::current());
Tensor all(const Tensor &x, std::vector<int64_t> axes = {},
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

//===----------------------------------------------------------------------===//
// Indexing and scans
//===----------------------------------------------------------------------===//
//
// Indices are Int32 or Int64 tensors, data like any other: a new batch of
// indices reuses the compiled trace. An index counts from the end when it
// is negative; one outside [-n, n) for an axis of n elements is clamped to
// the axis (a kernel cannot throw; JAX's rule). Tensor::index checks the
// integers and ranges it is given, whose values it knows.

/// torch.gather (numpy's take_along_axis): out[..., j, ...] =
/// x[..., indices[..., j, ...], ...], the index in position `axis`.
/// `indices` has x's rank, and x's sizes outside `axis` (or 1: broadcast);
/// the result has its shape and x's dtype. Gradient: scatterAdd.
Tensor gather(const Tensor &x, int64_t axis, const Tensor &indices,
              Where where = Where::current());
/// torch.index_select (numpy's take along an axis): the slices of x at
/// `indices` (any shape) along `axis`; the result's shape is
/// x.shape[:axis] + indices.shape + x.shape[axis + 1:].
Tensor indexSelect(const Tensor &x, int64_t axis, const Tensor &indices,
                   Where where = Where::current());
/// numpy's take: elements of the flattened x at `indices` (any shape).
Tensor take(const Tensor &x, const Tensor &indices,
            Where where = Where::current());
/// torch.scatter_add: a copy of x with updates[..., j, ...] added at
/// [..., indices[..., j, ...], ...] along `axis`; repeated indices add up.
/// `indices` fits x as gather's does; `updates` has its (broadcast) shape.
Tensor scatterAdd(const Tensor &x, int64_t axis, const Tensor &indices,
                  const Tensor &updates, Where where = Where::current());

/// x[index] along the leading axis, for an index computed at run time (a
/// loop's step): `index` is an Int32 or Int64 scalar tensor. The row is
/// read in place, not gathered. JAX's lax.dynamic_index_in_dim. Gradient:
/// the row's gradient placed at `index` in zeros.
Tensor rowAt(const Tensor &x, const Tensor &index,
             Where where = Where::current());
/// x with its row `index` along the leading axis replaced by `row` (x's
/// dtype, and x's shape without the leading axis); `index` as rowAt's.
/// Inside a whileLoop that carries x, the row is written in place. JAX's
/// lax.dynamic_update_index_in_dim.
Tensor replaceRowAt(const Tensor &x, const Tensor &index, const Tensor &row,
                    Where where = Where::current());

/// The Int64 position of the first maximum (minimum) along `axis`; a NaN
/// counts as the extreme (numpy). The axis must not be empty.
Tensor argmax(const Tensor &x, int64_t axis, bool keepDims = false,
              Where where = Where::current());
Tensor argmin(const Tensor &x, int64_t axis, bool keepDims = false,
              Where where = Where::current());
/// Over the flattened tensor: a 0-d Int64 position.
Tensor argmax(const Tensor &x, Where where = Where::current());
Tensor argmin(const Tensor &x, Where where = Where::current());

/// The k largest elements along `axis` (k small: k passes over the data),
/// largest first, ties by position; `indices` are Int64.
struct TopK {
  Tensor values, indices;
};
TopK topk(const Tensor &x, int64_t k, int64_t axis = -1,
          Where where = Where::current());

/// Running sums along `axis` (with `reverse`, from the end); signed
/// integers and booleans sum in Int64, unsigned ones in UInt64 (numpy).
/// Gradient: the reverse cumsum.
Tensor cumsum(const Tensor &x, int64_t axis, bool reverse = false,
              Where where = Where::current());

/// 2-D cross-correlation, one group: `images` [N, C, H, W] surrounded by
/// `padding` zeros ([top, bottom, left, right]), with `filters`
/// [F, C, KH, KW], taps `dilation` apart, every `stride` pixels (height,
/// width), giving [N, F, OH, OW] with OH = (H + top + bottom -
/// dilation[0] (KH - 1) - 1) / stride[0] + 1 (likewise OW). Floating point
/// (the operands promote together). Gradients: convolutions. nn::conv2d
/// adds groups, a bias and symmetric padding on top.
Tensor conv2d(const Tensor &images, const Tensor &filters,
              std::array<int64_t, 2> stride = {1, 1},
              std::array<int64_t, 2> dilation = {1, 1},
              std::array<int64_t, 4> padding = {0, 0, 0, 0},
              Where where = Where::current());

/// Scaled dot-product attention computed in tiles (the FlashAttention
/// scheme): dropout(softmax(q k^T * scale + bias)) v, with where `causal`
/// and key j > query i the lowest finite value added, for q [..., Tq, d],
/// k [..., Tk, d], v [..., Tk, dv] giving [..., Tq, dv]. No [Tq, Tk]
/// buffer exists, forward or backward: memory grows with Tq + Tk, not
/// Tq * Tk. The low-level op behind nn::scaledDotProductAttention (which
/// picks it or the materialized form and takes Bool masks): q, k and v
/// share one dtype, Float32 or Float64, and their batch dimensions (at
/// most four); `bias` (an additive mask; may be empty) has q's rank and
/// dtype, each dimension 1 or the scores'. Dropout drops the softmax's
/// element where randomUniform over the scores' shape [..., Tq, Tk] with
/// `seed` is below `dropout`, as nn::dropout over the materialized
/// softmax would. Gradients: q, k and v; the bias gets none. CPU only
/// (lazyc/Runtime/Attention.h).
Tensor tiledAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                      const Tensor &bias, double scale, bool causal,
                      double dropout = 0, int64_t seed = 0,
                      Where where = Where::current());

/// One entry of Tensor::index (numpy's basic and integer-array indexing):
/// an integer, a Range (`Range{}` is `:`, `Range{1, -1, 2}` is `1:-1:2`,
/// negative steps reverse), `newAxis`, `ellipsis`, or an Int32/Int64
/// tensor of indices. Several tensors broadcast together, and the result
/// takes their shape where numpy puts it (in place if they are adjacent,
/// first otherwise; integers then count as tensors, as in numpy).
struct Range {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
};
struct NewAxis {};
struct Ellipsis {};
inline constexpr NewAxis newAxis{};
inline constexpr Ellipsis ellipsis{};

class Index {
public:
  enum class Kind { Integer, Range, NewAxis, Ellipsis, Tensor };
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> &&
                                                    !std::is_same_v<T, bool>>>
  Index(T integer) : kind(Kind::Integer), integer(integer) {}
  Index(Range range) : kind(Kind::Range), range(range) {}
  Index(NewAxis) : kind(Kind::NewAxis) {}
  Index(Ellipsis) : kind(Kind::Ellipsis) {}
  Index(const lazyc::Tensor &indices) : kind(Kind::Tensor), tensor(indices) {}

  Kind kind;
  int64_t integer = 0;
  lazyc::Range range;
  lazyc::Tensor tensor;
};

/// x[indices...] as numpy computes it; also `x.index({...})`.
Tensor index(const Tensor &x, const std::vector<Index> &indices,
             Where where = Where::current());

/// The dtype numpy gives `lhs op rhs` for two tensors of these dtypes.
DType promoteTypes(DType lhs, DType rhs);

} // namespace lazyc

#endif // LAZYC_API_OPS_H
