//===- ControlFlow.cpp - cond and whileLoop as single ops -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements cond and whileLoop (seed 002, "functional cond"). A
// branch or loop region is traced once, with the ops it records kept off
// the pending list (engine::TracedRegion); the graph it returns is cut out
// as a region of one If or While node (trace::extractRegion), whose
// operands are what the regions capture. The node's values are Result
// nodes. Assignments to Variables in a branch become extra results: the
// other branch yields the variable's old value.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/ControlFlow.h"
#include "Engine/Engine.h"
#include "RegionTracer.h"
#include "Rows.h"
#include "Tape.h"
#include "TensorAccess.h"
#include "VariableState.h"

#include "lazyc/API/Ops.h"
#include "lazyc/Runtime/Shape.h"
#include "lazyc/Trace/Region.h"

#include "llvm/ADT/ScopeExit.h"

using namespace lazyc;
using namespace lazyc::trace;

namespace {

const NodePtr &nodeOf(const Tensor &tensor) {
  return detail::TensorAccess::node(tensor);
}

/// "Float32 [2, 3]".
std::string typeOf(const Tensor &tensor) {
  return typeText(tensor.dtype(), tensor.shape());
}

/// The Bool scalar a cond or loop condition decides by, as a rank-0 tensor.
Tensor predicateOf(const Tensor &predicate, const char *op, const char *what,
                   SourceLocation where) {
  if (!predicate.defined())
    throw Error(op, std::string(what) + " is an empty Tensor", where);
  if (predicate.dtype() != DType::Bool || predicate.numel() != 1)
    throw Error(op,
                std::string(what) +
                    " must be a Bool scalar (one element), "
                    "got " +
                    typeOf(predicate) + " (compare, or cast to Bool)",
                where);
  return predicate.shape().empty() ? predicate : reshape(predicate, {}, where);
}

/// Creates a control-flow node of `kind` over `operands` with `regions`.
NodePtr controlFlowNode(OpKind kind, std::vector<NodePtr> operands,
                        std::shared_ptr<Regions> regions, Device device,
                        SourceLocation where) {
  NodePtr node = makeNode();
  node->kind = kind;
  node->dtype = DType::Bool; // It has no value of its own; Results do.
  node->device = device;
  node->inputs.assign(operands.begin(), operands.end());
  node->loc = {where.file_name(), where.line()};
  node->integer = static_cast<int64_t>(regionsHash(*regions));
  setRegions(*node, std::move(regions));
  node->computeContentHash();
  if (tape::recording())
    tape::recorded(node);
  // Inside an enclosing region it is that region's; otherwise its Results
  // are what is pending.
  if (auto &traced = engine::tracedRegions(); !traced.empty())
    traced.back()->recorder.recorded(node.get());
  return node;
}

} // namespace

Tensor engine::recordResult(const NodePtr &node, int64_t region, int64_t index,
                            const Node &like, SourceLocation where) {
  NodePtr result = makeNode();
  result->kind = OpKind::Result;
  result->dtype = like.dtype;
  result->device = node->device;
  result->shape = like.shape;
  result->inputs.push_back(node);
  result->ints = {region, index};
  result->loc = {where.file_name(), where.line()};
  result->computeContentHash();
  if (tape::recording())
    tape::recorded(result);
  engine::recorded(result, where);
  return detail::TensorAccess::wrap(std::move(result));
}

namespace {

void checkDevice(const NodePtr &value, Device device, const char *op,
                 SourceLocation where) {
  if (value->device != device)
    throw Error(op,
                "operands live on different devices, " + device.str() +
                    " and " + value->device.str() +
                    " (move one with a copy to the other)",
                where);
}

} // namespace

void detail::assigningVariable(VariableState &state, SourceLocation where) {
  for (engine::TracedRegion *region : engine::tracedRegions()) {
    // A cond branch's assignment becomes a result of the cond, an exported
    // function's a result of the function; a loop's has no such place.
    if (std::strcmp(region->op, "whileLoop") == 0)
      throw Error("assign",
                  "cannot assign " + state.describe() + " inside a " +
                      region->op +
                      " region: carry its value through the loop and "
                      "assign the result after it",
                  where);
    bool seen = false;
    for (auto &[assigned, before] : region->assigned)
      seen = seen || assigned == &state;
    if (!seen)
      region->assigned.push_back({&state, state.value});
  }
}

//===----------------------------------------------------------------------===//
// cond
//===----------------------------------------------------------------------===//

std::vector<Tensor>
detail::cond(const Tensor &predicate,
             const std::function<std::vector<Tensor>()> &thenBranch,
             const std::function<std::vector<Tensor>()> &elseBranch,
             SourceLocation where) {
  Tensor decide = predicateOf(predicate, "cond", "the predicate", where);
  if (isEager()) {
    std::vector<Tensor> results =
        decide.item<bool>(where) ? thenBranch() : elseBranch();
    for (Tensor &result : results)
      result = detail::distinctValue(result, "cond", where);
    return results;
  }

  RegionTracer thenTracer("cond", where), elseTracer("cond", where);
  std::vector<Tensor> thenResults = thenTracer.trace(thenBranch);
  std::vector<Tensor> elseResults = elseTracer.trace(elseBranch);
  if (thenResults.size() != elseResults.size())
    throw Error("cond",
                "the branches return different numbers of tensors: " +
                    std::to_string(thenResults.size()) + " (then) and " +
                    std::to_string(elseResults.size()) + " (else)",
                where);
  Device device = nodeOf(decide)->device;
  for (size_t i = 0; i < thenResults.size(); ++i) {
    const Tensor &a = thenResults[i], &b = elseResults[i];
    if (!a.defined() || !b.defined())
      throw Error("cond",
                  "result " + std::to_string(i) + " of the " +
                      (a.defined() ? "else" : "then") +
                      " branch is an empty Tensor",
                  where);
    if (a.dtype() != b.dtype() || a.shape() != b.shape())
      throw Error("cond",
                  "the branches return different types for result " +
                      std::to_string(i) + ": " + typeOf(a) + " (then) and " +
                      typeOf(b) + " (else)",
                  where);
    checkDevice(nodeOf(a), device, "cond", where);
    checkDevice(nodeOf(b), device, "cond", where);
  }

  // Variables either branch assigns are results too: a branch that does not
  // assign one yields its value from before the cond.
  std::vector<VariableState *> variables;
  std::vector<NodePtr> thenValues, elseValues;
  for (const Tensor &t : thenResults)
    thenValues.push_back(nodeOf(t));
  for (const Tensor &t : elseResults)
    elseValues.push_back(nodeOf(t));
  auto valueIn = [](const RegionTracer &tracer, VariableState *state,
                    const Tensor &otherwise) -> const Tensor & {
    for (const auto &assignment : tracer.assignments())
      if (assignment.state == state)
        return assignment.after;
    return otherwise;
  };
  for (const RegionTracer *tracer : {&thenTracer, &elseTracer})
    for (const auto &assignment : tracer->assignments()) {
      if (llvm::is_contained(variables, assignment.state))
        continue;
      variables.push_back(assignment.state);
      thenValues.push_back(
          nodeOf(valueIn(thenTracer, assignment.state, assignment.before)));
      elseValues.push_back(
          nodeOf(valueIn(elseTracer, assignment.state, assignment.before)));
    }

  Captures captures(/*firstOperand=*/1);
  auto regions = std::make_shared<Regions>();
  regions->regions.push_back(
      extractRegion(thenValues, thenTracer.recorder(), captures));
  regions->regions.push_back(
      extractRegion(elseValues, elseTracer.recorder(), captures));
  std::vector<NodePtr> operands{nodeOf(decide)};
  for (const NodePtr &captured : captures.values()) {
    checkDevice(captured, device, "cond", where);
    operands.push_back(captured);
  }
  NodePtr node = controlFlowNode(OpKind::If, std::move(operands),
                                 std::move(regions), device, where);

  std::vector<Tensor> results;
  for (size_t i = 0; i < thenResults.size(); ++i)
    results.push_back(
        engine::recordResult(node, kUserResult, i, *thenValues[i], where));
  for (size_t v = 0; v < variables.size(); ++v) {
    size_t index = thenResults.size() + v;
    variables[v]->value = engine::recordResult(node, kUserResult, index,
                                               *thenValues[index], where);
  }
  return results;
}

//===----------------------------------------------------------------------===//
// whileLoop
//===----------------------------------------------------------------------===//

std::vector<Tensor> detail::whileLoop(
    const std::function<Tensor(const std::vector<Tensor> &)> &condition,
    const std::function<std::vector<Tensor>(const std::vector<Tensor> &)> &body,
    const std::vector<Tensor> &initial, int64_t maxIterations,
    SourceLocation where) {
  if (initial.empty())
    throw Error("whileLoop", "the loop carries no values", where);
  for (size_t i = 0; i < initial.size(); ++i)
    if (!initial[i].defined())
      throw Error("whileLoop",
                  "initial value " + std::to_string(i) + " is an empty Tensor",
                  where);
  if (maxIterations < -1)
    throw Error("whileLoop",
                "maxIterations must be >= 0 (or -1: unbounded), got " +
                    std::to_string(maxIterations),
                where);
  auto checkBody = [&](const std::vector<Tensor> &next) {
    if (next.size() != initial.size())
      throw Error("whileLoop",
                  "the body returns " + std::to_string(next.size()) +
                      " values for " + std::to_string(initial.size()) +
                      " carried ones",
                  where);
    for (size_t i = 0; i < next.size(); ++i) {
      if (!next[i].defined())
        throw Error("whileLoop",
                    "the body returns an empty Tensor for carried value " +
                        std::to_string(i),
                    where);
      if (next[i].dtype() != initial[i].dtype() ||
          next[i].shape() != initial[i].shape())
        throw Error("whileLoop",
                    "the body returns " + typeOf(next[i]) +
                        " for carried value " + std::to_string(i) +
                        ", which starts as " + typeOf(initial[i]),
                    where);
    }
  };
  auto decide = [&](const std::vector<Tensor> &carried) {
    return predicateOf(condition(carried), "whileLoop", "the condition", where);
  };

  if (isEager()) {
    std::vector<Tensor> carried = initial;
    for (int64_t trips = 0;
         trips != maxIterations && decide(carried).item<bool>(where); ++trips) {
      std::vector<Tensor> next = body(carried);
      checkBody(next);
      carried = std::move(next);
    }
    // A loop that ran no iteration (or a body that returns what it was
    // given) would otherwise return its operands themselves.
    for (Tensor &value : carried)
      value = detail::distinctValue(value, "whileLoop", where);
    return carried;
  }

  // Carried: the user's values; if bounded, the iteration count; if a tape
  // may differentiate the loop, a stack of each value per iteration.
  size_t m = initial.size();
  bool bounded = maxIterations >= 0;
  bool stacked = bounded && tape::recording();
  Device device = nodeOf(initial.front())->device;
  std::vector<Tensor> carriedInit = initial;
  if (bounded)
    carriedInit.push_back(zeros({}, DType::Int64, where));
  if (stacked)
    for (const Tensor &value : initial) {
      Shape rows = value.shape();
      rows.insert(rows.begin(), maxIterations);
      carriedInit.push_back(zeros(rows, value.dtype(), where));
    }
  for (const Tensor &value : carriedInit)
    checkDevice(nodeOf(value), device, "whileLoop", where);

  // The carried values inside the regions.
  std::vector<Tensor> parameters;
  for (size_t i = 0; i < carriedInit.size(); ++i) {
    NodePtr parameter = makeNode();
    parameter->kind = OpKind::Parameter;
    parameter->dtype = carriedInit[i].dtype();
    parameter->shape = carriedInit[i].shape();
    parameter->device = device;
    parameter->integer = static_cast<int64_t>(i);
    parameter->loc = {where.file_name(), where.line()};
    parameter->computeContentHash();
    parameters.push_back(detail::TensorAccess::wrap(std::move(parameter)));
  }
  std::vector<Tensor> userParameters(parameters.begin(),
                                     parameters.begin() + m);
  RegionTracer conditionTracer("whileLoop", where),
      bodyTracer("whileLoop", where);
  for (const Tensor &parameter : parameters) {
    conditionTracer.own(nodeOf(parameter).get());
    bodyTracer.own(nodeOf(parameter).get());
  }
  Tensor more = conditionTracer.trace([&] {
    Tensor more = decide(userParameters);
    if (!bounded)
      return more;
    Tensor below = At(parameters[m], where) < Scalar(maxIterations, where);
    return lazyc::where(more, below, more, where); // more && below
  });
  std::vector<Tensor> next = bodyTracer.trace([&] {
    std::vector<Tensor> next = body(userParameters);
    checkBody(next);
    if (bounded)
      next.push_back(At(parameters[m], where) + Scalar(int64_t(1), where));
    if (stacked)
      for (size_t k = 0; k < m; ++k)
        next.push_back(updateRow(parameters[m + 1 + k], parameters[m],
                                 userParameters[k], where));
    return next;
  });

  Captures captures(/*firstOperand=*/static_cast<int32_t>(carriedInit.size()));
  auto regions = std::make_shared<Regions>();
  regions->carried = static_cast<int32_t>(carriedInit.size());
  regions->userCarried = static_cast<int32_t>(m);
  regions->maxIterations = maxIterations;
  regions->stacked = stacked;
  regions->regions.push_back(
      extractRegion({nodeOf(more)}, conditionTracer.recorder(), captures));
  std::vector<NodePtr> nextValues;
  for (const Tensor &value : next) {
    checkDevice(nodeOf(value), device, "whileLoop", where);
    nextValues.push_back(nodeOf(value));
  }
  regions->regions.push_back(
      extractRegion(nextValues, bodyTracer.recorder(), captures));
  std::vector<NodePtr> operands;
  for (const Tensor &value : carriedInit)
    operands.push_back(nodeOf(value));
  for (const NodePtr &captured : captures.values()) {
    checkDevice(captured, device, "whileLoop", where);
    operands.push_back(captured);
  }
  NodePtr node = controlFlowNode(OpKind::While, std::move(operands),
                                 std::move(regions), device, where);
  std::vector<Tensor> results;
  for (size_t i = 0; i < m; ++i)
    results.push_back(
        engine::recordResult(node, kUserResult, i, *nodeOf(initial[i]), where));
  return results;
}

//===----------------------------------------------------------------------===//
// Rows at runtime indices
//===----------------------------------------------------------------------===//

namespace {
/// Checks `index` (an Int64 scalar) and `x` (rank >= 1) for a row op.
void checkRowOperands(const char *op, const Tensor &x, const Tensor &index,
                      SourceLocation where) {
  if (!x.defined() || !index.defined())
    throw Error(op, "an operand is an empty Tensor", where);
  if (x.shape().empty())
    throw Error(op, "needs a tensor of rank >= 1, got " + typeOf(x), where);
  if (index.dtype() != DType::Int64 || !index.shape().empty())
    throw Error(op, "the index must be an Int64 scalar, got " + typeOf(index),
                where);
  checkDevice(nodeOf(index), nodeOf(x)->device, op, where);
}

/// Checks that `value` is one row of `x`: its dtype, its shape without the
/// leading axis.
void checkRowValue(const char *op, const Tensor &x, const Tensor &value,
                   SourceLocation where) {
  Shape row(x.shape().begin() + 1, x.shape().end());
  if (!value.defined() || value.shape() != row || value.dtype() != x.dtype())
    throw Error(op,
                "the row must be one row of " + typeOf(x) + ", got " +
                    (value.defined() ? typeOf(value) : "an empty Tensor"),
                where);
}

Tensor recordRowOp(OpKind kind, const Tensor &like, Shape shape,
                   NodeInputs inputs, SourceLocation where) {
  NodePtr node = makeNode();
  node->kind = kind;
  node->dtype = like.dtype();
  node->device = inputs.front()->device;
  node->shape = std::move(shape);
  node->inputs = std::move(inputs);
  node->loc = {where.file_name(), where.line()};
  node->computeContentHash();
  if (tape::recording())
    tape::recorded(node);
  engine::recorded(node, where);
  return detail::TensorAccess::wrap(std::move(node));
}
} // namespace

Tensor detail::indexRow(const Tensor &x, const Tensor &index,
                        SourceLocation where) {
  checkRowOperands("indexRow", x, index, where);
  Shape row(x.shape().begin() + 1, x.shape().end());
  return recordRowOp(OpKind::IndexRow, x, row, {nodeOf(x), nodeOf(index)},
                     where);
}

Tensor detail::updateRow(const Tensor &x, const Tensor &index,
                         const Tensor &value, SourceLocation where) {
  checkRowOperands("updateRow", x, index, where);
  checkRowValue("updateRow", x, value, where);
  checkDevice(nodeOf(value), nodeOf(x)->device, "updateRow", where);
  return recordRowOp(OpKind::UpdateRow, x, x.shape(),
                     {nodeOf(x), nodeOf(index), nodeOf(value)}, where);
}

namespace {
/// `index` as the Int64 row of x's leading axis it names: counted from the
/// end when negative (the row ops clamp the rest, as every index op does).
Tensor leadingRow(const char *op, const Tensor &x, const Tensor &index,
                  SourceLocation where) {
  if (!x.defined() || !index.defined())
    throw Error(op, "an operand is an empty Tensor", where);
  if (x.shape().empty() || x.shape()[0] == 0)
    throw Error(op, "needs a tensor of rank >= 1 with rows, got " + typeOf(x),
                where);
  if ((index.dtype() != DType::Int32 && index.dtype() != DType::Int64) ||
      !index.shape().empty())
    throw Error(
        op, "the index must be an Int32 or Int64 scalar, got " + typeOf(index),
        where);
  Tensor row = cast(index, DType::Int64, where);
  return lazyc::where(At(row, where) < Scalar(int64_t(0), where),
                      At(row, where) + Scalar(x.shape()[0], where), row, where);
}
} // namespace

Tensor lazyc::rowAt(const Tensor &x, const Tensor &index, Where where) {
  return detail::indexRow(x, leadingRow("rowAt", x, index, where), where);
}

Tensor lazyc::replaceRowAt(const Tensor &x, const Tensor &index,
                           const Tensor &row, Where where) {
  Tensor at = leadingRow("replaceRowAt", x, index, where);
  checkRowValue("replaceRowAt", x, row, where);
  return detail::updateRow(x, at, row, where);
}
