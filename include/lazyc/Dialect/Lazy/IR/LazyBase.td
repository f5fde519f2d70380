//===- LazyBase.td - Lazy dialect definition and constraints -*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the `lazy` dialect, the type constraints its ops share
// and its enums.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DIALECT_LAZY_IR_LAZYBASE_TD
#define LAZYC_DIALECT_LAZY_IR_LAZYBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Lazy_Dialect : Dialect {
  let name = "lazy";
  let cppNamespace = "::mlir::lazy";
  let summary = "Traced tensor programs recorded by the lazyc front end";
  let description = [{
    The `lazy` dialect is the first IR a lazyc trace becomes. Every op works on
    ranked tensors (static or dynamic dimensions) of `f32`, `f64`, `f16`,
    `bf16`, `i1`, `i8`, `ui8`, `i16`, `ui16`, `i32`, `ui32`, `i64` or `ui64`,
    has value semantics and no side effects, and
    infers its result type from its operands and attributes.

    Broadcasting is explicit: elementwise ops require operands of identical
    type, and the front end inserts `lazy.broadcast` (numpy's right-aligned
    rule) where the user relied on implicit broadcasting. Likewise dtype
    promotion is explicit through `lazy.cast`.

    Composite ops (`lazy.softmax`, `lazy.log_softmax`, `lazy.reduce_mean`) keep
    dumped traces readable; `lazy-decompose` rewrites them into primitives
    before lowering. Region-carrying ops (functional `if`/`while`) will take
    their regions as ordinary MLIR regions terminated by a `lazy.yield`-style
    terminator; nothing in the current ops assumes region-free parents.

    Integer ops follow the type's signedness: the signless `i8`, `i16`,
    `i32` and `i64` are two's-complement signed values, the unsigned `ui8`,
    `ui16`, `ui32` and `ui64` hold 0 to 2^n - 1 (division, remainder,
    comparisons, `max`/`min`, casts and reductions treat them as unsigned;
    `abs` and `relu` are the identity), and `i1` is a boolean. The lowering
    to linalg picks the matching arith ops, then makes every integer type
    signless (`ui8` becomes `i8`), as arith requires.

    A function result may carry `lazy.tied_argument = i`: it lives in
    argument i's buffer (same type), which the caller passes for both and
    whose old value the function may overwrite. lazyc's engine ties a new
    value to an argument it donates (a variable's old value that nothing can
    read after the call); `lazy-update-in-place` then computes the result
    over the argument.

    A function argument may carry `lazy.host_buffer`: the caller passes it
    in host memory on every device, and the host code reads it. The
    importer marks the trace's promoted literals and its runtime sizes so;
    on a GPU, kernels get their values as parameters.
  }];
  let hasConstantMaterializer = 1;
  let hasRegionResultAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Lazy_Float : AnyTypeOf<[F32, F64, F16, BF16], "floating-point">;
def Lazy_Int : AnyTypeOf<[I8, UI8, I16, UI16, I32, UI32, I64, UI64],
                         "integer">;
def Lazy_Numeric : AnyTypeOf<[F32, F64, F16, BF16, I8, UI8, I16, UI16, I32,
                              UI32, I64, UI64], "numeric">;
def Lazy_Element : AnyTypeOf<[F32, F64, F16, BF16, I1, I8, UI8, I16, UI16,
                              I32, UI32, I64, UI64], "lazy element">;

/// Any tensor lazyc handles.
def Lazy_Tensor : RankedTensorOf<[F32, F64, F16, BF16, I1, I8, UI8, I16, UI16,
                                  I32, UI32, I64, UI64]>;
/// Tensors that support arithmetic (everything but `i1`).
def Lazy_NumericTensor : RankedTensorOf<[F32, F64, F16, BF16, I8, UI8, I16,
                                         UI16, I32, UI32, I64, UI64]>;
/// Tensors of integers (shifts).
def Lazy_IntTensor : RankedTensorOf<[I8, UI8, I16, UI16, I32, UI32, I64,
                                     UI64]>;
/// Tensors of integers or booleans (bitwise and, or, xor, not).
def Lazy_BitsTensor : RankedTensorOf<[I1, I8, UI8, I16, UI16, I32, UI32, I64,
                                      UI64]>;
/// Tensors of floating-point values (transcendentals, softmax, random).
def Lazy_FloatTensor : RankedTensorOf<[F32, F64, F16, BF16]>;
/// Boolean tensors (compare results, select conditions).
def Lazy_BoolTensor : RankedTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Lazy_ComparePredicate : I64EnumAttr<"ComparePredicate",
    "comparison predicate", [
      I64EnumAttrCase<"eq", 0>,
      I64EnumAttrCase<"ne", 1>,
      I64EnumAttrCase<"lt", 2>,
      I64EnumAttrCase<"le", 3>,
      I64EnumAttrCase<"gt", 4>,
      I64EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::mlir::lazy";
}

/// What a `lazy.collective` computes; the values are the runtime's
/// (lazyc/Runtime/Collectives.h).
def Lazy_CollectiveKind : I64EnumAttr<"CollectiveKind",
    "collective across the processes of a world", [
      I64EnumAttrCase<"all_reduce", 0>,
      I64EnumAttrCase<"broadcast", 1>,
      I64EnumAttrCase<"all_gather", 2>,
      I64EnumAttrCase<"reduce_scatter", 3>
    ]> {
  let cppNamespace = "::mlir::lazy";
}

/// How an all-reduce or reduce-scatter combines the ranks' elements.
def Lazy_CollectiveReduction : I64EnumAttr<"CollectiveReduction",
    "reduction of a collective", [
      I64EnumAttrCase<"sum", 0>,
      I64EnumAttrCase<"max", 1>,
      I64EnumAttrCase<"min", 2>
    ]> {
  let cppNamespace = "::mlir::lazy";
}

/// Which gradient a `lazy.attention_grad` computes; the values are the
/// trace's (Node::integer).
def Lazy_AttentionGradient : I64EnumAttr<"AttentionGradient",
    "gradient of an attention", [
      I64EnumAttrCase<"query", 0>,
      I64EnumAttrCase<"key_value", 1>
    ]> {
  let cppNamespace = "::mlir::lazy";
}

#endif // LAZYC_DIALECT_LAZY_IR_LAZYBASE_TD
