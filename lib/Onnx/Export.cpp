//===- Export.cpp - Staged functions written as ONNX models ---------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// lazyc::onnx::save traces a staged function once more (as lazyc::save
// does) and writes each trace node as one or a few ONNX nodes of opset 17;
// cond and whileLoop become If and Loop, their regions subgraphs.
//
// Symbolic dimensions: a dimension the function's signature leaves unknown
// (-1) is named in the model ("x_dim0"). Its sizes that ops hold as
// attributes (a reshape's or broadcast's target, a slice's bounds) must
// then be computed from the input's runtime shape: each follows the
// dimension affinely (lazyc::detail::stageSymbolically checks it on three
// traces) and becomes that function of `Shape(input)`. A reshape may leave
// one entry that depends on several (B * T) to ONNX's -1.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/StagedTrace.h"
#include "lazyc/Onnx/Onnx.h"
#include "lazyc/Runtime/IntegerBits.h"

#include "lazyc/Trace/Region.h"
#include "lazyc/Trace/Trace.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <span>

using namespace lazyc;
using namespace lazyc::trace;
using lazyc::detail::SizeExpression;
using lazyc::detail::StagedTrace;
using lazyc::detail::SymbolicStaging;
using lazyc::detail::UnknownDimension;

namespace {

constexpr int64_t kOpsetVersion = 17;
constexpr int64_t kIrVersion = 8; // The IR version of opset 17.

int32_t onnxElementType(DType dtype) {
  using P = ::onnx::TensorProto;
  switch (dtype) {
  case DType::Float32:
    return P::FLOAT;
  case DType::Float64:
    return P::DOUBLE;
  case DType::Float16:
    return P::FLOAT16;
  case DType::BFloat16:
    return P::BFLOAT16;
  case DType::Int32:
    return P::INT32;
  case DType::Int64:
    return P::INT64;
  case DType::Bool:
    return P::BOOL;
  case DType::Int8:
    return P::INT8;
  case DType::UInt8:
    return P::UINT8;
  case DType::Int16:
    return P::INT16;
  case DType::UInt16:
    return P::UINT16;
  case DType::UInt32:
    return P::UINT32;
  case DType::UInt64:
    return P::UINT64;
  }
  return P::UNDEFINED;
}

/// Value names of the whole model (ONNX wants them unique, subgraphs
/// included).
struct ModelNames {
  std::set<std::string> used;
  int counter = 0;
};

class GraphWriter {
public:
  GraphWriter(const SymbolicStaging &staging, ModelNames &model,
              const std::string &function, SourceLocation where)
      : base(&staging.base), staging(&staging), trace(staging.base.trace),
        model(model), function(function), where(where) {}

  void write(::onnx::GraphProto &graph);

private:
  using Entry = std::function<int64_t(const Node &, size_t)>;

  [[noreturn]] void fail(const Node &node, const std::string &message) const;

  std::string fresh(const std::string &hint);
  ::onnx::NodeProto &add(const std::string &op,
                         const std::vector<std::string> &inputs,
                         const std::string &output);
  std::string emit(const std::string &op,
                   const std::vector<std::string> &inputs,
                   const std::string &hint = "t");
  std::string int64s(const std::vector<int64_t> &values, bool scalar = false);
  std::string scalarOf(DType dtype, double value);

  /// How entry `i` of node `position` follows the unknown dimensions
  /// (constant in a region: regions are written for static shapes).
  SizeExpression dependence(int32_t position, const Entry &entry,
                            size_t i) const {
    if (!staging)
      return {-1, 0, entry(*trace.nodes[position], i), 1, true};
    return staging->expression(position, entry, i);
  }
  std::string symbolSize(int symbol);
  /// A 1-D Int64 tensor of `count` entries of node `position`; an entry
  /// that depends on several symbols becomes -1 if `inferOne` and it is
  /// the only one.
  std::string sizes(int32_t position, const Entry &entry, size_t count,
                    bool inferOne, const char *what);
  std::string shapeOf(int32_t position, const char *what) {
    return sizes(
        position, [](const Node &n, size_t d) { return n.shape[d]; },
        trace.nodes[position]->shape.size(), false, what);
  }
  /// Node `operand`'s size along `axis`, as a 0-d Int64 tensor.
  std::string sizeAlong(int32_t operand, size_t axis);
  /// An index clamped to [0, size) after counting a negative one from the
  /// end, as lazyc's gather, scatterAdd and row ops do.
  std::string clampIndex(const std::string &index, DType dtype,
                         const std::string &size);
  void addValueInfo(::onnx::ValueInfoProto &info, const std::string &name,
                    int32_t position);

  void writeNode(int32_t position);
  /// An If or While node: ONNX's If and Loop, the regions as subgraphs.
  void writeControlFlow(int32_t position);
  /// The nodes of `region` into `into`, its captured values and Parameters
  /// named by `bound`: returns each node's value name.
  std::vector<std::string>
  writeRegion(const Region &region, int32_t position, ::onnx::GraphProto &into,
              const std::vector<std::string> &parameters);

  /// A writer of a region's nodes (static sizes, names of the model).
  GraphWriter(const Trace &trace, const GraphWriter &parent)
      : base(nullptr), staging(nullptr), trace(trace), model(parent.model),
        function(parent.function), where(parent.where) {}

  const StagedTrace *base;        ///< Null for a region.
  const SymbolicStaging *staging; ///< Null for a region.
  const Trace &trace;
  ModelNames &model;
  std::string function;
  SourceLocation where;

  ::onnx::GraphProto *graph = nullptr;
  std::vector<std::string> names; ///< Per trace node, its ONNX value.
  std::map<int, std::string> symbolSizes;
};

void GraphWriter::fail(const Node &node, const std::string &message) const {
  std::string at = node.loc.line
                       ? std::string(" (recorded at ") + node.loc.file + ":" +
                             std::to_string(node.loc.line) + ")"
                       : "";
  throw Error("onnx::save",
              function + " cannot be exported: its " + opName(node.kind) + at +
                  " " + message,
              where);
}

std::string GraphWriter::fresh(const std::string &hint) {
  std::string name = hint;
  while (!model.used.insert(name).second)
    name = hint + "_" + std::to_string(model.counter++);
  return name;
}

::onnx::NodeProto &GraphWriter::add(const std::string &op,
                                    const std::vector<std::string> &inputs,
                                    const std::string &output) {
  ::onnx::NodeProto &node = *graph->add_node();
  node.set_op_type(op);
  node.set_name(fresh(op + "_" + std::to_string(graph->node_size())));
  for (const std::string &input : inputs)
    node.add_input(input);
  node.add_output(output);
  return node;
}

std::string GraphWriter::emit(const std::string &op,
                              const std::vector<std::string> &inputs,
                              const std::string &hint) {
  std::string output = fresh(hint);
  add(op, inputs, output);
  return output;
}

void setInts(::onnx::NodeProto &node, const std::string &name,
             const std::vector<int64_t> &values) {
  ::onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(::onnx::AttributeProto::INTS);
  for (int64_t value : values)
    attribute.add_ints(value);
}

void setInt(::onnx::NodeProto &node, const std::string &name, int64_t value) {
  ::onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(::onnx::AttributeProto::INT);
  attribute.set_i(value);
}

void setFloat(::onnx::NodeProto &node, const std::string &name, float value) {
  ::onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(::onnx::AttributeProto::FLOAT);
  attribute.set_f(value);
}

void setString(::onnx::NodeProto &node, const std::string &name,
               const std::string &value) {
  ::onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(::onnx::AttributeProto::STRING);
  attribute.set_s(value);
}

/// The user's line that recorded `node`, as the ONNX node's doc string.
void recordedAt(::onnx::NodeProto &op, const Node &node) {
  if (node.loc.line)
    op.set_doc_string(std::string(node.loc.file) + ":" +
                      std::to_string(node.loc.line));
}

/// A ValueInfo of `node`'s dtype and (static) shape.
void describe(::onnx::ValueInfoProto &info, const std::string &name,
              const Node &node) {
  info.set_name(name);
  ::onnx::TypeProto_Tensor &type = *info.mutable_type()->mutable_tensor_type();
  type.set_elem_type(onnxElementType(node.dtype));
  ::onnx::TensorShapeProto &shape = *type.mutable_shape();
  for (int64_t size : node.shape)
    shape.add_dim()->set_dim_value(size);
}

std::string GraphWriter::int64s(const std::vector<int64_t> &values,
                                bool scalar) {
  ::onnx::TensorProto &tensor = *graph->add_initializer();
  tensor.set_name(fresh("c"));
  tensor.set_data_type(::onnx::TensorProto::INT64);
  if (!scalar)
    tensor.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t value : values)
    tensor.add_int64_data(value);
  return tensor.name();
}

/// A 0-d constant of `dtype` holding `value` (rounded once to the dtype, as
/// lazyc's literals are: Float16 and BFloat16 by a Cast from Float64).
std::string GraphWriter::scalarOf(DType dtype, double value) {
  ::onnx::TensorProto &tensor = *graph->add_initializer();
  tensor.set_name(fresh("c"));
  DType stored = dtype == DType::Float16 || dtype == DType::BFloat16
                     ? DType::Float64
                     : dtype;
  tensor.set_data_type(onnxElementType(stored));
  std::string bytes(sizeOf(stored), '\0');
  auto store = [&](auto typed) {
    std::memcpy(bytes.data(), &typed, sizeof typed);
  };
  switch (stored) {
  case DType::Float32:
    store(static_cast<float>(value));
    break;
  case DType::Float64:
    store(value);
    break;
  case DType::Bool:
    store(static_cast<uint8_t>(value != 0));
    break;
  case DType::Float16: // Stored as Float64 above.
  case DType::BFloat16:
    break;
  default: { // An integer: the low bytes of its bits.
    uint64_t bits = integerBits(value);
    std::memcpy(bytes.data(), &bits, bytes.size());
    break;
  }
  }
  tensor.set_raw_data(bytes);
  if (stored == dtype)
    return tensor.name();
  ::onnx::NodeProto &cast = add("Cast", {tensor.name()}, fresh("c"));
  setInt(cast, "to", onnxElementType(dtype));
  return cast.output(0);
}

std::string GraphWriter::symbolSize(int g) {
  auto [it, inserted] = symbolSizes.try_emplace(g);
  if (inserted) {
    const UnknownDimension &symbol = staging->dimensions[size_t(g)];
    ::onnx::NodeProto &shape = add(
        "Shape", {names[trace.arguments[symbol.input]]}, fresh(symbol.name));
    setInt(shape, "start", static_cast<int64_t>(symbol.axis));
    setInt(shape, "end", static_cast<int64_t>(symbol.axis) + 1);
    it->second = shape.output(0);
  }
  return it->second;
}

std::string GraphWriter::sizes(int32_t position, const Entry &entry,
                               size_t count, bool inferOne, const char *what) {
  std::vector<std::string> pieces;
  std::vector<int64_t> pending; // Static entries not yet in a piece.
  bool inferred = false, dynamic = false;
  auto flush = [&] {
    if (!pending.empty())
      pieces.push_back(int64s(pending));
    pending.clear();
  };
  for (size_t i = 0; i < count; ++i) {
    SizeExpression d = dependence(position, entry, i);
    if (d.dimension < 0) {
      pending.push_back(d.offset);
      continue;
    }
    dynamic = true;
    if (!d.affine) {
      if (!inferOne || inferred)
        fail(*trace.nodes[position],
             std::string("has a ") + what +
                 " that depends on the unknown dimensions in a way ONNX "
                 "cannot compute here (entry " +
                 std::to_string(i) +
                 " is not an affine function of one of them); give them "
                 "sizes in the signature");
      inferred = true;
      pending.push_back(-1);
      continue;
    }
    flush();
    std::string value = symbolSize(d.dimension);
    if (d.scale != 1)
      value = emit("Mul", {value, int64s({d.scale})});
    if (d.offset != 0)
      value = emit("Add", {value, int64s({d.offset})});
    if (d.divisor != 1)
      value = emit("Div", {value, int64s({d.divisor})});
    pieces.push_back(value);
  }
  flush();
  if (!dynamic)
    return pieces.empty() ? int64s({}) : pieces.front();
  if (pieces.size() == 1)
    return pieces.front();
  ::onnx::NodeProto &concat = add("Concat", pieces, fresh("shape"));
  setInt(concat, "axis", 0);
  return concat.output(0);
}

std::string GraphWriter::sizeAlong(int32_t operand, size_t axis) {
  std::string size = sizes(
      operand, [axis](const Node &n, size_t) { return n.shape[axis]; }, 1,
      false, "size");
  return emit("Reshape", {size, int64s({}, /*scalar=*/false)}, "size");
}

std::string GraphWriter::clampIndex(const std::string &index, DType dtype,
                                    const std::string &size) {
  std::string typedSize = size;
  if (dtype != DType::Int64) {
    ::onnx::NodeProto &cast = add("Cast", {size}, fresh("size"));
    setInt(cast, "to", onnxElementType(dtype));
    typedSize = cast.output(0);
  }
  std::string zero = scalarOf(dtype, 0), one = scalarOf(dtype, 1);
  std::string negative = emit("Less", {index, zero});
  std::string fromEnd = emit("Add", {index, typedSize});
  std::string counted = emit("Where", {negative, fromEnd, index});
  std::string last = emit("Sub", {typedSize, one});
  return emit("Min", {emit("Max", {counted, zero}), last}, "index");
}

void GraphWriter::addValueInfo(::onnx::ValueInfoProto &info,
                               const std::string &name, int32_t position) {
  const Node &node = *trace.nodes[position];
  info.set_name(name);
  ::onnx::TypeProto_Tensor &type = *info.mutable_type()->mutable_tensor_type();
  type.set_elem_type(onnxElementType(node.dtype));
  ::onnx::TensorShapeProto &shape = *type.mutable_shape();
  for (size_t d = 0; d < node.shape.size(); ++d) {
    ::onnx::TensorShapeProto_Dimension &dim = *shape.add_dim();
    SizeExpression found = dependence(
        position, [](const Node &n, size_t i) { return n.shape[i]; }, d);
    if (found.dimension < 0)
      dim.set_dim_value(found.offset);
    else if (found.isDimension())
      dim.set_dim_param(staging->dimensions[size_t(found.dimension)].name);
    // Otherwise unknown: a size computed from several.
  }
}

void GraphWriter::write(::onnx::GraphProto &out) {
  graph = &out;
  names.assign(trace.nodes.size(), "");
  size_t inputCount = base->inputs.size();

  for (size_t i = 0; i < inputCount; ++i) {
    names[trace.arguments[i]] = fresh(base->inputs[i].name);
    addValueInfo(*graph->add_input(), names[trace.arguments[i]],
                 trace.arguments[i]);
  }
  int constants = 0;
  for (size_t i = 0; i < base->capturedVariables.size(); ++i) {
    int32_t position = trace.arguments[inputCount + i];
    const Node &node = *trace.nodes[position];
    std::string name = base->capturedVariables[i];
    if (name.empty())
      name = "constant_" + std::to_string(constants++);
    names[position] = fresh(name);
    ::onnx::TensorProto &tensor = *graph->add_initializer();
    tensor.set_name(names[position]);
    tensor.set_data_type(onnxElementType(node.dtype));
    for (int64_t dim : node.shape)
      tensor.add_dims(dim);
    std::vector<uint8_t> bytes = lazyc::detail::valueBytes(node, where);
    tensor.set_raw_data(bytes.data(), bytes.size());
  }

  for (size_t position = 0; position < trace.nodes.size(); ++position)
    if (names[position].empty())
      writeNode(static_cast<int32_t>(position));

  // Outputs through an Identity each: a value may be returned twice, be
  // an argument, or be a constant.
  int returned = 0;
  size_t returnedCount = 0;
  for (const StagedTrace::Value &result : base->results)
    returnedCount += result.name.empty();
  for (auto [i, position] : llvm::enumerate(trace.outputs)) {
    const std::string &variable = base->results[i].name;
    std::string name = !variable.empty() ? variable + "_new"
                       : returnedCount == 1
                           ? "output"
                           : "output_" + std::to_string(returned);
    returned += variable.empty();
    name = fresh(name);
    add("Identity", {names[position]}, name);
    addValueInfo(*graph->add_output(), name, position);
  }
}

void GraphWriter::writeNode(int32_t position) {
  const Node &node = *trace.nodes[position];
  std::span<const int32_t> operands = trace.operands(position);
  std::vector<std::string> in;
  for (int32_t operand : operands)
    in.push_back(names[operand]);
  std::string hint = "v" + std::to_string(position);
  std::string out;
  auto simple = [&](const char *op) { out = emit(op, in, hint); };
  auto intDType = [&] { return !isFloatingPoint(node.dtype); };
  switch (node.kind) {
  case OpKind::Literal: {
    // Its value is baked in, so it must not move with a symbol.
    if (staging && staging->literalVaries(position))
      fail(node, "holds a value (" + std::to_string(node.scalar) +
                     ") computed from an unknown dimension's size; compute "
                     "it with tensor ops (mean rather than sum / size) or "
                     "give the dimension a size in the signature");
    out = scalarOf(node.dtype, node.scalar);
    if (!node.shape.empty())
      out = emit("Expand", {out, shapeOf(position, "shape")}, hint);
    break;
  }
  case OpKind::Add:
    simple("Add");
    break;
  case OpKind::Sub:
    simple("Sub");
    break;
  case OpKind::Mul:
    simple("Mul");
    break;
  case OpKind::Div:
    simple("Div");
    break;
  case OpKind::Pow:
    simple("Pow");
    break;
  case OpKind::Max:
    simple("Max");
    break;
  case OpKind::Min:
    simple("Min");
    break;
  case OpKind::FloorDiv:
  case OpKind::Mod: {
    // numpy's floor division and remainder (the remainder takes the
    // divisor's sign).
    std::string remainder;
    if (intDType()) {
      ::onnx::NodeProto &mod = add("Mod", in, fresh("mod"));
      setInt(mod, "fmod", 0);
      remainder = mod.output(0);
    } else {
      ::onnx::NodeProto &mod = add("Mod", in, fresh("fmod"));
      setInt(mod, "fmod", 1);
      std::string zero = scalarOf(node.dtype, 0);
      std::string nonzero = emit("Not", {emit("Equal", {mod.output(0), zero})});
      std::string signsDiffer =
          emit("Xor", {emit("Less", {mod.output(0), zero}),
                       emit("Less", {in[1], zero})});
      std::string adjust = emit("And", {nonzero, signsDiffer});
      remainder = emit("Where", {adjust, emit("Add", {mod.output(0), in[1]}),
                                 mod.output(0)});
    }
    if (node.kind == OpKind::Mod)
      out = emit("Identity", {remainder}, hint);
    else if (intDType())
      out = emit("Div", {emit("Sub", {in[0], remainder}), in[1]}, hint);
    else
      out = emit("Floor", {emit("Div", in)}, hint);
    break;
  }
  case OpKind::Neg:
    simple("Neg");
    break;
  case OpKind::Abs:
    simple("Abs");
    break;
  case OpKind::Relu:
    if (intDType())
      out = emit("Max", {in[0], scalarOf(node.dtype, 0)}, hint);
    else
      simple("Relu");
    break;
  case OpKind::Exp:
    simple("Exp");
    break;
  case OpKind::Log:
    simple("Log");
    break;
  case OpKind::Tanh:
    simple("Tanh");
    break;
  case OpKind::Sigmoid:
    simple("Sigmoid");
    break;
  case OpKind::Sqrt:
    simple("Sqrt");
    break;
  case OpKind::Rsqrt:
    out = emit("Reciprocal", {emit("Sqrt", in)}, hint);
    break;
  case OpKind::Sin:
    simple("Sin");
    break;
  case OpKind::Cos:
    simple("Cos");
    break;
  case OpKind::Erf:
    simple("Erf");
    break;
  case OpKind::Asin:
    simple("Asin");
    break;
  case OpKind::Acos:
    simple("Acos");
    break;
  case OpKind::Atan:
    simple("Atan");
    break;
  case OpKind::BitAnd:
  case OpKind::BitOr:
  case OpKind::BitXor:
  case OpKind::BitNot: {
    static const char *const kLogical[] = {"And", "Or", "Xor", "Not"};
    int which = node.kind == OpKind::BitAnd   ? 0
                : node.kind == OpKind::BitOr  ? 1
                : node.kind == OpKind::BitXor ? 2
                                              : 3;
    if (node.dtype != DType::Bool)
      fail(node, std::string("of ") + dtypeName(node.dtype) +
                     " has no ONNX form in opset 17 (BitwiseAnd, BitwiseOr, "
                     "BitwiseXor and BitwiseNot are opset 18); of Bool it is " +
                     kLogical[which]);
    simple(kLogical[which]);
    break;
  }
  case OpKind::ShiftLeft:
  case OpKind::ShiftRight: {
    if (!isUnsignedInteger(node.dtype))
      fail(node, std::string("of ") + dtypeName(node.dtype) +
                     " has no ONNX form (BitShift takes unsigned integers: "
                     "cast to UInt" +
                     std::to_string(8 * sizeOf(node.dtype)) + " first)");
    // Amounts from the width on give 0 (numpy), where BitShift leaves
    // them to the runtime: shift by min(a, width - 1), then by one more bit
    // when a >= width (which empties the value).
    double width = 8.0 * sizeOf(node.dtype);
    std::string first = emit("Min", {in[1], scalarOf(node.dtype, width - 1)});
    std::string extra =
        emit("Sub", {emit("Min", {in[1], scalarOf(node.dtype, width)}), first});
    const char *direction = node.kind == OpKind::ShiftLeft ? "LEFT" : "RIGHT";
    ::onnx::NodeProto &shift = add("BitShift", {in[0], first}, fresh("shift"));
    setString(shift, "direction", direction);
    ::onnx::NodeProto &more =
        add("BitShift", {shift.output(0), extra}, fresh(hint));
    setString(more, "direction", direction);
    out = more.output(0);
    break;
  }
  case OpKind::Compare: {
    static const char *const kOps[] = {
        "Equal", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"};
    out = emit(kOps[static_cast<int>(node.predicate)], in, hint);
    if (node.predicate == Predicate::Ne)
      out = emit("Not", {out}, hint);
    break;
  }
  case OpKind::Select:
    simple("Where");
    break;
  case OpKind::Cast: {
    ::onnx::NodeProto &cast = add("Cast", in, out = fresh(hint));
    setInt(cast, "to", onnxElementType(node.dtype));
    break;
  }
  case OpKind::Bitcast:
    fail(node, "has no ONNX form in opset 17 (BitCast is opset 26)");
  case OpKind::Broadcast:
    out = emit("Expand", {in[0], shapeOf(position, "broadcast target")}, hint);
    break;
  case OpKind::Reshape: {
    std::string target = sizes(
        position, [](const Node &n, size_t d) { return n.shape[d]; },
        node.shape.size(), /*inferOne=*/true, "target shape");
    ::onnx::NodeProto &reshape =
        add("Reshape", {in[0], target}, out = fresh(hint));
    // A 0 in a target is a size, not "the input's size".
    if (llvm::is_contained(node.shape, 0))
      setInt(reshape, "allowzero", 1);
    break;
  }
  case OpKind::Transpose: {
    ::onnx::NodeProto &transpose = add("Transpose", in, out = fresh(hint));
    setInts(transpose, "perm", node.ints);
    break;
  }
  case OpKind::Slice: {
    // Element i along d is input element start + i * step: ends are
    // start + size * step, past the front for a negative step.
    size_t rank = node.shape.size();
    std::vector<int64_t> axes(rank), steps = node.ints3;
    std::iota(axes.begin(), axes.end(), 0);
    std::string starts = sizes(
        position, [](const Node &n, size_t d) { return n.ints[d]; }, rank,
        false, "slice start");
    std::string ends = sizes(
        position,
        [](const Node &n, size_t d) {
          int64_t end = n.ints[d] + n.shape[d] * n.ints3[d];
          return end < 0 ? std::numeric_limits<int64_t>::min() : end;
        },
        rank, false, "slice end");
    out =
        emit("Slice", {in[0], starts, ends, int64s(axes), int64s(steps)}, hint);
    break;
  }
  case OpKind::Concat: {
    ::onnx::NodeProto &concat = add("Concat", in, out = fresh(hint));
    setInt(concat, "axis", node.integer);
    break;
  }
  case OpKind::ReduceSum:
  case OpKind::ReduceMean:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin: {
    if (node.ints.empty()) {
      out = emit("Identity", in, hint);
      break;
    }
    static const std::map<OpKind, const char *> kOps = {
        {OpKind::ReduceSum, "ReduceSum"},
        {OpKind::ReduceMean, "ReduceMean"},
        {OpKind::ReduceMax, "ReduceMax"},
        {OpKind::ReduceMin, "ReduceMin"}};
    std::vector<std::string> inputs = in;
    if (node.kind == OpKind::ReduceSum) // Axes are an input from opset 13.
      inputs.push_back(int64s(node.ints));
    ::onnx::NodeProto &reduce =
        add(kOps.at(node.kind), inputs, out = fresh(hint));
    if (node.kind != OpKind::ReduceSum)
      setInts(reduce, "axes", node.ints);
    setInt(reduce, "keepdims", node.flag ? 1 : 0);
    break;
  }
  case OpKind::Matmul:
    simple("MatMul");
    break;
  case OpKind::Conv2d: {
    ::onnx::NodeProto &conv = add("Conv", in, out = fresh(hint));
    setInts(conv, "strides", node.ints);
    setInts(conv, "dilations", node.ints2);
    // lazyc: top, bottom, left, right; ONNX: begins, then ends.
    setInts(conv, "pads",
            {node.ints3[0], node.ints3[2], node.ints3[1], node.ints3[3]});
    break;
  }
  case OpKind::Softmax:
  case OpKind::LogSoftmax: {
    ::onnx::NodeProto &softmax =
        add(node.kind == OpKind::Softmax ? "Softmax" : "LogSoftmax", in,
            out = fresh(hint));
    setInt(softmax, "axis", node.integer);
    break;
  }
  case OpKind::RandomUniform:
  case OpKind::RandomNormal: {
    // ONNX Runtime's generator: other numbers from the same distribution.
    std::string zeros = emit("ConstantOfShape", {shapeOf(position, "shape")});
    bool uniform = node.kind == OpKind::RandomUniform;
    ::onnx::NodeProto &random =
        add(uniform ? "RandomUniformLike" : "RandomNormalLike", {zeros},
            out = fresh(hint));
    setInt(random, "dtype", onnxElementType(node.dtype));
    setFloat(random, uniform ? "low" : "mean", static_cast<float>(node.scalar));
    setFloat(random, uniform ? "high" : "scale",
             static_cast<float>(node.scalar2));
    break;
  }
  case OpKind::Gather:
  case OpKind::ScatterAdd: {
    size_t axis = static_cast<size_t>(node.integer);
    const Node &indices = *trace.nodes[operands[1]];
    std::string index =
        clampIndex(in[1], indices.dtype, sizeAlong(operands[0], axis));
    bool gather = node.kind == OpKind::Gather;
    std::vector<std::string> inputs = {in[0], index};
    if (!gather)
      inputs.push_back(in[2]);
    ::onnx::NodeProto &op = add(gather ? "GatherElements" : "ScatterElements",
                                inputs, out = fresh(hint));
    setInt(op, "axis", node.integer);
    if (!gather)
      setString(op, "reduction", "add");
    break;
  }
  case OpKind::ArgMax:
  case OpKind::ArgMin: {
    ::onnx::NodeProto &arg =
        add(node.kind == OpKind::ArgMax ? "ArgMax" : "ArgMin", in,
            out = fresh(hint));
    setInt(arg, "axis", node.integer);
    setInt(arg, "keepdims", node.flag ? 1 : 0);
    break;
  }
  case OpKind::Cumsum: {
    ::onnx::NodeProto &cumsum =
        add("CumSum", {in[0], int64s({node.integer}, /*scalar=*/true)},
            out = fresh(hint));
    setInt(cumsum, "reverse", node.flag ? 1 : 0);
    break;
  }
  case OpKind::IndexRow:
  case OpKind::UpdateRow: {
    std::string row =
        clampIndex(in[1], DType::Int64, sizeAlong(operands[0], 0));
    if (node.kind == OpKind::IndexRow) {
      ::onnx::NodeProto &gather =
          add("Gather", {in[0], row}, out = fresh(hint));
      setInt(gather, "axis", 0);
      break;
    }
    std::string at = emit("Reshape", {row, int64s({1, 1})});
    std::string update = emit("Unsqueeze", {in[2], int64s({0})});
    out = emit("ScatterND", {in[0], at, update}, hint);
    break;
  }
  case OpKind::Buffer:
  case OpKind::Parameter:
    fail(node, "is a value the trace reads that is neither an argument nor "
               "a saved value");
  case OpKind::Attention:
  case OpKind::AttentionGrad:
    fail(node, "is attention computed in tiles, which ONNX before opset 23 "
               "has no op for; record the materialized form for export "
               "(nn::scaledDotProductAttention with AttentionTiles::Never)");
  case OpKind::Collective:
    fail(node, "exchanges values between processes, which ONNX cannot");
  case OpKind::If:
  case OpKind::While:
    writeControlFlow(position);
    return;
  case OpKind::Result:
    fail(node, "reads a control-flow op that is not before it");
  }
  ::onnx::NodeProto &last = graph->mutable_node()->at(graph->node_size() - 1);
  recordedAt(last, node);
  names[position] = out;
}

std::vector<std::string>
GraphWriter::writeRegion(const Region &region, int32_t position,
                         ::onnx::GraphProto &into,
                         const std::vector<std::string> &parameters) {
  GraphWriter inner(region.body, *this);
  inner.graph = &into;
  inner.names.assign(region.body.nodes.size(), "");
  std::span<const int32_t> operands = trace.operands(position);
  for (auto [capture, index] : llvm::enumerate(region.body.arguments))
    inner.names[index] = names[operands[region.captureOperands[capture]]];
  // The region's own Parameters (a loop's carried values); a function's
  // argument the region reads is a capture, named above.
  for (auto [i, node] : llvm::enumerate(region.body.nodes))
    if (node->kind == OpKind::Parameter && inner.names[i].empty())
      inner.names[i] = parameters.at(size_t(node->integer));
  for (size_t i = 0; i < region.body.nodes.size(); ++i)
    if (inner.names[i].empty())
      inner.writeNode(int32_t(i));
  return inner.names;
}

void GraphWriter::writeControlFlow(int32_t position) {
  const Node &node = *trace.nodes[position];
  if (staging && !staging->dimensions.empty())
    fail(node, "is control flow in a function with unknown dimensions, "
               "which lazyc::onnx::save does not write yet");
  const Regions &regions = regionsOf(node);
  // Its values are the Result nodes reading it, in trace order.
  std::vector<int32_t> results;
  for (size_t j = size_t(position) + 1; j < trace.nodes.size(); ++j)
    if (trace.nodes[j]->kind == OpKind::Result &&
        trace.operands(j)[0] == position)
      results.push_back(int32_t(j));
  std::span<const int32_t> operands = trace.operands(position);
  // A subgraph's outputs, each an Identity of `values[i]` (a graph output
  // must be a node's own value).
  auto yield = [&](::onnx::GraphProto &subgraph,
                   const std::vector<std::string> &values,
                   const std::vector<const Node *> &types) {
    for (size_t i = 0; i < values.size(); ++i) {
      std::string name = fresh("yield");
      ::onnx::NodeProto &identity = *subgraph.add_node();
      identity.set_op_type("Identity");
      identity.set_name(fresh("Identity"));
      identity.add_input(values[i]);
      identity.add_output(name);
      describe(*subgraph.add_output(), name, *types[i]);
    }
  };

  if (node.kind == OpKind::If) {
    std::vector<std::string> outputs;
    std::vector<const Node *> types;
    for (int32_t j : results) {
      outputs.push_back(fresh("v" + std::to_string(j)));
      types.push_back(trace.nodes[j]);
    }
    ::onnx::NodeProto &op = *graph->add_node();
    op.set_op_type("If");
    op.set_name(fresh("If_" + std::to_string(position)));
    op.add_input(names[operands[0]]);
    for (const std::string &output : outputs)
      op.add_output(output);
    for (size_t r = 0; r < 2; ++r) {
      ::onnx::AttributeProto &attribute = *op.add_attribute();
      attribute.set_name(r == 0 ? "then_branch" : "else_branch");
      attribute.set_type(::onnx::AttributeProto::GRAPH);
      ::onnx::GraphProto &branch = *attribute.mutable_g();
      branch.set_name(fresh(r == 0 ? "then" : "else"));
      const Region &region = regions.regions[r];
      std::vector<std::string> inner =
          writeRegion(region, position, branch, {});
      std::vector<std::string> values;
      for (int32_t j : results) {
        const Node &result = *trace.nodes[j];
        if (result.ints[0] == kUserResult)
          values.push_back(inner[region.body.outputs[result.ints[1]]]);
        else if (result.ints[0] == int64_t(r))
          values.push_back(inner[result.ints[1]]);
        else
          fail(node, "has values for a gradient, which lazyc::onnx::save "
                     "does not write");
      }
      yield(branch, values, types);
    }
    for (auto [k, j] : llvm::enumerate(results))
      names[j] = outputs[k];
    recordedAt(op, node);
    return;
  }

  // While: ONNX's Loop, whose body also computes the next condition.
  if (regions.maxIterations >= 0)
    fail(node, "is a bounded loop (it keeps its iterations for a gradient), "
               "which lazyc::onnx::save does not write");
  const Region &condition = regions.regions[0], &body = regions.regions[1];
  size_t carried = size_t(regions.carried);
  std::vector<std::string> initial;
  std::vector<const Node *> types;
  for (size_t i = 0; i < carried; ++i) {
    initial.push_back(names[operands[i]]);
    types.push_back(trace.nodes[operands[i]]);
  }
  std::vector<std::string> first =
      writeRegion(condition, position, *graph, initial);
  std::vector<std::string> outputs;
  for (size_t i = 0; i < carried; ++i)
    outputs.push_back(
        fresh("v" + std::to_string(position) + "_" + std::to_string(i)));
  ::onnx::NodeProto &op = *graph->add_node();
  op.set_op_type("Loop");
  op.set_name(fresh("Loop_" + std::to_string(position)));
  op.add_input("");
  op.add_input(first[condition.body.outputs[0]]);
  for (const std::string &name : initial)
    op.add_input(name);
  for (const std::string &output : outputs)
    op.add_output(output);
  ::onnx::AttributeProto &attribute = *op.add_attribute();
  attribute.set_name("body");
  attribute.set_type(::onnx::AttributeProto::GRAPH);
  ::onnx::GraphProto &loop = *attribute.mutable_g();
  loop.set_name(fresh("body"));
  // Inputs: the iteration number, the condition, the carried values.
  std::string iteration = fresh("iteration"), running = fresh("condition");
  auto scalarInput = [&](const std::string &name, int32_t elementType) {
    ::onnx::ValueInfoProto &info = *loop.add_input();
    info.set_name(name);
    ::onnx::TypeProto_Tensor &type =
        *info.mutable_type()->mutable_tensor_type();
    type.set_elem_type(elementType);
    type.mutable_shape();
  };
  scalarInput(iteration, ::onnx::TensorProto::INT64);
  scalarInput(running, ::onnx::TensorProto::BOOL);
  std::vector<std::string> state;
  for (size_t i = 0; i < carried; ++i) {
    state.push_back(fresh("carried"));
    describe(*loop.add_input(), state.back(), *types[i]);
  }
  std::vector<std::string> stepped = writeRegion(body, position, loop, state);
  std::vector<std::string> next;
  for (int32_t output : body.body.outputs)
    next.push_back(stepped[output]);
  std::vector<std::string> again = writeRegion(condition, position, loop, next);
  std::vector<std::string> values = {again[condition.body.outputs[0]]};
  values.insert(values.end(), next.begin(), next.end());
  std::vector<const Node *> valueTypes = {
      condition.body.nodes[condition.body.outputs[0]]};
  valueTypes.insert(valueTypes.end(), types.begin(), types.end());
  yield(loop, values, valueTypes);
  for (int32_t j : results)
    names[j] = outputs.at(size_t(trace.nodes[j]->ints[1]));
  recordedAt(op, node);
}

} // namespace

void lazyc::onnx::detail::saveFunction(
    const ::lazyc::detail::FunctionState &state, const std::string &path,
    SourceLocation where) {
  using namespace ::lazyc::detail;
  const std::string &name = functionName(state);
  SymbolicStaging staging = stageSymbolically(state, 0, "onnx::save", where);
  ::onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name("lazyc");
  model.set_doc_string("lazyc::function \"" + name + "\"");
  ::onnx::OperatorSetIdProto &opset = *model.add_opset_import();
  opset.set_domain("");
  opset.set_version(kOpsetVersion);
  ::onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name(name);
  ModelNames names;
  GraphWriter(staging, names, name, where).write(graph);

  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception &error) {
    throw Error("onnx::save",
                name + ": the ONNX model written is invalid (a lazyc bug): " +
                    error.what(),
                where);
  }
  std::ofstream file(path, std::ios::binary);
  if (!file || !model.SerializeToOstream(&file) || !file.flush())
    throw Error("onnx::save", "cannot write " + path, where);
}
