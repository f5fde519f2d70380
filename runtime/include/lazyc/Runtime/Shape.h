//===- Shape.h - Shapes as text, for every layer ----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file defines how lazyc writes a shape in text: "[2, 3]" in messages
// to users, "2x3" where MLIR's tensor-type syntax is expected. Like DType.h
// it is the lowest layer (standard library only, header-only), so the API,
// the dialect, the JIT and the tools all print shapes the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_SHAPE_H
#define LAZYC_RUNTIME_SHAPE_H

#include "lazyc/Runtime/DType.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace lazyc {

/// The dimensions of `shape` joined by `separator`. A dimension equal to
/// `dynamic` (the marker of a size known only at run time: -1 in JIT
/// signatures, ShapedType::kDynamic in MLIR types) is written `?`; without
/// one, every dimension is written as its number.
inline std::string joinDims(std::span<const int64_t> shape,
                            std::string_view separator,
                            std::optional<int64_t> dynamic = std::nullopt) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += separator;
    text += shape[i] == dynamic ? std::string("?") : std::to_string(shape[i]);
  }
  return text;
}

/// "[2, 3]" ("[]" for a scalar): a shape as messages to users write it.
inline std::string shapeText(std::span<const int64_t> shape,
                             std::optional<int64_t> dynamic = std::nullopt) {
  return "[" + joinDims(shape, ", ", dynamic) + "]";
}

/// "Float32 [2, 3]": a tensor type as messages to users write it; -1 (an
/// unknown size in a signature) reads "?".
inline std::string typeText(DType dtype, std::span<const int64_t> shape) {
  return std::string(dtypeInfo(dtype).name) + " " + shapeText(shape, -1);
}

/// "2x3" ("" for a scalar): the dimensions as an MLIR tensor type writes
/// them (`tensor<2x3xf32>`, `random:2x3` on lazyc-run's command line).
inline std::string
mlirShapeText(std::span<const int64_t> shape,
              std::optional<int64_t> dynamic = std::nullopt) {
  return joinDims(shape, "x", dynamic);
}

} // namespace lazyc

#endif // LAZYC_RUNTIME_SHAPE_H
