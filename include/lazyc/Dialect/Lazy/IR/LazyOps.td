//===- LazyOps.td - Lazy dialect operations ------------------*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file defines the operations of the `lazy` dialect: the core op set a
// lazyc trace is made of.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_IR_LAZYOPS_TD
#define LAZYC_DIALECT_LAZY_IR_LAZYOPS_TD

include "lazyc/Dialect/Lazy/IR/LazyBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Lazy_Op<string mnemonic, list<Trait> traits = []>
    : Op<Lazy_Dialect, mnemonic, traits>;

/// An op whose result type follows from its operands and attributes. One C++
/// function (`inferReturnTypes`) computes the type and reports every invalid
/// operand combination with a precise message; `verify()` reuses it, so the
/// parser, the builders and the verifier all say the same thing.
class Lazy_InferredOp<string mnemonic, list<Trait> traits = []>
    : Lazy_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let hasVerifier = 1;
  /// Defines inferReturnTypes through a shared helper of LazyOps.cpp; empty
  /// when LazyOps.cpp defines it for this op alone.
  code inferDefinition = [{}];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyInferredResultType(*this);
    }
  }] # inferDefinition;
}

/// Defines inferReturnTypes as a call to `helper<Op>(location, adaptor,
/// inferred)`.
class Lazy_InferWith<string helper> {
  code definition = !strconcat([{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location> location, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return }], helper, [{<$cppClass>(location, adaptor, inferred);
    }
  }]);
}

/// Elementwise op on two operands of identical type.
class Lazy_BinaryOp<string mnemonic, Type operandType, string semantics,
                    list<Trait> traits = []>
    : Lazy_InferredOp<mnemonic, traits> {
  let summary = "elementwise " # mnemonic;
  let description = !strconcat([{
    Applies `}], mnemonic, [{` elementwise. Both operands have the same type;
    broadcasting is explicit (`lazy.broadcast`). }], semantics, [{

    Example:

    ```mlir
    %0 = lazy.}], mnemonic, [{ %a, %b : tensor<4x8xf32>
    ```
  }]);
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<SharedType>(type($lhs), type($rhs))
  }];
  let inferDefinition = Lazy_InferWith<"inferBinary">.definition;
  let hasFolder = 1;
}

/// Elementwise op on one operand; the result has the operand's type.
class Lazy_UnaryOp<string mnemonic, Type operandType, string semantics,
                   list<Trait> traits = []>
    : Lazy_InferredOp<mnemonic, traits> {
  let summary = "elementwise " # mnemonic;
  let description = !strconcat([{
    Applies `}], mnemonic, [{` elementwise. }], semantics, [{

    Example:

    ```mlir
    %0 = lazy.}], mnemonic, [{ %x : tensor<4x8xf32>
    ```
  }]);
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let inferDefinition = Lazy_InferWith<"inferUnary">.definition;
  let hasFolder = 1;
}

/// Reduction over a set of axes.
class Lazy_ReduceOp<string mnemonic, Type operandType, string semantics>
    : Lazy_InferredOp<mnemonic> {
  let summary = "reduction: " # semantics;
  let description = !strconcat([{
    Reduces `input` over `axes` (strictly increasing, each in `[0, rank)`)
    computing the }], semantics, [{. With `keep_dims` the reduced dimensions
    stay as size 1; without it they are removed. An empty `axes` list is the
    identity.

    Example:

    ```mlir
    %0 = lazy.}], mnemonic, [{ %x [1] : tensor<4x8xf32>            // tensor<4xf32>
    %1 = lazy.}], mnemonic, [{ %x [1] keep_dims : tensor<4x8xf32>  // tensor<4x1xf32>
    ```
  }]);
  let arguments = (ins operandType:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keep_dims);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $input $axes (`keep_dims` $keep_dims^)? attr-dict `:` type($input)
  }];
  let inferDefinition = Lazy_InferWith<"inferReduce">.definition;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Lazy_ConstantOp : Lazy_InferredOp<"constant", [ConstantLike]> {
  let summary = "tensor constant";
  let description = [{
    A tensor whose value is known when the trace is built. The result type is
    the type of `value`, which must have a static shape.

    Example:

    ```mlir
    %0 = lazy.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = lazy.constant dense<0> : tensor<3x3xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

def Lazy_AddOp : Lazy_BinaryOp<"add", Lazy_NumericTensor,
    "Integers wrap around (two's complement).", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Lazy_SubOp : Lazy_BinaryOp<"sub", Lazy_NumericTensor,
    "Integers wrap around (two's complement).">;
def Lazy_MulOp : Lazy_BinaryOp<"mul", Lazy_NumericTensor,
    "Integers wrap around (two's complement).", [Commutative]>;
def Lazy_DivOp : Lazy_BinaryOp<"div", Lazy_NumericTensor, [{
    Floats follow IEEE-754. Integer division rounds toward zero (the
    unsigned `ui8` ... `ui64` divide unsigned); an integer division by zero (or `MIN / -1`) gives an
    unspecified value, never a trap.}]>;
def Lazy_FloorDivOp : Lazy_BinaryOp<"floor_div", Lazy_NumericTensor, [{
    numpy's `floor_divide`: the quotient rounded toward negative infinity.
    Integers: a division by zero gives 0, and `MIN // -1` wraps to `MIN`;
    unsigned types divide unsigned. Floats follow numpy's `divmod` (`(a - mod(a, b)) / b`, snapped to the
    nearest integer); f16/bf16 compute in f32 and round once.}]> {
  let hasFolder = 0;
}
def Lazy_ModOp : Lazy_BinaryOp<"mod", Lazy_NumericTensor, [{
    numpy's `mod` (Python's `%`): `a - floor_div(a, b) * b`, whose sign
    follows the divisor. Integers: a divisor of zero gives 0. Floats:
    `fmod`, plus `b` when the signs differ (a zero takes `b`'s sign); a zero
    divisor gives NaN; f16/bf16 compute in f32 and round once.}]> {
  let hasFolder = 0;
}
def Lazy_PowOp : Lazy_BinaryOp<"pow", Lazy_NumericTensor, [{
    Floats follow C's `pow`. Integers wrap around; a negative exponent gives
    0 unless the base is 1 or -1 (as `math.ipowi`). An unsigned exponent is
    never negative (`ui64`'s from 2^63 too).}]>;
def Lazy_MaxOp : Lazy_BinaryOp<"max", Lazy_NumericTensor, [{
    For floats a NaN operand gives NaN (numpy's `maximum`), and +0 > -0.}],
    [Commutative]>;
def Lazy_MinOp : Lazy_BinaryOp<"min", Lazy_NumericTensor, [{
    For floats a NaN operand gives NaN (numpy's `minimum`), and -0 < +0.}],
    [Commutative]>;
def Lazy_BitAndOp : Lazy_BinaryOp<"bit_and", Lazy_BitsTensor,
    "Bitwise and of integers (of `i1`: logical and).", [Commutative]> {
  let hasFolder = 0;
}
def Lazy_BitOrOp : Lazy_BinaryOp<"bit_or", Lazy_BitsTensor,
    "Bitwise or of integers (of `i1`: logical or).", [Commutative]> {
  let hasFolder = 0;
}
def Lazy_BitXorOp : Lazy_BinaryOp<"bit_xor", Lazy_BitsTensor,
    "Bitwise exclusive or of integers (of `i1`: logical xor).",
    [Commutative]> {
  let hasFolder = 0;
}
def Lazy_ShiftLeftOp : Lazy_BinaryOp<"shift_left", Lazy_IntTensor, [{
    `lhs` shifted left by `rhs` bits, as numpy's `left_shift`: the bits
    shifted out are lost, and a shift amount of the width or more (or
    negative: amounts are read as unsigned) gives 0.}]> {
  let hasFolder = 0;
}
def Lazy_ShiftRightOp : Lazy_BinaryOp<"shift_right", Lazy_IntTensor, [{
    `lhs` shifted right by `rhs` bits, as numpy's `right_shift`: signed
    integers shift in their sign (arithmetic), unsigned ones zeros; a shift
    amount of the width or more (or negative: amounts are read as unsigned)
    gives 0, or -1 for a negative signed `lhs`.}]> {
  let hasFolder = 0;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

def Lazy_NegOp : Lazy_UnaryOp<"neg", Lazy_NumericTensor,
    "Integers wrap around (`-MIN == MIN`; for `ui8`, `-x == 256 - x`, and "
    "likewise for the other unsigned types).">;
def Lazy_AbsOp : Lazy_UnaryOp<"abs", Lazy_NumericTensor,
    "Integers wrap around (`abs(MIN) == MIN`); unsigned types are unchanged.">;
def Lazy_ReluOp : Lazy_UnaryOp<"relu", Lazy_NumericTensor,
    "Computes `max(x, 0)`; a NaN input gives NaN.">;
def Lazy_ExpOp : Lazy_UnaryOp<"exp", Lazy_FloatTensor, "Computes `e^x`.">;
def Lazy_LogOp : Lazy_UnaryOp<"log", Lazy_FloatTensor,
    "Natural logarithm; `log(0) = -inf`, negative inputs give NaN.">;
def Lazy_TanhOp : Lazy_UnaryOp<"tanh", Lazy_FloatTensor,
    "Hyperbolic tangent.">;
def Lazy_SigmoidOp : Lazy_UnaryOp<"sigmoid", Lazy_FloatTensor,
    "Computes `1 / (1 + e^-x)`.">;
def Lazy_SqrtOp : Lazy_UnaryOp<"sqrt", Lazy_FloatTensor,
    "Square root; negative inputs give NaN.">;
def Lazy_RsqrtOp : Lazy_UnaryOp<"rsqrt", Lazy_FloatTensor,
    "Computes `1 / sqrt(x)`.">;
def Lazy_SinOp : Lazy_UnaryOp<"sin", Lazy_FloatTensor, "Sine (radians).">;
def Lazy_CosOp : Lazy_UnaryOp<"cos", Lazy_FloatTensor, "Cosine (radians).">;
def Lazy_ErfOp : Lazy_UnaryOp<"erf", Lazy_FloatTensor, "Gauss error function.">;
def Lazy_AsinOp : Lazy_UnaryOp<"asin", Lazy_FloatTensor,
    "Arcsine, in [-pi/2, pi/2]; inputs outside [-1, 1] give NaN.">;
def Lazy_AcosOp : Lazy_UnaryOp<"acos", Lazy_FloatTensor,
    "Arccosine, in [0, pi]; inputs outside [-1, 1] give NaN.">;
def Lazy_AtanOp : Lazy_UnaryOp<"atan", Lazy_FloatTensor,
    "Arctangent, in [-pi/2, pi/2].">;
def Lazy_BitNotOp : Lazy_UnaryOp<"bit_not", Lazy_BitsTensor,
    "Bitwise not of integers (`~x`, so `-x - 1` for signed ones); of `i1`: "
    "logical not."> {
  let hasFolder = 0;
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

def Lazy_CompareOp : Lazy_InferredOp<"compare"> {
  let summary = "elementwise comparison";
  let description = [{
    Compares two operands of identical type elementwise and returns a boolean
    (`i1`) tensor of the same shape. Float comparisons are ordered (false when
    either side is NaN) except `ne`, which is true when either side is NaN, as
    in C and numpy. Integers compare by their type's signedness (`ui8`,
    `ui16`, `ui32`, `ui64` as unsigned values, `i8`, `i16`, `i32`, `i64` as
    signed ones); `i1` as `false < true`.

    Example:

    ```mlir
    %0 = lazy.compare lt, %a, %b : tensor<4xf32>   // tensor<4xi1>
    ```
  }];
  let arguments = (ins Lazy_ComparePredicate:$predicate, Lazy_Tensor:$lhs,
                       Lazy_Tensor:$rhs);
  let results = (outs Lazy_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:`
    custom<SharedType>(type($lhs), type($rhs))
  }];
  let hasFolder = 1;
}

def Lazy_SelectOp : Lazy_InferredOp<"select"> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    Takes `on_true` where `cond` is true and `on_false` elsewhere. `cond` has
    the shape of the values; the values have identical types.

    Example:

    ```mlir
    %0 = lazy.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Lazy_BoolTensor:$cond, Lazy_Tensor:$on_true,
                       Lazy_Tensor:$on_false);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,`
    custom<SharedType>(type($on_true), type($on_false))
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

def Lazy_CastOp : Lazy_Op<"cast", [Pure]> {
  let summary = "elementwise element-type conversion";
  let description = [{
    Converts every element to the result's element type; the shape does not
    change. Float to float rounds to nearest even; float to integer truncates
    toward zero (out-of-range values and NaN give an unspecified value; to
    `i8`, `ui8`, `i16` and `ui16` through `i32`, so a value within `i32`'s
    range wraps around modulo 2^8 or 2^16, as numpy's casts do: -1.0 to
    `ui8` is 255; to `ui32` through `i64`; to `ui64` exactly from 0 to
    2^64, negative values wrapping through `i64`); integer to float rounds
    to nearest (unsigned types as their unsigned values); integer to integer
    extends by the source's signedness (zero-extends the unsigned types,
    sign-extends the others) or truncates, and `i8` to `ui8` keeps the bits; to `i1` gives
    `x != 0`; from `i1` gives 0 or 1.

    Example:

    ```mlir
    %0 = lazy.cast %x : tensor<4xf32> to tensor<4xi32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Lazy_BitcastOp : Lazy_Op<"bitcast", [Pure]> {
  let summary = "elementwise reinterpretation of bits";
  let description = [{
    Reads every element's bits as the result's element type, of the same
    width (`f32` and `i32` or `ui32`, `f16`, `bf16`, `i16` and `ui16`, and
    so on); the shape does not change. `i1` is a byte: to an 8-bit integer
    it gives 0 or 1, and from one it keeps the lowest bit.

    Example:

    ```mlir
    %0 = lazy.bitcast %x : tensor<4xf32> to tensor<4xi32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Lazy_BroadcastOp : Lazy_InferredOp<"broadcast"> {
  let summary = "explicit numpy broadcast to a shape";
  let description = [{
    Broadcasts `input` to `shape` under numpy's rule: dimensions are aligned
    from the right, the result may add leading dimensions, and each input
    dimension is 1 or equal to the aligned result dimension. Broadcasting from
    size 1 needs a static 1: a dynamic input dimension must equal the target
    dimension when the program runs. A target size may be a value (`%n`,
    an `index`; `?` in `shape`), which makes that result dimension dynamic:
    a trace compiled once for every batch size reads its sizes this way.

    Example:

    ```mlir
    %0 = lazy.broadcast %x to [4, 3] : tensor<1x3xf32>   // tensor<4x3xf32>
    %1 = lazy.broadcast %s to [%n, 3] : tensor<f32>      // tensor<?x3xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$shape);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $input `to` custom<DynamicIndexList>($sizes, $shape) attr-dict `:`
    type($input)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$shape),
    [{ build($_builder, $_state, input, ::mlir::ValueRange(), shape); }]>
  ];
  let hasFolder = 1;
}

def Lazy_ReshapeOp : Lazy_InferredOp<"reshape"> {
  let summary = "reinterpret the elements with a new shape";
  let description = [{
    Returns the elements of `input`, in row-major order, with shape `shape`.
    Both shapes have the same number of elements. A target size may be a
    value (`%n`, an `index`; `?` in `shape`), which makes that result
    dimension dynamic.

    Example:

    ```mlir
    %0 = lazy.reshape %x to [2, 3] : tensor<6xf32>   // tensor<2x3xf32>
    %1 = lazy.reshape %y to [%n, 3] : tensor<?xf32>  // tensor<?x3xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$shape);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $input `to` custom<DynamicIndexList>($sizes, $shape) attr-dict `:`
    type($input)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$shape),
    [{ build($_builder, $_state, input, ::mlir::ValueRange(), shape); }]>
  ];
  let hasFolder = 1;
}

def Lazy_TransposeOp : Lazy_InferredOp<"transpose"> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    Example:

    ```mlir
    %0 = lazy.transpose %x [1, 0] : tensor<2x3xf32>   // tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$input $permutation attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Lazy_SliceOp : Lazy_InferredOp<"slice"> {
  let summary = "strided slice";
  let description = [{
    Takes, in every dimension `d`, the elements `start[d], start[d] +
    step[d], ...` below `limit[d]`, with `0 <= start[d] <= limit[d] <=
    size[d]` and `step[d] >= 1`. Result dimension `d` has
    `ceil((limit[d] - start[d]) / step[d])` elements (possibly zero).

    Example:

    ```mlir
    %0 = lazy.slice %x [0, 1] to [4, 3] step [2, 1] : tensor<4x4xf32>
    // tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$step);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $input $start `to` $limit `step` $step attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def Lazy_ConcatOp : Lazy_InferredOp<"concat"> {
  let summary = "concatenate tensors along an axis";
  let description = [{
    Joins one or more tensors of the same element type and rank along `axis`;
    all other dimensions agree.

    Example:

    ```mlir
    %0 = lazy.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<4x3xf32>
    // tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Lazy_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Lazy_ReduceSumOp : Lazy_ReduceOp<"reduce_sum", Lazy_NumericTensor, "sum">;
def Lazy_ReduceMaxOp : Lazy_ReduceOp<"reduce_max", Lazy_NumericTensor,
    "maximum (NaN-propagating; -inf, or the integer minimum (0 for unsigned "
    "types), "
    "when empty)">;
def Lazy_ReduceMinOp : Lazy_ReduceOp<"reduce_min", Lazy_NumericTensor,
    "minimum (NaN-propagating; +inf, or the integer maximum (255 for `ui8`, "
    "2^n - 1 for the unsigned types), "
    "when empty)">;
def Lazy_ReduceMeanOp : Lazy_ReduceOp<"reduce_mean", Lazy_FloatTensor,
    "arithmetic mean (a composite: `lazy-decompose` turns it into a sum and "
    "a division; NaN when empty)">;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Lazy_MatmulOp : Lazy_InferredOp<"matmul"> {
  let summary = "matrix product, plain or batched";
  let description = [{
    Multiplies `[..., m, k]` by `[..., k, n]` giving `[..., m, n]`. Both
    operands have the same rank (at least 2), the same element type and
    identical leading (batch) dimensions; broadcasting of batch dimensions is
    explicit.

    Example:

    ```mlir
    %0 = lazy.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32>
    %1 = lazy.matmul %c, %d : tensor<2x8x16xf32>, tensor<2x16x4xf32>
    ```
  }];
  let arguments = (ins Lazy_NumericTensor:$lhs, Lazy_NumericTensor:$rhs);
  let results = (outs Lazy_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def Lazy_Conv2dOp : Lazy_InferredOp<"conv2d"> {
  let summary = "2-D convolution (cross-correlation), NCHW, zero padding";
  let description = [{
    Slides the filters `[F, C, KH, KW]` over the images `[N, C, H, W]`,
    which are surrounded by zeros: `padding` rows above and below and
    columns left and right, as `[top, bottom, left, right]`. With `P` the
    padded images, `result[n, f, y, x] = sum over c, i, j of P[n, c,
    y * stride[0] + i * dilation[0], x * stride[1] + j * dilation[1]] *
    filter[f, c, i, j]`, giving `[N, F, OH, OW]` with `OH = (H + top +
    bottom - dilation[0] * (KH - 1) - 1) / stride[0] + 1` (likewise OW).
    One group. Both operands have the same float element type; strides and
    dilations are positive, padding is not negative, and the dilated kernel
    fits the padded image. Carrying the padding (rather than a padded copy
    of the input) lets the CPU back end write the zeros straight into the
    layout its kernel reads. Without `padding`, there is none.

    Example:

    ```mlir
    %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] padding [1, 1, 1, 1]
        : tensor<64x16x8x8xf32>, tensor<32x16x3x3xf32>  // tensor<64x32x8x8xf32>
    ```
  }];
  let arguments = (ins Lazy_FloatTensor:$input, Lazy_FloatTensor:$filter,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding);
  let results = (outs Lazy_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter `stride` $stride `dilation` $dilation
    (`padding` $padding^)? attr-dict `:` type($input) `,` type($filter)
  }];
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

class Lazy_SoftmaxLikeOp<string mnemonic, string formula>
    : Lazy_InferredOp<mnemonic> {
  let summary = mnemonic # " along one axis (composite)";
  let description = !strconcat([{
    Computes `}], formula, [{` along `axis`, in the numerically stable form
    that subtracts the maximum first. `lazy-decompose` rewrites it into
    primitives.

    Example:

    ```mlir
    %0 = lazy.}], mnemonic, [{ %x, axis = 1 : tensor<4x8xf32>
    ```
  }]);
  let arguments = (ins Lazy_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Lazy_FloatTensor:$result);
  let assemblyFormat = "$input `,` `axis` `=` $axis attr-dict `:` type($input)";
  let inferDefinition = Lazy_InferWith<"inferSoftmax">.definition;
}

def Lazy_SoftmaxOp : Lazy_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Lazy_LogSoftmaxOp : Lazy_SoftmaxLikeOp<"log_softmax",
                                           "x - log(sum(exp(x)))">;

//===----------------------------------------------------------------------===//
// Indexing and scans
//===----------------------------------------------------------------------===//

/// Positions along an axis: an integer tensor.
def Lazy_IndicesTensor : RankedTensorOf<[I32, I64]>;

def Lazy_GatherOp : Lazy_InferredOp<"gather"> {
  let summary = "elements along an axis at runtime indices (take_along_axis)";
  let description = [{
    `result[i_0, ..., i_n] = input[i_0, ..., indices[i_0, ..., i_n], ..., i_n]`
    with the index in position `axis`. `indices` has the rank of `input` and
    its sizes outside `axis`; the result has the shape of `indices`. A
    negative index counts from the end of the axis; indices outside it are
    clamped to it (a kernel cannot raise an error).

    Example:

    ```mlir
    %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, Lazy_IndicesTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $indices `]` `,` `axis` `=` $axis attr-dict `:` type($input)
    `,` type($indices)
  }];
}

def Lazy_ScatterAddOp : Lazy_InferredOp<"scatter_add"> {
  let summary = "adds values into a tensor at runtime indices along an axis";
  let description = [{
    A copy of `input` with `updates[i_0, ..., i_n]` added at
    `[i_0, ..., indices[i_0, ..., i_n], ..., i_n]` (the index in position
    `axis`): the gradient of `lazy.gather`. `indices` and `updates` have one
    shape, of the rank of `input` and its sizes outside `axis`. Indices are
    normalized and clamped as `lazy.gather`'s; repeated indices accumulate.

    Example:

    ```mlir
    %0 = lazy.scatter_add %x[%i], %u, axis = 0
           : tensor<10x4xf32>, tensor<6x4xi64>, tensor<6x4xf32>
    ```
  }];
  let arguments = (ins Lazy_NumericTensor:$input, Lazy_IndicesTensor:$indices,
                       Lazy_NumericTensor:$updates, I64Attr:$axis);
  let results = (outs Lazy_NumericTensor:$result);
  let assemblyFormat = [{
    $input `[` $indices `]` `,` $updates `,` `axis` `=` $axis attr-dict
    `:` type($input) `,` type($indices) `,` type($updates)
  }];
}

/// The position of the first extreme element along one axis.
class Lazy_ArgReduceOp<string mnemonic, string extreme>
    : Lazy_InferredOp<mnemonic> {
  let summary = "the i64 position of the " # extreme # " along an axis";
  let description = !strconcat([{
    Reduces `axis` of `input` to the position of its first }], extreme, [{
    element (a NaN counts as the extreme, as in numpy). With `keep_dims` the
    axis stays as size 1. The axis must not be empty.

    Example:

    ```mlir
    %0 = lazy.}], mnemonic, [{ %x, axis = 1 : tensor<4x8xf32>  // tensor<4xi64>
    ```
  }]);
  let arguments = (ins Lazy_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keep_dims);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input `,` `axis` `=` $axis (`keep_dims` $keep_dims^)? attr-dict `:`
    type($input)
  }];
  let inferDefinition = Lazy_InferWith<"inferArgReduce">.definition;
}

def Lazy_ArgMaxOp : Lazy_ArgReduceOp<"argmax", "maximum">;
def Lazy_ArgMinOp : Lazy_ArgReduceOp<"argmin", "minimum">;

def Lazy_CumsumOp : Lazy_InferredOp<"cumsum"> {
  let summary = "running sum along an axis";
  let description = [{
    `result[..., j, ...] = sum(input[..., 0..j, ...])` along `axis`, or with
    `reverse` the sum from `j` to the end of the axis (the gradient of the
    forward sum).

    Example:

    ```mlir
    %0 = lazy.cumsum %x, axis = 1 : tensor<4x8xf32>
    %1 = lazy.cumsum %x, axis = 1 reverse : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Lazy_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$reverse);
  let results = (outs Lazy_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:`
    type($input)
  }];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// A runtime index: a 0-d i64 tensor (implied by the custom syntax).
def Lazy_IndexTensor : 0DTensorOf<[I64]> {
  let builderCall = [{
    ::mlir::RankedTensorType::get({}, $_builder.getIntegerType(64))
  }];
}

def Lazy_IndexRowOp : Lazy_InferredOp<"index_row"> {
  let summary = "one row of a tensor, at a runtime index";
  let description = [{
    `input[index]` along the leading axis: the result drops that axis. The
    0-d `i64` index is clamped to the axis (a loop reads the values it
    stacked, one row per iteration).

    Example:

    ```mlir
    %row = lazy.index_row %stack[%i] : tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, Lazy_IndexTensor:$index);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$input `[` $index `]` attr-dict `:` type($input)";
}

def Lazy_UpdateRowOp : Lazy_InferredOp<"update_row"> {
  let summary = "a tensor with one row replaced, at a runtime index";
  let description = [{
    `input` with `input[index] = value` along the leading axis; `value` has
    the type of one row. The 0-d `i64` index is clamped to the axis.

    Example:

    ```mlir
    %next = lazy.update_row %stack[%i] = %row : tensor<8x4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$input, Lazy_IndexTensor:$index,
                       Lazy_Tensor:$value);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $index `]` `=` $value attr-dict `:` type($input) `,`
    type($value)
  }];
}

def Lazy_IfOp : Lazy_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "a conditional with both branches as regions (lazyc::cond)";
  let description = [{
    Runs `then` if the 0-d `condition` holds, else `else`, and returns what
    the branch that ran yields (`lazy.yield`). Both branches yield values of
    the result types. The regions use values from above directly.

    Example:

    ```mlir
    %r = lazy.if %c : tensor<i1> -> (tensor<4xf32>) {
      %d = lazy.mul %x, %x : tensor<4xf32>
      lazy.yield %d : tensor<4xf32>
    } else {
      %n = lazy.neg %x : tensor<4xf32>
      lazy.yield %n : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins 0DTensorOf<[I1]>:$condition);
  let results = (outs Variadic<Lazy_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $condition attr-dict `:` type($condition) (`->` `(` type($results)^ `)`)?
    $thenRegion `else` $elseRegion
  }];
  let hasVerifier = 1;
}

def Lazy_WhileOp : Lazy_Op<"while", [RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a loop over carried values (lazyc::whileLoop)";
  let description = [{
    Starts with the carried values `inits`; while `condition` (given the
    carried values as its arguments) yields a true 0-d `i1`, runs `body`
    (given the same), whose yielded values are the next carried values. The
    results are the carried values when the condition first fails. Both
    regions take one argument per carried value, of its type.

    Example:

    ```mlir
    %r:2 = lazy.while %i0, %x0 : tensor<i32>, tensor<4xf32> condition {
    ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
      %p = lazy.compare lt, %i, %n : tensor<i32>
      lazy.yield %p : tensor<i1>
    } body {
    ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
      %j = lazy.add %i, %one : tensor<i32>
      %y = lazy.mul %x, %x : tensor<4xf32>
      lazy.yield %j, %y : tensor<i32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Lazy_Tensor>:$inits);
  let results = (outs Variadic<Lazy_Tensor>:$results);
  let regions = (region SizedRegion<1>:$condition, SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inits attr-dict `:` type($inits) `condition` $condition `body` $body
  }];
  let hasVerifier = 1;
}

def Lazy_YieldOp : Lazy_Op<"yield", [Pure, Terminator,
    ParentOneOf<["IfOp", "WhileOp"]>]> {
  let summary = "the values a region of lazy.if or lazy.while produces";
  let arguments = (ins Variadic<Lazy_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

class Lazy_RandomOp<string mnemonic, string distribution, string params>
    : Lazy_Op<mnemonic, [Pure]> {
  let summary = "seeded random tensor: " # distribution;
  let description = !strconcat([{
    A tensor of independent samples from }], distribution, [{, a deterministic
    function of the 0-d `seed` and the element's row-major index (the same
    seed gives the same numbers in every mode and on every device). The seed
    is an operand, not an attribute, so one compiled trace serves every
    seed. The result type is the op's specification; each dynamic dimension
    takes its size from one `sizes` operand, in order.

    Example:

    ```mlir
    %0 = lazy.}], mnemonic, [{ %seed, }], params, [{ : tensor<i64> -> tensor<4x8xf32>
    %1 = lazy.}], mnemonic, [{ %seed [%n], }], params, [{ : tensor<i64> -> tensor<?x8xf32>
    ```
  }]);
  let results = (outs Lazy_FloatTensor:$result);
  let hasVerifier = 1;
}

def Lazy_RandomUniformOp : Lazy_RandomOp<"random_uniform",
    "the uniform distribution on [low, high)", "low = 0.0, high = 1.0"> {
  let arguments = (ins 0DTensorOf<[I64]>:$seed, Variadic<Index>:$sizes,
                       F64Attr:$low, F64Attr:$high);
  let assemblyFormat = [{
    $seed (`[` $sizes^ `]`)? `,` `low` `=` $low `,` `high` `=` $high attr-dict
    `:` type($seed) `->` type($result)
  }];
}

def Lazy_RandomNormalOp : Lazy_RandomOp<"random_normal",
    "the normal distribution N(mean, stddev^2)", "mean = 0.0, stddev = 1.0"> {
  let arguments = (ins 0DTensorOf<[I64]>:$seed, Variadic<Index>:$sizes,
                       F64Attr:$mean, F64Attr:$stddev);
  let assemblyFormat = [{
    $seed (`[` $sizes^ `]`)? `,` `mean` `=` $mean `,` `stddev` `=` $stddev
    attr-dict `:` type($seed) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Lazy_AttentionOp : Lazy_InferredOp<"attention"> {
  let summary = "scaled dot-product attention, computed in tiles";
  let description = [{
    With `q [..., Tq, d]`, `k [..., Tk, d]` and `v [..., Tk, dv]` (identical
    batch dimensions, at most four), the scores are `s = (q k^T) * scale +
    bias`, plus the lowest finite value where `causal` and key > query
    (the materialized form's float operations). The result `[..., Tq, dv +
    1]` holds each row of `dropout(softmax(s)) v`, then that row's
    log-sum-exp of `s`: what `lazy.attention_grad` reads.

    The optional `bias` (an additive mask) has the scores' rank; each of its
    dimensions is 1 (broadcast) or the scores'. Dropout with probability
    `dropout` drops the softmax's elements where `lazy.random_uniform`
    seeded with `seed` over the scores' shape is below it and scales the
    others by `1 / (1 - dropout)`.

    No scores buffer exists: the CPU back end calls a kernel that keeps a
    running maximum and sum over tiles of keys (the FlashAttention scheme),
    so the memory is linear in the sequence.

    Example:

    ```mlir
    %0 = lazy.attention %q, %k, %v, seed %s, scale = 0.125, dropout = 0.0 causal
        : tensor<8x64x16xf32>, tensor<8x64x16xf32>, tensor<8x64x16xf32>, tensor<i64>
        // tensor<8x64x17xf32>
    ```
  }];
  let arguments = (ins Lazy_FloatTensor:$q, Lazy_FloatTensor:$k,
                       Lazy_FloatTensor:$v, 0DTensorOf<[I64]>:$seed,
                       Optional<Lazy_FloatTensor>:$bias, F64Attr:$scale,
                       F64Attr:$dropout, UnitAttr:$causal);
  let results = (outs Lazy_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` `seed` $seed (`bias` $bias^)? `,` `scale` `=` $scale
    `,` `dropout` `=` $dropout (`causal` $causal^)? attr-dict `:` type($q)
    `,` type($k) `,` type($v) `,` type($seed) (`,` type($bias)^)?
  }];
}

def Lazy_AttentionGradOp : Lazy_InferredOp<"attention_grad"> {
  let summary = "a gradient of lazy.attention, computed in tiles";
  let description = [{
    The gradient of the rows of `lazy.attention`'s result `out` (same
    operands and attributes) given `d_out [..., Tq, dv]`, the rows'
    gradient: for `query`, `dq [..., Tq, d]`; for `key_value`, `[..., Tk,
    d + dv]`, each row dk's then dv's. The scores are recomputed tile by
    tile from `out`'s log-sum-exp column, as in the forward.

    Example:

    ```mlir
    %0 = lazy.attention_grad query %q, %k, %v, %out, %dout, seed %s,
        scale = 0.125, dropout = 0.0 causal
        : tensor<8x64x16xf32>, tensor<8x64x16xf32>, tensor<8x64x16xf32>,
          tensor<8x64x17xf32>, tensor<8x64x16xf32>, tensor<i64>
        // tensor<8x64x16xf32>
    ```
  }];
  let arguments = (ins Lazy_AttentionGradient:$gradient, Lazy_FloatTensor:$q,
                       Lazy_FloatTensor:$k, Lazy_FloatTensor:$v,
                       Lazy_FloatTensor:$out, Lazy_FloatTensor:$d_out,
                       0DTensorOf<[I64]>:$seed,
                       Optional<Lazy_FloatTensor>:$bias, F64Attr:$scale,
                       F64Attr:$dropout, UnitAttr:$causal);
  let results = (outs Lazy_FloatTensor:$result);
  let assemblyFormat = [{
    $gradient $q `,` $k `,` $v `,` $out `,` $d_out `,` `seed` $seed
    (`bias` $bias^)? `,` `scale` `=` $scale `,` `dropout` `=` $dropout
    (`causal` $causal^)? attr-dict `:` type($q) `,` type($k) `,` type($v)
    `,` type($out) `,` type($d_out) `,` type($seed) (`,` type($bias)^)?
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Lazy_CollectiveOp : Lazy_Op<"collective", [InferTypeOpAdaptor,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a collective across the processes of a world";
  let description = [{
    Combines `input` with the same op's input on every other process (rank)
    of a world of `world_size` processes:

    - `all_reduce`: every rank gets the elementwise `reduction` (`sum`,
      `max`, `min`) over the ranks; the input's type.
    - `broadcast`: every rank gets rank `root`'s input; the input's type.
    - `all_gather`: the ranks' inputs concatenated along dimension 0, rank 0
      first (dimension 0 grows `world_size` times).
    - `reduce_scatter`: the `reduction` over the ranks, split along
      dimension 0 into `world_size` blocks; rank r gets block r (dimension 0
      must divide by `world_size`).

    The op talks to other processes, so it has side effects: it is never
    removed, duplicated or merged by generic transforms. Every rank runs the
    same compiled code, so the ranks issue their collectives in the same
    order; the runtime checks that they agree (kind, reduction, dtype,
    element count) before exchanging data. `lazy-schedule-collectives`
    issues each as soon as its input is ready and buckets all-reduces.

    Example:

    ```mlir
    %0 = lazy.collective all_reduce %g reduce sum, world_size = 2 : tensor<512xf32> -> tensor<512xf32>
    %1 = lazy.collective all_gather %x, world_size = 4 : tensor<2x8xf32> -> tensor<8x8xf32>
    %2 = lazy.collective broadcast %w root 0, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Lazy_CollectiveKind:$kind, Lazy_NumericTensor:$input,
                       OptionalAttr<Lazy_CollectiveReduction>:$reduction,
                       OptionalAttr<I64Attr>:$root, I64Attr:$world_size);
  let results = (outs Lazy_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $input (`reduce` $reduction^)? (`root` $root^)? `,` `world_size` `=`
    $world_size attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // LAZYC_DIALECT_LAZY_IR_LAZYOPS_TD
