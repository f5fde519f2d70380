//===- DType.h - Element types shared by every layer ------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the element types lazyc computes on. It is the lowest
// layer (standard library only), so the runtime, the JIT and the public API
// all name dtypes the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_DTYPE_H
#define LAZYC_RUNTIME_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace lazyc {

/// Every dtype once, in enum order: X(Enum, API name, MLIR name, numpy type
/// string, bytes per element, floating point, unsigned integer). The one
/// place a dtype's names are written: everything below and every layer's
/// spelling (the API's dtypeName, the JIT's signatures, lazyc-run's .npy
/// files) come from here. numpy has no bfloat16 (its entry is "").
///
/// MLIR integers are signless; the `lazy` dialect spells the unsigned
/// dtypes as `ui8`, `ui16`, ... so that its ops know the signedness, and the
/// lowering to linalg picks unsigned arith ops for them (then makes the
/// type signless).
/// New dtypes go at the end: saved models store the enum's value.
#define LAZYC_DTYPE_TABLE(X)                                                   \
  X(Float32, "Float32", "f32", "<f4", 4, true, false)                          \
  X(Float64, "Float64", "f64", "<f8", 8, true, false)                          \
  X(Float16, "Float16", "f16", "<f2", 2, true, false)                          \
  X(BFloat16, "BFloat16", "bf16", "", 2, true, false)                          \
  X(Int32, "Int32", "i32", "<i4", 4, false, false)                             \
  X(Int64, "Int64", "i64", "<i8", 8, false, false)                             \
  X(Bool, "Bool", "i1", "|b1", 1, false, false)                                \
  X(Int8, "Int8", "i8", "|i1", 1, false, false)                                \
  X(UInt8, "UInt8", "ui8", "|u1", 1, false, true)                              \
  X(Int16, "Int16", "i16", "<i2", 2, false, false)                             \
  X(UInt16, "UInt16", "ui16", "<u2", 2, false, true)                           \
  X(UInt32, "UInt32", "ui32", "<u4", 4, false, true)                           \
  X(UInt64, "UInt64", "ui64", "<u8", 8, false, true)

/// The element type of a tensor. Its values are 32 bits wide, as a plain
/// enum's: clang (which builds lazyc) assumes that callers widen 8-bit
/// arguments to 32 bits and does not widen what it returns; g++ does
/// neither, so a program built with g++ passed `dtypeName(t.dtype())` a
/// DType with garbage in its upper bits, and crashed. (Storage that must
/// stay small, a trace node's, holds it in 8 bits.)
enum class DType : std::int32_t {
#define LAZYC_DTYPE_ENUM(Enum, Name, Mlir, Numpy, Size, IsFloat, IsUnsigned)   \
  Enum,
  LAZYC_DTYPE_TABLE(LAZYC_DTYPE_ENUM)
#undef LAZYC_DTYPE_ENUM
};

/// What the table says about one dtype.
struct DTypeInfo {
  const char *name;      ///< As the API spells it: "Float32".
  const char *mlirName;  ///< As MLIR types spell it: "f32", "i1".
  const char *numpyName; ///< numpy's type string: "<f4"; "" if none.
  std::size_t size;      ///< Bytes per element (a Bool is one byte).
  bool isFloatingPoint;
  bool isUnsigned; ///< An unsigned integer (UInt8 ... UInt64).
};

namespace detail {
inline constexpr DTypeInfo kDTypeInfos[] = {
#define LAZYC_DTYPE_INFO(Enum, Name, Mlir, Numpy, Size, IsFloat, IsUnsigned)   \
  {Name, Mlir, Numpy, Size, IsFloat, IsUnsigned},
    LAZYC_DTYPE_TABLE(LAZYC_DTYPE_INFO)
#undef LAZYC_DTYPE_INFO
};
} // namespace detail

/// Every dtype, in enum order (for loops and lookups by name).
inline constexpr DType kAllDTypes[] = {
#define LAZYC_DTYPE_VALUE(Enum, Name, Mlir, Numpy, Size, IsFloat, IsUnsigned)  \
  DType::Enum,
    LAZYC_DTYPE_TABLE(LAZYC_DTYPE_VALUE)
#undef LAZYC_DTYPE_VALUE
};

/// The table's entry for `dtype`.
constexpr const DTypeInfo &dtypeInfo(DType dtype) {
  return detail::kDTypeInfos[static_cast<std::size_t>(dtype)];
}

/// Bytes per element (a Bool is one byte).
constexpr std::size_t sizeOf(DType dtype) { return dtypeInfo(dtype).size; }

/// The MLIR spelling of the element type: f32, f64, f16, bf16, i32, i64, i1,
/// i8, ui8, i16, ui16, ui32, ui64.
constexpr std::string_view mlirName(DType dtype) {
  return dtypeInfo(dtype).mlirName;
}

constexpr bool isFloatingPoint(DType dtype) {
  return dtypeInfo(dtype).isFloatingPoint;
}

/// UInt8, UInt16, UInt32, UInt64: integers whose values are 0 and up.
constexpr bool isUnsignedInteger(DType dtype) {
  return dtypeInfo(dtype).isUnsigned;
}

/// The lowest finite value of a floating-point dtype (numpy's
/// finfo(dtype).min): what a masked attention score gets added.
constexpr double lowestFinite(DType dtype) {
  switch (dtype) {
  case DType::Float16:
    return -65504.0;
  case DType::BFloat16:
    return -3.3895313892515355e38;
  case DType::Float64:
    return std::numeric_limits<double>::lowest();
  default:
    return std::numeric_limits<float>::lowest();
  }
}

} // namespace lazyc

#endif // LAZYC_RUNTIME_DTYPE_H
