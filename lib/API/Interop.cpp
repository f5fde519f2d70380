//===- Interop.cpp - Sharing tensors with other libraries -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements toDLPack and fromDLPack. An export is a
// DLManagedTensor whose context holds a reference to lazyc's buffer (so the
// engine neither frees nor donates it while the consumer reads it); an
// import wraps the producer's memory with Tensor::fromBuffer, whose deleter
// is the producer's. DLPack type codes come from the DType table, so a dtype
// added there is exchanged without changes here.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Interop.h"
#include "Engine/Engine.h"
#include "ShapeCheck.h"
#include "TensorAccess.h"

#include "lazyc/JIT/Target.h"
#include "lazyc/Runtime/Runtime.h"

#include <dlpack/dlpack.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

using namespace lazyc;

namespace {

/// DLPack's bool type code (DLPack 0.8; the installed 0.6 header predates
/// the name, and `code` is a plain byte).
constexpr uint8_t kDLBoolCode = 6;

/// The DLPack element type of `dtype`, from the DType table: its numpy kind
/// ('f', 'i', 'u', 'b') and size, bfloat16 by its MLIR name; none if DLPack
/// has no such type.
std::optional<DLDataType> dlpackType(DType dtype) {
  const DTypeInfo &info = dtypeInfo(dtype);
  auto bits = static_cast<uint8_t>(info.size * 8);
  if (std::string_view(info.mlirName) == "bf16")
    return DLDataType{kDLBfloat, bits, 1};
  char kind = *info.numpyName ? info.numpyName[1] : '\0';
  switch (kind) {
  case 'f':
    return DLDataType{kDLFloat, bits, 1};
  case 'i':
    return DLDataType{kDLInt, bits, 1};
  case 'u':
    return DLDataType{kDLUInt, bits, 1};
  case 'b':
    return DLDataType{kDLBoolCode, bits, 1};
  default:
    return std::nullopt;
  }
}

/// "float32", "complex64", "code 9 (8 bits)": a DLPack dtype for errors.
std::string dlpackTypeText(DLDataType type) {
  static const char *const names[] = {"int",    "uint",    "float", "opaque",
                                      "bfloat", "complex", "bool"};
  std::string text = type.code < std::size(names)
                         ? names[type.code] + std::to_string(type.bits)
                         : "code " + std::to_string(type.code) + " (" +
                               std::to_string(type.bits) + " bits)";
  if (type.lanes != 1)
    text += " x " + std::to_string(type.lanes) + " lanes";
  return text;
}

/// "kDLCUDA", as the DLPack header names a device type.
std::string dlpackDeviceText(DLDevice device) {
  static const char *const names[] = {"",          "kDLCPU",
                                      "kDLCUDA",   "kDLCUDAHost",
                                      "kDLOpenCL", "",
                                      "",          "kDLVulkan",
                                      "kDLMetal",  "kDLVPI",
                                      "kDLROCM",   "kDLROCMHost",
                                      "kDLExtDev", "kDLCUDAManaged",
                                      "kDLOneAPI", "kDLWebGPU",
                                      "kDLHexagon"};
  auto type = static_cast<size_t>(device.device_type);
  std::string name = type < std::size(names) && *names[type]
                         ? names[type]
                         : "device type " + std::to_string(type);
  return name + " (device " + std::to_string(device.device_id) + ")";
}

/// What an export owns: the buffer it shares, and the shape and strides
/// its DLTensor points at.
struct Export {
  DLManagedTensor managed;
  std::shared_ptr<trace::Buffer> buffer;
  std::vector<int64_t> shape, strides;
};

/// Row-major strides, in elements.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Copies the `shape` elements of `elementBytes` bytes at `source`, which
/// steps `strides` elements per dimension, to `target` in row-major order.
void gather(const char *source, const std::vector<int64_t> &shape,
            const int64_t *strides, size_t elementBytes, char *target) {
  std::vector<int64_t> index(shape.size(), 0);
  int64_t elements = 1;
  for (int64_t dim : shape)
    elements *= dim;
  for (int64_t i = 0; i < elements; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += index[d] * strides[d];
    std::memcpy(target + i * elementBytes,
                source + offset * static_cast<int64_t>(elementBytes),
                elementBytes);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace

DLManagedTensor *lazyc::toDLPack(const Tensor &tensor, SourceLocation where) {
  const char *op = "toDLPack";
  if (!tensor.defined())
    throw Error(op, "the Tensor is empty (default-constructed or moved from)",
                where);
  const trace::NodePtr &node = detail::TensorAccess::node(tensor);
  std::optional<DLDataType> type = dlpackType(node->dtype);
  if (!type)
    throw Error(op,
                std::string("DLPack has no type for ") + dtypeName(node->dtype),
                where);
  if (!node->isMaterialized())
    engine::materialize({node.get()}, Cause::ToVector, where);
  // A GPU computes asynchronously, and the consumer reads on streams of its
  // own: the values must be there first.
  synchronize(node->device, where);

  auto exported = std::make_unique<Export>();
  exported->buffer = node->value;
  exported->shape = node->shape;
  exported->strides = rowMajorStrides(node->shape);
  DLTensor &out = exported->managed.dl_tensor;
  out.data = exported->buffer->data();
  Device device = node->device;
  out.device = {device.kind() == Device::Kind::CPU ? kDLCPU : kDLCUDA,
                device.index()};
  out.ndim = static_cast<int>(exported->shape.size());
  out.dtype = *type;
  out.shape = exported->shape.data();
  out.strides = exported->strides.data();
  out.byte_offset = 0;
  exported->managed.manager_ctx = exported.get();
  exported->managed.deleter = [](DLManagedTensor *self) {
    delete static_cast<Export *>(self->manager_ctx);
  };
  return &exported.release()->managed;
}

Tensor lazyc::fromDLPack(DLManagedTensor *managed, SourceLocation where) {
  const char *op = "fromDLPack";
  if (!managed)
    throw Error(op, "the DLManagedTensor is a null pointer", where);
  const DLTensor &in = managed->dl_tensor;

  std::optional<DType> dtype;
  for (DType candidate : kAllDTypes)
    if (std::optional<DLDataType> type = dlpackType(candidate);
        type && type->code == in.dtype.code && type->bits == in.dtype.bits &&
        type->lanes == in.dtype.lanes)
      dtype = candidate;
  if (!dtype) {
    std::string supported;
    for (DType candidate : kAllDTypes)
      if (std::optional<DLDataType> type = dlpackType(candidate))
        supported += (supported.empty() ? "" : ", ") + dlpackTypeText(*type);
    throw Error(op,
                "the DLPack dtype " + dlpackTypeText(in.dtype) +
                    " is not supported (supported: " + supported + ")",
                where);
  }

  // Pinned host memory is host memory; device memory needs its backend.
  Device device = Device::cpu();
  if (in.device.device_type == kDLCUDA) {
    device = Device::cuda(in.device.device_id);
    if (std::string whyNot;
        !jit::targetFor(device.kind()).isAvailable(device, whyNot))
      throw Error(op,
                  "cannot import a tensor on DLPack device " +
                      dlpackDeviceText(in.device) + ": " + whyNot,
                  where);
  } else if (in.device.device_type != kDLCPU &&
             in.device.device_type != kDLCUDAHost) {
    throw Error(op,
                "cannot import a tensor on DLPack device " +
                    dlpackDeviceText(in.device) +
                    " (lazyc imports kDLCPU and kDLCUDAHost memory, and "
                    "kDLCUDA with the GPU backend)",
                where);
  }

  if (in.ndim < 0 || (in.ndim > 0 && !in.shape))
    throw Error(op,
                "the DLPack tensor has ndim " + std::to_string(in.ndim) +
                    (in.ndim > 0 ? " but no shape" : ""),
                where);
  std::vector<int64_t> shape(in.shape, in.shape + in.ndim);
  int64_t elements = detail::checkedElements(shape, op, where);
  size_t elementBytes = sizeOf(*dtype);
  char *data = static_cast<char *>(in.data) + in.byte_offset;

  // Strides of size-1 dimensions say nothing; an empty tensor has none.
  bool contiguous = true;
  if (in.strides && elements > 0) {
    int64_t expected = 1;
    for (int64_t d = in.ndim; d-- > 0;) {
      if (shape[d] != 1 && in.strides[d] != expected)
        contiguous = false;
      expected *= shape[d];
    }
  }
  auto release = [managed](void *) {
    if (managed->deleter)
      managed->deleter(managed);
  };
  if (contiguous)
    return Tensor::fromBuffer(data, std::move(shape), *dtype, release, device,
                              where);
  if (device != Device::cpu())
    throw Error(op,
                "the tensor on DLPack device " + dlpackDeviceText(in.device) +
                    " is not C-contiguous; only CPU tensors are copied (make "
                    "it contiguous first)",
                where);
  // A strided view is copied: lazyc's buffers are row-major.
  size_t bytes = static_cast<size_t>(elements) * elementBytes;
  void *copy = lazyrt_alloc(bytes);
  if (!copy)
    throw Error(op,
                "cannot allocate " + std::to_string(bytes) +
                    " bytes to copy a strided DLPack tensor of shape " +
                    shapeText(shape),
                where);
  gather(data, shape, in.strides, elementBytes, static_cast<char *>(copy));
  Tensor tensor;
  try {
    tensor = Tensor::fromBuffer(copy, std::move(shape), *dtype, lazyrt_free,
                                device, where);
  } catch (...) {
    lazyrt_free(copy);
    throw;
  }
  release(nullptr);
  return tensor;
}
