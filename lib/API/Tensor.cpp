//===- Tensor.cpp - The lazy tensor handle --------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Tensor.h"
#include "Engine/Convert.h"
#include "Engine/Engine.h"
#include "ShapeCheck.h"
#include "TensorAccess.h"

#include "lazyc/Runtime/Cuda.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Trace/Node.h"

#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>

using namespace lazyc;
using namespace lazyc::trace;

//===----------------------------------------------------------------------===//
// The handle
//===----------------------------------------------------------------------===//

using NodeSlot = std::shared_ptr<Node>;

static NodeSlot &slot(unsigned char *storage) {
  return *std::launder(reinterpret_cast<NodeSlot *>(storage));
}
static const NodeSlot &slot(const unsigned char *storage) {
  return *std::launder(reinterpret_cast<const NodeSlot *>(storage));
}

const NodePtr &detail::TensorAccess::node(const Tensor &tensor) {
  return slot(tensor.nodeStorage);
}

Tensor detail::TensorAccess::wrap(NodePtr node) {
  Tensor tensor;
  if (node)
    ++node->handles;
  slot(tensor.nodeStorage) = std::move(node);
  return tensor;
}

Tensor::Tensor() {
  static_assert(sizeof(NodeSlot) <= sizeof(nodeStorage) &&
                    alignof(NodeSlot) <= alignof(void *),
                "Tensor::nodeStorage cannot hold a std::shared_ptr<Node>");
  new (nodeStorage) NodeSlot();
}

Tensor::Tensor(const Tensor &other) {
  const NodeSlot &node = slot(other.nodeStorage);
  if (node)
    ++node->handles;
  new (nodeStorage) NodeSlot(node);
}

Tensor::Tensor(Tensor &&other) noexcept {
  new (nodeStorage) NodeSlot(std::move(slot(other.nodeStorage)));
}

Tensor &Tensor::operator=(const Tensor &other) {
  const NodeSlot &incoming = slot(other.nodeStorage);
  NodeSlot &node = slot(nodeStorage);
  if (incoming)
    ++incoming->handles;
  if (node)
    --node->handles;
  node = incoming;
  return *this;
}

Tensor &Tensor::operator=(Tensor &&other) noexcept {
  if (this == &other)
    return *this;
  NodeSlot &node = slot(nodeStorage);
  if (node)
    --node->handles;
  node = std::move(slot(other.nodeStorage));
  return *this;
}

Tensor::~Tensor() {
  NodeSlot &node = slot(nodeStorage);
  if (node)
    --node->handles;
  node.~NodeSlot();
}

bool Tensor::defined() const { return slot(nodeStorage) != nullptr; }

/// The node of a handle, or an error naming `op` for an empty handle. Calls
/// without a location parameter (metadata, printing) report none rather
/// than a line of lazyc's own.
static const Node &checked(const std::shared_ptr<Node> &node, const char *op,
                           SourceLocation where = SourceLocation()) {
  if (!node)
    throw Error(op, "the Tensor is empty (default-constructed or moved from)",
                where);
  return *node;
}

const std::vector<int64_t> &Tensor::shape() const {
  return checked(slot(nodeStorage), "shape").shape;
}
DType Tensor::dtype() const {
  return checked(slot(nodeStorage), "dtype").dtype;
}
int64_t Tensor::numel() const {
  return checked(slot(nodeStorage), "numel").numel();
}
Device Tensor::device() const {
  return checked(slot(nodeStorage), "device").device;
}
bool Tensor::isMaterialized() const {
  return checked(slot(nodeStorage), "isMaterialized").isMaterialized();
}

Tensor Tensor::fromData(DType dtype, const void *data, int64_t count,
                        std::vector<int64_t> shape, SourceLocation where) {
  int64_t elements = detail::checkedElements(shape, "fromVector", where);
  if (elements != count)
    throw Error("fromVector",
                std::to_string(count) + " values do not fill a shape of " +
                    std::to_string(elements) + " elements",
                where);
  return detail::TensorAccess::wrap(
      engine::newValue(dtype, std::move(shape), data, "fromVector", where));
}

/// The alignment the GPU's generated code and cuBLASLt assume of a device
/// buffer (the device allocator's blocks have it).
static constexpr uintptr_t kDeviceBufferAlignment = 256;

Tensor Tensor::fromBuffer(void *data, std::vector<int64_t> shape, DType dtype,
                          std::function<void(void *)> deleter, Device device,
                          SourceLocation where) {
  const char *op = "fromBuffer";
  int64_t elements = detail::checkedElements(shape, op, where);
  size_t bytes = static_cast<size_t>(elements) * sizeOf(dtype);
  if (!data && bytes)
    throw Error(op,
                "the data pointer is null, but shape " + shapeText(shape) +
                    " of " + dtypeName(dtype) + " needs " +
                    std::to_string(bytes) + " bytes",
                where);
  // Generated code loads elements at their natural alignment (and vectors
  // at no more than that): memory aligned to its element size is read in
  // place, any other is copied.
  if (device == Device::cpu() &&
      reinterpret_cast<uintptr_t>(data) % sizeOf(dtype) != 0) {
    NodePtr copy =
        engine::newValue(dtype, std::move(shape), data, op, where, device);
    if (deleter)
      deleter(data);
    return detail::TensorAccess::wrap(std::move(copy));
  }
  // GPU kernels read and write device buffers 16 bytes at a time and
  // cuBLASLt plans for the device allocator's 256-byte alignment: device
  // memory aligned less is copied into an allocator block.
  if (device.kind() == Device::Kind::CUDA && bytes &&
      reinterpret_cast<uintptr_t>(data) % kDeviceBufferAlignment != 0) {
    int index = device.index();
    void *copy = lazyrt_cuda_alloc(index, bytes);
    if (!copy || lazyrt_cuda_copy_on_device(index, copy, data, bytes) != 0 ||
        lazyrt_cuda_synchronize(index) != 0) {
      std::string why = lazyrt_get_last_error();
      lazyrt_cuda_free(index, copy);
      throw Error(
          op,
          "cannot copy " + std::to_string(bytes) + " bytes at " +
              std::to_string(reinterpret_cast<uintptr_t>(data)) +
              " (not aligned to " + std::to_string(kDeviceBufferAlignment) +
              " bytes) into an aligned buffer on " + device.str() + ": " + why,
          where);
    }
    if (deleter)
      deleter(data);
    data = copy;
    // The allocator reuses a block only after the work queued before its
    // free.
    deleter = [index](void *block) { lazyrt_cuda_free(index, block); };
  } else if (device.kind() == Device::Kind::CUDA && deleter) {
    // Kernels run asynchronously: the user's memory goes back only after
    // the work that may read it.
    deleter = [index = device.index(),
               userDeleter = std::move(deleter)](void *block) {
      lazyrt_cuda_synchronize(index);
      userDeleter(block);
    };
  }
  NodePtr node =
      engine::newBufferNode(dtype, std::move(shape), device, op, where);
  std::function<void()> release;
  if (deleter)
    release = [deleter = std::move(deleter), data] { deleter(data); };
  node->value = std::make_shared<Buffer>(data, dtype, elements, device,
                                         std::move(release));
  engine::countOp();
  return detail::TensorAccess::wrap(std::move(node));
}

Tensor Tensor::fromBools(const std::vector<bool> &data,
                         std::vector<int64_t> shape, SourceLocation where) {
  std::vector<uint8_t> bytes(data.begin(), data.end());
  return fromData(DType::Bool, bytes.data(), static_cast<int64_t>(bytes.size()),
                  std::move(shape), where);
}

void Tensor::read(DType as, void *out, Cause cause,
                  SourceLocation where) const {
  const NodePtr &node = slot(nodeStorage);
  if (!checked(node, cause == Cause::Item ? "item" : "toVector", where)
           .isMaterialized())
    engine::materialize({node.get()}, cause, where);
  std::vector<uint8_t> staging;
  const char *op = cause == Cause::Item ? "item" : "toVector";
  convert::elements(engine::hostData(*node, staging, op, where), node->dtype,
                    out, as, node->numel());
}

Tensor Tensor::to(Device device, SourceLocation where) const {
  const char *op = "to";
  const NodePtr &node = slot(nodeStorage);
  const Node &n = checked(node, op, where);
  if (n.device == device)
    return *this;
  engine::checkAvailable(device, op, where);
  if (!n.isMaterialized())
    engine::materialize({node.get()}, Cause::ToVector, where);
  std::vector<uint8_t> staging; // used off the CPU only
  const void *host = engine::hostData(n, staging, op, where);
  return detail::TensorAccess::wrap(
      engine::newValue(n.dtype, n.shape, host, op, where, device));
}

void Tensor::copyTo(void *out, size_t bytes, DType dtype,
                    SourceLocation where) const {
  const char *op = "copyTo";
  const NodePtr &node = slot(nodeStorage);
  const Node &n = checked(node, op, where);
  size_t needed = static_cast<size_t>(n.numel()) * sizeOf(n.dtype);
  if (dtype != n.dtype)
    throw Error(op,
                std::string("the buffer is for ") + dtypeName(dtype) +
                    " elements, but the tensor of shape " + shapeText(n.shape) +
                    " is " + dtypeName(n.dtype) +
                    " (cast it first, or use toVector to convert)",
                where);
  if (bytes != needed)
    throw Error(op,
                "the buffer holds " + std::to_string(bytes / sizeOf(dtype)) +
                    " elements of " + dtypeName(dtype) + " (" +
                    std::to_string(bytes) +
                    " bytes), but the tensor of shape " + shapeText(n.shape) +
                    " has " + std::to_string(n.numel()) + " (" +
                    std::to_string(needed) + " bytes)",
                where);
  if (!n.isMaterialized())
    engine::materialize({node.get()}, Cause::ToVector, where);
  std::vector<uint8_t> staging; // used off the CPU only
  if (needed)
    std::memcpy(out, engine::hostData(n, staging, op, where), needed);
}

int64_t Tensor::readableNumel(SourceLocation where) const {
  const NodePtr &node = slot(nodeStorage);
  if (!checked(node, "toVector", where).isMaterialized())
    engine::materialize({node.get()}, Cause::ToVector, where);
  return node->numel();
}

void Tensor::checkItem(SourceLocation where) const {
  const Node &n = checked(slot(nodeStorage), "item", where);
  if (n.numel() != 1)
    throw Error("item",
                "needs a tensor of one element, but the shape is " +
                    shapeText(n.shape),
                where);
}

Tensor::operator bool() const {
  const Node &n = checked(slot(nodeStorage), "bool");
  if (n.numel() != 1)
    throw Error("bool",
                "only a one-element tensor converts to bool; this one has " +
                    std::to_string(n.numel()) + " elements",
                n.loc.file, n.loc.line);
  uint8_t value;
  read(DType::Bool, &value, Cause::Bool, SourceLocation());
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

/// Prints dimension `dim` of `node`'s elements (at `data`, on the host)
/// starting at `offset`, numpy-style.
static void printDim(std::ostream &os, const Node &node, const void *data,
                     size_t dim, int64_t offset,
                     const std::vector<int64_t> &strides) {
  if (dim == node.shape.size()) {
    const uint8_t *bytes =
        static_cast<const uint8_t *>(data) + offset * sizeOf(node.dtype);
    if (node.dtype == DType::Bool) {
      os << (*bytes ? "true" : "false");
      return;
    }
    if (isFloatingPoint(node.dtype)) {
      os << static_cast<float>(convert::loadScalar(bytes, node.dtype));
      return;
    }
    // Exactly (a double would round Int64s past 2^53).
    int64_t value = convert::loadInteger(bytes, node.dtype);
    if (node.dtype == DType::UInt64)
      os << static_cast<uint64_t>(value);
    else
      os << value;
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
      printDim(os, node, data, dim + 1, offset + i * strides[dim], strides);
    }
    if (i + 1 < size)
      os << ", ";
  }
  os << ']';
}

std::ostream &lazyc::operator<<(std::ostream &os, const Tensor &tensor) {
  const Node &node = checked(detail::TensorAccess::node(tensor), "print");
  if (!node.isMaterialized())
    engine::materialize({detail::TensorAccess::node(tensor).get()},
                        Cause::Print, SourceLocation());
  std::vector<int64_t> strides(node.shape.size(), 1);
  for (size_t d = node.shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * node.shape[d];
  std::vector<uint8_t> staging;
  printDim(os, node, engine::hostData(node, staging, "print", SourceLocation()),
           0, 0, strides);
  return os;
}
