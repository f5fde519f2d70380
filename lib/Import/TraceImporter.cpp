//===- TraceImporter.cpp - A trace as a lazy dialect module ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Import/TraceImporter.h"

#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <type_traits>

using namespace mlir;
using namespace lazyc;
using namespace lazyc::trace;

Type import::elementType(MLIRContext &context, DType dtype) {
  Builder b(&context);
  switch (dtype) {
  case DType::Float32:
    return b.getF32Type();
  case DType::Float64:
    return b.getF64Type();
  case DType::Float16:
    return b.getF16Type();
  case DType::BFloat16:
    return b.getBF16Type();
  case DType::Int32:
    return b.getI32Type();
  case DType::Int64:
    return b.getI64Type();
  case DType::Bool:
    return b.getI1Type();
  }
  llvm_unreachable("unknown dtype");
}

static RankedTensorType tensorType(Builder &b, const Node &node,
                                   bool dynamicShapes) {
  SmallVector<int64_t> shape(node.shape.begin(), node.shape.end());
  if (dynamicShapes)
    shape.assign(shape.size(), ShapedType::kDynamic);
  return RankedTensorType::get(
      shape, import::elementType(*b.getContext(), node.dtype));
}

/// The literal's value as an attribute of its element type.
static TypedAttr literalAttr(Builder &b, const Node &node) {
  Type element = import::elementType(*b.getContext(), node.dtype);
  if (isa<FloatType>(element))
    return b.getFloatAttr(element, node.scalar);
  if (element.isInteger(1))
    return b.getBoolAttr(node.scalar != 0);
  return b.getIntegerAttr(element, static_cast<int64_t>(node.scalar));
}

static lazy::ComparePredicate toPredicate(Predicate predicate) {
  switch (predicate) {
  case Predicate::Eq:
    return lazy::ComparePredicate::eq;
  case Predicate::Ne:
    return lazy::ComparePredicate::ne;
  case Predicate::Lt:
    return lazy::ComparePredicate::lt;
  case Predicate::Le:
    return lazy::ComparePredicate::le;
  case Predicate::Gt:
    return lazy::ComparePredicate::gt;
  case Predicate::Ge:
    return lazy::ComparePredicate::ge;
  }
  llvm_unreachable("unknown predicate");
}

//===----------------------------------------------------------------------===//
// lazyc/Trace/Ops.def against LazyOps.td
//===----------------------------------------------------------------------===//

/// Whether `Op` is lazy.constant or the op of a row of Ops.def (a row but a
/// leaf whose op LazyOps.td lacks does not compile here).
template <typename Op> static constexpr bool hasOpKind() {
  return std::is_same_v<Op, lazy::ConstantOp>
#define LAZYC_OP(Kind, Name, ShapeAttr) || std::is_same_v<Op, lazy::Kind##Op>
#define LAZYC_LEAF(Kind, Name, ShapeAttr)
#include "lazyc/Trace/Ops.def"
      ;
}

/// Fails to compile, naming `Op`, if a lazy op has no row in Ops.def: the
/// trace could not record it, nor the importer build it.
template <typename Op> static constexpr bool checkOpKind() {
  static_assert(hasOpKind<Op>(),
                "this lazy op has no row in lazyc/Trace/Ops.def");
  return true;
}

template <typename... Ops> static constexpr bool checkOpKinds() {
  return (checkOpKind<Ops>() && ...);
}

static_assert(checkOpKinds<
#define GET_OP_LIST
#include "lazyc/Dialect/Lazy/IR/LazyOps.cpp.inc"
              >());

/// Builds the lazy op of `node` from its operand values: the families of
/// lazyc/Trace/Ops.def whose ops share one builder are generated, the others
/// written out.
static Value buildNode(OpBuilder &b, Location loc, const Node &node,
                       ArrayRef<Value> in, bool dynamicShapes) {
  switch (node.kind) {
#define LAZYC_LEAF(Kind, Name, ShapeAttr) case OpKind::Kind:
#include "lazyc/Trace/Ops.def"
    llvm_unreachable("leaves are arguments or constants");
#define LAZYC_BINARY_OP(Kind, Name, ShapeAttr)                                 \
  case OpKind::Kind:                                                           \
    return lazy::Kind##Op::create(b, loc, in[0], in[1]);
#define LAZYC_UNARY_OP(Kind, Name, ShapeAttr)                                  \
  case OpKind::Kind:                                                           \
    return lazy::Kind##Op::create(b, loc, in[0]);
#define LAZYC_REDUCE_OP(Kind, Name, ShapeAttr)                                 \
  case OpKind::Kind:                                                           \
    return lazy::Kind##Op::create(b, loc, in[0], node.ints, node.flag);
#define LAZYC_SOFTMAX_OP(Kind, Name, ShapeAttr)                                \
  case OpKind::Kind:                                                           \
    return lazy::Kind##Op::create(b, loc, in[0],                               \
                                  static_cast<uint64_t>(node.integer));
#define LAZYC_RANDOM_OP(Kind, Name, ShapeAttr)                                 \
  case OpKind::Kind:                                                           \
    return lazy::Kind##Op::create(                                             \
        b, loc, tensorType(b, node, /*dynamicShapes=*/false),                  \
        b.getF64FloatAttr(node.scalar), b.getF64FloatAttr(node.scalar2),       \
        b.getI64IntegerAttr(node.integer));
#include "lazyc/Trace/Ops.def"
  case OpKind::Compare:
    return lazy::CompareOp::create(
        b, loc,
        lazy::ComparePredicateAttr::get(b.getContext(),
                                        toPredicate(node.predicate)),
        in[0], in[1]);
  case OpKind::Select:
    return lazy::SelectOp::create(b, loc, in[0], in[1], in[2]);
  case OpKind::Cast: {
    auto inputType = cast<RankedTensorType>(in[0].getType());
    return lazy::CastOp::create(
        b, loc,
        inputType.clone(import::elementType(*b.getContext(), node.dtype)),
        in[0]);
  }
  case OpKind::Broadcast:
    return lazy::BroadcastOp::create(b, loc, in[0], node.ints);
  case OpKind::Reshape:
    return lazy::ReshapeOp::create(b, loc, in[0], node.ints);
  case OpKind::Transpose:
    return lazy::TransposeOp::create(b, loc, in[0], node.ints);
  case OpKind::Slice:
    return lazy::SliceOp::create(b, loc, in[0], node.ints, node.ints2,
                                 node.ints3);
  case OpKind::Concat:
    return lazy::ConcatOp::create(b, loc, in,
                                  static_cast<uint64_t>(node.integer));
  case OpKind::Matmul:
    return lazy::MatmulOp::create(b, loc, in[0], in[1]);
  }
  (void)dynamicShapes;
  llvm_unreachable("unknown op kind");
}

namespace {
/// Tags the OpaqueLocs that hold a trace position.
struct TracePositionTag {};
} // namespace

std::optional<size_t> import::tracePosition(Location location) {
  std::optional<size_t> position;
  location->walk([&](Location inner) {
    auto opaque = dyn_cast<OpaqueLoc>(inner);
    if (!opaque ||
        opaque.getUnderlyingTypeID() != TypeID::get<TracePositionTag>())
      return WalkResult::advance();
    position = opaque.getUnderlyingLocation();
    return WalkResult::interrupt();
  });
  return position;
}

OwningOpRef<ModuleOp> import::importTrace(const Trace &trace,
                                          MLIRContext &context,
                                          const ImportOptions &options,
                                          StringRef name) {
  OpBuilder b(&context);
  Location unknown = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);
  b.setInsertionPointToEnd(module->getBody());

  auto promoted = [&](size_t literal) {
    return literal < options.promotedLiterals.size() &&
           options.promotedLiterals[literal];
  };
  SmallVector<Type> argumentTypes, resultTypes;
  for (int32_t index : trace.arguments)
    argumentTypes.push_back(
        tensorType(b, *trace.nodes[index], options.dynamicShapes));
  // A literal fills its shape with one value: promoted, it is passed as a
  // rank-0 tensor and broadcast.
  for (size_t i = 0; i < trace.literals.size(); ++i)
    if (promoted(i))
      argumentTypes.push_back(RankedTensorType::get(
          {}, import::elementType(*b.getContext(),
                                  trace.nodes[trace.literals[i]]->dtype)));
  for (int32_t index : trace.outputs)
    resultTypes.push_back(
        tensorType(b, *trace.nodes[index], options.dynamicShapes));

  auto function = func::FuncOp::create(
      b, unknown, name, b.getFunctionType(argumentTypes, resultTypes));
  Block *entry = function.addEntryBlock();
  b.setInsertionPointToStart(entry);

  std::vector<Value> values(trace.nodes.size());
  for (auto [argument, index] : llvm::enumerate(trace.arguments))
    values[index] = entry->getArgument(argument);
  unsigned nextPromoted = trace.arguments.size();
  for (auto [literal, index] : llvm::enumerate(trace.literals)) {
    const Node &node = *trace.nodes[index];
    if (promoted(literal)) {
      Value scalar = entry->getArgument(nextPromoted++);
      values[index] = node.shape.empty() ? scalar
                                         : Value(lazy::BroadcastOp::create(
                                               b, unknown, scalar, node.shape));
      continue;
    }
    values[index] = lazy::ConstantOp::create(
        b, unknown,
        DenseElementsAttr::get(tensorType(b, node, false),
                               ArrayRef<Attribute>{literalAttr(b, node)}));
  }
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    if (values[i])
      continue;
    const Node &node = *trace.nodes[i];
    // "mul#7" at the user's line: printed diagnostics name the op, its
    // position in the trace and where the user wrote it; the opaque wrapper
    // carries the position itself, for errors to blame the node
    // (tracePosition) without reading it back out of text.
    Location named = NameLoc::get(
        b.getStringAttr(std::string(opName(node.kind)) + "#" +
                        std::to_string(i)),
        node.loc.line ? Location(FileLineColLoc::get(&context, node.loc.file,
                                                     node.loc.line, 0))
                      : Location(UnknownLoc::get(&context)));
    Location loc = OpaqueLoc::get(static_cast<uintptr_t>(i),
                                  TypeID::get<TracePositionTag>(), named);
    SmallVector<Value> operands;
    for (int32_t operand : trace.operands(i))
      operands.push_back(values[operand]);
    values[i] = buildNode(b, loc, node, operands, options.dynamicShapes);
  }
  SmallVector<Value> results;
  for (int32_t index : trace.outputs)
    results.push_back(values[index]);
  func::ReturnOp::create(b, unknown, results);
  // Results computed over a donated argument's buffer.
  for (auto [result, slot] : llvm::enumerate(trace.tiedArguments))
    if (slot >= 0)
      function.setResultAttr(result, lazy::kTiedArgumentAttrName,
                             b.getI64IntegerAttr(slot));
  // With dynamic shapes, ops may still know some result dimensions
  // statically (a reduction's kept dimensions are 1): the results are
  // typed as the ops infer them.
  if (options.dynamicShapes)
    function.setType(
        b.getFunctionType(argumentTypes, ValueRange(results).getTypes()));
  return module;
}
