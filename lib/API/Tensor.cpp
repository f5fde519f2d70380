//===- Tensor.cpp - The lazy tensor handle --------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Tensor.h"
#include "Convert.h"
#include "Engine.h"

#include "lazyc/Trace/Node.h"

#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>

using namespace lazyc;
using namespace lazyc::trace;

//===----------------------------------------------------------------------===//
// Errors and names
//===----------------------------------------------------------------------===//

static std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

static std::string format(const std::string &op, const std::string &message,
                          const std::string &file, unsigned line) {
  std::string text = op.empty() ? "[lazyc] " : "[lazyc::" + op + "] ";
  text += message;
  if (line)
    text += " (" + baseName(file) + ":" + std::to_string(line) + ")";
  return text;
}

Error::Error(std::string op, const std::string &message,
             SourceLocation where)
    : Error(std::move(op), message, where.file_name(), where.line()) {}

Error::Error(std::string op, const std::string &message, std::string file,
             unsigned line)
    : std::runtime_error(format(op, message, file, line)),
      opName(std::move(op)), fileName(std::move(file)), lineNumber(line) {}

const char *lazyc::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return "Float32";
  case DType::Float64:
    return "Float64";
  case DType::Float16:
    return "Float16";
  case DType::BFloat16:
    return "BFloat16";
  case DType::Int32:
    return "Int32";
  case DType::Int64:
    return "Int64";
  case DType::Bool:
    return "Bool";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// The handle
//===----------------------------------------------------------------------===//

Tensor::Tensor() = default;

Tensor::Tensor(std::shared_ptr<Node> node) : node(std::move(node)) {
  if (this->node)
    ++this->node->handles;
}

Tensor::Tensor(const Tensor &other) : node(other.node) {
  if (node)
    ++node->handles;
}

Tensor::Tensor(Tensor &&other) noexcept : node(std::move(other.node)) {}

Tensor &Tensor::operator=(const Tensor &other) {
  if (other.node)
    ++other.node->handles;
  if (node)
    --node->handles;
  node = other.node;
  return *this;
}

Tensor &Tensor::operator=(Tensor &&other) noexcept {
  if (this == &other)
    return *this;
  if (node)
    --node->handles;
  node = std::move(other.node);
  return *this;
}

Tensor::~Tensor() {
  if (node)
    --node->handles;
}

static const Node &checked(const std::shared_ptr<Node> &node,
                           const char *what) {
  if (!node)
    throw Error("", std::string(what) + " of an empty Tensor (one that was "
                                        "default-constructed or moved from)");
  return *node;
}

const std::vector<int64_t> &Tensor::shape() const {
  return checked(node, "shape()").shape;
}
DType Tensor::dtype() const { return checked(node, "dtype()").dtype; }
int64_t Tensor::numel() const { return checked(node, "numel()").numel(); }
bool Tensor::isMaterialized() const {
  return checked(node, "isMaterialized()").isMaterialized();
}

Tensor Tensor::fromData(DType dtype, const void *data, int64_t count,
                        std::vector<int64_t> shape,
                        SourceLocation where) {
  int64_t elements = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      throw Error("fromVector", "negative dimension in shape", where);
    elements *= dim;
  }
  if (elements != count)
    throw Error("fromVector",
                std::to_string(count) + " values do not fill a shape of " +
                    std::to_string(elements) + " elements",
                where);
  auto node = std::make_shared<Node>();
  node->kind = OpKind::Buffer;
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->loc = {where.file_name(), where.line(), where.function_name()};
  node->computeContentHash();
  try {
    node->value = std::make_shared<trace::Buffer>(dtype, elements);
  } catch (const std::bad_alloc &) {
    throw Error("fromVector",
                "cannot allocate " + std::to_string(elements) + " elements",
                where);
  }
  std::memcpy(node->value->data(), data,
              static_cast<size_t>(elements) * sizeOf(dtype));
  engine::countOp();
  return Tensor(std::move(node));
}

Tensor Tensor::fromBools(const std::vector<bool> &data,
                         std::vector<int64_t> shape,
                         SourceLocation where) {
  std::vector<uint8_t> bytes(data.begin(), data.end());
  return fromData(DType::Bool, bytes.data(),
                  static_cast<int64_t>(bytes.size()), std::move(shape), where);
}

void Tensor::read(DType as, void *out, Cause cause,
                  SourceLocation where) const {
  const Node &n = checked(node, "reading the value");
  if (!n.isMaterialized())
    engine::materialize({node.get()}, cause, where);
  convert::elements(node->value->data(), node->dtype, out, as,
                    node->numel());
}

void Tensor::checkItem(SourceLocation where) const {
  const Node &n = checked(node, "item()");
  if (n.numel() != 1) {
    std::string shape = "[";
    for (size_t i = 0; i < n.shape.size(); ++i)
      shape += (i ? ", " : "") + std::to_string(n.shape[i]);
    throw Error("item",
                "needs a tensor of one element, but the shape is " + shape +
                    "]",
                where);
  }
}

Tensor::operator bool() const {
  const Node &n = checked(node, "a bool conversion");
  if (n.numel() != 1)
    throw Error("bool",
                "only a one-element tensor converts to bool; this one has " +
                    std::to_string(n.numel()) + " elements",
                n.loc.file, n.loc.line);
  uint8_t value;
  read(DType::Bool, &value, Cause::Bool, SourceLocation::current());
  return value != 0;
}

void lazyc::sync(SourceLocation where) {
  std::vector<Node *> live = engine::liveNodes();
  if (!live.empty())
    engine::materialize(live, Cause::Sync, where);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// Prints dimension `dim` of the elements starting at `offset`, numpy-style.
static void printDim(std::ostream &os, const Node &node, size_t dim,
                     int64_t offset, const std::vector<int64_t> &strides) {
  if (dim == node.shape.size()) {
    const uint8_t *bytes = static_cast<const uint8_t *>(node.value->data()) +
                           offset * sizeOf(node.dtype);
    if (node.dtype == DType::Bool) {
      os << (*bytes ? "true" : "false");
      return;
    }
    double value = convert::loadScalar(bytes, node.dtype);
    if (isFloatingPoint(node.dtype))
      os << static_cast<float>(value);
    else
      os << static_cast<int64_t>(value);
    return;
  }
  os << '[';
  int64_t size = node.shape[dim];
  // Long dimensions are summarized like numpy: 3 first, ..., 3 last.
  for (int64_t i = 0; i < size; ++i) {
    if (size > 8 && i == 3) {
      os << "...";
      i = size - 4;
    } else {
      printDim(os, node, dim + 1, offset + i * strides[dim], strides);
    }
    if (i + 1 < size)
      os << ", ";
  }
  os << ']';
}

std::ostream &lazyc::operator<<(std::ostream &os, const Tensor &tensor) {
  const Node &node = checked(tensor.impl(), "printing");
  if (!node.isMaterialized())
    engine::materialize({tensor.impl().get()}, Cause::Print,
                        SourceLocation::current());
  std::vector<int64_t> strides(node.shape.size(), 1);
  for (size_t d = node.shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * node.shape[d];
  printDim(os, node, 0, 0, strides);
  return os;
}
