//===- Tensor.h - The lazy tensor handle ------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares lazyc::Tensor, the value-semantic handle users compute
// with. Every op on tensors is only recorded; reading a value (toVector,
// item, printing, a bool conversion) or sync() compiles and runs the pending
// work. Standard library only: no MLIR or LLVM in the public API.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_TENSOR_H
#define LAZYC_API_TENSOR_H

#include "lazyc/API/Device.h"
#include "lazyc/API/Error.h"
#include "lazyc/Runtime/DType.h"

#include "lazyc/API/SourceLocation.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <type_traits>
#include <vector>

namespace lazyc {

namespace detail {
struct TensorAccess;
} // namespace detail

/// The dtype of a C++ element type.
template <typename T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<float>() { return DType::Float32; }
template <> constexpr DType dtypeOf<double>() { return DType::Float64; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::Int32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::Int64; }
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::Int8; }
template <> constexpr DType dtypeOf<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::Int16; }
template <> constexpr DType dtypeOf<uint16_t>() { return DType::UInt16; }
template <> constexpr DType dtypeOf<uint32_t>() { return DType::UInt32; }
template <> constexpr DType dtypeOf<uint64_t>() { return DType::UInt64; }

/// The name of a dtype as the API spells it ("Float32", ...).
const char *dtypeName(DType dtype);

/// Why a value was materialized (counted in metrics()). InitialValues: new
/// Variables' initial values, computed in a trace of their own before the
/// first trace that reads them.
enum class Cause {
  Item,
  ToVector,
  Print,
  Bool,
  Sync,
  SizeLimit,
  Eager,
  InitialValues
};

class Index;

class Tensor {
public:
  /// An empty handle; using it in an op is an error.
  Tensor();
  Tensor(const Tensor &other);
  Tensor(Tensor &&other) noexcept;
  Tensor &operator=(const Tensor &other);
  Tensor &operator=(Tensor &&other) noexcept;
  ~Tensor();

  /// A tensor holding a copy of `data` (row-major) with `shape`.
  template <typename T>
  static Tensor fromVector(const std::vector<T> &data,
                           std::vector<int64_t> shape,
                           SourceLocation where = SourceLocation::current()) {
    static_assert(!std::is_same_v<T, bool>,
                  "std::vector<bool> is not contiguous: use fromBools");
    return fromData(dtypeOf<T>(), data.data(),
                    static_cast<int64_t>(data.size()), std::move(shape), where);
  }

  /// A boolean tensor (std::vector<bool> has no contiguous storage).
  static Tensor fromBools(const std::vector<bool> &data,
                          std::vector<int64_t> shape,
                          SourceLocation where = SourceLocation::current());

  /// A tensor over `data`, the row-major elements of `dtype` with `shape` in
  /// `device`'s memory, without a copy (Bool elements are bytes, 0 or 1).
  /// lazyc only reads that memory, when a computation that uses the tensor
  /// runs: a write to it before then is seen by that computation, one
  /// after it is not. Compiled code never writes it in place. `deleter(data)`
  /// runs once, when lazyc no longer needs the memory (the last handle, op
  /// and DLPack export using it are gone); with a null deleter the caller
  /// keeps ownership and must keep the memory alive as long as lazyc may
  /// read it. CPU memory not aligned to its element size, and GPU memory
  /// not aligned to 256 bytes (what GPU kernels and cuBLASLt assume: the
  /// device allocator's alignment), is copied at once instead (and the
  /// deleter runs at once). On an error
  /// the memory stays the caller's: the deleter is not called.
  static Tensor fromBuffer(void *data, std::vector<int64_t> shape, DType dtype,
                           std::function<void(void *)> deleter,
                           Device device = Device::cpu(),
                           SourceLocation where = SourceLocation::current());

  // Metadata: known when the op is recorded, never forces execution.
  const std::vector<int64_t> &shape() const;
  DType dtype() const;
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t numel() const;
  /// Where the tensor lives (and the ops on it run).
  Device device() const;
  /// The tensor on `device`: itself if it lives there, else a copy there.
  /// The copy computes the tensor first (a trace runs on one device) and
  /// goes through host memory; ops on the copy run on `device`.
  Tensor to(Device device,
            SourceLocation where = SourceLocation::current()) const;
  bool isMaterialized() const;
  /// False for a default-constructed or moved-from handle.
  bool defined() const;

  /// The elements, converted to T, in row-major order (materializes).
  template <typename T>
  std::vector<T>
  toVector(SourceLocation where = SourceLocation::current()) const {
    std::vector<T> out(static_cast<size_t>(readableNumel(where)));
    read(dtypeOf<T>(), out.data(), Cause::ToVector, where);
    return out;
  }

  /// Copies the elements, row-major, into `out` (materializes; on the CPU
  /// nothing is allocated): `x.copyTo(std::span(buffer))`. `out` must have
  /// the tensor's dtype and hold exactly numel() elements.
  template <typename T, size_t Extent>
  void copyTo(std::span<T, Extent> out,
              SourceLocation where = SourceLocation::current()) const {
    static_assert(!std::is_const_v<T>, "copyTo writes into `out`");
    copyTo(out.data(), out.size_bytes(), dtypeOf<T>(), where);
  }
  /// Copies the elements, row-major, into the `bytes` bytes at `out`, which
  /// must be numel() elements of `dtype`, the tensor's dtype (materializes).
  void copyTo(void *out, size_t bytes, DType dtype,
              SourceLocation where = SourceLocation::current()) const;

  /// The single element of a one-element tensor, converted to T
  /// (materializes).
  template <typename T>
  T item(SourceLocation where = SourceLocation::current()) const {
    checkItem(where);
    T value;
    read(dtypeOf<T>(), &value, Cause::Item, where);
    return value;
  }

  /// The truth of a one-element tensor (materializes): `while (x > 0.0f)`.
  explicit operator bool() const;

  /// x[indices...] as numpy computes it (lazyc::index, lazyc/API/Ops.h):
  /// `x.index({0, Range{1, -1}, newAxis, ids})`.
  Tensor index(const std::vector<Index> &indices,
               SourceLocation where = SourceLocation::current()) const;

private:
  friend struct detail::TensorAccess;

  static Tensor fromData(DType dtype, const void *data, int64_t count,
                         std::vector<int64_t> shape, SourceLocation where);
  void read(DType as, void *out, Cause cause, SourceLocation where) const;
  void checkItem(SourceLocation where) const;
  /// Computes the value (so that a failure blames the op that made it, not
  /// the host copy) and returns numel(); an error at `where` naming
  /// toVector for an empty handle.
  int64_t readableNumel(SourceLocation where) const;

  // A std::shared_ptr<trace::Node>, held opaquely: in C++20, libstdc++'s
  // <memory> includes <unistd.h>, whose POSIX ::sync() would make a bare
  // `sync()` after `using namespace lazyc` ambiguous in every user program.
  alignas(void *) unsigned char nodeStorage[2 * sizeof(void *)];
};

template <>
inline std::vector<bool> Tensor::toVector<bool>(SourceLocation where) const {
  std::vector<uint8_t> bytes(static_cast<size_t>(readableNumel(where)));
  read(DType::Bool, bytes.data(), Cause::ToVector, where);
  return std::vector<bool>(bytes.begin(), bytes.end());
}

template <> inline bool Tensor::item<bool>(SourceLocation where) const {
  checkItem(where);
  uint8_t value;
  read(DType::Bool, &value, Cause::Item, where);
  return value != 0;
}

/// Prints the values numpy-style (`[[4, 4], [4, 4]]`; materializes).
std::ostream &operator<<(std::ostream &os, const Tensor &tensor);

/// Materializes every tensor a handle still refers to, in one trace.
void sync(SourceLocation where = SourceLocation::current());

/// Runs ops one at a time (eager mode) while it lives, on this thread.
class EagerScope {
public:
  EagerScope();
  ~EagerScope();
  EagerScope(const EagerScope &) = delete;
  EagerScope &operator=(const EagerScope &) = delete;

private:
  bool previous;
};

/// Whether this thread records lazily (the default, unless LAZYC_MODE=eager).
bool isEager();

} // namespace lazyc

#endif // LAZYC_API_TENSOR_H
