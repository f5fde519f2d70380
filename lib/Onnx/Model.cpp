//===- Model.cpp - Loading an ONNX model and calling it -------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// load() parses the file with ONNX's own protobuf classes, checks what it
// can before any call (the opset, every node's op, the declared dtypes, the
// initializers), and keeps the graph; a call records its nodes in order
// (ONNX graphs are topologically sorted) through the kernels of Ops.cpp.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/API/Compile.h"
#include "lazyc/API/ControlFlow.h"
#include "lazyc/API/Ops.h"
#include "lazyc/Runtime/NarrowFloats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

using namespace lazyc;
using namespace lazyc::onnx;
using namespace lazyc::onnx::detail;

namespace {

// Opset 27 (ONNX 1.22): the newest whose operator definitions the kernels
// follow, checked by the node tests of ONNX 1.13, 1.16 and 1.22 (test/Data).
constexpr int64_t kSupportedOpset = 27;

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

template <typename T>
std::vector<T> littleEndian(const std::string &bytes, int64_t count,
                            const std::string &context) {
  if (static_cast<int64_t>(bytes.size()) != count * int64_t(sizeof(T)))
    throw Error("onnx::load", context + ": raw_data holds " +
                                  std::to_string(bytes.size()) +
                                  " bytes, the shape needs " +
                                  std::to_string(count * sizeof(T)));
  std::vector<T> values(static_cast<size_t>(count));
  if (count)
    std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

std::string readExternalData(const ::onnx::TensorProto &proto,
                             const std::string &directory,
                             const std::string &context) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : proto.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = std::stoll(entry.value());
    else if (entry.key() == "length")
      length = std::stoll(entry.value());
  }
  std::string file = directory + "/" + location;
  std::ifstream in(file, std::ios::binary);
  if (location.empty() || !in)
    throw Error("onnx::load",
                context + ": its external data '" + file + "' cannot be read");
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (length < 0)
    length = size - offset;
  if (offset < 0 || offset + length > size)
    throw Error("onnx::load", context + ": its external data '" + file +
                                  "' has " + std::to_string(size) +
                                  " bytes, not the " +
                                  std::to_string(offset + length) + " needed");
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  return bytes;
}

ValueInfo valueInfoOf(const ::onnx::ValueInfoProto &proto,
                      const std::string &context) {
  ValueInfo info;
  info.name = proto.name();
  if (!proto.type().has_tensor_type())
    throw Error("onnx::load", context + ": '" + proto.name() +
                                  "' is not a tensor (sequences, maps and "
                                  "optionals are not supported)");
  const auto &tensorType = proto.type().tensor_type();
  info.dtype = dtypeFromOnnx(tensorType.elem_type(),
                             context + ": '" + proto.name() + "'");
  if (tensorType.has_shape()) {
    for (const auto &dimension : tensorType.shape().dim()) {
      info.shape.push_back(dimension.has_dim_value() ? dimension.dim_value()
                                                     : -1);
      info.dimensionNames.push_back(
          dimension.has_dim_param() ? dimension.dim_param() : "");
    }
  }
  return info;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") +
            (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return text + "]";
}

} // namespace

//===----------------------------------------------------------------------===//
// Tensors and dtypes
//===----------------------------------------------------------------------===//

DType lazyc::onnx::detail::dtypeFromOnnx(int32_t elementType,
                                         const std::string &context) {
  using P = ::onnx::TensorProto;
  switch (elementType) {
  case P::FLOAT:
    return DType::Float32;
  case P::DOUBLE:
    return DType::Float64;
  case P::FLOAT16:
    return DType::Float16;
  case P::BFLOAT16:
    return DType::BFloat16;
  case P::INT32:
    return DType::Int32;
  case P::INT64:
    return DType::Int64;
  case P::BOOL:
    return DType::Bool;
  case P::INT8:
    return DType::Int8;
  case P::UINT8:
    return DType::UInt8;
  case P::INT16:
    return DType::Int16;
  case P::UINT16:
    return DType::UInt16;
  case P::UINT32:
    return DType::UInt32;
  case P::UINT64:
    return DType::UInt64;
  default:
    break;
  }
  // The types newer than ONNX 1.12's protobuf classes, by their numbers.
  static const char *const kNewer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",
      "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0", "UINT2",          "INT2"};
  std::string name = P::DataType_IsValid(elementType)
                         ? P::DataType_Name(P::DataType(elementType))
                     : elementType >= 17 && elementType <= 26
                         ? kNewer[elementType - 17]
                         : std::to_string(elementType);
  throw Error("onnx::load", context + " has element type " + name +
                                ", which lazyc lacks (it has FLOAT, DOUBLE, "
                                "FLOAT16, BFLOAT16, BOOL, INT8, INT16, "
                                "INT32, INT64, UINT8, UINT16, UINT32 and "
                                "UINT64)");
}

namespace {

/// Calls `use` with the `count` elements of `proto` (of lazyc type
/// `dtype`) as a vector of their stored C++ type, 16-bit floats as their
/// bits: from `raw` (its raw or external bytes) where given, else from its
/// typed field.
template <typename Use>
auto withStoredElements(const ::onnx::TensorProto &proto, DType dtype,
                        const std::string *raw, int64_t count,
                        const std::string &where, Use use) {
  auto read = [&](auto type, const auto &field) {
    using T = decltype(type);
    if (raw)
      return use(littleEndian<T>(*raw, count, where));
    if (static_cast<int64_t>(field.size()) != count)
      throw Error("onnx::load",
                  where + " holds " + std::to_string(field.size()) +
                      " elements, its shape needs " + std::to_string(count));
    return use(std::vector<T>(field.begin(), field.end()));
  };
  switch (dtype) {
  case DType::Float32:
    return read(float(), proto.float_data());
  case DType::Float64:
    return read(double(), proto.double_data());
  case DType::Int64:
    return read(int64_t(), proto.int64_data());
  case DType::Int32:
    return read(int32_t(), proto.int32_data());
  case DType::Int8:
    return read(int8_t(), proto.int32_data());
  case DType::UInt8:
  case DType::Bool:
    return read(uint8_t(), proto.int32_data());
  case DType::Int16:
    return read(int16_t(), proto.int32_data());
  case DType::UInt16:
  case DType::Float16:
  case DType::BFloat16:
    return read(uint16_t(), proto.int32_data());
  case DType::UInt32:
    return read(uint32_t(), proto.uint64_data());
  case DType::UInt64:
    return read(uint64_t(), proto.uint64_data());
  }
  throw Error("onnx::load", where + ": unsupported dtype");
}

int64_t elementCount(const ::onnx::TensorProto &proto) {
  int64_t count = 1;
  for (int64_t size : proto.dims())
    count *= size;
  return count;
}

} // namespace

Tensor lazyc::onnx::detail::tensorFromProto(const ::onnx::TensorProto &proto,
                                            const std::string &directory,
                                            const std::string &context) {
  std::string where = context + ": tensor '" + proto.name() + "'";
  DType dtype = dtypeFromOnnx(proto.data_type(), where);
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  std::string external;
  const std::string *raw = proto.has_raw_data() ? &proto.raw_data() : nullptr;
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL) {
    external = readExternalData(proto, directory, where);
    raw = &external;
  }
  return withStoredElements(
      proto, dtype, raw, elementCount(proto), where, [&](auto values) {
        Tensor stored = Tensor::fromVector(std::move(values), shape);
        // 16-bit floats travel as their bits.
        return dtype == DType::Float16 || dtype == DType::BFloat16
                   ? bitcast(stored, dtype)
                   : cast(stored, dtype);
      });
}

std::string lazyc::onnx::detail::describeNode(const Graph &graph,
                                              const ::onnx::NodeProto &node) {
  std::string text = graph.path + ": node ";
  if (!node.name().empty())
    text += "'" + node.name() + "' ";
  text += "(" + node.op_type();
  int64_t opset = graph.opset;
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    text += ", domain " + node.domain();
    auto imported = graph.domainOpsets.find(node.domain());
    if (imported == graph.domainOpsets.end())
      return text + ", which the model does not import)";
    opset = imported->second;
  }
  return text + ", opset " + std::to_string(opset) + ")";
}

std::string lazyc::onnx::detail::kernelName(const ::onnx::NodeProto &node) {
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return node.op_type();
  return node.domain() + ":" + node.op_type();
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

const Tensor &NodeContext::input(size_t i) const {
  if (!has(i))
    fail("input " + std::to_string(i) + " is required");
  return values[i];
}

std::vector<int64_t> NodeContext::integers(size_t i) const {
  if (i < known.size() && known[i])
    return known[i]->values;
  return input(i).toVector<int64_t>(where);
}

double NodeContext::scalar(size_t i) const {
  const Tensor &value = input(i);
  if (value.numel() != 1)
    fail("input " + std::to_string(i) + " must hold one element, not " +
         std::to_string(value.numel()));
  return value.item<double>(where);
}

const ::onnx::AttributeProto *NodeContext::find(const std::string &name) const {
  for (const auto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

bool NodeContext::hasAttribute(const std::string &name) const {
  return find(name) != nullptr;
}

int64_t NodeContext::attribute(const std::string &name,
                               int64_t otherwise) const {
  const auto *found = find(name);
  return found ? found->i() : otherwise;
}

double NodeContext::attribute(const std::string &name, double otherwise) const {
  const auto *found = find(name);
  return found ? found->f() : otherwise;
}

std::string NodeContext::attribute(const std::string &name,
                                   const std::string &otherwise) const {
  const auto *found = find(name);
  return found ? found->s() : otherwise;
}

std::vector<int64_t> NodeContext::attributeInts(const std::string &name) const {
  const auto *found = find(name);
  if (!found)
    return {};
  return {found->ints().begin(), found->ints().end()};
}

std::vector<float> NodeContext::attributeFloats(const std::string &name) const {
  const auto *found = find(name);
  if (!found)
    return {};
  return {found->floats().begin(), found->floats().end()};
}

std::vector<std::string>
NodeContext::attributeStrings(const std::string &name) const {
  const ::onnx::AttributeProto *found = find(name);
  if (!found)
    return {};
  return {found->strings().begin(), found->strings().end()};
}

Tensor NodeContext::attributeTensor(const std::string &name) const {
  const auto *found = find(name);
  if (!found || !found->has_t())
    fail("attribute '" + name + "' (a tensor) is required");
  return tensorFromProto(found->t(), directoryOf(graph.path),
                         describeNode(graph, node));
}

std::vector<double>
NodeContext::attributeNumbers(const std::string &name) const {
  const auto *found = find(name);
  if (!found)
    return {};
  if (!found->has_t())
    fail("attribute '" + name + "' must be a tensor");
  const ::onnx::TensorProto &proto = found->t();
  std::string where = describeNode(graph, node) + ": attribute '" + name + "'";
  DType dtype = dtypeFromOnnx(proto.data_type(), where);
  return withStoredElements(
      proto, dtype, proto.has_raw_data() ? &proto.raw_data() : nullptr,
      elementCount(proto), where, [&](const auto &values) {
        std::vector<double> numbers;
        for (auto value : values) {
          if constexpr (std::is_same_v<decltype(value), uint16_t>) {
            if (dtype == DType::Float16) {
              numbers.push_back(float16BitsToFloat(value));
              continue;
            }
            if (dtype == DType::BFloat16) {
              numbers.push_back(bfloat16BitsToFloat(value));
              continue;
            }
          }
          numbers.push_back(double(value));
        }
        return numbers;
      });
}

void NodeContext::fail(const std::string &message) const {
  throw Error("onnx::" + node.op_type(),
              describeNode(graph, node) + ": " + message);
}

//===----------------------------------------------------------------------===//
// load and calls
//===----------------------------------------------------------------------===//

namespace {

using Nodes = google::protobuf::RepeatedPtrField<::onnx::NodeProto>;

/// ONNX's training-domain Gradient: the gradient of the graph's value `y`
/// with respect to its values `xs`, computed by a tape that watches each of
/// `xs` from the moment it is bound (graph inputs, initializers, outputs of
/// earlier nodes).
constexpr const char *kGradient = "ai.onnx.preview.training:Gradient";
constexpr const char *kFlexAttention = "ai.onnx.preview:FlexAttention";

/// The tape of a graph with Gradient nodes, and the names it watches.
struct GradientRecording {
  GradientTape tape;
  std::set<std::string> watched;
  void bind(const std::string &name, const Tensor &value) {
    if (watched.count(name) && value.defined() &&
        isFloatingPoint(value.dtype()))
      tape.watch(value);
  }
};

/// Every node's op is one lazyc maps (an If's branches too).
void checkNodes(const Graph &graph, const Nodes &nodes) {
  const std::map<std::string, Kernel> &table = kernels();
  for (const auto &node : nodes) {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    std::string name = kernelName(node);
    // Ops with subgraphs are recorded here, not by a kernel.
    bool isIf = name == "If", withBody = isIf || name == "Loop" ||
                                         name == "Scan" ||
                                         name == kFlexAttention;
    if (!withBody && name != kGradient && !table.count(name))
      throw Error("onnx::load",
                  describeNode(graph, node) +
                      ": lazyc does not support this op" +
                      (defaultDomain ? "" : " (nor this domain)"));
    for (const auto &attribute : node.attribute()) {
      bool branch =
          withBody && attribute.type() == ::onnx::AttributeProto::GRAPH;
      if (branch)
        checkNodes(graph, attribute.g().node());
      else if (attribute.type() == ::onnx::AttributeProto::GRAPH ||
               attribute.type() == ::onnx::AttributeProto::GRAPHS)
        throw Error("onnx::load", describeNode(graph, node) +
                                      ": subgraph attribute '" +
                                      attribute.name() + "' is not supported");
    }
  }
}

void recordNodes(const Graph &graph, const Nodes &nodes,
                 std::map<std::string, Tensor> &values,
                 std::map<std::string, HostValue> &known, SourceLocation where,
                 GradientRecording *gradients = nullptr);

/// The outputs of `body` recorded over the values around it, its inputs
/// bound to `inputs`.
std::vector<Tensor> recordBody(const Graph &graph,
                               const ::onnx::NodeProto &node,
                               const ::onnx::GraphProto &body,
                               const std::map<std::string, Tensor> &values,
                               const std::map<std::string, HostValue> &known,
                               const std::vector<Tensor> &inputs,
                               SourceLocation where) {
  std::map<std::string, Tensor> inner = values;
  std::map<std::string, HostValue> innerKnown = known;
  if (size_t(body.input_size()) != inputs.size())
    throw Error("onnx::" + node.op_type(),
                describeNode(graph, node) + ": its body takes " +
                    std::to_string(body.input_size()) + " inputs, not " +
                    std::to_string(inputs.size()),
                where);
  for (size_t i = 0; i < inputs.size(); ++i) {
    inner[body.input(int(i)).name()] = inputs[i];
    innerKnown.erase(body.input(int(i)).name());
  }
  // The body's own initializers (constants of the subgraph).
  for (const auto &initializer : body.initializer()) {
    const std::string &name = initializer.name();
    inner[name] = tensorFromProto(initializer, directoryOf(graph.path),
                                  describeNode(graph, node));
    if (std::optional<HostValue> value = hostValueOf(initializer))
      innerKnown[name] = std::move(*value);
    else
      innerKnown.erase(name);
  }
  recordNodes(graph, body.node(), inner, innerKnown, where);
  std::vector<Tensor> results;
  for (const auto &output : body.output()) {
    auto found = inner.find(output.name());
    if (found == inner.end())
      throw Error("onnx::" + node.op_type(),
                  describeNode(graph, node) + ": output '" + output.name() +
                      "' of its body is computed by no node",
                  where);
    results.push_back(found->second);
  }
  return results;
}

const ::onnx::GraphProto *graphAttribute(const ::onnx::NodeProto &node,
                                         const std::string &name) {
  for (const auto &attribute : node.attribute())
    if (attribute.name() == name &&
        attribute.type() == ::onnx::AttributeProto::GRAPH)
      return &attribute.g();
  return nullptr;
}

/// If as lazyc's cond: both branches recorded (each sees the values around
/// it), one op that runs the one the predicate picks. A predicate known
/// when the node is recorded (computed from shapes) picks its branch then,
/// and so does one read then where the branches differ in shape: only that
/// branch is recorded.
std::vector<Tensor> recordIf(const Graph &graph, const ::onnx::NodeProto &node,
                             const Tensor &predicate,
                             const HostValue *knownPredicate,
                             const std::map<std::string, Tensor> &values,
                             const std::map<std::string, HostValue> &known,
                             SourceLocation where) {
  const ::onnx::GraphProto *thenBranch = graphAttribute(node, "then_branch");
  const ::onnx::GraphProto *elseBranch = graphAttribute(node, "else_branch");
  if (!thenBranch || !elseBranch)
    throw Error("onnx::If", describeNode(graph, node) +
                                ": then_branch and else_branch are required");
  if (knownPredicate && knownPredicate->values.size() == 1)
    return recordBody(graph, node,
                      knownPredicate->values[0] ? *thenBranch : *elseBranch,
                      values, known, {}, where);
  Tensor flag = predicate.numel() == 1 && predicate.rank() != 0
                    ? reshape(predicate, {})
                    : predicate;
  try {
    return cond(
        flag,
        [&] {
          return recordBody(graph, node, *thenBranch, values, known, {}, where);
        },
        [&] {
          return recordBody(graph, node, *elseBranch, values, known, {}, where);
        },
        where);
  } catch (const Error &error) {
    // ONNX lets the branches differ in shape, lazyc's cond does not: the
    // predicate is then read now (as a size that depends on data is), and
    // only its branch is recorded.
    if (error.op() != "cond" ||
        error.message().rfind("the branches return different", 0) != 0)
      throw;
  }
  return recordBody(graph, node,
                    flag.item<bool>(where) ? *thenBranch : *elseBranch, values,
                    known, {}, where);
}

/// A 0-d Bool from a Bool of one element.
Tensor scalarFlag(const Tensor &flag) {
  return flag.rank() == 0 ? flag : reshape(flag, {});
}

/// Loop. Without scan outputs it is lazyc's whileLoop: one op whatever the
/// trip count, carrying the iteration number, the condition and the
/// values. With scan outputs, whose length is the number of iterations, it
/// is unrolled: the trip count is read when the node is recorded, and a
/// condition the body computes is read after each iteration.
std::vector<Tensor> recordLoop(const Graph &graph,
                               const ::onnx::NodeProto &node,
                               const std::vector<Tensor> &inputs,
                               const std::map<std::string, Tensor> &values,
                               const std::map<std::string, HostValue> &known,
                               SourceLocation where) {
  const ::onnx::GraphProto *body = graphAttribute(node, "body");
  if (!body)
    throw Error("onnx::Loop", describeNode(graph, node) + ": body is required",
                where);
  auto fail = [&](const std::string &message) -> Error {
    return Error("onnx::Loop", describeNode(graph, node) + ": " + message,
                 where);
  };
  bool bounded = inputs.size() > 0 && inputs[0].defined();
  Tensor tripCount =
      bounded ? reshape(cast(inputs[0], DType::Int64), {}) : Tensor();
  Tensor condition = inputs.size() > 1 && inputs[1].defined()
                         ? scalarFlag(inputs[1])
                         : full({}, 1, DType::Bool);
  std::vector<Tensor> carried(
      inputs.begin() + std::min<size_t>(2, inputs.size()), inputs.end());
  size_t count = carried.size();
  if (body->output_size() < int(1 + count))
    throw fail("its body returns " + std::to_string(body->output_size()) +
               " values, fewer than the condition and the " +
               std::to_string(count) + " carried ones");
  size_t scans = size_t(body->output_size()) - 1 - count;
  auto step = [&](const Tensor &iteration, const Tensor &flag,
                  const std::vector<Tensor> &state) {
    std::vector<Tensor> bodyInputs = {iteration, flag};
    bodyInputs.insert(bodyInputs.end(), state.begin(), state.end());
    return recordBody(graph, node, *body, values, known, bodyInputs, where);
  };

  if (scans == 0) {
    std::vector<Tensor> initial = {full({}, 0, DType::Int64), condition};
    initial.insert(initial.end(), carried.begin(), carried.end());
    std::vector<Tensor> final = whileLoop(
        [&](const std::vector<Tensor> &state) {
          return bounded ? state[1] & (state[0] < tripCount) : state[1];
        },
        [&](const std::vector<Tensor> &state) {
          std::vector<Tensor> outputs =
              step(state[0], state[1],
                   std::vector<Tensor>(state.begin() + 2, state.end()));
          std::vector<Tensor> next = {state[0] + int64_t(1),
                                      scalarFlag(outputs[0])};
          next.insert(next.end(), outputs.begin() + 1, outputs.end());
          return next;
        },
        initial, LoopOptions{}, where);
    return std::vector<Tensor>(final.begin() + 2, final.end());
  }

  // Unrolled: the number of iterations is the scan outputs' length.
  constexpr int64_t kMaxUnrolled = 100000;
  int64_t trips = bounded ? tripCount.item<int64_t>(where) : kMaxUnrolled;
  std::vector<std::vector<Tensor>> stacked(scans);
  bool going = condition.item<bool>(where);
  int64_t iteration = 0;
  for (; going && iteration < trips; ++iteration) {
    std::vector<Tensor> outputs =
        step(full({}, double(iteration), DType::Int64), condition, carried);
    condition = scalarFlag(outputs[0]);
    for (size_t i = 0; i < count; ++i)
      carried[i] = outputs[1 + i];
    for (size_t k = 0; k < scans; ++k) {
      const Tensor &value = outputs[1 + count + k];
      Shape shape = value.shape();
      shape.insert(shape.begin(), 1);
      stacked[k].push_back(reshape(value, shape));
    }
    going = condition.item<bool>(where);
  }
  if (!bounded && going)
    throw fail("with scan outputs and no trip count, it ran " +
               std::to_string(kMaxUnrolled) +
               " iterations without its condition turning false");
  if (iteration == 0 && scans > 0)
    throw fail("scan outputs of a loop that runs no iteration are not "
               "supported");
  std::vector<Tensor> results = carried;
  for (std::vector<Tensor> &rows : stacked)
    results.push_back(concat(rows, 0));
  return results;
}

/// Scan, unrolled over the sequence (its length is static): per step the
/// body runs on the states and one slice of each scan input; the scan
/// outputs are stacked. Opset 8's form has a batch axis first (its
/// sequence_lens must be full) and is scanned per batch entry.
std::vector<Tensor> recordScan(const Graph &graph,
                               const ::onnx::NodeProto &node,
                               std::vector<Tensor> inputs,
                               const std::map<std::string, Tensor> &values,
                               const std::map<std::string, HostValue> &known,
                               SourceLocation where) {
  const ::onnx::GraphProto *body = graphAttribute(node, "body");
  NodeContext context(graph, node, inputs);
  if (!body)
    context.fail("body is required");
  int64_t scanInputs = context.attribute("num_scan_inputs", int64_t(0));
  bool batched = graph.opset < 9;
  if (batched) {
    if (!inputs.empty() && inputs[0].defined()) {
      int64_t length = inputs.size() > 1 ? inputs.back().shape()[1] : 0;
      for (int64_t given : inputs[0].toVector<int64_t>(where))
        if (given != length)
          context.fail("sequence_lens shorter than the sequence is not "
                       "supported");
    }
    inputs.erase(inputs.begin());
  }
  int64_t states = int64_t(inputs.size()) - scanInputs;
  if (scanInputs <= 0 || states < 0)
    context.fail("num_scan_inputs must be between 1 and the inputs' count");
  auto perInput = [&](const std::string &name, int64_t count) {
    std::vector<int64_t> given = context.attributeInts(name);
    given.resize(size_t(count), 0);
    return given;
  };
  std::vector<int64_t> inputAxes = perInput("scan_input_axes", scanInputs);
  std::vector<int64_t> inputDirections =
      perInput(batched ? "directions" : "scan_input_directions", scanInputs);
  int64_t scanOutputs = int64_t(body->output_size()) - states;
  std::vector<int64_t> outputAxes = perInput("scan_output_axes", scanOutputs);
  std::vector<int64_t> outputDirections =
      perInput("scan_output_directions", scanOutputs);
  if (scanOutputs < 0)
    context.fail("its body returns fewer values than the states");

  auto scan = [&](std::vector<Tensor> state, std::vector<Tensor> sequences) {
    int64_t length = -1;
    for (int64_t i = 0; i < scanInputs; ++i) {
      Tensor &sequence = sequences[size_t(i)];
      int64_t axis = inputAxes[size_t(i)];
      if (axis < 0)
        axis += sequence.rank();
      if (axis < 0 || axis >= sequence.rank())
        context.fail("scan_input_axes " + std::to_string(axis) +
                     " is out of range");
      inputAxes[size_t(i)] = axis;
      int64_t size = sequence.shape()[axis];
      if (length >= 0 && size != length)
        context.fail("scan inputs of different lengths");
      length = size;
    }
    std::vector<std::vector<Tensor>> stacked(static_cast<size_t>(scanOutputs));
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Tensor> bodyInputs = state;
      for (int64_t i = 0; i < scanInputs; ++i) {
        const Tensor &sequence = sequences[size_t(i)];
        int64_t axis = inputAxes[size_t(i)];
        int64_t at = inputDirections[size_t(i)] ? length - 1 - t : t;
        std::vector<int64_t> start(sequence.rank(), 0),
            limit = sequence.shape();
        start[axis] = at;
        limit[axis] = at + 1;
        Shape shape = sequence.shape();
        shape.erase(shape.begin() + axis);
        bodyInputs.push_back(reshape(slice(sequence, start, limit), shape));
      }
      std::vector<Tensor> outputs =
          recordBody(graph, node, *body, values, known, bodyInputs, where);
      state.assign(outputs.begin(), outputs.begin() + states);
      for (int64_t k = 0; k < scanOutputs; ++k)
        stacked[size_t(k)].push_back(outputs[size_t(states + k)]);
    }
    std::vector<Tensor> results = state;
    for (int64_t k = 0; k < scanOutputs; ++k) {
      std::vector<Tensor> &rows = stacked[size_t(k)];
      if (rows.empty())
        context.fail("scan outputs of an empty sequence are not supported");
      if (outputDirections[size_t(k)])
        std::reverse(rows.begin(), rows.end());
      int64_t axis = outputAxes[size_t(k)];
      int64_t rank = rows[0].rank() + 1;
      if (axis < 0)
        axis += rank;
      for (Tensor &row : rows) {
        Shape shape = row.shape();
        shape.insert(shape.begin() + axis, 1);
        row = reshape(row, shape);
      }
      results.push_back(concat(rows, axis));
    }
    return results;
  };

  std::vector<Tensor> state(inputs.begin(), inputs.begin() + states);
  std::vector<Tensor> sequences(inputs.begin() + states, inputs.end());
  if (!batched)
    return scan(state, sequences);
  // Opset 8: per batch entry, the sequence axis is 1 (0 once the batch
  // entry is taken).
  int64_t batch = sequences[0].shape()[0];
  auto entry = [](const Tensor &value, int64_t b) {
    std::vector<int64_t> start(value.rank(), 0), limit = value.shape();
    start[0] = b;
    limit[0] = b + 1;
    Shape shape(value.shape().begin() + 1, value.shape().end());
    return reshape(slice(value, start, limit), shape);
  };
  std::vector<std::vector<Tensor>> perBatch;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> entryState, entrySequences;
    for (const Tensor &value : state)
      entryState.push_back(entry(value, b));
    for (const Tensor &value : sequences)
      entrySequences.push_back(entry(value, b));
    perBatch.push_back(scan(entryState, entrySequences));
  }
  std::vector<Tensor> results;
  for (size_t k = 0; k < perBatch[0].size(); ++k) {
    std::vector<Tensor> rows;
    for (const std::vector<Tensor> &outputs : perBatch) {
      Shape shape = outputs[k].shape();
      shape.insert(shape.begin(), 1);
      rows.push_back(reshape(outputs[k], shape));
    }
    results.push_back(concat(rows, 0));
  }
  return results;
}

/// FlexAttention (ai.onnx.preview): softmax(score_mod(q k^T scale)), then
/// prob_mod, times v, as ONNX's function computes it: q and k each scaled
/// by sqrt(scale) in their own type, the scores and probabilities in the
/// softmax precision (Float32 for float16 and bfloat16 inputs unless
/// `softmax_precision` says), key and value heads repeated for grouped
/// queries. The modifiers are graphs of one input and one output, recorded
/// on the scores and the probabilities.
std::vector<Tensor>
recordFlexAttention(const Graph &graph, const ::onnx::NodeProto &node,
                    const std::vector<Tensor> &inputs,
                    const std::map<std::string, Tensor> &values,
                    const std::map<std::string, HostValue> &known,
                    SourceLocation where) {
  NodeContext context(graph, node, inputs);
  Tensor q = context.input(0), k = context.input(1), v = context.input(2);
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    context.fail("needs rank-4 Q [B, Hq, L, E], K [B, Hkv, S, E] and V [B, "
                 "Hkv, S, Ev], not " +
                 shapeText(q.shape()) + ", " + shapeText(k.shape()) + " and " +
                 shapeText(v.shape()));
  int64_t batch = q.shape()[0], heads = q.shape()[1], kvHeads = k.shape()[1];
  int64_t length = k.shape()[2], size = q.shape()[3];
  if (q.dtype() != k.dtype() || q.dtype() != v.dtype())
    context.fail("needs Q, K and V of one type");
  if (v.shape()[1] != kvHeads || v.shape()[2] != length ||
      k.shape()[3] != size || k.shape()[0] != batch || v.shape()[0] != batch ||
      kvHeads <= 0 || heads % kvHeads != 0)
    context.fail("needs K and V of Q's batch and head size, V of K's heads "
                 "and length, and Q's heads a multiple of K's; given " +
                 shapeText(q.shape()) + ", " + shapeText(k.shape()) + " and " +
                 shapeText(v.shape()));
  DType precision =
      context.hasAttribute("softmax_precision")
          ? dtypeFromOnnx(
                int32_t(context.attribute("softmax_precision", int64_t(0))),
                describeNode(graph, node) + ": softmax_precision")
      : sizeOf(q.dtype()) < 4 ? DType::Float32
                              : q.dtype();
  if (!isFloatingPoint(precision))
    context.fail("softmax_precision must be a float type");
  // Each key and value head serves heads / kvHeads query heads in a row.
  auto aligned = [&](const Tensor &x) {
    if (kvHeads == heads)
      return x;
    Shape shape = x.shape();
    Tensor spread =
        broadcastTo(reshape(x, {batch, kvHeads, 1, length, shape[3]}),
                    {batch, kvHeads, heads / kvHeads, length, shape[3]});
    return reshape(spread, {batch, heads, length, shape[3]});
  };
  float scale = context.hasAttribute("scale")
                    ? float(context.attribute("scale", 1.0))
                    : 1.0f / std::sqrt(float(size));
  Tensor rootScale =
      cast(full({}, std::sqrt(scale), DType::Float32), q.dtype());
  Tensor scores = cast(
      matmul(q * rootScale, transpose(aligned(k) * rootScale, {0, 1, 3, 2})),
      precision);
  auto modified = [&](const char *name, const Tensor &x) {
    const ::onnx::GraphProto *modifier = graphAttribute(node, name);
    if (!modifier)
      return x;
    std::vector<Tensor> out =
        recordBody(graph, node, *modifier, values, known, {x}, where);
    if (out.size() != 1)
      context.fail(std::string(name) + " must have one output, not " +
                   std::to_string(out.size()));
    return cast(out[0], precision);
  };
  Tensor probabilities =
      modified("prob_mod", softmax(modified("score_mod", scores), -1));
  return {cast(matmul(probabilities, cast(aligned(v), precision)), v.dtype())};
}

/// Records `nodes` in order, reading and adding to `values` (and to the
/// small integers known on the host, see HostValues.cpp).
/// The Gradient node's outputs: d y / d x for each x of its `xs`.
std::vector<Tensor> recordGradient(const NodeContext &context,
                                   const std::map<std::string, Tensor> &values,
                                   GradientRecording *gradients) {
  if (!gradients)
    context.fail("Gradient inside a subgraph is not supported");
  std::string y = context.attribute("y", std::string(""));
  std::vector<std::string> xs = context.attributeStrings("xs");
  auto target = values.find(y);
  if (xs.empty() || target == values.end())
    context.fail("needs attribute 'xs' and attribute 'y' naming a value "
                 "computed before it ('" +
                 y + "')");
  std::vector<Tensor> sources;
  for (const std::string &x : xs) {
    auto source = values.find(x);
    if (source == values.end() || !gradients->watched.count(x))
      context.fail("'" + x + "' in xs names no value of the graph");
    sources.push_back(source->second);
  }
  return gradients->tape.gradient(target->second, sources);
}

void recordNodes(const Graph &graph, const Nodes &nodes,
                 std::map<std::string, Tensor> &values,
                 std::map<std::string, HostValue> &known, SourceLocation where,
                 GradientRecording *gradients) {
  const std::map<std::string, Kernel> &table = kernels();
  for (const auto &node : nodes) {
    std::vector<Tensor> nodeInputs;
    std::vector<const HostValue *> nodeKnown;
    for (const std::string &name : node.input()) {
      auto hostValue = known.find(name);
      nodeKnown.push_back(hostValue == known.end() ? nullptr
                                                   : &hostValue->second);
      if (name.empty()) {
        nodeInputs.emplace_back();
        continue;
      }
      auto found = values.find(name);
      if (found == values.end())
        throw Error("onnx::Model",
                    describeNode(graph, node) + ": input '" + name +
                        "' is computed by no earlier node",
                    where);
      nodeInputs.push_back(found->second);
    }
    NodeContext context(graph, node, nodeInputs, nodeKnown, where);
    std::vector<Tensor> results;
    try {
      std::string name = kernelName(node);
      if (name == "If") {
        results = recordIf(graph, node, context.input(0), nodeKnown.at(0),
                           values, known, where);
      } else if (name == "Loop") {
        results = recordLoop(graph, node, nodeInputs, values, known, where);
      } else if (name == "Scan") {
        results = recordScan(graph, node, nodeInputs, values, known, where);
      } else if (name == kGradient) {
        results = recordGradient(context, values, gradients);
      } else if (name == kFlexAttention) {
        results =
            recordFlexAttention(graph, node, nodeInputs, values, known, where);
      } else if (std::optional<std::vector<HostValue>> folded =
                     foldOnHost(context, nodeInputs, nodeKnown)) {
        for (size_t i = 0; i < folded->size(); ++i) {
          results.push_back(tensorOf((*folded)[i]));
          if (int(i) < node.output_size())
            known[node.output(i)] = std::move((*folded)[i]);
        }
      } else {
        results = table.at(kernelName(node))(context);
      }
    } catch (const Error &error) {
      std::string message = error.message();
      // Errors of the ops the kernel recorded gain the node they came from.
      if (message.find(graph.path + ": node") == std::string::npos)
        message = describeNode(graph, node) + ": " + message;
      throw Error(error.op(), message, where);
    }
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty() && i < int(results.size())) {
        values[node.output(i)] = results[i];
        if (gradients)
          gradients->bind(node.output(i), results[i]);
      }
  }
}

} // namespace

Model lazyc::onnx::load(const std::string &path, SourceLocation where) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("onnx::load", path + ": cannot be opened", where);
  std::stringstream bytes;
  bytes << in.rdbuf();
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes.str()))
    throw Error("onnx::load",
                path + ": not an ONNX model (truncated or corrupt: the "
                       "protobuf does not parse)",
                where);
  if (!model.has_graph())
    throw Error("onnx::load", path + ": the model has no graph", where);
  auto graph = std::make_shared<Graph>();
  graph->path = path;
  for (const auto &import : model.opset_import()) {
    if (import.domain().empty() || import.domain() == "ai.onnx")
      graph->opset = import.version();
    else
      graph->domainOpsets[import.domain()] = import.version();
  }
  if (graph->opset > kSupportedOpset)
    throw Error("onnx::load",
                path + ": imports opset " + std::to_string(graph->opset) +
                    " of the default domain, which lazyc does not support "
                    "(it supports up to " +
                    std::to_string(kSupportedOpset) + ")",
                where);
  graph->proto = model.graph();
  try {
    checkNodes(*graph, graph->proto.node());
    std::string directory = directoryOf(path);
    for (const auto &initializer : graph->proto.initializer()) {
      Tensor value = tensorFromProto(initializer, directory, path);
      auto variable = std::make_unique<Variable>(value, initializer.name());
      graph->parameterByName[initializer.name()] = variable.get();
      if (std::optional<HostValue> known = hostValueOf(initializer))
        graph->knownInitializers[initializer.name()] = std::move(*known);
      graph->parameters.push_back(std::move(variable));
    }
    for (const auto &input : graph->proto.input())
      if (!graph->parameterByName.count(input.name()))
        graph->inputs.push_back(valueInfoOf(input, path + ": input"));
    for (const auto &output : graph->proto.output())
      graph->outputs.push_back(valueInfoOf(output, path + ": output"));
  } catch (const Error &error) {
    throw Error(error.op(), error.message(), where);
  }
  return Model(std::move(graph));
}

Model::Model(std::shared_ptr<detail::Graph> graph) : graph(std::move(graph)) {}

std::vector<Tensor> Model::operator()(const std::vector<Tensor> &inputs,
                                      SourceLocation where) const {
  if (inputs.size() != graph->inputs.size())
    throw Error("onnx::Model",
                graph->path + " takes " + std::to_string(graph->inputs.size()) +
                    " inputs, not " + std::to_string(inputs.size()),
                where);
  // A graph with Gradient nodes records under a tape that watches their
  // xs as they are bound.
  std::unique_ptr<GradientRecording> gradients;
  for (const ::onnx::NodeProto &node : graph->proto.node())
    if (kernelName(node) == kGradient) {
      if (!gradients)
        gradients = std::make_unique<GradientRecording>();
      for (const ::onnx::AttributeProto &attribute : node.attribute())
        if (attribute.name() == "xs")
          gradients->watched.insert(attribute.strings().begin(),
                                    attribute.strings().end());
    }
  std::map<std::string, Tensor> values;
  for (const auto &[name, variable] : graph->parameterByName) {
    values[name] = variable->read();
    if (gradients)
      gradients->bind(name, values[name]);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueInfo &info = graph->inputs[i];
    const Tensor &input = inputs[i];
    bool fits =
        input.defined() && input.dtype() == info.dtype &&
        (info.shape.empty() || input.rank() == int64_t(info.shape.size()));
    for (size_t d = 0; fits && d < info.shape.size(); ++d)
      fits = info.shape[d] < 0 || info.shape[d] == input.shape()[d];
    if (!fits)
      throw Error("onnx::Model",
                  graph->path + ": input '" + info.name + "' is declared " +
                      dtypeName(info.dtype) + " " + shapeText(info.shape) +
                      ", given " +
                      (input.defined() ? std::string(dtypeName(input.dtype())) +
                                             " " + shapeText(input.shape())
                                       : std::string("an empty tensor")),
                  where);
    values[info.name] = input;
    if (gradients)
      gradients->bind(info.name, input);
    // A dimension the model leaves unknown (a batch) is dynamic from the
    // first call: later sizes compile nothing new.
    std::vector<int64_t> unknown;
    for (size_t d = 0; d < info.shape.size(); ++d)
      if (info.shape[d] < 0)
        unknown.push_back(int64_t(d));
    markDynamic(input, unknown, where);
  }
  // Small integer values known on the host: shapes and what is computed
  // from them (HostValues.cpp).
  std::map<std::string, HostValue> known = graph->knownInitializers;
  recordNodes(*graph, graph->proto.node(), values, known, where,
              gradients.get());
  std::vector<Tensor> outputs;
  for (const ValueInfo &output : graph->outputs) {
    auto found = values.find(output.name);
    if (found == values.end())
      throw Error("onnx::Model",
                  graph->path + ": output '" + output.name +
                      "' is computed by no node",
                  where);
    outputs.push_back(found->second);
  }
  return outputs;
}

Tensor Model::operator()(const Tensor &input, SourceLocation where) const {
  if (graph->outputs.size() != 1)
    throw Error("onnx::Model",
                graph->path + " has " + std::to_string(graph->outputs.size()) +
                    " outputs: call it with a vector of inputs",
                where);
  return (*this)(std::vector<Tensor>{input}, where).front();
}

const std::vector<ValueInfo> &Model::inputs() const { return graph->inputs; }
const std::vector<ValueInfo> &Model::outputs() const { return graph->outputs; }
const std::string &Model::path() const { return graph->path; }
int64_t Model::opsetVersion() const { return graph->opset; }

std::vector<Variable *> Model::parameters() const {
  std::vector<Variable *> all;
  for (const auto &parameter : graph->parameters)
    all.push_back(parameter.get());
  return all;
}

std::vector<std::string> lazyc::onnx::supportedOps() {
  std::vector<std::string> names;
  for (const auto &[name, kernel] : detail::kernels())
    names.push_back(name);
  // Recorded here (cond, whileLoop, unrolled; a tape), not by kernels.
  for (const char *recorded : {"If", "Loop", "Scan", kGradient, kFlexAttention})
    names.push_back(recorded);
  std::sort(names.begin(), names.end());
  return names;
}

int64_t lazyc::onnx::supportedOpsetVersion() { return kSupportedOpset; }

Tensor lazyc::onnx::loadTensor(const std::string &path, SourceLocation where) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("onnx::loadTensor", path + ": cannot be opened", where);
  std::stringstream bytes;
  bytes << in.rdbuf();
  ::onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes.str()))
    throw Error("onnx::loadTensor",
                path + ": not an ONNX TensorProto (truncated or corrupt)",
                where);
  try {
    return tensorFromProto(proto, directoryOf(path), path);
  } catch (const Error &error) {
    throw Error(error.op(), error.message(), where);
  }
}
