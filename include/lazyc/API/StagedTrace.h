//===- StagedTrace.h - A staged function as one trace -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// For the writers of staged functions (lazyc::save's `.lazyc` file and
// lazyc::onnx::save's ONNX model): one concrete function of a
// lazyc::function, traced once more over Parameters, as a trace whose
// arguments are the Tensor inputs and then the values it reads from
// outside (Variables and constants), with its literals baked in.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_STAGEDTRACE_H
#define LAZYC_API_STAGEDTRACE_H

#include "lazyc/API/Function.h"
#include "lazyc/Trace/Region.h"

#include <functional>
#include <string>
#include <vector>

namespace lazyc::detail {

struct StagedTrace {
  struct Value {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
  };
  /// `trace.arguments` are the inputs' Parameter nodes, then the captured
  /// values; `trace.outputs` are the results. Literals are baked in
  /// (`trace.literals` lists them; none is promoted).
  trace::Trace trace;
  /// The Tensor arguments, named as the signature names them ("arg<i>"
  /// otherwise).
  std::vector<Value> inputs;
  /// The returned values (name ""), then the Variables assigned (their
  /// names).
  std::vector<Value> results;
  /// Per captured argument: the name of the Variable whose value it is,
  /// or "" for another computed value (a constant to the function).
  std::vector<std::string> capturedVariables;
  /// Keeps the nodes alive (`trace` holds raw pointers).
  trace::Region region;
  std::vector<Tensor> parameters;
};

/// Traces concrete function `index` of `state` again, at `inputShapes` (one
/// per Tensor argument; empty: the shapes of its first call). An Error
/// naming the function if it has none, if its body cannot be called again,
/// or if it reads a pending value that is neither an argument nor a
/// Variable.
StagedTrace stageConcrete(const FunctionState &state, size_t index,
                          const std::vector<std::vector<int64_t>> &inputShapes,
                          SourceLocation where);

/// A dimension the signature leaves unknown (-1), named
/// "<input>_dim<axis>": every unknown input dimension of the same size at
/// the first call is this one.
struct UnknownDimension {
  std::string name;
  size_t input = 0, axis = 0;
  int64_t size = 0;
  /// The function traced with this dimension at two other sizes.
  const StagedTrace *moved[2] = {nullptr, nullptr};
  int64_t movedSize[2] = {0, 0};
};

/// An integer a trace node holds (a size, a slice bound) as a function of
/// the unknown dimensions: (scale * S + offset) / divisor, exactly, for S
/// the size of unknown dimension `dimension`, or the constant `offset`
/// (`dimension` -1). Not `affine`: it moves with several dimensions, or not
/// affinely.
struct SizeExpression {
  int32_t dimension = -1;
  int64_t scale = 0, offset = 0, divisor = 1;
  bool affine = true;

  /// Its value for the unknown dimensions' `sizes`.
  int64_t evaluate(const std::vector<int64_t> &sizes) const {
    if (dimension < 0)
      return offset;
    return (scale * sizes[size_t(dimension)] + offset) / divisor;
  }
  /// Whether it is the dimension's size itself.
  bool isDimension() const {
    return dimension >= 0 && affine && scale == 1 && offset == 0 &&
           divisor == 1;
  }
};

/// A concrete function traced at its first call's shapes and, for each
/// unknown dimension of the signature, at two other sizes: traces of one
/// structure (the same ops, wiring and attributes but sizes and slice
/// bounds), from which how each size follows the unknown dimensions is
/// read.
struct SymbolicStaging {
  StagedTrace base;
  std::vector<UnknownDimension> dimensions;
  std::vector<StagedTrace> moved; ///< Two per dimension.

  using Entry = std::function<int64_t(const trace::Node &, size_t)>;
  /// How `entry(node, i)` of base node `position` follows the dimensions
  /// (checked affine on the three traces).
  SizeExpression expression(int32_t position, const Entry &entry,
                            size_t i) const;
  /// Whether base node `position`'s literal value moves with a dimension.
  bool literalVaries(int32_t position) const;
};

/// Stages concrete function `index` of `state` symbolically. An Error
/// naming the function (`op` the operation, "save" or "onnx::save") if a
/// retrace fails or records other ops.
SymbolicStaging stageSymbolically(const FunctionState &state, size_t index,
                                  const char *op, SourceLocation where);

/// The bytes of a captured value (a computed node), little-endian and
/// row-major.
std::vector<uint8_t> valueBytes(const trace::Node &node, SourceLocation where);

/// How many concrete functions `state` has.
size_t concreteCount(const FunctionState &state);

/// The shapes the signature of `state` gives its Tensor arguments (-1: any
/// size), or an empty list if it has no signature.
std::vector<std::vector<int64_t>> signatureShapes(const FunctionState &state);

/// The function's name.
const std::string &functionName(const FunctionState &state);

} // namespace lazyc::detail

#endif // LAZYC_API_STAGEDTRACE_H
