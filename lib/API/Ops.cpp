//===- Ops.cpp - Recording ops on tensors ---------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the ops of Ops.h: each validates its operands, infers
// the result's dtype and shape, inserts the explicit casts and broadcasts the
// `lazy` dialect wants, and records a node. Nothing runs here (except in
// eager mode, where Engine runs each node as it is recorded).
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Ops.h"
#include "Attention.h"
#include "Collectives.h"
#include "Convolution.h"
#include "Engine/Convert.h"
#include "Engine/Engine.h"
#include "ShapeCheck.h"
#include "Tape.h"
#include "TensorAccess.h"
#include "lazyc/API/Autocast.h"

#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Trace/Node.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <numeric>

using namespace lazyc;
using namespace lazyc::trace;

namespace {

[[noreturn]] void fail(const char *op, const std::string &message,
                       Where where) {
  throw Error(op, message, where);
}

const NodePtr &use(const Tensor &tensor, const char *op, Where where) {
  if (!tensor.defined())
    fail(op,
         "an operand is an empty Tensor (default-constructed or moved "
         "from)",
         where);
  return detail::TensorAccess::node(tensor);
}

/// Copies a shape into a node's (recycled) shape buffer: element by
/// element, as shapes are short (no library call per op).
void copyShape(const Shape &from, Shape &to) {
  to.clear();
  for (int64_t dim : from)
    to.push_back(dim);
}

/// Throws for operands on different devices: nothing moves implicitly.
[[noreturn]] void failDevices(const char *op, Device a, Device b, Where where) {
  fail(op,
       "operands live on different devices, " + a.str() + " and " + b.str() +
           " (move one with a copy to the other)",
       where);
}

/// Ops that cast or broadcast their operands check before recording those.
void checkSameDevice(const char *op, std::initializer_list<const Node *> nodes,
                     Where where) {
  Device device = (*nodes.begin())->device;
  for (const Node *node : nodes)
    if (node->device != device)
      failDevices(op, device, node->device, where);
}

/// Creates and records a node. It lives where its operands live; a node
/// without operands, on the default device.
NodePtr record(OpKind kind, DType dtype, const Shape &shape, NodeInputs inputs,
               Where where,
               llvm::function_ref<void(Node &)> setAttributes = nullptr) {
  Device device = inputs.empty() ? defaultDevice() : inputs.front()->device;
  if (inputs.empty())
    engine::checkAvailable(device, opName(kind), where);
  for (const NodePtr &input : inputs)
    if (input->device != device)
      failDevices(opName(kind), device, input->device, where);
  NodePtr node = makeNode();
  node->kind = kind;
  node->dtype = dtype;
  node->device = device;
  copyShape(shape, node->shape);
  node->inputs = std::move(inputs);
  node->loc = {where.file_name(), where.line()};
  if (setAttributes)
    setAttributes(*node);
  node->computeContentHash();
  if (tape::recording())
    tape::recorded(node);
  engine::recorded(node, where);
  return node;
}

/// A literal of `dtype` filling `shape` with `value`. Lazily, a scalar
/// operand becomes one node of the other operand's shape (not a literal
/// and its broadcast); eager mode keeps scalars rank 0 so that one compiled
/// op serves every size.
NodePtr literal(double value, DType dtype, Device device, Where where,
                const Shape &shape = Shape()) {
  NodePtr node = makeNode();
  node->kind = OpKind::Literal;
  node->dtype = dtype;
  node->device = device;
  copyShape(shape, node->shape);
  // The value as `dtype` holds it (rounded, truncated toward zero, 0 or 1),
  // so that casting a literal converts its value as lazy.cast would, and a
  // baked and a promoted literal are the same number.
  uint8_t stored[8];
  convert::storeScalar(value, dtype, stored);
  node->scalar = convert::loadScalar(stored, dtype);
  node->loc = {where.file_name(), where.line()};
  node->computeContentHash();
  return node;
}

/// The shape of a scalar operand next to a tensor of `shape`: the same
/// lazily (no broadcast node), rank 0 in eager mode (see literal()).
const Shape &scalarShape(const Shape &shape) {
  static const Shape rankZero;
  return isEager() ? rankZero : shape;
}

/// The literal operand `value` of an op at `where`, as literal() makes it.
/// Programs record the same scalar at the same line over and over (each
/// step of a loop, each op of an unrolled chain): while an earlier such
/// node lives, it is reused instead of allocating another. Traces cannot
/// tell: a literal no handle holds is a trace node once per use
/// (trace::extractTrace). Only for operands: a literal a Tensor holds is
/// never shared.
NodePtr operandLiteral(double value, DType dtype, Device device, Where where,
                       const Shape &shape) {
  struct Slot {
    std::weak_ptr<Node> node;
    uint64_t bits = 0;
    const char *file = nullptr;
    unsigned line = 0;
    DType dtype = DType::Float32;
  };
  static thread_local std::array<Slot, 64> slots;
  uint64_t bits = std::bit_cast<uint64_t>(value);
  uint64_t hash = reinterpret_cast<uintptr_t>(where.file_name());
  mixHash(hash, bits ^ (uint64_t(where.line()) << 8 | uint64_t(dtype)));
  Slot &slot = slots[hash % slots.size()];
  if (slot.bits == bits && slot.line == where.line() &&
      slot.file == where.file_name() && slot.dtype == dtype)
    if (NodePtr node = slot.node.lock(); node && !node->isMaterialized() &&
                                         node->shape == shape &&
                                         node->device == device)
      return node;
  NodePtr node = literal(value, dtype, device, where, shape);
  slot = {node, bits, where.file_name(), where.line(), dtype};
  return node;
}

NodePtr castTo(NodePtr node, DType dtype, Where where) {
  if (node->dtype == dtype)
    return node;
  // A literal converts into another literal, unless a tape watches it
  // (full() a GradientTape differentiates with respect to, lazyc-fuzz seed
  // 311805: the folded literal lost the gradient).
  if (node->kind == OpKind::Literal && !tape::tracks(*node))
    return operandLiteral(node->scalar, dtype, node->device, where,
                          node->shape);
  const Node &input = *node;
  return record(OpKind::Cast, dtype, input.shape, {std::move(node)}, where);
}

bool isBroadcastable(const Shape &from, const Shape &to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != to[d + offset])
      return false;
  return true;
}

NodePtr broadcastNode(NodePtr node, const Shape &shape, Where where) {
  if (node->shape == shape)
    return node;
  DType dtype = node->dtype;
  return record(OpKind::Broadcast, dtype, shape, {std::move(node)}, where,
                [&](Node &n) { n.ints = shape; });
}

/// The operands of a binary op (moved in: no reference count traffic).
NodeInputs binaryInputs(NodePtr lhs, NodePtr rhs) {
  NodeInputs inputs;
  inputs.push_back(std::move(lhs));
  inputs.push_back(std::move(rhs));
  return inputs;
}

/// numpy's broadcast of two shapes, or an error naming the op.
Shape broadcastShapes(const Shape &a, const Shape &b, const char *op,
                      Where where) {
  Shape result(std::max(a.size(), b.size()));
  for (size_t i = 0; i < result.size(); ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      fail(op,
           "shapes " + shapeText(a) + " and " + shapeText(b) +
               " do not broadcast (dimension " +
               std::to_string(result.size() - 1 - i) + ": " +
               std::to_string(da) + " vs " + std::to_string(db) + ")",
           where);
    result[result.size() - 1 - i] = da == 1 ? db : da;
  }
  return result;
}

/// broadcastShapes into a per-thread buffer that keeps its capacity: the
/// shape of a binary op, valid until the next binary op of this thread
/// (recording one allocates nothing once warm).
const Shape &resultShape(const Shape &a, const Shape &b, const char *op,
                         Where where) {
  static thread_local Shape scratch;
  if (a == b)
    copyShape(a, scratch);
  else
    scratch = broadcastShapes(a, b, op, where);
  return scratch;
}

bool isFloat(DType dtype) { return isFloatingPoint(dtype); }
/// A signed or unsigned integer (not Bool).
bool isInt(DType dtype) { return !isFloat(dtype) && dtype != DType::Bool; }

/// The dtype of a scalar combined with a tensor (NEP 50 "weak" scalars):
/// the tensor's when the kinds agree, otherwise the scalar's own.
DType withScalar(DType tensor, const Scalar &scalar) {
  DType kind = scalar.dtype;
  if (kind == DType::Bool)
    return tensor;
  if (isFloat(kind))
    return isFloat(tensor) ? tensor : kind;
  return tensor == DType::Bool ? kind : tensor;
}

/// Whether an integer scalar is representable in integer `dtype`.
bool fitsIntegerDType(const Scalar &scalar, DType dtype) {
  if (scalar.dtype != DType::Int32 && scalar.dtype != DType::Int64)
    return true;
  if (isFloat(dtype) || dtype == DType::Bool)
    return true;
  // The dtype's range [low, end): powers of two, exact in a double.
  double bits = 8.0 * static_cast<double>(sizeOf(dtype));
  double low = isUnsignedInteger(dtype) ? 0.0 : -std::ldexp(1.0, bits - 1);
  double end = std::ldexp(1.0, isUnsignedInteger(dtype) ? bits : bits - 1);
  return scalar.value >= low && scalar.value < end;
}

/// NumPy's rule for Python integers: a scalar that does not fit the
/// tensor's integer dtype is an error, not a silent wrap-around.
void checkScalarFits(const Scalar &scalar, DType dtype, const char *op) {
  if (fitsIntegerDType(scalar, dtype))
    return;
  char value[32];
  std::snprintf(value, sizeof(value), "%.0f", scalar.value);
  fail(op,
       std::string("the scalar ") + value + " does not fit the tensor's " +
           dtypeName(dtype) +
           " (cast the tensor to a wider dtype, or use a floating-point "
           "scalar)",
       scalar.where);
}

/// The dtype sums accumulate in: numpy's, the dtype itself for floats,
/// UInt64 for unsigned integers, Int64 for signed ones and booleans.
DType sumDType(DType dtype) {
  if (isFloat(dtype))
    return dtype;
  return isUnsignedInteger(dtype) ? DType::UInt64 : DType::Int64;
}

/// The dtype unary float functions give: numpy's smallest float that holds
/// every value (Float16 for Bool, Int8 and UInt8; Float32 for Int16 and
/// UInt16; Float64 for wider ints).
DType floatResult(DType dtype) {
  if (isFloat(dtype))
    return dtype;
  switch (sizeOf(dtype)) {
  case 1:
    return DType::Float16;
  case 2:
    return DType::Float32;
  default:
    return DType::Float64;
  }
}

/// The binary elementwise ops (the binary rows of lazyc/Trace/Ops.def).
enum class Arith {
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr) Kind,
#include "lazyc/Trace/Ops.def"
};

OpKind kindOf(Arith op) {
  switch (op) {
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)                                 \
  case Arith::Kind:                                                            \
    return OpKind::Kind;
#include "lazyc/Trace/Ops.def"
  }
  return OpKind::Add;
}

/// Records `lhs op rhs` after promoting to `dtype` and broadcasting.
Tensor arithmetic(Arith op, NodePtr lhs, NodePtr rhs, DType dtype,
                  Where where) {
  const char *name = opName(kindOf(op));
  // maximum/minimum of booleans are the logical or/and: compute on int32
  // (0 and 1) and give Bool back, as numpy does.
  if (dtype == DType::Bool && (op == Arith::Max || op == Arith::Min)) {
    Tensor result = arithmetic(op, lhs, rhs, DType::Int32, where);
    return detail::TensorAccess::wrap(
        castTo(detail::TensorAccess::node(result), DType::Bool, where));
  }
  bool bitwise =
      op == Arith::BitAnd || op == Arith::BitOr || op == Arith::BitXor;
  bool shift = op == Arith::ShiftLeft || op == Arith::ShiftRight;
  // Bits of integers (and of booleans, but for shifts), as numpy.
  if ((bitwise || shift) && (isFloat(dtype) || (shift && dtype == DType::Bool)))
    fail(name,
         std::string("needs integer") + (shift ? "" : " or Bool") +
             " tensors, got " + dtypeName(lhs->dtype) + " " +
             shapeText(lhs->shape) + " and " + dtypeName(rhs->dtype) + " " +
             shapeText(rhs->shape) +
             (bitwise ? " (logicalAnd, logicalOr and logicalXor take truth "
                        "values of any dtype)"
                      : ""),
         where);
  // Other arithmetic needs numbers: booleans compute as int32 (numpy's `+`
  // on bool arrays is a logical or: use maximum or where for that).
  if (dtype == DType::Bool && !bitwise)
    dtype = DType::Int32;
  // True division of integers gives floats, as in numpy.
  if (op == Arith::Div && !isFloat(dtype))
    dtype = DType::Float64;
  const Shape &shape = resultShape(lhs->shape, rhs->shape, name, where);
  lhs = broadcastNode(castTo(std::move(lhs), dtype, where), shape, where);
  rhs = broadcastNode(castTo(std::move(rhs), dtype, where), shape, where);
  return detail::TensorAccess::wrap(
      record(kindOf(op), dtype, shape,
             binaryInputs(std::move(lhs), std::move(rhs)), where));
}

Tensor arithmetic(Arith op, const Tensor &lhs, const Tensor &rhs, Where where) {
  const char *name = opName(kindOf(op));
  const NodePtr &a = use(lhs, name, where), &b = use(rhs, name, where);
  checkSameDevice(name, {a.get(), b.get()}, where);
  return arithmetic(op, a, b, promoteTypes(a->dtype, b->dtype), where);
}

Tensor arithmetic(Arith op, const Tensor &tensor, const Scalar &scalar,
                  bool scalarFirst) {
  const char *name = opName(kindOf(op));
  const NodePtr &t = use(tensor, name, scalar.where);
  DType dtype = withScalar(t->dtype, scalar);
  checkScalarFits(scalar, dtype, name);
  NodePtr s = operandLiteral(scalar.value, dtype, t->device, scalar.where,
                             scalarShape(t->shape));
  return scalarFirst ? arithmetic(op, std::move(s), t, dtype, scalar.where)
                     : arithmetic(op, t, std::move(s), dtype, scalar.where);
}

Tensor compare(Predicate predicate, NodePtr lhs, NodePtr rhs, DType dtype,
               Where where) {
  const Shape &shape = resultShape(lhs->shape, rhs->shape, "compare", where);
  lhs = broadcastNode(castTo(std::move(lhs), dtype, where), shape, where);
  rhs = broadcastNode(castTo(std::move(rhs), dtype, where), shape, where);
  return detail::TensorAccess::wrap(
      record(OpKind::Compare, DType::Bool, shape,
             binaryInputs(std::move(lhs), std::move(rhs)), where,
             [&](Node &n) { n.predicate = predicate; }));
}

Tensor compare(Predicate predicate, const At &lhs, const Tensor &rhs) {
  const NodePtr &a = use(lhs.tensor, "compare", lhs.where);
  const NodePtr &b = use(rhs, "compare", lhs.where);
  checkSameDevice("compare", {a.get(), b.get()}, lhs.where);
  return compare(predicate, a, b, promoteTypes(a->dtype, b->dtype), lhs.where);
}

Tensor compare(Predicate predicate, const At &lhs, const Scalar &rhs) {
  const NodePtr &a = use(lhs.tensor, "compare", lhs.where);
  DType dtype = withScalar(a->dtype, rhs);
  // Comparisons stay exact with an integer the tensor's dtype cannot hold
  // (as in NumPy 2): they compare in Int64 (a UInt64 with a negative
  // integer in Float64, where every UInt64 stays non-negative).
  if (!fitsIntegerDType(rhs, dtype))
    dtype = dtype == DType::UInt64 ? DType::Float64 : DType::Int64;
  return compare(predicate, a,
                 operandLiteral(rhs.value, dtype, a->device, lhs.where,
                                scalarShape(a->shape)),
                 dtype, lhs.where);
}

Tensor unary(OpKind kind, const Tensor &x, Where where, bool floatOnly) {
  const char *name = opName(kind);
  NodePtr node = use(x, name, where);
  DType dtype = node->dtype;
  if (floatOnly) {
    dtype = floatResult(dtype);
    node = castTo(node, dtype, where);
  } else if (dtype == DType::Bool) {
    fail(name, "is not defined for Bool tensors (cast first)", where);
  }
  return detail::TensorAccess::wrap(
      record(kind, dtype, node->shape, {node}, where));
}

/// Normalizes `axis` (negative counts from the end) for a rank-`rank` value.
using detail::normalizeAxis;

Tensor reduce(OpKind kind, const Tensor &x, std::vector<int64_t> axes,
              bool keepDims, Where where, const char *userName = nullptr) {
  // The name errors give: the op the user called (any/all reduce by sum).
  const char *name = userName ? userName : opName(kind);
  bool sums = kind == OpKind::ReduceSum || kind == OpKind::ReduceMean;
  NodePtr node =
      use(sums ? detail::autocastToFloat32(x, where) : x, name, where);
  int64_t rank = static_cast<int64_t>(node->shape.size());
  if (axes.empty()) {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  Shape written = axes;
  for (int64_t &axis : axes)
    axis = normalizeAxis(axis, rank, name, where);
  std::sort(axes.begin(), axes.end());
  if (auto twice = std::adjacent_find(axes.begin(), axes.end());
      twice != axes.end())
    fail(name,
         "axis " + std::to_string(*twice) + " appears twice in the axes " +
             shapeText(written) + " of a rank-" + std::to_string(rank) +
             " tensor",
         where);

  DType dtype = node->dtype;
  if (kind == OpKind::ReduceSum)
    dtype = sumDType(dtype);
  if (kind == OpKind::ReduceMean)
    dtype = isFloat(dtype) ? dtype : DType::Float64; // numpy, bools too
  if ((kind == OpKind::ReduceMax || kind == OpKind::ReduceMin) &&
      dtype == DType::Bool)
    fail(name, "is not defined for Bool tensors (cast first)", where);
  node = castTo(node, dtype, where);

  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d))
      shape.push_back(node->shape[d]);
    else if (keepDims)
      shape.push_back(1);
  }
  return detail::TensorAccess::wrap(
      record(kind, dtype, shape, {node}, where, [&](Node &n) {
        n.ints = axes;
        n.flag = keepDims;
      }));
}

Tensor softmaxLike(OpKind kind, const Tensor &x, int64_t axis, Where where) {
  const char *name = opName(kind);
  NodePtr node = use(detail::autocastToFloat32(x, where), name, where);
  if (!isFloat(node->dtype))
    fail(name,
         std::string("needs a floating-point tensor, got ") +
             dtypeName(node->dtype) + " (cast first)",
         where);
  int64_t normalized = normalizeAxis(
      axis, static_cast<int64_t>(node->shape.size()), name, where);
  return detail::TensorAccess::wrap(
      record(kind, node->dtype, node->shape, {node}, where,
             [&](Node &n) { n.integer = normalized; }));
}

NodePtr reshapeNode(const NodePtr &node, Shape shape, Where where) {
  if (node->shape == shape)
    return node;
  return record(OpKind::Reshape, node->dtype, shape, {node}, where,
                [&](Node &n) { n.ints = shape; });
}

/// The seed of a random op: data, an Int64 literal operand, so a new seed
/// each step reuses the compiled trace (constant promotion). Literals hold
/// doubles, exact for integers up to 2^53.
NodePtr seedOperand(int64_t seed, const char *op, Device device, Where where) {
  constexpr int64_t kMaxExactSeed = int64_t(1) << 53;
  if (seed < -kMaxExactSeed || seed > kMaxExactSeed)
    fail(op,
         "needs a seed within +-2^53 (seeds are passed as data, exactly), "
         "got " +
             std::to_string(seed),
         where);
  return operandLiteral(static_cast<double>(seed), DType::Int64, device, where,
                        Shape());
}

Tensor random(OpKind kind, Shape shape, double a, double b, int64_t seed,
              DType dtype, Where where) {
  const char *name = opName(kind);
  if (!isFloat(dtype))
    fail(name,
         std::string("needs a floating-point dtype, got ") + dtypeName(dtype),
         where);
  detail::checkedElements(shape, name, where);
  if (kind == OpKind::RandomUniform && !(a < b))
    fail(name,
         "needs low < high, got " + std::to_string(a) + " and " +
             std::to_string(b),
         where);
  if (kind == OpKind::RandomNormal && !(b >= 0))
    fail(name, "needs stddev >= 0, got " + std::to_string(b), where);
  Device device = defaultDevice();
  engine::checkAvailable(device, name, where);
  NodeInputs inputs;
  inputs.push_back(seedOperand(seed, name, device, where));
  return detail::TensorAccess::wrap(
      record(kind, dtype, shape, std::move(inputs), where, [&](Node &n) {
        n.scalar = a;
        n.scalar2 = b;
      }));
}

} // namespace

Tensor lazyc::detail::distinctValue(const Tensor &x, const char *op,
                                    Where where) {
  const NodePtr &node = use(x, op, where);
  Shape shape = node->shape;
  return detail::TensorAccess::wrap(record(OpKind::Reshape, node->dtype, shape,
                                           {node}, where,
                                           [&](Node &n) { n.ints = shape; }));
}

//===----------------------------------------------------------------------===//
// Promotion
//===----------------------------------------------------------------------===//

DType lazyc::promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  if (a == DType::Bool)
    return b;
  if (b == DType::Bool)
    return a;
  if (isInt(a) && isInt(b)) {
    // numpy: the wider of two of the same signedness; a signed and an
    // unsigned meet in the smallest signed type that holds both (Float64
    // for Int64 with UInt64, as numpy).
    if (isUnsignedInteger(a) == isUnsignedInteger(b))
      return sizeOf(a) >= sizeOf(b) ? a : b;
    DType signedType = isUnsignedInteger(a) ? b : a;
    DType unsignedType = isUnsignedInteger(a) ? a : b;
    if (sizeOf(signedType) > sizeOf(unsignedType))
      return signedType;
    switch (sizeOf(unsignedType)) {
    case 1:
      return DType::Int16;
    case 2:
      return DType::Int32;
    case 4:
      return DType::Int64;
    default:
      return DType::Float64;
    }
  }
  if (isInt(a) || isInt(b)) {
    // numpy: an integer with a float needs a float that holds every value
    // of the integer: the float when its significand is wide enough (8-bit
    // integers in every float, 16-bit ones in Float32), else Float32 for
    // 16-bit integers and Float64 for wider ones.
    DType integer = isInt(a) ? a : b;
    DType real = isInt(a) ? b : a;
    auto significand = [](DType t) {
      switch (t) {
      case DType::Float16:
        return 11;
      case DType::BFloat16:
        return 8;
      case DType::Float32:
        return 24;
      default:
        return 53;
      }
    };
    int bits = 8 * static_cast<int>(sizeOf(integer));
    if (significand(real) >= bits)
      return real;
    return bits <= 16 ? DType::Float32 : DType::Float64;
  }
  // Two different floats: the wider; f16 with bf16 meet in f32.
  auto rank = [](DType t) {
    switch (t) {
    case DType::Float16:
    case DType::BFloat16:
      return 0;
    case DType::Float32:
      return 1;
    default:
      return 2;
    }
  };
  if (rank(a) == 0 && rank(b) == 0)
    return DType::Float32;
  return rank(a) >= rank(b) ? a : b;
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

static DType defaultDType(const Scalar &value) { return value.dtype; }

Tensor lazyc::full(Shape shape, Scalar value) {
  return full(std::move(shape), value, defaultDType(value));
}

Tensor lazyc::full(Shape shape, Scalar value, DType dtype) {
  checkScalarFits(value, dtype, "full");
  detail::checkedElements(shape, "full", value.where);
  Device device = defaultDevice();
  engine::checkAvailable(device, "full", value.where);
  if (shape.empty() || !isEager()) {
    // The tensor is the literal itself; it is recorded like an op.
    NodePtr node =
        literal(value.value, dtype, device, value.where, std::move(shape));
    engine::recorded(node, value.where);
    return detail::TensorAccess::wrap(node);
  }
  NodePtr node = literal(value.value, dtype, device, value.where);
  return detail::TensorAccess::wrap(broadcastNode(node, shape, value.where));
}

Tensor lazyc::zeros(Shape shape, DType dtype, Where where) {
  return full(std::move(shape), Scalar(0.0, where), dtype);
}

Tensor lazyc::ones(Shape shape, DType dtype, Where where) {
  return full(std::move(shape), Scalar(1.0, where), dtype);
}

Tensor lazyc::arange(double start, double stop, double step, DType dtype,
                     Where where) {
  if (step == 0 || !std::isfinite(start) || !std::isfinite(stop) ||
      !std::isfinite(step))
    fail("arange", "needs finite bounds and a nonzero step", where);
  double steps = std::ceil((stop - start) / step);
  if (steps > static_cast<double>(detail::kMaxElements))
    fail("arange", "gives more than 2^59 elements", where);
  int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  // The values, written straight in `dtype` (no Float64 buffer and cast).
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * sizeOf(dtype));
  for (int64_t i = 0; i < count; ++i)
    convert::storeScalar(start + static_cast<double>(i) * step, dtype,
                         bytes.data() + i * sizeOf(dtype));
  return detail::TensorAccess::wrap(
      engine::newValue(dtype, {count}, bytes.data(), "arange", where));
}

Tensor lazyc::randomUniform(Shape shape, double low, double high, int64_t seed,
                            DType dtype, Where where) {
  return random(OpKind::RandomUniform, std::move(shape), low, high, seed, dtype,
                where);
}

Tensor lazyc::randomNormal(Shape shape, double mean, double stddev,
                           int64_t seed, DType dtype, Where where) {
  return random(OpKind::RandomNormal, std::move(shape), mean, stddev, seed,
                dtype, where);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Tensor lazyc::operator+(At lhs, const Tensor &rhs) {
  return arithmetic(Arith::Add, lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator-(At lhs, const Tensor &rhs) {
  return arithmetic(Arith::Sub, lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator*(At lhs, const Tensor &rhs) {
  return arithmetic(Arith::Mul, lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator/(At lhs, const Tensor &rhs) {
  return arithmetic(Arith::Div, lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator+(At lhs, Scalar rhs) {
  rhs.where = lhs.where;
  return arithmetic(Arith::Add, lhs.tensor, rhs, false);
}
Tensor lazyc::operator-(At lhs, Scalar rhs) {
  rhs.where = lhs.where;
  return arithmetic(Arith::Sub, lhs.tensor, rhs, false);
}
Tensor lazyc::operator*(At lhs, Scalar rhs) {
  rhs.where = lhs.where;
  return arithmetic(Arith::Mul, lhs.tensor, rhs, false);
}
Tensor lazyc::operator/(At lhs, Scalar rhs) {
  rhs.where = lhs.where;
  return arithmetic(Arith::Div, lhs.tensor, rhs, false);
}
Tensor lazyc::operator+(Scalar lhs, const Tensor &rhs) {
  return arithmetic(Arith::Add, rhs, lhs, true);
}
Tensor lazyc::operator-(Scalar lhs, const Tensor &rhs) {
  return arithmetic(Arith::Sub, rhs, lhs, true);
}
Tensor lazyc::operator*(Scalar lhs, const Tensor &rhs) {
  return arithmetic(Arith::Mul, rhs, lhs, true);
}
Tensor lazyc::operator/(Scalar lhs, const Tensor &rhs) {
  return arithmetic(Arith::Div, rhs, lhs, true);
}
Tensor lazyc::operator-(At operand) {
  return unary(OpKind::Neg, operand.tensor, operand.where, false);
}

Tensor lazyc::operator<(At lhs, const Tensor &rhs) {
  return compare(Predicate::Lt, lhs, rhs);
}
Tensor lazyc::operator<=(At lhs, const Tensor &rhs) {
  return compare(Predicate::Le, lhs, rhs);
}
Tensor lazyc::operator>(At lhs, const Tensor &rhs) {
  return compare(Predicate::Gt, lhs, rhs);
}
Tensor lazyc::operator>=(At lhs, const Tensor &rhs) {
  return compare(Predicate::Ge, lhs, rhs);
}
Tensor lazyc::operator==(At lhs, At rhs) {
  return compare(Predicate::Eq, lhs, rhs.tensor);
}
Tensor lazyc::operator!=(At lhs, At rhs) {
  return compare(Predicate::Ne, lhs, rhs.tensor);
}
Tensor lazyc::operator<(At lhs, Scalar rhs) {
  return compare(Predicate::Lt, lhs, rhs);
}
Tensor lazyc::operator<=(At lhs, Scalar rhs) {
  return compare(Predicate::Le, lhs, rhs);
}
Tensor lazyc::operator>(At lhs, Scalar rhs) {
  return compare(Predicate::Gt, lhs, rhs);
}
Tensor lazyc::operator>=(At lhs, Scalar rhs) {
  return compare(Predicate::Ge, lhs, rhs);
}
Tensor lazyc::operator==(At lhs, Scalar rhs) {
  return compare(Predicate::Eq, lhs, rhs);
}
Tensor lazyc::operator!=(At lhs, Scalar rhs) {
  return compare(Predicate::Ne, lhs, rhs);
}

Tensor lazyc::operator<(Scalar lhs, At rhs) {
  return compare(Predicate::Gt, rhs, lhs);
}
Tensor lazyc::operator<=(Scalar lhs, At rhs) {
  return compare(Predicate::Ge, rhs, lhs);
}
Tensor lazyc::operator>(Scalar lhs, At rhs) {
  return compare(Predicate::Lt, rhs, lhs);
}
Tensor lazyc::operator>=(Scalar lhs, At rhs) {
  return compare(Predicate::Le, rhs, lhs);
}
Tensor lazyc::operator==(Scalar lhs, At rhs) {
  return compare(Predicate::Eq, rhs, lhs);
}
Tensor lazyc::operator!=(Scalar lhs, At rhs) {
  return compare(Predicate::Ne, rhs, lhs);
}

/// The kind of a dtype, for compound assignment: Bool < integer < float.
static int kindRank(DType dtype) {
  if (dtype == DType::Bool)
    return 0;
  return isFloat(dtype) ? 2 : 1;
}

/// Checks that two tensors are defined, on one device and broadcast, with
/// errors naming `op`.
static void checkOperands(const char *op, const Tensor &lhs, const Tensor &rhs,
                          Where where) {
  const NodePtr &a = use(lhs, op, where), &b = use(rhs, op, where);
  checkSameDevice(op, {a.get(), b.get()}, where);
  resultShape(a->shape, b->shape, op, where);
}

/// Rebinds `lhs` to `result` (the value of `lhs op= rhs`) in `lhs`'s dtype.
static Tensor &assignResult(Tensor &lhs, Tensor result, const char *op,
                            Where where) {
  DType target = lhs.dtype();
  if (result.dtype() != target) {
    if (kindRank(result.dtype()) > kindRank(target))
      fail(op,
           std::string("the result is ") + dtypeName(result.dtype()) +
               ", which cannot be stored back into the " + dtypeName(target) +
               " tensor on the left (of shape " + shapeText(lhs.shape()) +
               "; cast the left side first, or write x = x op y)",
           where);
    result = cast(result, target, where);
  }
  lhs = std::move(result);
  return lhs;
}

Tensor &lazyc::operator+=(Tensor &lhs, At rhs) {
  checkOperands("+=", lhs, rhs.tensor, rhs.where);
  return assignResult(lhs, arithmetic(Arith::Add, lhs, rhs.tensor, rhs.where),
                      "+=", rhs.where);
}
Tensor &lazyc::operator-=(Tensor &lhs, At rhs) {
  checkOperands("-=", lhs, rhs.tensor, rhs.where);
  return assignResult(lhs, arithmetic(Arith::Sub, lhs, rhs.tensor, rhs.where),
                      "-=", rhs.where);
}
Tensor &lazyc::operator*=(Tensor &lhs, At rhs) {
  checkOperands("*=", lhs, rhs.tensor, rhs.where);
  return assignResult(lhs, arithmetic(Arith::Mul, lhs, rhs.tensor, rhs.where),
                      "*=", rhs.where);
}
Tensor &lazyc::operator/=(Tensor &lhs, At rhs) {
  checkOperands("/=", lhs, rhs.tensor, rhs.where);
  return assignResult(lhs, arithmetic(Arith::Div, lhs, rhs.tensor, rhs.where),
                      "/=", rhs.where);
}
Tensor &lazyc::operator+=(Tensor &lhs, Scalar rhs) {
  use(lhs, "+=", rhs.where);
  return assignResult(lhs, arithmetic(Arith::Add, lhs, rhs, false),
                      "+=", rhs.where);
}
Tensor &lazyc::operator-=(Tensor &lhs, Scalar rhs) {
  use(lhs, "-=", rhs.where);
  return assignResult(lhs, arithmetic(Arith::Sub, lhs, rhs, false),
                      "-=", rhs.where);
}
Tensor &lazyc::operator*=(Tensor &lhs, Scalar rhs) {
  use(lhs, "*=", rhs.where);
  return assignResult(lhs, arithmetic(Arith::Mul, lhs, rhs, false),
                      "*=", rhs.where);
}
Tensor &lazyc::operator/=(Tensor &lhs, Scalar rhs) {
  use(lhs, "/=", rhs.where);
  return assignResult(lhs, arithmetic(Arith::Div, lhs, rhs, false),
                      "/=", rhs.where);
}

/// `x` as truth values (x != 0), checked to be a tensor.
static Tensor truthOf(const Tensor &x, const char *op, Where where) {
  return detail::TensorAccess::wrap(
      castTo(use(x, op, where), DType::Bool, where));
}

Tensor lazyc::logicalAnd(const Tensor &lhs, const Tensor &rhs, Where where) {
  checkOperands("logicalAnd", lhs, rhs, where);
  Tensor a = truthOf(lhs, "logicalAnd", where);
  Tensor b = truthOf(rhs, "logicalAnd", where);
  return lazyc::where(a, b, a, where); // a ? b : false
}
Tensor lazyc::logicalOr(const Tensor &lhs, const Tensor &rhs, Where where) {
  checkOperands("logicalOr", lhs, rhs, where);
  Tensor a = truthOf(lhs, "logicalOr", where);
  Tensor b = truthOf(rhs, "logicalOr", where);
  return lazyc::where(a, a, b, where); // a ? true : b
}
Tensor lazyc::logicalXor(const Tensor &lhs, const Tensor &rhs, Where where) {
  checkOperands("logicalXor", lhs, rhs, where);
  Tensor a = truthOf(lhs, "logicalXor", where);
  Tensor b = truthOf(rhs, "logicalXor", where);
  return compare(Predicate::Ne, At(a, where), b);
}
Tensor lazyc::logicalNot(const Tensor &x, Where where) {
  Tensor a = truthOf(x, "logicalNot", where);
  return compare(Predicate::Eq, At(a, where), Scalar(false, where));
}

Tensor lazyc::operator&(At lhs, const Tensor &rhs) {
  return bitwiseAnd(lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator|(At lhs, const Tensor &rhs) {
  return bitwiseOr(lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator^(At lhs, const Tensor &rhs) {
  return bitwiseXor(lhs.tensor, rhs, lhs.where);
}
Tensor lazyc::operator~(At operand) {
  return bitwiseNot(operand.tensor, operand.where);
}

Tensor lazyc::bitwiseAnd(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::BitAnd, lhs, rhs, where);
}
Tensor lazyc::bitwiseOr(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::BitOr, lhs, rhs, where);
}
Tensor lazyc::bitwiseXor(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::BitXor, lhs, rhs, where);
}
Tensor lazyc::bitwiseNot(const Tensor &x, Where where) {
  const NodePtr &node = use(x, "bitwiseNot", where);
  if (isFloat(node->dtype))
    fail("bitwiseNot",
         std::string("needs an integer or Bool tensor, got ") +
             dtypeName(node->dtype) + " " + shapeText(node->shape) +
             " (logicalNot takes truth values of any dtype)",
         where);
  return detail::TensorAccess::wrap(
      record(OpKind::BitNot, node->dtype, node->shape, {node}, where));
}
Tensor lazyc::leftShift(const Tensor &x, const Tensor &amount, Where where) {
  return arithmetic(Arith::ShiftLeft, x, amount, where);
}
Tensor lazyc::leftShift(const Tensor &x, Scalar amount) {
  return arithmetic(Arith::ShiftLeft, x, amount, false);
}
Tensor lazyc::rightShift(const Tensor &x, const Tensor &amount, Where where) {
  return arithmetic(Arith::ShiftRight, x, amount, where);
}
Tensor lazyc::rightShift(const Tensor &x, Scalar amount) {
  return arithmetic(Arith::ShiftRight, x, amount, false);
}

Tensor lazyc::floorDiv(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::FloorDiv, lhs, rhs, where);
}
Tensor lazyc::floorDiv(const Tensor &lhs, Scalar rhs) {
  return arithmetic(Arith::FloorDiv, lhs, rhs, false);
}
Tensor lazyc::floorDiv(Scalar lhs, const Tensor &rhs) {
  return arithmetic(Arith::FloorDiv, rhs, lhs, true);
}
Tensor lazyc::mod(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::Mod, lhs, rhs, where);
}
Tensor lazyc::mod(const Tensor &lhs, Scalar rhs) {
  return arithmetic(Arith::Mod, lhs, rhs, false);
}
Tensor lazyc::mod(Scalar lhs, const Tensor &rhs) {
  return arithmetic(Arith::Mod, rhs, lhs, true);
}

Tensor lazyc::pow(const Tensor &base, const Tensor &exponent, Where where) {
  return arithmetic(Arith::Pow, base, exponent, where);
}
Tensor lazyc::pow(const Tensor &base, Scalar exponent) {
  return arithmetic(Arith::Pow, base, exponent, false);
}
Tensor lazyc::maximum(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::Max, lhs, rhs, where);
}
Tensor lazyc::minimum(const Tensor &lhs, const Tensor &rhs, Where where) {
  return arithmetic(Arith::Min, lhs, rhs, where);
}

Tensor lazyc::exp(const Tensor &x, Where where) {
  return unary(OpKind::Exp, x, where, true);
}
Tensor lazyc::log(const Tensor &x, Where where) {
  return unary(OpKind::Log, x, where, true);
}
Tensor lazyc::tanh(const Tensor &x, Where where) {
  return unary(OpKind::Tanh, x, where, true);
}
Tensor lazyc::sigmoid(const Tensor &x, Where where) {
  return unary(OpKind::Sigmoid, x, where, true);
}
Tensor lazyc::relu(const Tensor &x, Where where) {
  return unary(OpKind::Relu, x, where, false);
}
Tensor lazyc::sqrt(const Tensor &x, Where where) {
  return unary(OpKind::Sqrt, x, where, true);
}
Tensor lazyc::rsqrt(const Tensor &x, Where where) {
  return unary(OpKind::Rsqrt, x, where, true);
}
Tensor lazyc::abs(const Tensor &x, Where where) {
  return unary(OpKind::Abs, x, where, false);
}
Tensor lazyc::sin(const Tensor &x, Where where) {
  return unary(OpKind::Sin, x, where, true);
}
Tensor lazyc::cos(const Tensor &x, Where where) {
  return unary(OpKind::Cos, x, where, true);
}
Tensor lazyc::erf(const Tensor &x, Where where) {
  return unary(OpKind::Erf, x, where, true);
}
Tensor lazyc::asin(const Tensor &x, Where where) {
  return unary(OpKind::Asin, x, where, true);
}
Tensor lazyc::acos(const Tensor &x, Where where) {
  return unary(OpKind::Acos, x, where, true);
}
Tensor lazyc::atan(const Tensor &x, Where where) {
  return unary(OpKind::Atan, x, where, true);
}

Tensor lazyc::square(const Tensor &x, Where where) {
  return arithmetic(Arith::Mul, x, x, where);
}

Tensor lazyc::clamp(const Tensor &x, Scalar lo, Scalar hi) {
  if (use(x, "clamp", lo.where)->dtype == DType::Bool)
    fail("clamp", "is not defined for Bool tensors (cast first)", lo.where);
  hi.where = lo.where;
  return arithmetic(Arith::Min, arithmetic(Arith::Max, x, lo, false), hi,
                    false);
}

Tensor lazyc::clamp(const Tensor &x, const Tensor &lo, const Tensor &hi,
                    Where where) {
  for (const Tensor *operand : {&x, &lo, &hi})
    if (use(*operand, "clamp", where)->dtype == DType::Bool)
      fail("clamp", "is not defined for Bool tensors (cast first)", where);
  checkOperands("clamp", x, lo, where);
  checkOperands("clamp", x, hi, where);
  checkOperands("clamp", lo, hi, where);
  return arithmetic(Arith::Min, arithmetic(Arith::Max, x, lo, where), hi,
                    where);
}

Tensor lazyc::gelu(const Tensor &x, GeluApproximation approximation,
                   Where where) {
  use(x, "gelu", where);
  At at(x, where);
  if (approximation == GeluApproximation::Tanh) {
    // sqrt(2 / pi) (x + 0.044715 x^3), as PyTorch's approximate="tanh".
    const double scale = std::sqrt(2.0 / M_PI);
    Tensor inner = At(At(square(x, where), where) * 0.044715, where) + 1.0;
    Tensor argument = At(at * inner, where) * scale;
    return At(at * 0.5, where) * (At(tanh(argument, where), where) + 1.0);
  }
  Tensor phi = At(erf(at * M_SQRT1_2, where), where) + 1.0;
  return At(at * 0.5, where) * phi;
}

Tensor lazyc::gelu(const Tensor &x, Where where) {
  return gelu(x, GeluApproximation::None, where);
}

Tensor lazyc::softplus(const Tensor &x, Where where) {
  use(x, "softplus", where);
  Tensor decay = exp(-At(abs(x, where), where), where); // in (0, 1]
  // max(x, 0) rather than relu: its tie at 0 splits the gradient, which
  // gives sigmoid(0) = 1/2 there (abs's gradient at 0 is 0).
  Tensor positive = arithmetic(Arith::Max, x, Scalar(0.0, where), false);
  return At(positive, where) + log(At(decay, where) + 1.0, where);
}

Tensor lazyc::silu(const Tensor &x, Where where) {
  use(x, "silu", where);
  return At(x, where) * sigmoid(x, where);
}

Tensor lazyc::where(const Tensor &condition, const Tensor &onTrue,
                    const Tensor &onFalse, Where where) {
  NodePtr c = use(condition, "where", where);
  NodePtr a = use(onTrue, "where", where), b = use(onFalse, "where", where);
  checkSameDevice("where", {c.get(), a.get(), b.get()}, where);
  DType dtype = promoteTypes(a->dtype, b->dtype);
  Shape shape =
      broadcastShapes(broadcastShapes(c->shape, a->shape, "where", where),
                      b->shape, "where", where);
  c = broadcastNode(castTo(c, DType::Bool, where), shape, where);
  a = broadcastNode(castTo(a, dtype, where), shape, where);
  b = broadcastNode(castTo(b, dtype, where), shape, where);
  return detail::TensorAccess::wrap(
      record(OpKind::Select, dtype, shape, {c, a, b}, where));
}

Tensor lazyc::cast(const Tensor &x, DType dtype, Where where) {
  const NodePtr &node = use(x, "cast", where);
  if (node->kind == OpKind::Literal && node->dtype != dtype &&
      !tape::tracks(*node)) {
    // A literal of its own, recorded like full()'s (castTo's literals are
    // operands, which may be shared).
    NodePtr converted =
        literal(node->scalar, dtype, node->device, where, node->shape);
    engine::recorded(converted, where);
    return detail::TensorAccess::wrap(std::move(converted));
  }
  return detail::TensorAccess::wrap(castTo(node, dtype, where));
}

Tensor lazyc::bitcast(const Tensor &x, DType dtype, Where where) {
  const NodePtr &node = use(x, "bitcast", where);
  if (sizeOf(node->dtype) != sizeOf(dtype))
    fail("bitcast",
         std::string("reads the bits of ") + dtypeName(node->dtype) + " (" +
             std::to_string(8 * sizeOf(node->dtype)) + " bits) as " +
             dtypeName(dtype) + " (" + std::to_string(8 * sizeOf(dtype)) +
             " bits): the widths must be equal (cast converts values)",
         where);
  if (node->dtype == dtype)
    return x;
  const Node &input = *node;
  return detail::TensorAccess::wrap(
      record(OpKind::Bitcast, dtype, input.shape, {node}, where));
}

//===----------------------------------------------------------------------===//
// Linear algebra, reductions, composites
//===----------------------------------------------------------------------===//

Tensor lazyc::matmul(const Tensor &lhsTensor, const Tensor &rhsTensor,
                     Where where) {
  NodePtr lhs = use(lhsTensor, "matmul", where);
  NodePtr rhs = use(rhsTensor, "matmul", where);
  checkSameDevice("matmul", {lhs.get(), rhs.get()}, where);
  if (lhs->shape.empty() || rhs->shape.empty())
    fail("matmul",
         "needs operands of rank 1 or more, got " + shapeText(lhs->shape) +
             " and " + shapeText(rhs->shape),
         where);
  DType dtype = promoteTypes(lhs->dtype, rhs->dtype);
  if (dtype == DType::Bool)
    fail("matmul", "is not defined for Bool tensors (cast first)", where);
  dtype = detail::autocastProductType(dtype);
  // Vectors become a row (lhs) or a column (rhs), removed again at the end.
  bool lhsVector = lhs->shape.size() == 1, rhsVector = rhs->shape.size() == 1;
  Shape lhsShape = lhs->shape, rhsShape = rhs->shape;
  if (lhsVector)
    lhsShape.insert(lhsShape.begin(), 1);
  if (rhsVector)
    rhsShape.push_back(1);
  int64_t k = lhsShape.back(), k2 = rhsShape[rhsShape.size() - 2];
  if (k != k2)
    fail("matmul",
         "inner dimensions differ: " + shapeText(lhs->shape) + " and " +
             shapeText(rhs->shape) + " (" + std::to_string(k) + " vs " +
             std::to_string(k2) + ")",
         where);
  Shape lhsBatch(lhsShape.begin(), lhsShape.end() - 2);
  Shape rhsBatch(rhsShape.begin(), rhsShape.end() - 2);
  Shape batch = broadcastShapes(lhsBatch, rhsBatch, "matmul", where);
  int64_t m = lhsShape[lhsShape.size() - 2], n = rhsShape.back();
  Shape resultShape = batch;
  if (!lhsVector)
    resultShape.push_back(m);
  if (!rhsVector)
    resultShape.push_back(n);
  // A batch of matrices times one matrix (a linear layer on [batch, tokens,
  // features]) is one GEMM over all the rows, as in PyTorch: no broadcast
  // copy of the matrix per batch, and the matrix's gradient becomes one
  // product whose inner dimension is the whole batch, not a batched product
  // followed by a sum.
  bool rhsIsOneMatrix = std::all_of(rhsBatch.begin(), rhsBatch.end(),
                                    [](int64_t d) { return d == 1; });
  if (!lhsBatch.empty() && rhsIsOneMatrix) {
    int64_t rows = m;
    for (int64_t d : lhsBatch)
      rows *= d;
    NodePtr rows2d =
        reshapeNode(castTo(lhs, dtype, where), Shape{rows, k}, where);
    NodePtr matrix = reshapeNode(castTo(rhs, dtype, where), Shape{k, n}, where);
    NodePtr product =
        record(OpKind::Matmul, dtype, Shape{rows, n}, {rows2d, matrix}, where);
    return detail::TensorAccess::wrap(reshapeNode(product, resultShape, where));
  }
  auto prepare = [&](NodePtr node, const Shape &matrixShape, int64_t rows,
                     int64_t cols) {
    node = reshapeNode(castTo(node, dtype, where), matrixShape, where);
    Shape full = batch;
    full.push_back(rows);
    full.push_back(cols);
    if (matrixShape.size() < full.size()) {
      Shape padded(full.size() - matrixShape.size(), 1);
      padded.insert(padded.end(), matrixShape.begin(), matrixShape.end());
      node = reshapeNode(node, padded, where);
    }
    return broadcastNode(node, full, where);
  };
  lhs = prepare(lhs, lhsShape, m, k);
  rhs = prepare(rhs, rhsShape, k, n);
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  NodePtr product = record(OpKind::Matmul, dtype, shape, {lhs, rhs}, where);
  return detail::TensorAccess::wrap(reshapeNode(product, resultShape, where));
}

Tensor lazyc::sum(const Tensor &x, std::vector<int64_t> axes, bool keepDims,
                  Where where) {
  return reduce(OpKind::ReduceSum, x, std::move(axes), keepDims, where);
}
Tensor lazyc::mean(const Tensor &x, std::vector<int64_t> axes, bool keepDims,
                   Where where) {
  return reduce(OpKind::ReduceMean, x, std::move(axes), keepDims, where);
}
Tensor lazyc::max(const Tensor &x, std::vector<int64_t> axes, bool keepDims,
                  Where where) {
  return reduce(OpKind::ReduceMax, x, std::move(axes), keepDims, where);
}
Tensor lazyc::min(const Tensor &x, std::vector<int64_t> axes, bool keepDims,
                  Where where) {
  return reduce(OpKind::ReduceMin, x, std::move(axes), keepDims, where);
}

Tensor lazyc::any(const Tensor &x, std::vector<int64_t> axes, bool keepDims,
                  Where where) {
  // The number of nonzero elements, > 0 (an empty reduction counts 0).
  Tensor count = reduce(OpKind::ReduceSum, truthOf(x, "any", where),
                        std::move(axes), keepDims, where, "any");
  return compare(Predicate::Gt, At(count, where), Scalar(int64_t(0), where));
}
Tensor lazyc::all(const Tensor &x, std::vector<int64_t> axes, bool keepDims,
                  Where where) {
  // No zero element.
  use(x, "all", where);
  Tensor zeros = reduce(OpKind::ReduceSum, logicalNot(x, where),
                        std::move(axes), keepDims, where, "all");
  return compare(Predicate::Eq, At(zeros, where), Scalar(int64_t(0), where));
}

Tensor lazyc::softmax(const Tensor &x, int64_t axis, Where where) {
  return softmaxLike(OpKind::Softmax, x, axis, where);
}
Tensor lazyc::logSoftmax(const Tensor &x, int64_t axis, Where where) {
  return softmaxLike(OpKind::LogSoftmax, x, axis, where);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Tensor lazyc::reshape(const Tensor &x, Shape shape, Where where) {
  const NodePtr &node = use(x, "reshape", where);
  detail::checkedElements(shape, "reshape", where, /*allowInferred=*/true);
  int64_t known = 1, inferred = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (inferred >= 0)
        fail("reshape", "only one dimension may be -1 in " + shapeText(shape),
             where);
      inferred = static_cast<int64_t>(d);
    } else if (shape[d] < 0) {
      fail("reshape", "negative dimension in " + shapeText(shape), where);
    } else {
      known *= shape[d];
    }
  }
  int64_t elements = node->numel();
  if (inferred >= 0) {
    if (known == 0 || elements % known != 0)
      fail("reshape",
           "cannot reshape " + shapeText(node->shape) + " (" +
               std::to_string(elements) + " elements) to " + shapeText(shape),
           where);
    shape[inferred] = elements / known;
  } else if (known != elements) {
    fail("reshape",
         "cannot reshape " + shapeText(node->shape) + " (" +
             std::to_string(elements) + " elements) to " + shapeText(shape) +
             " (" + std::to_string(known) + " elements)",
         where);
  }
  return detail::TensorAccess::wrap(reshapeNode(node, shape, where));
}

Tensor lazyc::transpose(const Tensor &x, std::vector<int64_t> permutation,
                        Where where) {
  const NodePtr &node = use(x, "transpose", where);
  int64_t rank = static_cast<int64_t>(node->shape.size());
  if (permutation.empty()) {
    permutation.resize(rank);
    for (int64_t d = 0; d < rank; ++d)
      permutation[d] = rank - 1 - d;
  }
  if (static_cast<int64_t>(permutation.size()) != rank)
    fail("transpose",
         "permutation " + shapeText(permutation) + " does not fit shape " +
             shapeText(node->shape),
         where);
  std::vector<bool> seen(rank, false);
  Shape shape;
  for (int64_t &axis : permutation) {
    axis = normalizeAxis(axis, rank, "transpose", where);
    if (seen[axis])
      fail("transpose", shapeText(permutation) + " is not a permutation",
           where);
    seen[axis] = true;
    shape.push_back(node->shape[axis]);
  }
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d)
    identity &= permutation[d] == d;
  if (identity)
    return x;
  return detail::TensorAccess::wrap(
      record(OpKind::Transpose, node->dtype, shape, {node}, where,
             [&](Node &n) { n.ints = permutation; }));
}

Tensor lazyc::broadcastTo(const Tensor &x, Shape shape, Where where) {
  const NodePtr &node = use(x, "broadcastTo", where);
  detail::checkedElements(shape, "broadcastTo", where);
  if (!isBroadcastable(node->shape, shape))
    fail("broadcastTo",
         "cannot broadcast " + shapeText(node->shape) + " to " +
             shapeText(shape),
         where);
  return detail::TensorAccess::wrap(broadcastNode(node, shape, where));
}

Tensor lazyc::slice(const Tensor &x, std::vector<int64_t> start,
                    std::vector<int64_t> limit, std::vector<int64_t> step,
                    Where where) {
  const NodePtr &node = use(x, "slice", where);
  size_t rank = node->shape.size();
  if (step.empty())
    step.assign(rank, 1);
  if (start.size() != rank || limit.size() != rank || step.size() != rank)
    fail("slice",
         "needs one start, limit and step per dimension of " +
             shapeText(node->shape),
         where);
  Shape shape;
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = node->shape[d];
    if (step[d] < 1)
      fail("slice",
           "step " + std::to_string(step[d]) + " in dimension " +
               std::to_string(d) + " must be at least 1",
           where);
    // Python's rules: negative indices count from the end, out-of-range
    // bounds are clamped.
    auto clampIndex = [&](int64_t index) {
      if (index < 0)
        index += size;
      return std::clamp<int64_t>(index, 0, size);
    };
    start[d] = clampIndex(start[d]);
    limit[d] = std::max(start[d], clampIndex(limit[d]));
    shape.push_back((limit[d] - start[d] + step[d] - 1) / step[d]);
  }
  if (shape == node->shape)
    return x;
  return detail::TensorAccess::wrap(
      record(OpKind::Slice, node->dtype, shape, {node}, where, [&](Node &n) {
        n.ints = start;
        n.ints2 = limit;
        n.ints3 = step;
      }));
}

Tensor lazyc::concat(const std::vector<Tensor> &tensors, int64_t axis,
                     Where where) {
  if (tensors.empty())
    fail("concat", "needs at least one tensor", where);
  std::vector<NodePtr> nodes;
  for (const Tensor &tensor : tensors) {
    nodes.push_back(use(tensor, "concat", where));
    checkSameDevice("concat", {nodes.front().get(), nodes.back().get()}, where);
  }
  int64_t rank = static_cast<int64_t>(nodes.front()->shape.size());
  axis = normalizeAxis(axis, rank, "concat", where);
  DType dtype = nodes.front()->dtype;
  for (const NodePtr &node : nodes)
    dtype = promoteTypes(dtype, node->dtype);
  Shape shape = nodes.front()->shape;
  shape[axis] = 0;
  for (NodePtr &node : nodes) {
    bool fits = static_cast<int64_t>(node->shape.size()) == rank;
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = d == axis || node->shape[d] == shape[d];
    if (!fits)
      fail("concat",
           "shapes " + shapeText(nodes.front()->shape) + " and " +
               shapeText(node->shape) + " differ outside axis " +
               std::to_string(axis),
           where);
    shape[axis] += node->shape[axis];
    node = castTo(node, dtype, where);
  }
  if (nodes.size() == 1)
    return detail::TensorAccess::wrap(nodes.front());
  return detail::TensorAccess::wrap(record(
      OpKind::Concat, dtype, shape, NodeInputs(nodes.begin(), nodes.end()),
      where, [&](Node &n) { n.integer = axis; }));
}

//===----------------------------------------------------------------------===//
// Indexing and scans
//===----------------------------------------------------------------------===//

namespace {

/// The indices operand of gather and scatterAdd: an Int32 or Int64 tensor
/// of `x`'s rank whose sizes outside `axis` are x's or 1, broadcast to x's.
NodePtr indicesAlong(const char *op, const NodePtr &x, const Tensor &indices,
                     int64_t axis, Where where) {
  NodePtr node = use(indices, op, where);
  checkSameDevice(op, {x.get(), node.get()}, where);
  if (node->dtype != DType::Int32 && node->dtype != DType::Int64)
    fail(op,
         std::string("needs Int32 or Int64 indices, got ") +
             dtypeName(node->dtype),
         where);
  if (node->shape.size() != x->shape.size())
    fail(op,
         "needs indices of the input's rank: indices " +
             shapeText(node->shape) + ", input " + shapeText(x->shape),
         where);
  Shape shape = x->shape;
  shape[axis] = node->shape[axis];
  for (size_t d = 0; d < shape.size(); ++d)
    if (static_cast<int64_t>(d) != axis && node->shape[d] != shape[d] &&
        node->shape[d] != 1)
      fail(op,
           "indices " + shapeText(node->shape) + " do not fit input " +
               shapeText(x->shape) + " outside axis " + std::to_string(axis) +
               " (each size there is the input's, or 1)",
           where);
  bool selects = std::all_of(shape.begin(), shape.end(),
                             [](int64_t dim) { return dim != 0; });
  if (x->shape[axis] == 0 && selects)
    fail(op,
         "cannot index the empty axis " + std::to_string(axis) + " of " +
             shapeText(x->shape),
         where);
  return broadcastNode(node, shape, where);
}

Tensor argReduce(OpKind kind, const Tensor &x, int64_t axis, bool keepDims,
                 Where where) {
  const char *name = opName(kind);
  NodePtr node = use(x, name, where);
  if (node->dtype == DType::Bool)
    node = castTo(node, DType::Int32, where);
  int64_t rank = static_cast<int64_t>(node->shape.size());
  axis = normalizeAxis(axis, rank, name, where);
  if (node->shape[axis] == 0)
    fail(name,
         "needs a non-empty axis, but axis " + std::to_string(axis) + " of " +
             shapeText(node->shape) + " is empty",
         where);
  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      shape.push_back(node->shape[d]);
    else if (keepDims)
      shape.push_back(1);
  }
  return detail::TensorAccess::wrap(
      record(kind, DType::Int64, shape, {node}, where, [&](Node &n) {
        n.integer = axis;
        n.flag = keepDims;
      }));
}

} // namespace

Tensor lazyc::gather(const Tensor &x, int64_t axis, const Tensor &indices,
                     Where where) {
  const NodePtr &node = use(x, "gather", where);
  axis = normalizeAxis(axis, static_cast<int64_t>(node->shape.size()), "gather",
                       where);
  NodePtr positions = indicesAlong("gather", node, indices, axis, where);
  return detail::TensorAccess::wrap(
      record(OpKind::Gather, node->dtype, positions->shape, {node, positions},
             where, [&](Node &n) { n.integer = axis; }));
}

Tensor lazyc::scatterAdd(const Tensor &x, int64_t axis, const Tensor &indices,
                         const Tensor &updates, Where where) {
  const NodePtr &node = use(x, "scatterAdd", where);
  NodePtr values = use(updates, "scatterAdd", where);
  checkSameDevice("scatterAdd", {node.get(), values.get()}, where);
  if (node->dtype == DType::Bool)
    fail("scatterAdd", "is not defined for Bool tensors (cast first)", where);
  axis = normalizeAxis(axis, static_cast<int64_t>(node->shape.size()),
                       "scatterAdd", where);
  NodePtr positions = indicesAlong("scatterAdd", node, indices, axis, where);
  if (values->shape != positions->shape)
    fail("scatterAdd",
         "needs updates of the indices' shape " + shapeText(positions->shape) +
             ", got " + shapeText(values->shape),
         where);
  values = castTo(values, node->dtype, where);
  return detail::TensorAccess::wrap(record(
      OpKind::ScatterAdd, node->dtype, node->shape, {node, positions, values},
      where, [&](Node &n) { n.integer = axis; }));
}

Tensor lazyc::argmax(const Tensor &x, int64_t axis, bool keepDims,
                     Where where) {
  return argReduce(OpKind::ArgMax, x, axis, keepDims, where);
}
Tensor lazyc::argmin(const Tensor &x, int64_t axis, bool keepDims,
                     Where where) {
  return argReduce(OpKind::ArgMin, x, axis, keepDims, where);
}
Tensor lazyc::argmax(const Tensor &x, Where where) {
  return argReduce(OpKind::ArgMax, lazyc::reshape(x, {-1}, where), 0, false,
                   where);
}
Tensor lazyc::argmin(const Tensor &x, Where where) {
  return argReduce(OpKind::ArgMin, lazyc::reshape(x, {-1}, where), 0, false,
                   where);
}

Tensor lazyc::cumsum(const Tensor &x, int64_t axis, bool reverse, Where where) {
  NodePtr node = use(detail::autocastToFloat32(x, where), "cumsum", where);
  axis = normalizeAxis(axis, static_cast<int64_t>(node->shape.size()), "cumsum",
                       where);
  if (node->dtype != sumDType(node->dtype))
    node = castTo(node, sumDType(node->dtype), where);
  return detail::TensorAccess::wrap(record(
      OpKind::Cumsum, node->dtype, node->shape, {node}, where, [&](Node &n) {
        n.integer = axis;
        n.flag = reverse;
      }));
}

Tensor lazyc::conv2d(const Tensor &images, const Tensor &filters,
                     std::array<int64_t, 2> stride,
                     std::array<int64_t, 2> dilation,
                     std::array<int64_t, 4> padding, Where where) {
  const char *op = opName(OpKind::Conv2d);
  const NodePtr &input = use(images, op, where);
  const NodePtr &filter = use(filters, op, where);
  auto fail = [&](const std::string &why) {
    throw Error(op,
                why + " (images " + shapeText(input->shape) + ", filters " +
                    shapeText(filter->shape) + ")",
                where);
  };
  if (input->shape.size() != 4 || filter->shape.size() != 4)
    fail("needs images [N, C, H, W] and filters [F, C, KH, KW]");
  if (!isFloat(input->dtype) || !isFloat(filter->dtype))
    fail(std::string("needs floating-point operands, got ") +
         dtypeName(input->dtype) + " and " + dtypeName(filter->dtype));
  if (input->shape[1] != filter->shape[1])
    fail("the images have " + std::to_string(input->shape[1]) +
         " channels and the filters " + std::to_string(filter->shape[1]));
  for (int d = 0; d < 2; ++d) {
    if (stride[d] < 1 || dilation[d] < 1)
      fail("strides and dilations must be at least 1, got stride " +
           std::to_string(stride[d]) + " and dilation " +
           std::to_string(dilation[d]));
    if (padding[2 * d] < 0 || padding[2 * d + 1] < 0)
      fail("padding must not be negative");
    int64_t reach = dilation[d] * (filter->shape[2 + d] - 1) + 1;
    int64_t padded = input->shape[2 + d] + padding[2 * d] + padding[2 * d + 1];
    if (filter->shape[2 + d] < 1 || reach > padded)
      fail(std::string("the ") + (d == 0 ? "height" : "width") +
           " of the dilated kernel (" + std::to_string(reach) +
           ") exceeds the padded images' (" + std::to_string(padded) + ")");
  }
  return detail::conv2d(images, filters, stride, dilation, padding, where);
}

Tensor detail::conv2d(const Tensor &images, const Tensor &filters,
                      std::array<int64_t, 2> stride,
                      std::array<int64_t, 2> dilation, Padding padding,
                      Where where) {
  const char *op = opName(OpKind::Conv2d);
  NodePtr input = use(images, op, where), filter = use(filters, op, where);
  checkSameDevice(op, {input.get(), filter.get()}, where);
  DType dtype =
      detail::autocastProductType(promoteTypes(input->dtype, filter->dtype));
  Shape shape = {input->shape[0], filter->shape[0]};
  for (int d = 0; d < 2; ++d) {
    int64_t reach = dilation[d] * (filter->shape[2 + d] - 1) + 1;
    int64_t padded = input->shape[2 + d] + padding[2 * d] + padding[2 * d + 1];
    shape.push_back((padded - reach) / stride[d] + 1);
  }
  return detail::TensorAccess::wrap(
      record(OpKind::Conv2d, dtype, shape,
             {castTo(input, dtype, where), castTo(filter, dtype, where)}, where,
             [&](Node &n) {
               n.ints = {stride[0], stride[1]};
               n.ints2 = {dilation[0], dilation[1]};
               n.ints3.assign(padding.begin(), padding.end());
             }));
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {

/// The attributes an attention node and its gradients share.
void setAttentionAttributes(Node &n, double scale, bool causal,
                            double dropout) {
  n.scalar = scale;
  n.scalar2 = dropout;
  n.flag = causal;
}

/// `x` without its last column: an attention node's output rows.
Tensor withoutLastColumns(const Tensor &x, int64_t columns, Where where) {
  std::vector<int64_t> start(x.shape().size(), 0), limit = x.shape();
  limit.back() -= columns;
  return lazyc::slice(x, std::move(start), std::move(limit), {}, where);
}

} // namespace

Tensor lazyc::tiledAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                             const Tensor &bias, double scale, bool causal,
                             double dropout, int64_t seed, Where where) {
  const char *op = opName(OpKind::Attention);
  NodePtr query = use(q, op, where), key = use(k, op, where),
          value = use(v, op, where);
  checkSameDevice(op, {query.get(), key.get(), value.get()}, where);
  auto shapes = [&] {
    return "q " + shapeText(query->shape) + ", k " + shapeText(key->shape) +
           " and v " + shapeText(value->shape);
  };
  DType dtype = query->dtype;
  if ((dtype != DType::Float32 && dtype != DType::Float64) ||
      key->dtype != dtype || value->dtype != dtype)
    fail(op,
         std::string("computes in tiles in Float32 or Float64, one dtype for "
                     "q, k and v; got ") +
             dtypeName(dtype) + ", " + dtypeName(key->dtype) + " and " +
             dtypeName(value->dtype),
         where);
  size_t rank = query->shape.size();
  if (rank < 2 || rank > 6 || key->shape.size() != rank ||
      value->shape.size() != rank)
    fail(op,
         "computes in tiles over q, k and v of one rank from 2 to 6, got " +
             shapes(),
         where);
  int64_t depth = query->shape.back(), keys = key->shape[rank - 2];
  if (!std::equal(query->shape.begin(), query->shape.end() - 2,
                  key->shape.begin()) ||
      !std::equal(query->shape.begin(), query->shape.end() - 2,
                  value->shape.begin()))
    fail(op,
         "computes in tiles over identical batch dimensions, got " + shapes(),
         where);
  if (key->shape.back() != depth || value->shape[rank - 2] != keys)
    fail(op,
         shapes() + " do not fit: q and k need one depth d, k and v one "
                    "length Tk",
         where);
  if (!std::isfinite(scale))
    fail(op, "the scale must be finite", where);
  if (!(dropout >= 0 && dropout <= 1))
    fail(op, "the dropout must be in [0, 1], got " + std::to_string(dropout),
         where);
  if (query->device.kind() != Device::Kind::CPU)
    fail(op,
         "computes in tiles on the CPU only (for now), not on " +
             query->device.str() +
             "; nn::scaledDotProductAttention materializes the scores there",
         where);
  NodeInputs inputs = {query, key, value,
                       seedOperand(seed, op, query->device, where)};
  if (bias.defined()) {
    NodePtr additive = use(bias, op, where);
    checkSameDevice(op, {query.get(), additive.get()}, where);
    Shape scores = query->shape;
    scores.back() = keys;
    bool fits = additive->shape.size() == rank && additive->dtype == dtype;
    for (size_t d = 0; fits && d < rank; ++d)
      fits = additive->shape[d] == 1 || additive->shape[d] == scores[d];
    if (!fits)
      fail(op,
           "the bias " + shapeText(additive->shape) + " (" +
               dtypeName(additive->dtype) + ") needs q's dtype " +
               dtypeName(dtype) + " and rank, each dimension 1 or the " +
               "scores' " + shapeText(scores),
           where);
    inputs.push_back(std::move(additive));
  }
  Shape shape = query->shape;
  shape.back() = value->shape.back() + 1;
  Tensor rows = detail::TensorAccess::wrap(record(
      OpKind::Attention, dtype, shape, std::move(inputs), where,
      [&](Node &n) { setAttentionAttributes(n, scale, causal, dropout); }));
  return withoutLastColumns(rows, 1, where);
}

std::array<Tensor, 3>
detail::attentionGradients(const Node &attention, const NodeInputs &in,
                           const Tensor &out, const Tensor &dOut, Where where) {
  NodeInputs inputs = {in[0],
                       in[1],
                       in[2],
                       use(out, "gradient", where),
                       use(dOut, "gradient", where),
                       in[3]};
  if (in.size() > 4)
    inputs.push_back(in[4]);
  auto gradient = [&](int64_t which, const Shape &shape) {
    return detail::TensorAccess::wrap(
        record(OpKind::AttentionGrad, attention.dtype, shape, inputs, where,
               [&](Node &n) {
                 setAttentionAttributes(n, attention.scalar, attention.flag,
                                        attention.scalar2);
                 n.integer = which;
               }));
  };
  const Shape &keyShape = in[1]->shape;
  int64_t depth = keyShape.back(), valueDepth = in[2]->shape.back();
  Shape both = keyShape;
  both.back() = depth + valueDepth;
  Tensor keyValue = gradient(1, both);
  std::vector<int64_t> start(keyShape.size(), 0);
  std::vector<int64_t> valueStart = start;
  valueStart.back() = depth;
  return {gradient(0, in[0]->shape),
          withoutLastColumns(keyValue, valueDepth, where),
          lazyc::slice(keyValue, std::move(valueStart), both, {}, where)};
}

Tensor detail::collective(const Tensor &x, int kind, int reduction, int root,
                          Where where) {
  const NodePtr &node = use(x, opName(OpKind::Collective), where);
  int64_t worldSize = lazyrt_dist_size();
  Shape shape = node->shape;
  if (kind == LAZYRT_ALL_GATHER)
    shape[0] *= worldSize;
  else if (kind == LAZYRT_REDUCE_SCATTER)
    shape[0] /= worldSize;
  return detail::TensorAccess::wrap(record(
      OpKind::Collective, node->dtype, shape, {node}, where, [&](Node &n) {
        n.integer = kind;
        n.ints = {reduction, root, worldSize};
      }));
}
