//===- Idx.h - The IDX file format (MNIST) ----------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads and writes IDX files, the format of the MNIST data set
// (yann.lecun.com/exdb/mnist): the bytes 0, 0, a type code (0x08 for
// unsigned bytes) and the number of dimensions; then each dimension as a
// big-endian 32-bit integer; then the elements in row-major order. Only
// unsigned-byte files (MNIST's images and labels) are supported. Every
// problem with a file is reported as a lazyc::Error naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DATA_IDX_H
#define LAZYC_DATA_IDX_H

#include "lazyc/API/SourceLocation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lazyc::data {

/// The contents of an unsigned-byte IDX file.
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> values; ///< row-major, product of dims elements
};

/// Reads the IDX file at `path`. Throws lazyc::Error (op "readIdx") if the
/// file cannot be opened, is gzip-compressed, has a bad magic number, is
/// not of unsigned bytes, is truncated or has bytes after its data.
IdxArray readIdx(const std::string &path,
                 SourceLocation where = SourceLocation::current());

/// Writes `array` as an unsigned-byte IDX file (tests make their own files
/// with it). Throws lazyc::Error (op "writeIdx") if the file cannot be
/// written or the dims do not match the values.
void writeIdx(const std::string &path, const IdxArray &array,
              SourceLocation where = SourceLocation::current());

} // namespace lazyc::data

#endif // LAZYC_DATA_IDX_H
