//===- Idx.cpp - The IDX file format (MNIST) ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Data/Idx.h"

#include "lazyc/API/Error.h"

#include <fstream>
#include <iterator>

using namespace lazyc;
using namespace lazyc::data;

/// The IDX type code of unsigned bytes, the only one MNIST uses.
static constexpr uint8_t unsignedByteType = 0x08;

static const char *typeName(uint8_t code) {
  switch (code) {
  case 0x08:
    return "unsigned byte";
  case 0x09:
    return "signed byte";
  case 0x0B:
    return "int16";
  case 0x0C:
    return "int32";
  case 0x0D:
    return "float32";
  case 0x0E:
    return "float64";
  default:
    return nullptr;
  }
}

static std::string hexByte(uint8_t byte) {
  const char *digits = "0123456789abcdef";
  return std::string("0x") + digits[byte >> 4] + digits[byte & 15];
}

IdxArray data::readIdx(const std::string &path, SourceLocation where) {
  auto fail = [&](const std::string &message) -> Error {
    return Error("readIdx", path + ": " + message, where);
  };
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw fail("cannot open the file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  if (file.bad())
    throw fail("read error");

  if (bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b)
    throw fail("the file is gzip-compressed; decompress it first (gunzip)");
  if (bytes.size() < 4)
    throw fail("too short for an IDX header (" + std::to_string(bytes.size()) +
               " bytes)");
  if (bytes[0] != 0 || bytes[1] != 0)
    throw fail("not an IDX file: the magic number must start with two zero "
               "bytes, got " +
               hexByte(bytes[0]) + " " + hexByte(bytes[1]));
  uint8_t type = bytes[2];
  if (type != unsignedByteType) {
    const char *name = typeName(type);
    throw fail(name ? std::string("elements of type ") + name + " (" +
                          hexByte(type) +
                          ") are not supported; only unsigned bytes (0x08)"
                    : "unknown IDX element type " + hexByte(type));
  }
  size_t rank = bytes[3];
  if (rank == 0)
    throw fail("the header declares zero dimensions");
  size_t headerSize = 4 + 4 * rank;
  if (bytes.size() < headerSize)
    throw fail("truncated header: " + std::to_string(rank) +
               " dimensions need " + std::to_string(headerSize) +
               " bytes, the file has " + std::to_string(bytes.size()));

  IdxArray array;
  uint64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const uint8_t *field = &bytes[4 + 4 * d];
    uint32_t size = (uint32_t(field[0]) << 24) | (uint32_t(field[1]) << 16) |
                    (uint32_t(field[2]) << 8) | uint32_t(field[3]);
    array.dims.push_back(size);
    // Saturate rather than overflow: the size check below then fails.
    if (__builtin_mul_overflow(count, uint64_t(size), &count))
      count = UINT64_MAX;
  }
  size_t dataSize = bytes.size() - headerSize;
  if (count != dataSize) {
    std::string dims;
    for (size_t d = 0; d < rank; ++d)
      dims += (d ? " x " : "") + std::to_string(array.dims[d]);
    std::string needed =
        count == UINT64_MAX ? "at least 2^64" : std::to_string(count);
    throw fail((count > dataSize ? "truncated: " : "trailing bytes: ") +
               std::string("the dimensions ") + dims + " need " + needed +
               " data bytes, but " + std::to_string(dataSize) +
               " follow the header");
  }
  array.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(headerSize),
                      bytes.end());
  return array;
}

void data::writeIdx(const std::string &path, const IdxArray &array,
                    SourceLocation where) {
  if (array.dims.empty() || array.dims.size() > 255)
    throw Error("writeIdx",
                path + ": an IDX file has 1 to 255 dimensions, got " +
                    std::to_string(array.dims.size()),
                where);
  uint64_t count = 1;
  for (int64_t size : array.dims) {
    if (size < 0 || size > int64_t(UINT32_MAX))
      throw Error("writeIdx",
                  path + ": dimension " + std::to_string(size) +
                      " does not fit an unsigned 32-bit field",
                  where);
    count *= static_cast<uint64_t>(size);
  }
  if (count != array.values.size())
    throw Error("writeIdx",
                path + ": the dimensions hold " + std::to_string(count) +
                    " values, but " + std::to_string(array.values.size()) +
                    " were given",
                where);
  std::vector<uint8_t> header = {0, 0, unsignedByteType,
                                 static_cast<uint8_t>(array.dims.size())};
  for (int64_t size : array.dims)
    for (int shift = 24; shift >= 0; shift -= 8)
      header.push_back(static_cast<uint8_t>(uint64_t(size) >> shift));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char *>(header.data()),
             static_cast<std::streamsize>(header.size()));
  file.write(reinterpret_cast<const char *>(array.values.data()),
             static_cast<std::streamsize>(array.values.size()));
  if (!file)
    throw Error("writeIdx", path + ": cannot write the file", where);
}
