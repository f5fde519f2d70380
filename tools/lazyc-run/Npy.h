//===- Npy.h - Read and write numpy .npy files ------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares lazyc-run's view of .npy files (the library's reader
// and writer, lazyc/Formats/Npy.h): versions 1.0 to 3.0, C order, little
// endian, lazyc's dtypes. bf16, which numpy lacks, is stored as float32.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TOOLS_LAZYC_RUN_NPY_H
#define LAZYC_TOOLS_LAZYC_RUN_NPY_H

#include "lazyc/Runtime/DType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace lazyc::npy {

/// An array read from or written to a .npy file: raw little-endian elements
/// of `dtype` in row-major order.
struct Array {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

/// Reads `path`; bf16 is requested by `wantBFloat16` (the file holds f32).
llvm::Expected<Array> read(llvm::StringRef path, bool wantBFloat16 = false);

/// Writes `array` to `path` (bf16 as float32).
llvm::Error write(llvm::StringRef path, const Array &array);

} // namespace lazyc::npy

#endif // LAZYC_TOOLS_LAZYC_RUN_NPY_H
