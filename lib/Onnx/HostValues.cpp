//===- HostValues.cpp - Shape arithmetic on the host ----------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Exported models compute the shapes they reshape to: Shape, then Gather,
// Unsqueeze, Concat, arithmetic, and a Reshape that needs the values when
// it is recorded. Recorded as lazyc ops, each such chain would be a trace
// of its own, compiled on the first call and read back; the chains are
// small integer arithmetic on values known when the call is recorded, so
// they run here instead, on the host, and their results enter the graph as
// constants.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace lazyc;
using namespace lazyc::onnx::detail;

namespace {

constexpr int64_t kMaxHostElements = 4096;

int64_t count(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

bool isInteger(DType dtype) {
  return dtype == DType::Int64 || dtype == DType::Int32;
}

/// The axes attribute (before `inputSince`) or second input.
std::optional<std::vector<int64_t>>
axesOf(const NodeContext &node, const std::vector<const HostValue *> &known,
       int64_t inputSince) {
  if (node.opset() < inputSince)
    return node.attributeInts("axes");
  if (known.size() < 2 || !known[1])
    return std::nullopt;
  return known[1]->values;
}

/// Elementwise on two values of one shape, or one of them a single value.
std::optional<HostValue> elementwise(const HostValue &a, const HostValue &b,
                                     int64_t (*f)(int64_t, int64_t)) {
  bool aOne = a.values.size() == 1, bOne = b.values.size() == 1;
  if (a.shape != b.shape && !aOne && !bOne)
    return std::nullopt;
  HostValue result{
      a.dtype, a.values.size() >= b.values.size() ? a.shape : b.shape, {}};
  size_t n = std::max(a.values.size(), b.values.size());
  for (size_t i = 0; i < n; ++i) {
    int64_t x = a.values[aOne ? 0 : i], y = b.values[bOne ? 0 : i];
    result.values.push_back(f(x, y));
  }
  return result;
}

} // namespace

std::optional<HostValue>
lazyc::onnx::detail::hostValueOf(const ::onnx::TensorProto &proto) {
  using P = ::onnx::TensorProto;
  if (proto.data_type() != P::INT64 && proto.data_type() != P::INT32)
    return std::nullopt;
  if (proto.data_location() == P::EXTERNAL)
    return std::nullopt;
  HostValue value;
  value.dtype = proto.data_type() == P::INT64 ? DType::Int64 : DType::Int32;
  value.shape.assign(proto.dims().begin(), proto.dims().end());
  int64_t n = count(value.shape);
  if (n > kMaxHostElements)
    return std::nullopt;
  size_t width = value.dtype == DType::Int64 ? 8 : 4;
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != size_t(n) * width)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      if (width == 8) {
        int64_t element;
        std::memcpy(&element, raw.data() + i * 8, 8);
        value.values.push_back(element);
      } else {
        int32_t element;
        std::memcpy(&element, raw.data() + i * 4, 4);
        value.values.push_back(element);
      }
    }
  } else if (value.dtype == DType::Int64) {
    value.values.assign(proto.int64_data().begin(), proto.int64_data().end());
  } else {
    value.values.assign(proto.int32_data().begin(), proto.int32_data().end());
  }
  if (int64_t(value.values.size()) != n)
    return std::nullopt;
  return value;
}

HostValue lazyc::onnx::detail::shapeValue(const NodeContext &node,
                                          const std::vector<int64_t> &shape) {
  int64_t rank = int64_t(shape.size());
  int64_t begin = node.attribute("start", int64_t(0));
  int64_t end = node.attribute("end", rank);
  begin = std::clamp(begin < 0 ? begin + rank : begin, int64_t(0), rank);
  end = std::clamp(end < 0 ? end + rank : end, int64_t(0), rank);
  std::vector<int64_t> values(shape.begin() + begin,
                              shape.begin() + std::max(begin, end));
  return {DType::Int64, {int64_t(values.size())}, values};
}

Tensor lazyc::onnx::detail::tensorOf(const HostValue &value) {
  if (value.dtype == DType::Int64)
    return Tensor::fromVector(value.values, value.shape);
  if (value.dtype == DType::Bool)
    return Tensor::fromBools(
        std::vector<bool>(value.values.begin(), value.values.end()),
        value.shape);
  std::vector<int32_t> narrow(value.values.begin(), value.values.end());
  return Tensor::fromVector(narrow, value.shape);
}

std::optional<std::vector<HostValue>>
lazyc::onnx::detail::foldOnHost(const NodeContext &node,
                                const std::vector<Tensor> &inputs,
                                const std::vector<const HostValue *> &known) {
  const std::string &op = node.node.op_type();
  // Shape and Size need only the input's shape.
  if (op == "Shape" || op == "Size") {
    if (inputs.empty() || !inputs[0].defined())
      return std::nullopt;
    const std::vector<int64_t> &shape = inputs[0].shape();
    if (op == "Size")
      return std::vector<HostValue>{{DType::Int64, {}, {count(shape)}}};
    return std::vector<HostValue>{shapeValue(node, shape)};
  }
  if (op == "Constant") {
    for (const auto &attribute : node.node.attribute()) {
      if (attribute.name() == "value")
        if (std::optional<HostValue> value = hostValueOf(attribute.t()))
          return std::vector<HostValue>{*value};
      if (attribute.name() == "value_int")
        return std::vector<HostValue>{{DType::Int64, {}, {attribute.i()}}};
      if (attribute.name() == "value_ints" &&
          attribute.ints_size() <= kMaxHostElements)
        return std::vector<HostValue>{
            {DType::Int64,
             {int64_t(attribute.ints_size())},
             {attribute.ints().begin(), attribute.ints().end()}}};
    }
    return std::nullopt;
  }
  // Everything else only on known integer inputs.
  if (known.empty() || known.size() != inputs.size())
    return std::nullopt;
  for (size_t i = 0; i < known.size(); ++i)
    if (inputs[i].defined() && !known[i])
      return std::nullopt;
  const HostValue *a = known[0];
  if (!a || !isInteger(a->dtype))
    return std::nullopt;
  auto result = [](HostValue value) {
    return std::optional<std::vector<HostValue>>(
        std::vector<HostValue>{std::move(value)});
  };
  if (op == "Identity")
    return result(*a);
  if (op == "Cast") {
    int64_t to = node.attribute("to", int64_t(0));
    if (to != ::onnx::TensorProto::INT64 && to != ::onnx::TensorProto::INT32)
      return std::nullopt;
    HostValue cast = *a;
    cast.dtype = to == ::onnx::TensorProto::INT64 ? DType::Int64 : DType::Int32;
    return result(cast);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::optional<std::vector<int64_t>> axes = axesOf(node, known, 13);
    if (!axes)
      return std::nullopt;
    std::vector<int64_t> shape;
    int64_t rank = int64_t(a->shape.size());
    if (op == "Squeeze") {
      for (int64_t d = 0; d < rank; ++d) {
        bool listed =
            axes->empty()
                ? a->shape[d] == 1
                : std::count(axes->begin(), axes->end(), d) ||
                      std::count(axes->begin(), axes->end(), d - rank);
        if (!listed)
          shape.push_back(a->shape[d]);
      }
    } else {
      int64_t outRank = rank + int64_t(axes->size());
      std::vector<bool> inserted(outRank, false);
      for (int64_t axis : *axes) {
        int64_t at = axis < 0 ? axis + outRank : axis;
        if (at < 0 || at >= outRank)
          return std::nullopt;
        inserted[at] = true;
      }
      for (int64_t d = 0, next = 0; d < outRank; ++d)
        shape.push_back(inserted[d] ? 1 : a->shape[next++]);
    }
    return result({a->dtype, shape, a->values});
  }
  if (op == "Concat") {
    HostValue joined{a->dtype, {0}, {}};
    for (const HostValue *part : known) {
      if (!part || part->shape.size() != 1 || part->dtype != a->dtype)
        return std::nullopt;
      joined.values.insert(joined.values.end(), part->values.begin(),
                           part->values.end());
    }
    joined.shape[0] = int64_t(joined.values.size());
    return result(joined);
  }
  if (op == "Gather") {
    const HostValue *indices = known.size() > 1 ? known[1] : nullptr;
    if (!indices || a->shape.size() != 1 ||
        node.attribute("axis", int64_t(0)) != 0)
      return std::nullopt;
    HostValue gathered{a->dtype, indices->shape, {}};
    int64_t size = a->shape[0];
    for (int64_t index : indices->values) {
      if (index < -size || index >= size)
        return std::nullopt; // The kernel reports it.
      gathered.values.push_back(a->values[index < 0 ? index + size : index]);
    }
    return result(gathered);
  }
  if (op == "Slice" && node.opset() >= 10 && a->shape.size() == 1) {
    const HostValue *starts = known[1], *ends = known[2];
    const HostValue *axes = known.size() > 3 ? known[3] : nullptr;
    const HostValue *steps = known.size() > 4 ? known[4] : nullptr;
    if (!starts || !ends || starts->values.size() != 1 ||
        (axes && axes->values != std::vector<int64_t>{0} &&
         axes->values != std::vector<int64_t>{-1}) ||
        (steps && steps->values != std::vector<int64_t>{1}))
      return std::nullopt;
    int64_t size = a->shape[0];
    auto clampIndex = [size](int64_t index) {
      return std::clamp(index < 0 ? index + size : index, int64_t(0), size);
    };
    int64_t begin = clampIndex(starts->values[0]);
    int64_t end = std::max(begin, clampIndex(ends->values[0]));
    std::vector<int64_t> values(a->values.begin() + begin,
                                a->values.begin() + end);
    return result({a->dtype, {int64_t(values.size())}, values});
  }
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") &&
      known.size() == 2 && known[1] && known[1]->dtype == a->dtype) {
    int64_t (*f)(int64_t, int64_t) =
        op == "Add"   ? +[](int64_t x, int64_t y) { return x + y; }
        : op == "Sub" ? +[](int64_t x, int64_t y) { return x - y; }
        : op == "Mul" ? +[](int64_t x, int64_t y) { return x * y; }
                      : nullptr;
    if (!f) { // Div truncates; by zero is left to the kernel.
      if (std::count(known[1]->values.begin(), known[1]->values.end(), 0))
        return std::nullopt;
      f = [](int64_t x, int64_t y) { return x / y; };
    }
    if (std::optional<HostValue> value = elementwise(*a, *known[1], f))
      return result(*value);
    return std::nullopt;
  }
  // Comparisons of sizes (an If on the input's rank): Bool.
  using Comparison = int64_t (*)(int64_t, int64_t);
  static const std::map<std::string, Comparison> kComparisons = {
      {"Equal", [](int64_t x, int64_t y) -> int64_t { return x == y; }},
      {"Less", [](int64_t x, int64_t y) -> int64_t { return x < y; }},
      {"Greater", [](int64_t x, int64_t y) -> int64_t { return x > y; }},
      {"LessOrEqual", [](int64_t x, int64_t y) -> int64_t { return x <= y; }},
      {"GreaterOrEqual",
       [](int64_t x, int64_t y) -> int64_t { return x >= y; }}};
  if (auto comparison = kComparisons.find(op);
      comparison != kComparisons.end() && known.size() == 2 && known[1] &&
      known[1]->dtype == a->dtype) {
    Comparison f = comparison->second;
    std::optional<HostValue> value = elementwise(*a, *known[1], f);
    if (!value)
      return std::nullopt;
    value->dtype = DType::Bool;
    return result(*value);
  }
  return std::nullopt;
}
