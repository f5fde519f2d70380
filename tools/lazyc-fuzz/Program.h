//===- Program.h - Random tensor programs for lazyc-fuzz --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A fuzz program is a list of steps, each one call of the public API
// (include/lazyc/lazyc.h) on earlier steps' tensors, or a read that
// materializes one. The same list runs lazily, eagerly and through the
// reference evaluator, and prints as C++.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TOOLS_FUZZ_PROGRAM_H
#define LAZYC_TOOLS_FUZZ_PROGRAM_H

#include "lazyc/Reference/Evaluator.h"
#include "lazyc/lazyc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lazyc::fuzz {

/// What a step calls.
enum class StepKind {
  Input,         ///< Tensor::fromVector / fromBools (then a cast for f16/bf16)
  Full,          ///< full(shape, value[, dtype])
  Arange,        ///< arange(start, stop, step, dtype)
  RandomUniform, ///< randomUniform(shape, low, high, seed, dtype)
  RandomNormal,  ///< randomNormal(shape, mean, stddev, seed, dtype)
  Binary,        ///< a + b, a - b, a * b, a / b, pow, maximum, minimum;
                 ///< `a += b` ... (`op2` 1: compound assignment)
  BinaryScalar,  ///< a op scalar, or scalar op a; `a += scalar` ... (`op2`)
  Compare,       ///< a < b, ...
  CompareScalar, ///< a < scalar, ..., or scalar < a (flag)
  Unary,         ///< -a, exp(a), ...
  Composite,     ///< a CompositeOp: logicalAnd(a, b), clamp(a, lo, hi)
                 ///< (`start`, `stop`, or tensors b, c), any(a, axes,
                 ///< keepDims), gelu(a), ...
  Where,         ///< where(c, a, b)
  Cast,          ///< cast(a, dtype); with `flag`, bitcast(a, dtype)
  Matmul,        ///< matmul(a, b); with `flag`, under AutocastScope
                 ///< (`op` 0: BFloat16, 1: Float16), cast back to the
                 ///< operands' promoted type
  Reduce,        ///< sum / mean / max / min (a, axes, keepDims)
  Softmax,       ///< softmax / logSoftmax (a, axis)
  Reshape,       ///< reshape(a, shape)
  Transpose,     ///< transpose(a, permutation)
  BroadcastTo,   ///< broadcastTo(a, shape)
  Slice,         ///< slice(a, start, limit, step)
  Concat,        ///< concat({a, b, ...}, axis)
  Cond,          ///< cond(sum(p) > c, unary(a), binary(a, b))
  Loop,          ///< whileLoop over a: v <- binary(unary(v), a) while
                 ///< sum(|v|) > c, at most `axis` iterations; with
                 ///< `flag`, a counted loop instead: `axis` steps of an
                 ///< Int64 counter by `ints[0]` (an scf.for), the result
                 ///< v if the counter ends at axis * ints[0], else a
  Call,          ///< a lazyc::function computing binary(unary(a), b), with
                 ///< a signature leaving a's dimension 0 unknown
  Gather,        ///< a GatherOp: gather(a, axis, indices), indexSelect,
                 ///< take(a, indices), nn::embedding(a, indices), or
                 ///< nn::oneHot(labels, classes = seed, dtype): the
                 ///< labels operand a, or `intData` without operands
  ScatterAdd,    ///< scatterAdd(a, axis, indices, b)
  ArgReduce,     ///< argmax / argmin (op 0 / 1) (a, axis, keepDims), or
                 ///< over the flattened a (no `ints`)
  Cumsum,        ///< cumsum(a, axis, reverse)
  TopK,          ///< topk(a, k = seed, axis): values, or indices (flag)
  Index,         ///< a.index({...}): `ints` the entries' IndexKind,
                 ///< `ints2` three numbers per entry (an integer; a
                 ///< Range's start, stop, step with kNone for nullopt; a
                 ///< tensor's length, its values taken in order from
                 ///< `intData`)
  Layer,         ///< an nn layer (LayerOp `op`) of a, parameters in `ints`:
                 ///< conv2d(a, b, {stride, padding, dilation, groups}),
                 ///< maxPool2d / avgPool2d(a, kernel, stride, padding),
                 ///< layerNorm(a, last `ints[0]` dimensions), dropout(a,
                 ///< p = start, seed), scaledDotProductAttention(a, a, a,
                 ///< {causal = flag, dropout = start, seed, tiles =
                 ///< ints[0]}), batchNorm(a) in training
  Collective,    ///< distributed::allReduce (op 0), broadcast (1),
                 ///< allGather (2), reduceScatter (3) of a in the
                 ///< fuzzer's world of one process; `seed` the ReduceOp
  Read,          ///< materializes operand 0 (or everything: sync)
  Gradient,      ///< d sum(a * a) / d b on the program's tape (ProgramTape),
                 ///< b a watched step before a
  BlockBound,    ///< a CompileBlock's bounds: `{ CompileBlock bound; }`
};

enum class LayerOp {
  Conv2d,
  MaxPool2d,
  AvgPool2d,
  LayerNorm,
  Dropout,
  Attention,
  BatchNorm,
};
inline constexpr int kLayerOps = static_cast<int>(LayerOp::BatchNorm) + 1;

/// The ops of a Gather step.
enum class GatherOp { Gather, IndexSelect, Take, Embedding, OneHot };

/// Tensor::index entries as the fuzzer encodes them.
enum class IndexKind { Integer, Range, NewAxis, Ellipsis, Tensor };
inline constexpr int64_t kNone = INT64_MIN;

// The binary, unary and reduce rows of lazyc/Trace/Ops.def, in its order:
// an op added there is generated at once (and the switches of Program.cpp
// must handle it).
enum class BinaryOp {
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr) Kind,
#include "lazyc/Trace/Ops.def"
};
enum class UnaryOp {
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr) Kind,
#include "lazyc/Trace/Ops.def"
};
enum class ReduceOp {
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr) Kind,
#include "lazyc/Trace/Ops.def"
};
enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne };
/// The ops recorded from other ops (lazyc/API/Ops.h), in kinds by operands:
/// unary ones first, then the two binary logical ones and the reductions.
enum class CompositeOp {
  LogicalNot,
  Square,
  Gelu,
  GeluTanh,
  Softplus,
  Silu,
  ClampScalars,
  LogicalAnd, // (a, b)
  LogicalOr,
  LogicalXor,
  ClampTensors, // (a, lo, hi)
  Any,          // (a, axes, keepDims)
  All,
};
inline constexpr int kCompositeOps = static_cast<int>(CompositeOp::All) + 1;

/// How many ops each of those enums has.
inline constexpr int kBinaryOps = 0
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr) +1
#include "lazyc/Trace/Ops.def"
    ;
inline constexpr int kUnaryOps = 0
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr) +1
#include "lazyc/Trace/Ops.def"
    ;
inline constexpr int kReduceOps = 0
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr) +1
#include "lazyc/Trace/Ops.def"
    ;
/// The binary ops with a scalar operand form (`a + 2`, pow(a, 2)): the
/// first ones, up to Pow.
inline constexpr int kScalarBinaryOps = static_cast<int>(BinaryOp::Pow) + 1;
enum class ReadKind { ToVector, Item, Bool, Sync };
/// The C++ type of a scalar operand, which decides its dtype (docs/API.md).
enum class ScalarType { Float, Double, Int, Int64, Bool };

/// One API call. Which fields are used depends on `kind`.
struct Step {
  StepKind kind = StepKind::Input;
  std::vector<int> operands; ///< Earlier steps' results.
  int op = 0;                ///< A BinaryOp, UnaryOp, CompareOp, ReduceOp
                             ///< or ReadKind; Cond, Loop: the UnaryOp.
  int op2 = 0;               ///< Cond, Loop: the BinaryOp.
  DType dtype = DType::Float32;
  bool hasDType = true;       ///< Full: pass the dtype explicitly.
  std::vector<int64_t> shape; ///< Input, Full, random, Reshape, BroadcastTo.
  std::vector<int64_t> ints, ints2, ints3; ///< Axes, permutation, slice.
  bool flag = false; ///< keepDims; scalar first; softmax: log.
  int64_t axis = 0;  ///< Softmax, Concat.
  double start = 0, stop = 0, step = 1;      ///< Arange; random low/high.
  int64_t seed = 0;                          ///< Random.
  ScalarType scalarType = ScalarType::Float; ///< BinaryScalar, Full, ...
  /// The scalar per iteration (one value if it never varies).
  std::vector<double> constants;
  /// Input data: floats (as doubles), or integers and booleans.
  std::vector<double> floatData;
  std::vector<int64_t> intData;
  /// Checked against the reference when the iteration ends.
  bool output = false;
  /// The step's result is d sum(y * y) / d a instead of y, for y the op's
  /// result and a its operand 0, under a GradientTape watching a: the
  /// op's backward graph.
  bool gradient = false;
  /// The program's tape watches the result (for later Gradient steps).
  bool watched = false;
};

/// A program: steps, run `iterations` times (the varying scalars change
/// between iterations, the structure does not: the function cache hits
/// and promotes constants).
struct Program {
  uint64_t seed = 0;
  std::vector<Step> steps;
  int iterations = 1;

  double constant(const Step &step, int iteration) const {
    return step
        .constants[static_cast<size_t>(iteration) % step.constants.size()];
  }
};

/// Options of the generator.
struct GeneratorOptions {
  int maxOps = 60;
  int64_t maxElements = 512;
  /// Every program whose seed is a multiple of this (0: none) is a large
  /// one (Generator::runLarge): a reduction over millions of elements.
  uint64_t largeEvery = 50;
  /// Every program whose seed is this much past a multiple of it (0: none)
  /// repeats one block of ops many times over, as a deep model's layers do
  /// (Generator::runRepeated): long enough to be cut into repeated blocks.
  uint64_t repeatedEvery = 40;
};

/// A random, valid program (every call is checked by recording it lazily;
/// nothing runs).
/// The indices of a Gather, ScatterAdd or Index step: `intData` with
/// `shape` (Int64 data, so that new values reuse the trace).
Tensor indicesOf(const Step &step);
std::vector<Index> indexEntries(const Step &step);

Program generate(uint64_t seed, const GeneratorOptions &options);

/// The GradientTape of a program's watched and Gradient steps, on this
/// thread while it lives (a program's run makes one per iteration); inert
/// if `needed` is false.
class ProgramTape {
public:
  explicit ProgramTape(bool needed);
  ~ProgramTape();
  ProgramTape(const ProgramTape &) = delete;
  ProgramTape &operator=(const ProgramTape &) = delete;

  /// Whether `program` has a watched step.
  static bool neededBy(const Program &program);

private:
  std::unique_ptr<GradientTape> tape;
  GradientTape *previous = nullptr;
};

/// Applies step `index` of `program` to earlier results (slots), in the
/// current mode; returns the new tensor (empty for a read or a bound).
/// `iteration` selects the varying constants.
Tensor apply(const Program &program, size_t index,
             const std::vector<Tensor> &slots, int iteration);

/// The program as C++ (the body of a main() using the public API).
std::string print(const Program &program, bool eager);

/// A dtype as C++ source: "DType::Float32".
std::string dtypeSpelling(DType dtype);

} // namespace lazyc::fuzz

#endif // LAZYC_TOOLS_FUZZ_PROGRAM_H
