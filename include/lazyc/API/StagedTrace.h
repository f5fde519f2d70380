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
