//===- Npy.h - numpy's .npy format ------------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the one reader and writer of numpy's .npy format that
// the library (loadNpy, saveNpy, .npz members) and lazyc-run share: bytes in,
// bytes out, no tensors and no exceptions, so every caller words its errors
// the same way ("'x.npy' has the unsupported dtype '<c8' (...)").
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_FORMATS_NPY_H
#define LAZYC_FORMATS_NPY_H

#include "lazyc/Runtime/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lazyc::formats {

/// The first bytes of every .npy file.
inline constexpr char kNpyMagic[] = "\x93NUMPY";

/// An array as a .npy file holds it: little-endian elements of `dtype` in
/// row-major (C) order.
struct NpyArray {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::string data;
};

/// The array in the .npy file `bytes` (versions 1.0, 2.0 and 3.0, C order,
/// little endian, a dtype of the DType table; Bool bytes other than 0 and 1
/// read as 1). None if the file is not such a file: `why` then says what is
/// wrong, as a phrase to follow the file's name ("is truncated: ...").
std::optional<NpyArray> parseNpy(std::string bytes, std::string &why);

/// The bytes of a .npy file holding `array`: format 1.0 (2.0 for a header
/// past 64 KiB), the data aligned to 64 bytes as numpy.save writes it.
/// BFloat16, which numpy lacks, is written as float32, exactly.
std::string npyFile(const NpyArray &array);

/// `array` (float32, from a file) as BFloat16, each value rounded to the
/// nearest bfloat16 (ties to even; NaN stays NaN).
NpyArray toBFloat16(const NpyArray &array);

/// "'<f4', '<f8', ...": the type strings parseNpy reads.
std::string npyDescriptors();

/// The element count of `shape` and its byte size in `dtype`; none where
/// either overflows int64 (a corrupted or hostile shape) or a dimension is
/// negative.
std::optional<std::pair<int64_t, int64_t>>
checkedSizes(const std::vector<int64_t> &shape, DType dtype);

} // namespace lazyc::formats

#endif // LAZYC_FORMATS_NPY_H
