//===- LittleEndian.h - Integers in file formats ----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Little-endian integers as the file formats store them (.npy header
// lengths, zip records, checkpoint entries), whatever the host's order.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_FORMATS_LITTLEENDIAN_H
#define LAZYC_FORMATS_LITTLEENDIAN_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace lazyc::formats {

/// Appends `value`'s bytes, lowest first.
template <typename T> void putLittleEndian(std::string &out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out += static_cast<char>(static_cast<uint64_t>(value) >> (8 * i) & 0xff);
}

/// The value whose bytes, lowest first, start at `data`.
template <typename T> T getLittleEndian(const char *data) {
  uint64_t value = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    value |= uint64_t(static_cast<uint8_t>(data[i])) << (8 * i);
  return static_cast<T>(value);
}

} // namespace lazyc::formats

#endif // LAZYC_FORMATS_LITTLEENDIAN_H
