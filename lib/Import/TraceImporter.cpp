//===- TraceImporter.cpp - A trace as a lazy dialect module ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Import/TraceImporter.h"
#include "lazyc/Runtime/IntegerBits.h"

#include "lazyc/Dialect/Lazy/IR/HostBuffer.h"
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"
#include "lazyc/Trace/Region.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
  case DType::Int8:
    return b.getI8Type();
  case DType::Int16:
    return b.getI16Type();
  case DType::UInt8: // Unsigned in the lazy dialect; see LazyBase.td.
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
    return b.getIntegerType(8 * sizeOf(dtype), /*isSigned=*/false);
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
  // The attribute keeps the bits (UInt64's values from 2^63 too).
  return b.getIntegerAttr(element,
                          static_cast<int64_t>(integerBits(node.scalar)));
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
  return std::is_same_v<Op, lazy::ConstantOp> ||
         std::is_same_v<Op, lazy::YieldOp>
#define LAZYC_OP(Kind, Name, ShapeAttr) || std::is_same_v<Op, lazy::Kind##Op>
#define LAZYC_LEAF(Kind, Name, ShapeAttr)
#define LAZYC_RESULT_OP(Kind, Name, ShapeAttr)
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
        b, loc, tensorType(b, node, /*dynamicShapes=*/false), in[0],           \
        ValueRange(), b.getF64FloatAttr(node.scalar),                          \
        b.getF64FloatAttr(node.scalar2));
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
  case OpKind::Bitcast: {
    auto inputType = cast<RankedTensorType>(in[0].getType());
    return lazy::BitcastOp::create(
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
  case OpKind::Conv2d:
    return lazy::Conv2dOp::create(b, loc, in[0], in[1], node.ints, node.ints2,
                                  node.ints3);
  case OpKind::Gather:
    return lazy::GatherOp::create(b, loc, in[0], in[1], node.integer);
  case OpKind::ScatterAdd:
    return lazy::ScatterAddOp::create(b, loc, in[0], in[1], in[2],
                                      node.integer);
  case OpKind::ArgMax:
    return lazy::ArgMaxOp::create(b, loc, in[0], node.integer, node.flag);
  case OpKind::ArgMin:
    return lazy::ArgMinOp::create(b, loc, in[0], node.integer, node.flag);
  case OpKind::Cumsum:
    return lazy::CumsumOp::create(b, loc, in[0], node.integer, node.flag);
  case OpKind::IndexRow:
    return lazy::IndexRowOp::create(b, loc, in[0], in[1]);
  case OpKind::UpdateRow:
    return lazy::UpdateRowOp::create(b, loc, in[0], in[1], in[2]);
  case OpKind::Collective: {
    auto kind = static_cast<lazy::CollectiveKind>(node.integer);
    lazy::CollectiveReductionAttr reduction;
    if (kind == lazy::CollectiveKind::all_reduce ||
        kind == lazy::CollectiveKind::reduce_scatter)
      reduction = lazy::CollectiveReductionAttr::get(
          b.getContext(), static_cast<lazy::CollectiveReduction>(node.ints[0]));
    IntegerAttr root;
    if (kind == lazy::CollectiveKind::broadcast)
      root = b.getI64IntegerAttr(node.ints[1]);
    return lazy::CollectiveOp::create(
        b, loc, lazy::CollectiveKindAttr::get(b.getContext(), kind), in[0],
        reduction, root, b.getI64IntegerAttr(node.ints[2]));
  }
  case OpKind::Attention:
    return lazy::AttentionOp::create(
        b, loc, in[0], in[1], in[2], in[3], in.size() > 4 ? in[4] : Value(),
        llvm::APFloat(node.scalar), llvm::APFloat(node.scalar2), node.flag);
  case OpKind::AttentionGrad:
    return lazy::AttentionGradOp::create(
        b, loc, static_cast<lazy::AttentionGradient>(node.integer), in[0],
        in[1], in[2], in[3], in[4], in[5], in.size() > 6 ? in[6] : Value(),
        llvm::APFloat(node.scalar), llvm::APFloat(node.scalar2), node.flag);
  case OpKind::If:
  case OpKind::While:
  case OpKind::Result:
    llvm_unreachable("control flow is built with its regions");
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

//===----------------------------------------------------------------------===//
// Trace and region bodies
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Sizes left to the call
//===----------------------------------------------------------------------===//

namespace {
/// The shape of `types`, tensors of one size and rank, with each dimension
/// dynamic where one of them has it dynamic; none unless they are ranked
/// tensors of one rank.
static std::optional<SmallVector<int64_t>> joinedShape(TypeRange types) {
  auto first = dyn_cast<RankedTensorType>(types.front());
  if (!first)
    return std::nullopt;
  SmallVector<int64_t> joined(first.getShape());
  for (Type each : types) {
    auto type = dyn_cast<RankedTensorType>(each);
    if (!type || type.getRank() != first.getRank())
      return std::nullopt;
    for (auto [dim, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        joined[dim] = ShapedType::kDynamic;
  }
  return joined;
}

/// Casts the operands of an elementwise op to one shape where one has a
/// dynamic size that another knows statically (a staged function's
/// parameter of unknown batch size, and a value of the same size built
/// from static pieces): the op wants operands of identical type.
static void joinShapes(OpBuilder &b, Location loc,
                       SmallVectorImpl<Value> &operands) {
  std::optional<SmallVector<int64_t>> joined =
      joinedShape(ValueRange(operands).getTypes());
  if (!joined)
    return;
  for (Value &operand : operands) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getShape() != ArrayRef<int64_t>(*joined))
      operand = tensor::CastOp::create(b, loc, type.clone(*joined), operand);
  }
}

/// The shapes of a trace's nodes when some sizes are dynamic (all of them
/// with ImportOptions::dynamicShapes, else those marked in
/// ImportOptions::dynamicSizes), and the values of those sizes: a node
/// whose sizes are data (trace::sizesAreData) reads its dynamic ones from
/// the function's last argument, a tensor<Nxi64> laid out as
/// trace::runtimeSizes() writes it.
class DynamicSizes {
public:
  DynamicSizes(const Trace &trace, const import::ImportOptions &options)
      : trace(trace), options(options) {
    size_t offset = 0;
    for (const Node *node : trace.nodes) {
      offsets.push_back(offset);
      offset += node->shape.size();
    }
    stretchedSizes(trace, stretched);
    std::vector<bool> isArgument(trace.nodes.size());
    for (int32_t index : trace.arguments)
      isArgument[index] = true;
    for (size_t i = 0; i < trace.nodes.size(); ++i) {
      firstSize.push_back(count);
      if (!isArgument[i] && sizesAreData(trace.nodes[i]->kind))
        for (size_t d = 0; d < trace.nodes[i]->shape.size(); ++d)
          count += isDynamic(i, d);
    }
  }

  /// Whether any size is dynamic.
  bool any() const {
    return options.dynamicShapes ||
           llvm::is_contained(options.dynamicSizes, true);
  }
  bool isDynamic(size_t node, size_t dim) const {
    size_t index = offsets[node] + dim;
    if (stretched[index])
      return false;
    return options.dynamicShapes ||
           (index < options.dynamicSizes.size() && options.dynamicSizes[index]);
  }
  /// Node `node`'s type, `?` for its dynamic sizes.
  RankedTensorType type(Builder &b, size_t node) const {
    const Node &n = *trace.nodes[node];
    SmallVector<int64_t> shape(n.shape.begin(), n.shape.end());
    for (size_t d = 0; d < shape.size(); ++d)
      if (isDynamic(node, d))
        shape[d] = ShapedType::kDynamic;
    return RankedTensorType::get(shape,
                                 import::elementType(*b.getContext(), n.dtype));
  }
  /// The type of the size argument, if the function has one.
  std::optional<RankedTensorType> argumentType(Builder &b) const {
    if (count == 0)
      return std::nullopt;
    return RankedTensorType::get({static_cast<int64_t>(count)}, b.getI64Type());
  }
  /// The dynamic sizes of node `node` (whose sizes are data), as indices.
  SmallVector<Value> sizesOf(OpBuilder &b, Location loc, size_t node) const {
    SmallVector<Value> sizes;
    size_t next = firstSize[node];
    for (size_t d = 0; d < trace.nodes[node]->shape.size(); ++d) {
      if (!isDynamic(node, d))
        continue;
      Value index = arith::ConstantIndexOp::create(b, loc, next++);
      Value size = tensor::ExtractOp::create(b, loc, sizeArgument, index);
      sizes.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), size));
    }
    return sizes;
  }

  /// Builds node `node`, whose sizes are data, with its dynamic sizes.
  Value buildSized(OpBuilder &b, Location loc, size_t node,
                   ArrayRef<Value> in) const {
    const Node &n = *trace.nodes[node];
    RankedTensorType type = this->type(b, node);
    SmallVector<Value> sizes = sizesOf(b, loc, node);
    switch (n.kind) {
    case OpKind::Broadcast:
      return lazy::BroadcastOp::create(b, loc, in[0], sizes, type.getShape());
    case OpKind::Reshape:
      return lazy::ReshapeOp::create(b, loc, in[0], sizes, type.getShape());
    case OpKind::RandomUniform:
      return lazy::RandomUniformOp::create(b, loc, type, in[0], sizes,
                                           b.getF64FloatAttr(n.scalar),
                                           b.getF64FloatAttr(n.scalar2));
    case OpKind::RandomNormal:
      return lazy::RandomNormalOp::create(b, loc, type, in[0], sizes,
                                          b.getF64FloatAttr(n.scalar),
                                          b.getF64FloatAttr(n.scalar2));
    default:
      llvm_unreachable("only these nodes (and literals) take sizes as data");
    }
  }

  /// `value` (node `node`), cast to static sizes where it has a dynamic
  /// size the node's shape keeps static: the ops after it then see the
  /// types the shapes promise (two operands of an elementwise op agree).
  Value withStaticSizes(OpBuilder &b, Location loc, size_t node,
                        Value value) const {
    auto inferred = cast<RankedTensorType>(value.getType());
    RankedTensorType promised = type(b, node);
    if (inferred.getRank() != promised.getRank())
      return value;
    SmallVector<int64_t> shape(inferred.getShape());
    for (auto [dim, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size))
        size = promised.getDimSize(dim);
    if (shape == inferred.getShape())
      return value;
    return tensor::CastOp::create(b, loc, inferred.clone(shape), value);
  }

  Value sizeArgument;

private:
  const Trace &trace;
  const import::ImportOptions &options;
  /// Per node: where its sizes start in traceSizes() order, and in the
  /// size argument.
  std::vector<size_t> offsets, firstSize;
  std::vector<bool> stretched;
  size_t count = 0;
};
} // namespace

namespace {
/// Builds the ops of a trace, or of a control-flow node's region, in order.
class BodyBuilder {
public:
  BodyBuilder(OpBuilder &b, const import::ImportOptions &options)
      : b(b), options(options) {}

  /// Builds the ops of `body` whose value is not set yet. `blame` is the
  /// trace position that errors in a region blame (its control-flow node).
  void build(const Trace &body, std::vector<Value> &values,
             std::optional<size_t> blame);

private:
  Location locationOf(const Node &node, size_t position, size_t blamed);
  /// Builds an If or While at `position` of `body`; sets its Result nodes'
  /// values.
  void buildControlFlow(const Trace &body, size_t position,
                        std::vector<Value> &values, Location loc,
                        size_t blamed);
  /// Fills `dest` with `region`, whose captures read `operands` and whose
  /// Parameters are the block's arguments (`arguments`); `yield` picks the
  /// yielded values from the region's values.
  void
  buildRegion(mlir::Region &dest, const trace::Region &region,
              ArrayRef<Value> operands, TypeRange arguments, size_t blamed,
              llvm::function_ref<SmallVector<Value>(ArrayRef<Value>)> yield);

  OpBuilder &b;
  const import::ImportOptions &options;

public:
  /// The trace's dynamic sizes, when it has some (not its regions').
  const DynamicSizes *dynamic = nullptr;
};
} // namespace

Location BodyBuilder::locationOf(const Node &node, size_t position,
                                 size_t blamed) {
  MLIRContext &context = *b.getContext();
  // "mul#7" at the user's line: printed diagnostics name the op, its
  // position in the trace and where the user wrote it; the opaque wrapper
  // carries the position itself, for errors to blame the node
  // (tracePosition) without reading it back out of text.
  Location named = NameLoc::get(
      b.getStringAttr(std::string(opName(node.kind)) + "#" +
                      std::to_string(position)),
      node.loc.line ? Location(FileLineColLoc::get(&context, node.loc.file,
                                                   node.loc.line, 0))
                    : Location(UnknownLoc::get(&context)));
  return OpaqueLoc::get(static_cast<uintptr_t>(blamed),
                        TypeID::get<TracePositionTag>(), named);
}

void BodyBuilder::build(const Trace &body, std::vector<Value> &values,
                        std::optional<size_t> blame) {
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    if (values[i])
      continue;
    const Node &node = *body.nodes[i];
    size_t blamed = blame.value_or(i);
    Location loc = locationOf(node, i, blamed);
    if (hasRegions(node.kind)) {
      buildControlFlow(body, i, values, loc, blamed);
      continue;
    }
    SmallVector<Value> operands;
    for (int32_t operand : body.operands(i))
      operands.push_back(values[operand]);
    // Also inside a region: a branch may combine a captured value of
    // dynamic size with one it built from static pieces (lazyc-fuzz seed
    // 99478).
    if (isElementwiseOp(node.kind))
      joinShapes(b, loc, operands);
    if (dynamic && !blame) {
      values[i] = sizesAreData(node.kind)
                      ? dynamic->buildSized(b, loc, i, operands)
                      : buildNode(b, loc, node, operands, true);
      values[i] = dynamic->withStaticSizes(b, loc, i, values[i]);
      continue;
    }
    values[i] = buildNode(b, loc, node, operands, options.dynamicShapes);
  }
}

/// With dynamic sizes a branch may yield a dynamic shape where the trace
/// recorded a static one (it computes from a captured value of dynamic
/// size): each result of `op` takes the join of its recorded shape and both
/// branches' (joinedShape), and a yield of another shape is cast to it.
static void joinResultShapes(lazy::IfOp op) {
  Operation *yields[] = {op.getThenRegion().front().getTerminator(),
                         op.getElseRegion().front().getTerminator()};
  for (OpResult result : op->getResults()) {
    unsigned k = result.getResultNumber();
    std::optional<SmallVector<int64_t>> joined =
        joinedShape({result.getType(), yields[0]->getOperand(k).getType(),
                     yields[1]->getOperand(k).getType()});
    if (!joined)
      continue;
    auto recorded = cast<RankedTensorType>(result.getType());
    if (recorded.getShape() == ArrayRef<int64_t>(*joined))
      continue;
    result.setType(recorded.clone(*joined));
    for (Operation *yield : yields) {
      Value value = yield->getOperand(k);
      if (value.getType() == result.getType())
        continue;
      OpBuilder b(yield);
      yield->setOperand(
          k, tensor::CastOp::create(b, op.getLoc(), result.getType(), value));
    }
  }
}

void BodyBuilder::buildControlFlow(const Trace &body, size_t position,
                                   std::vector<Value> &values, Location loc,
                                   size_t blamed) {
  const Node &node = *body.nodes[position];
  const Regions &regions = regionsOf(node);
  // The node's values are the Result nodes reading it, in trace order.
  SmallVector<size_t> resultNodes;
  SmallVector<Type> resultTypes;
  for (size_t j = position + 1; j < body.nodes.size(); ++j)
    if (body.nodes[j]->kind == OpKind::Result &&
        static_cast<size_t>(body.operands(j)[0]) == position) {
      resultNodes.push_back(j);
      resultTypes.push_back(tensorType(b, *body.nodes[j], false));
    }
  SmallVector<Value> operands;
  for (int32_t operand : body.operands(position))
    operands.push_back(values[operand]);

  // Region `r` yields, for each Result node, the user result it names, the
  // intermediate it names if that is in `r`, or zeros (never read: only the
  // gradient of the branch that ran reads its intermediates).
  auto yieldFor = [&](size_t r) {
    return [&, r](ArrayRef<Value> regionValues) {
      const trace::Region &region = regions.regions[r];
      SmallVector<Value> yielded;
      for (size_t j : resultNodes) {
        const Node &result = *body.nodes[j];
        if (result.ints[0] == kUserResult) {
          yielded.push_back(regionValues[region.body.outputs[result.ints[1]]]);
        } else if (result.ints[0] == static_cast<int64_t>(r)) {
          yielded.push_back(regionValues[result.ints[1]]);
        } else {
          auto type = tensorType(b, result, false);
          yielded.push_back(lazy::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(type,
                                     b.getZeroAttr(type.getElementType()))));
        }
      }
      return yielded;
    };
  };

  if (node.kind == OpKind::If) {
    auto op = lazy::IfOp::create(b, loc, resultTypes, operands[0]);
    buildRegion(op.getThenRegion(), regions.regions[0], operands, {}, blamed,
                yieldFor(0));
    buildRegion(op.getElseRegion(), regions.regions[1], operands, {}, blamed,
                yieldFor(1));
    joinResultShapes(op);
    for (auto [k, j] : llvm::enumerate(resultNodes))
      values[j] = op.getResult(k);
    return;
  }
  // A While's results are its carried values: every one, whichever Result
  // nodes the trace holds.
  ArrayRef<Value> inits = ArrayRef<Value>(operands).take_front(regions.carried);
  auto op = lazy::WhileOp::create(b, loc, inits);
  TypeRange carried = ValueRange(inits).getTypes();
  const trace::Region &condition = regions.regions[0];
  const trace::Region &loopBody = regions.regions[1];
  buildRegion(op.getCondition(), condition, operands, carried, blamed,
              [&](ArrayRef<Value> regionValues) {
                return SmallVector<Value>{
                    regionValues[condition.body.outputs[0]]};
              });
  buildRegion(op.getBody(), loopBody, operands, carried, blamed,
              [&](ArrayRef<Value> regionValues) {
                SmallVector<Value> next;
                for (int32_t output : loopBody.body.outputs)
                  next.push_back(regionValues[output]);
                return next;
              });
  for (size_t j : resultNodes)
    values[j] = op.getResult(body.nodes[j]->ints[1]);
}

void BodyBuilder::buildRegion(
    mlir::Region &dest, const trace::Region &region, ArrayRef<Value> operands,
    TypeRange arguments, size_t blamed,
    llvm::function_ref<SmallVector<Value>(ArrayRef<Value>)> yield) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locations(arguments.size(), b.getUnknownLoc());
  Block *block = b.createBlock(&dest, {}, arguments, locations);
  const Trace &body = region.body;
  std::vector<Value> values(body.nodes.size());
  for (auto [capture, index] : llvm::enumerate(body.arguments))
    values[index] = operands[region.captureOperands[capture]];
  for (auto [i, node] : llvm::enumerate(body.nodes))
    if (node->kind == OpKind::Parameter)
      values[i] = block->getArgument(node->integer);
  build(body, values, blamed);
  lazy::YieldOp::create(b, b.getUnknownLoc(), yield(values));
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
  DynamicSizes dynamic(trace, options);
  SmallVector<Type> argumentTypes, resultTypes;
  for (int32_t index : trace.arguments)
    argumentTypes.push_back(dynamic.type(b, index));
  // A literal fills its shape with one value: promoted, it is passed as a
  // rank-0 tensor and broadcast.
  for (size_t i = 0; i < trace.literals.size(); ++i)
    if (promoted(i))
      argumentTypes.push_back(RankedTensorType::get(
          {}, import::elementType(*b.getContext(),
                                  trace.nodes[trace.literals[i]]->dtype)));
  if (std::optional<RankedTensorType> sizes = dynamic.argumentType(b))
    argumentTypes.push_back(*sizes);
  for (int32_t index : trace.outputs)
    resultTypes.push_back(dynamic.type(b, index));

  auto function = func::FuncOp::create(
      b, unknown, name, b.getFunctionType(argumentTypes, resultTypes));
  Block *entry = function.addEntryBlock();
  b.setInsertionPointToStart(entry);

  std::vector<Value> values(trace.nodes.size());
  for (auto [argument, index] : llvm::enumerate(trace.arguments))
    values[index] = entry->getArgument(argument);
  if (dynamic.argumentType(b)) {
    dynamic.sizeArgument = entry->getArguments().back();
    // Read by the host code (to size buffers and launches), in host memory
    // on every target.
    function.setArgAttr(function.getNumArguments() - 1, lazy::kHostBufferAttr,
                        b.getUnitAttr());
  }
  unsigned nextPromoted = trace.arguments.size();
  for (auto [literal, index] : llvm::enumerate(trace.literals)) {
    const Node &node = *trace.nodes[index];
    RankedTensorType type = dynamic.type(b, index);
    // A literal of dynamic sizes is its rank-0 value broadcast to them.
    Value scalar;
    if (promoted(literal)) {
      // Host memory on every target: a GPU's kernels get the value as a
      // parameter.
      function.setArgAttr(nextPromoted, lazy::kHostBufferAttr, b.getUnitAttr());
      scalar = entry->getArgument(nextPromoted++);
    } else
      scalar = lazy::ConstantOp::create(
          b, unknown,
          DenseElementsAttr::get(
              type.hasStaticShape()
                  ? type
                  : RankedTensorType::get({}, type.getElementType()),
              ArrayRef<Attribute>{literalAttr(b, node)}));
    if (node.shape.empty() || (!promoted(literal) && type.hasStaticShape())) {
      values[index] = scalar;
      continue;
    }
    values[index] = lazy::BroadcastOp::create(
        b, unknown, scalar, dynamic.sizesOf(b, unknown, index),
        type.getShape());
  }
  BodyBuilder body(b, options);
  if (dynamic.any())
    body.dynamic = &dynamic;
  body.build(trace, values, std::nullopt);
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
  if (dynamic.any())
    function.setType(
        b.getFunctionType(argumentTypes, ValueRange(results).getTypes()));
  return module;
}
