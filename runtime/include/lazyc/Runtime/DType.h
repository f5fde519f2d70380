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
#include <string_view>

namespace lazyc {

/// The element type of a tensor.
enum class DType : std::uint8_t {
  Float32,
  Float64,
  Float16,
  BFloat16,
  Int32,
  Int64,
  Bool,
};

/// Bytes per element (a Bool is one byte).
constexpr std::size_t sizeOf(DType dtype) {
  switch (dtype) {
  case DType::Float64:
  case DType::Int64:
    return 8;
  case DType::Float32:
  case DType::Int32:
    return 4;
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Bool:
    return 1;
  }
  return 0;
}

/// The MLIR spelling of the element type: f32, f64, f16, bf16, i32, i64, i1.
constexpr std::string_view mlirName(DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return "f32";
  case DType::Float64:
    return "f64";
  case DType::Float16:
    return "f16";
  case DType::BFloat16:
    return "bf16";
  case DType::Int32:
    return "i32";
  case DType::Int64:
    return "i64";
  case DType::Bool:
    return "i1";
  }
  return "?";
}

constexpr bool isFloatingPoint(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 ||
         dtype == DType::Float16 || dtype == DType::BFloat16;
}

} // namespace lazyc

#endif // LAZYC_RUNTIME_DTYPE_H
