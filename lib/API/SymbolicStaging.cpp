//===- SymbolicStaging.cpp - How a staged function's sizes follow its ------===//
//===- unknown dimensions -------------------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A writer that keeps a signature's unknown dimensions (lazyc::save's
// `.lazyc` file, lazyc::onnx::save's model) must know how every size an op
// holds (a reshape's target, a slice's bound, a result's shape) follows
// them. The function is traced again with each unknown dimension at two
// other sizes: a size that moves with one dimension must be an affine
// function of it, checked on the three traces.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/StagedTrace.h"

#include "lazyc/API/Error.h"

#include "lazyc/Trace/Region.h"

#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace lazyc;
using namespace lazyc::trace;
using lazyc::detail::SizeExpression;
using lazyc::detail::StagedTrace;
using lazyc::detail::SymbolicStaging;
using lazyc::detail::UnknownDimension;

namespace {

/// Whether two traces of one function record the same ops, wired the same,
/// with the same attributes but sizes (result shapes, targets, slice
/// bounds) and literal values, which the writers compute or check.
bool sameStructure(const Trace &a, const Trace &b) {
  if (a.nodes.size() != b.nodes.size() || a.operandList != b.operandList ||
      a.operandStart != b.operandStart || a.arguments != b.arguments ||
      a.outputs != b.outputs)
    return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &x = *a.nodes[i], &y = *b.nodes[i];
    bool sizes = x.kind == OpKind::Slice || sizesAreData(x.kind);
    if (x.kind != y.kind || x.dtype != y.dtype ||
        x.shape.size() != y.shape.size() || x.flag != y.flag ||
        x.predicate != y.predicate || x.integer != y.integer ||
        x.scalar2 != y.scalar2 || x.ints3 != y.ints3 ||
        (!sizes && (x.ints != y.ints || x.ints2 != y.ints2)))
      return false;
  }
  return true;
}

} // namespace

SizeExpression SymbolicStaging::expression(int32_t position, const Entry &entry,
                                           size_t i) const {
  SizeExpression found;
  int64_t value = entry(*base.trace.nodes[position], i);
  found.offset = value;
  for (auto [g, dimension] : llvm::enumerate(dimensions)) {
    int64_t moved0 = entry(*dimension.moved[0]->trace.nodes[position], i);
    int64_t moved1 = entry(*dimension.moved[1]->trace.nodes[position], i);
    if (moved0 == value && moved1 == value)
      continue;
    if (found.dimension >= 0) {
      found.affine = false;
      return found;
    }
    found.dimension = static_cast<int32_t>(g);
    // value + (moved0 - value) / (size0 - size) * (S - size), checked at
    // the second moved size.
    int64_t rise = moved0 - value,
            run = dimension.movedSize[0] - dimension.size;
    if ((moved1 - value) * run !=
        rise * (dimension.movedSize[1] - dimension.size)) {
      found.affine = false;
      return found;
    }
    int64_t scale = rise, offset = value * run - rise * dimension.size;
    int64_t common = std::gcd(std::gcd(scale, offset), run);
    found.scale = scale / common;
    found.offset = offset / common;
    found.divisor = run / common;
  }
  return found;
}

bool SymbolicStaging::literalVaries(int32_t position) const {
  double value = base.trace.nodes[position]->scalar;
  return llvm::any_of(dimensions, [&](const UnknownDimension &dimension) {
    return dimension.moved[0]->trace.nodes[position]->scalar != value ||
           dimension.moved[1]->trace.nodes[position]->scalar != value;
  });
}

SymbolicStaging detail::stageSymbolically(const FunctionState &state,
                                          size_t index, const char *op,
                                          SourceLocation where) {
  const std::string &name = functionName(state);
  SymbolicStaging staging;
  staging.base = stageConcrete(state, index, {}, where);
  const StagedTrace &base = staging.base;
  std::vector<std::vector<int64_t>> spec = signatureShapes(state);
  for (size_t i = 0; i < spec.size() && i < base.inputs.size(); ++i)
    for (size_t d = 0; d < spec[i].size(); ++d) {
      if (spec[i][d] != -1)
        continue;
      int64_t size = base.inputs[i].shape[d];
      if (llvm::any_of(staging.dimensions, [&](const UnknownDimension &u) {
            return u.size == size;
          }))
        continue;
      UnknownDimension dimension;
      dimension.name = base.inputs[i].name + "_dim" + std::to_string(d);
      dimension.input = i;
      dimension.axis = d;
      dimension.size = size;
      staging.dimensions.push_back(dimension);
    }

  // Sizes inside regions are not followed (yet): control flow is written
  // for static shapes only.
  if (!staging.dimensions.empty())
    for (const Node *node : base.trace.nodes)
      if (hasRegions(node->kind))
        throw Error(op,
                    name + " cannot be written: its " + opName(node->kind) +
                        " (recorded at " + node->loc.file + ":" +
                        std::to_string(node->loc.line) +
                        ") is control flow in a function with unknown "
                        "dimensions, which is not written yet; give the "
                        "dimensions sizes in the signature",
                    where);

  // The function again with each dimension at two other sizes.
  staging.moved.reserve(staging.dimensions.size() * 2);
  for (UnknownDimension &dimension : staging.dimensions)
    for (int k = 0; k < 2; ++k) {
      dimension.movedSize[k] =
          dimension.size * (k + 2) + (dimension.size == 0 ? k + 2 : 0);
      std::vector<std::vector<int64_t>> shapes;
      for (auto [i, input] : llvm::enumerate(base.inputs)) {
        shapes.push_back(input.shape);
        for (size_t d = 0; d < input.shape.size(); ++d)
          if (i < spec.size() && spec[i][d] == -1 &&
              input.shape[d] == dimension.size)
            shapes.back()[d] = dimension.movedSize[k];
      }
      std::string retraced = " unknown: traced with it at " +
                             std::to_string(dimension.movedSize[k]) +
                             " rather than " + std::to_string(dimension.size);
      try {
        staging.moved.push_back(stageConcrete(state, index, shapes, where));
      } catch (const Error &error) {
        throw Error(op,
                    name + " cannot be written with " + dimension.name +
                        retraced + ", it fails: " + error.message(),
                    where);
      }
      if (!sameStructure(base.trace, staging.moved.back().trace))
        throw Error(op,
                    name + " cannot be written with " + dimension.name +
                        retraced +
                        ", it records other ops: its ops depend on that "
                        "size; give it a size in the signature",
                    where);
      dimension.moved[k] = &staging.moved.back();
    }
  return staging;
}
