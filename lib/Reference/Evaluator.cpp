//===- Evaluator.cpp - Walking the lazy graph, data movement, checks ------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the evaluator's walk over the graph (iterative, with
// memoization), its leaves (buffers and literals), the ops that only move
// elements (broadcast, reshape, transpose, slice, concat), and the checks
// of compiled results against reference values.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "lazyc/API/NodeAccess.h"
#include "lazyc/Runtime/IntegerBits.h"
#include "lazyc/Runtime/Shape.h"
#include "lazyc/Trace/Region.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

using namespace lazyc;
using namespace lazyc::reference;
using namespace lazyc::reference::impl;
using lazyc::trace::Node;
using lazyc::trace::NodePtr;
using lazyc::trace::OpKind;

int64_t Value::numel() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

Value impl::makeValue(DType dtype, std::vector<int64_t> shape) {
  Value value;
  value.dtype = dtype;
  value.shape = std::move(shape);
  int64_t count = value.numel();
  if (isFloatingPoint(dtype))
    value.floats.assign(count, 0.0);
  else
    value.ints.assign(count, 0);
  value.tolerance.assign(count, 0.0);
  return value;
}

double impl::settle(double value, double tolerance, DType dtype) {
  if (tolerance == 0)
    return 0;
  // An uncertain value near the overflow threshold may round to infinity
  // in the compiled code, and an uncertain infinity or NaN may be finite.
  if (std::isnan(tolerance) || !std::isfinite(value) ||
      std::fabs(value) + tolerance >= numerics::maxFinite(dtype))
    return kAnyValue;
  return tolerance;
}

namespace {

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

/// Decodes IEEE half precision (exactly, into a double).
double halfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1F;
  int mantissa = bits & 0x3FF;
  double magnitude;
  if (exponent == 0x1F)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(mantissa, -24);
  else
    magnitude = std::ldexp(mantissa + 1024, exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

/// Decodes bfloat16: the top half of an f32.
double bfloat16ToDouble(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

/// The value of a materialized node, read from whichever device holds it.
Value loadBuffer(const Node &node) {
  Value out = makeValue(node.dtype, node.shape);
  std::vector<uint8_t> staging;
  const auto *bytes = static_cast<const uint8_t *>(
      engine::hostData(node, staging, "reference", SourceLocation()));
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    const uint8_t *at = bytes + i * sizeOf(node.dtype);
    switch (node.dtype) {
    case DType::Float32: {
      float v;
      std::memcpy(&v, at, 4);
      out.floats[i] = v;
      break;
    }
    case DType::Float64:
      std::memcpy(&out.floats[i], at, 8);
      break;
    case DType::Float16:
    case DType::BFloat16: {
      uint16_t v;
      std::memcpy(&v, at, 2);
      out.floats[i] =
          node.dtype == DType::Float16 ? halfToDouble(v) : bfloat16ToDouble(v);
      break;
    }
    case DType::Int32: {
      int32_t v;
      std::memcpy(&v, at, 4);
      out.ints[i] = v;
      break;
    }
    case DType::Int64:
      std::memcpy(&out.ints[i], at, 8);
      break;
    case DType::Bool:
      out.ints[i] = *at != 0;
      break;
    case DType::Int8:
      out.ints[i] = static_cast<int8_t>(*at);
      break;
    case DType::UInt8:
      out.ints[i] = *at;
      break;
    case DType::Int16:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: {
      uint64_t bits = 0;
      std::memcpy(&bits, at, sizeOf(node.dtype));
      out.ints[i] = wrap(bits, node.dtype);
      break;
    }
    }
  }
  return out;
}

/// A literal fills its shape with its value in its dtype: floats rounded
/// once (as the importer's FloatAttr), integers truncated toward zero and
/// wrapped (an IntegerAttr of the int64), booleans nonzero.
Value evaluateLiteral(const Node &node) {
  Value out = makeValue(node.dtype, node.shape);
  if (out.isFloat()) {
    std::fill(out.floats.begin(), out.floats.end(),
              numerics::roundTo(node.scalar, node.dtype));
  } else if (node.dtype == DType::Bool) {
    std::fill(out.ints.begin(), out.ints.end(), node.scalar != 0);
  } else {
    std::fill(out.ints.begin(), out.ints.end(),
              wrap(integerBits(node.scalar), node.dtype));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Builds a value of `shape` whose element at each index comes from
/// `input` at sourceIndex(index) (a row-major position).
template <typename SourceIndex>
Value gather(const Value &input, DType dtype, const std::vector<int64_t> &shape,
             SourceIndex sourceIndex) {
  Value out = makeValue(dtype, shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    int64_t from = sourceIndex(index);
    out.tolerance[i] = input.tolerance[from];
    if (out.isFloat())
      out.floats[i] = input.floats[from];
    else
      out.ints[i] = input.ints[from];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// numpy's right-aligned broadcast: size-1 input dimensions repeat.
Value evaluateBroadcast(const Node &node, const Value &input) {
  std::vector<int64_t> strides = stridesOf(input.shape);
  size_t offset = node.shape.size() - input.shape.size();
  return gather(input, node.dtype, node.shape,
                [&](const std::vector<int64_t> &index) {
                  int64_t from = 0;
                  for (size_t d = 0; d < input.shape.size(); ++d)
                    if (input.shape[d] != 1)
                      from += index[d + offset] * strides[d];
                  return from;
                });
}

/// Result dimension d is input dimension permutation[d].
Value evaluateTranspose(const Node &node, const Value &input) {
  std::vector<int64_t> strides = stridesOf(input.shape);
  return gather(input, node.dtype, node.shape,
                [&](const std::vector<int64_t> &index) {
                  int64_t from = 0;
                  for (size_t d = 0; d < index.size(); ++d)
                    from += index[d] * strides[node.ints[d]];
                  return from;
                });
}

/// Element i of dimension d is input element start[d] + i * step[d].
Value evaluateSlice(const Node &node, const Value &input) {
  std::vector<int64_t> strides = stridesOf(input.shape);
  return gather(
      input, node.dtype, node.shape, [&](const std::vector<int64_t> &index) {
        int64_t from = 0;
        for (size_t d = 0; d < index.size(); ++d)
          from += (node.ints[d] + index[d] * node.ints3[d]) * strides[d];
        return from;
      });
}

/// The inputs side by side along the axis.
Value evaluateConcat(const Node &node, const std::vector<const Value *> &in) {
  Value out = makeValue(node.dtype, node.shape);
  std::vector<int64_t> index(node.shape.size(), 0);
  size_t axis = static_cast<size_t>(node.integer);
  for (int64_t i = 0, e = out.numel(); i < e; ++i) {
    // Find the input holding this position along the axis.
    int64_t along = index[axis];
    size_t which = 0;
    while (along >= in[which]->shape[axis])
      along -= in[which++]->shape[axis];
    const Value &input = *in[which];
    int64_t from = 0, stride = 1;
    for (size_t d = index.size(); d-- > 0;) {
      from += (d == axis ? along : index[d]) * stride;
      stride *= input.shape[d];
    }
    out.tolerance[i] = input.tolerance[from];
    if (out.isFloat())
      out.floats[i] = input.floats[from];
    else
      out.ints[i] = input.ints[from];
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < node.shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// IndexRow (x, i) -> x[i] and UpdateRow (x, i, v) -> x with x[i] = v, the
/// index clamped to the leading axis.
Value evaluateRow(const Node &node, const std::vector<const Value *> &in) {
  const Value &input = *in[0];
  int64_t rows = input.shape[0];
  int64_t row = rows ? input.numel() / rows : 0;
  int64_t index = std::clamp<int64_t>(in[1]->ints[0], 0, rows - 1);
  auto copy = [](const Value &from, int64_t fromStart, Value &to,
                 int64_t toStart, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      if (from.isFloat())
        to.floats[toStart + i] = from.floats[fromStart + i];
      else
        to.ints[toStart + i] = from.ints[fromStart + i];
      to.tolerance[toStart + i] = from.tolerance[fromStart + i];
    }
  };
  if (node.kind == OpKind::IndexRow) {
    Value out = makeValue(node.dtype, node.shape);
    copy(input, index * row, out, 0, row);
    return out;
  }
  Value out = input;
  copy(*in[2], 0, out, index * row, row);
  return out;
}

/// The value of one node from its inputs' values.
Value evaluateNode(const Node &node, const std::vector<const Value *> &in) {
  switch (node.kind) {
  case OpKind::Buffer:
    throw std::logic_error("reference: a buffer node without a buffer");
  case OpKind::Literal:
    return evaluateLiteral(node);
    // The elementwise rows of Ops.def.
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#define LAZYC_ELEMENTWISE_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#include "lazyc/Trace/Ops.def"
    return evaluateElementwise(node, in);
  case OpKind::Broadcast:
    return evaluateBroadcast(node, *in[0]);
  case OpKind::Reshape: {
    // Row-major order is unchanged.
    Value out = *in[0];
    out.shape = node.shape;
    return out;
  }
  case OpKind::Transpose:
    return evaluateTranspose(node, *in[0]);
  case OpKind::Slice:
    return evaluateSlice(node, *in[0]);
  case OpKind::Concat:
    return evaluateConcat(node, in);
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#include "lazyc/Trace/Ops.def"
    return evaluateReduction(node, *in[0]);
  case OpKind::Matmul:
    return evaluateMatmul(node, *in[0], *in[1]);
  case OpKind::Conv2d:
    return evaluateConv2d(node, *in[0], *in[1]);
#define LAZYC_SOFTMAX_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#include "lazyc/Trace/Ops.def"
    return evaluateSoftmax(node, *in[0]);
#define LAZYC_RANDOM_OP(Kind, Name, ShapeAttr) case OpKind::Kind:
#include "lazyc/Trace/Ops.def"
    return evaluateRandom(node, *in[0]);
  case OpKind::Gather:
    return evaluateGather(node, *in[0], *in[1]);
  case OpKind::ScatterAdd:
    return evaluateScatterAdd(node, *in[0], *in[1], *in[2]);
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    return evaluateArgReduce(node, *in[0]);
  case OpKind::Cumsum:
    return evaluateCumsum(node, *in[0]);
  case OpKind::Attention:
  case OpKind::AttentionGrad:
    return evaluateAttention(node, in);
  case OpKind::Collective:
    return evaluateCollective(node, *in[0]);
  case OpKind::IndexRow:
  case OpKind::UpdateRow:
    return evaluateRow(node, in);
  case OpKind::Parameter:
    throw std::logic_error("reference: a loop parameter outside its loop");
  case OpKind::If:
  case OpKind::While:
  case OpKind::Result:
    throw std::logic_error("reference: control flow is evaluated by the walk");
  }
  throw std::logic_error("reference: unknown op kind");
}

} // namespace

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

namespace lazyc::reference::impl {
/// What an If or While computed: an If's taken region and the values of
/// all its nodes (intermediates are Results too); a While's final carried
/// values.
struct ControlFlowValue {
  int64_t region = -1;
  std::vector<Value> values;
};
} // namespace lazyc::reference::impl

namespace {

ControlFlowValue evaluateControlFlow(const Node &node,
                                     const std::vector<const Value *> &in);

/// The value of the Result node `result` of `owner`.
Value evaluateResult(const Node &result, const Node &owner,
                     const ControlFlowValue &computed) {
  if (owner.kind == OpKind::While)
    return computed.values[result.ints[1]];
  const trace::Region &taken = trace::regionsOf(owner).regions[computed.region];
  if (result.ints[0] == trace::kUserResult)
    return computed.values[taken.body.outputs[result.ints[1]]];
  if (result.ints[0] == computed.region)
    return computed.values[result.ints[1]];
  // An intermediate of the branch not taken: zeros, as compiled code yields.
  return makeValue(result.dtype, result.shape);
}

/// The values of every node of `region`, in order, given its control-flow
/// node's operand values `in` and (in a loop) the carried values.
std::vector<Value> evaluateRegion(const trace::Region &region,
                                  const std::vector<const Value *> &in,
                                  const std::vector<Value> &carried) {
  const trace::Trace &body = region.body;
  std::vector<Value> values(body.nodes.size());
  llvm::DenseMap<size_t, ControlFlowValue> controlFlow;
  size_t capture = 0;
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    const Node &node = *body.nodes[i];
    if (capture < body.arguments.size() &&
        body.arguments[capture] == static_cast<int32_t>(i)) {
      values[i] = *in[region.captureOperands[capture++]];
      continue;
    }
    if (node.kind == OpKind::Parameter) {
      values[i] = carried[node.integer];
      continue;
    }
    std::vector<const Value *> operands;
    for (int32_t operand : body.operands(i))
      operands.push_back(&values[operand]);
    if (trace::hasRegions(node.kind))
      controlFlow[i] = evaluateControlFlow(node, operands);
    else if (node.kind == OpKind::Result)
      values[i] = evaluateResult(node, *body.nodes[body.operands(i)[0]],
                                 controlFlow.at(body.operands(i)[0]));
    else
      values[i] = evaluateNode(node, operands);
  }
  return values;
}

ControlFlowValue evaluateControlFlow(const Node &node,
                                     const std::vector<const Value *> &in) {
  const trace::Regions &regions = trace::regionsOf(node);
  // A predicate the reference cannot decide (its inputs' tolerances
  // overlap) may go either way in compiled code: then anything goes.
  auto anyValue = [](std::vector<Value> &values) {
    for (Value &value : values)
      value.tolerance.assign(value.tolerance.size(), kAnyValue);
  };
  if (node.kind == OpKind::If) {
    int64_t taken = in[0]->ints[0] ? 0 : 1;
    ControlFlowValue result{taken,
                            evaluateRegion(regions.regions[taken], in, {})};
    if (in[0]->tolerance[0] != 0)
      anyValue(result.values);
    return result;
  }
  const trace::Region &condition = regions.regions[0],
                      &body = regions.regions[1];
  std::vector<Value> carried;
  for (int32_t k = 0; k < regions.carried; ++k)
    carried.push_back(*in[k]);
  for (;;) {
    std::vector<Value> decided = evaluateRegion(condition, in, carried);
    const Value &more = decided[condition.body.outputs[0]];
    if (more.tolerance[0] != 0) {
      anyValue(carried);
      break;
    }
    if (!more.ints[0])
      break;
    std::vector<Value> next = evaluateRegion(body, in, carried);
    for (size_t k = 0; k < carried.size(); ++k)
      carried[k] = std::move(next[body.body.outputs[k]]);
  }
  return {-1, std::move(carried)};
}

} // namespace

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

Evaluator::Evaluator() = default;
Evaluator::~Evaluator() = default;

const Value &Evaluator::evaluate(const NodePtr &root) {
  if (!root)
    throw std::invalid_argument("reference: an empty tensor");
  // Post-order with an explicit stack: a node is evaluated once all its
  // inputs are in the memo.
  std::vector<const NodePtr *> stack = {&root};
  while (!stack.empty()) {
    const NodePtr &node = *stack.back();
    if (memo.count(node.get())) {
      stack.pop_back();
      continue;
    }
    if (node->isMaterialized()) {
      if (node->kind != OpKind::Buffer)
        ++computedLeafCount;
      memo.emplace(node.get(), Entry{node, loadBuffer(*node)});
      stack.pop_back();
      continue;
    }
    bool ready = true;
    for (const NodePtr &input : node->inputs) {
      if (!memo.count(input.get())) {
        stack.push_back(&input);
        ready = false;
      }
    }
    if (!ready)
      continue;
    std::vector<const Value *> inputs;
    for (const NodePtr &input : node->inputs)
      inputs.push_back(&memo.at(input.get()).value);
    Value value;
    if (trace::hasRegions(node->kind))
      controlFlow[node.get()] = std::make_unique<impl::ControlFlowValue>(
          evaluateControlFlow(*node, inputs));
    else if (node->kind == OpKind::Result)
      value = evaluateResult(*node, *node->inputs[0],
                             *controlFlow.at(node->inputs[0].get()));
    else
      value = evaluateNode(*node, inputs);
    memo.emplace(node.get(), Entry{node, std::move(value)});
    stack.pop_back();
  }
  return memo.at(root.get()).value;
}

const Value &Evaluator::evaluate(const Tensor &tensor) {
  return evaluate(lazyc::detail::TensorAccess::node(tensor));
}

bool Evaluator::isComputedLeaf(const Tensor &tensor) {
  const NodePtr &node = lazyc::detail::TensorAccess::node(tensor);
  return node && node->isMaterialized() && node->kind != OpKind::Buffer;
}

Value reference::evaluate(const Tensor &tensor) {
  Evaluator evaluator;
  return evaluator.evaluate(tensor);
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

std::string Mismatch::describe(const Value &reference) const {
  std::ostringstream os;
  os.precision(17);
  if (index < 0) {
    os << "shape or dtype differs from the reference's "
       << shapeText(reference.shape) << " " << dtypeName(reference.dtype);
    return os.str();
  }
  os << "element " << index << " of " << shapeText(reference.shape) << " "
     << dtypeName(reference.dtype) << ": expected " << expected
     << " (tolerance " << tolerance << "), got " << actual;
  return os.str();
}

std::vector<Mismatch> reference::check(const Value &reference,
                                       const std::vector<double> &actual,
                                       size_t maxReported) {
  std::vector<Mismatch> mismatches;
  if (static_cast<int64_t>(actual.size()) != reference.numel()) {
    mismatches.push_back({});
    return mismatches;
  }
  for (size_t i = 0; i < actual.size() && mismatches.size() < maxReported;
       ++i) {
    double tolerance = reference.tolerance[i];
    double expected = reference.isFloat()
                          ? reference.floats[i]
                          : static_cast<double>(reference.ints[i]);
    double got = actual[i];
    bool ok = std::isinf(tolerance) || got == expected ||
              (std::isnan(got) && std::isnan(expected)) ||
              (std::isfinite(got) && std::isfinite(expected) &&
               std::fabs(got - expected) <= tolerance);
    if (!ok)
      mismatches.push_back({static_cast<int64_t>(i), expected, got, tolerance});
  }
  return mismatches;
}

std::vector<Mismatch> reference::check(const Value &reference,
                                       const std::vector<int64_t> &actual,
                                       size_t maxReported) {
  std::vector<Mismatch> mismatches;
  if (reference.isFloat() ||
      static_cast<int64_t>(actual.size()) != reference.numel()) {
    mismatches.push_back({});
    return mismatches;
  }
  for (size_t i = 0; i < actual.size() && mismatches.size() < maxReported;
       ++i) {
    if (std::isinf(reference.tolerance[i]) || actual[i] == reference.ints[i])
      continue;
    mismatches.push_back({static_cast<int64_t>(i),
                          static_cast<double>(reference.ints[i]),
                          static_cast<double>(actual[i]), 0});
  }
  return mismatches;
}

std::vector<Mismatch> reference::check(const Value &reference,
                                       const Tensor &tensor,
                                       size_t maxReported) {
  if (tensor.dtype() != reference.dtype || tensor.shape() != reference.shape)
    return {Mismatch{}};
  if (reference.isFloat())
    return check(reference, tensor.toVector<double>(), maxReported);
  if (reference.dtype == DType::Bool) {
    std::vector<bool> bits = tensor.toVector<bool>();
    return check(reference, std::vector<int64_t>(bits.begin(), bits.end()),
                 maxReported);
  }
  return check(reference, tensor.toVector<int64_t>(), maxReported);
}
