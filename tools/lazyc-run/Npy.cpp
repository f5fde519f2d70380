//===- Npy.cpp - Read and write numpy .npy files --------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "lazyc/Runtime/Shape.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstring>
#include <optional>

using namespace lazyc;

static const char kMagic[] = "\x93NUMPY";

/// The numpy type string of a dtype (bf16, which numpy lacks, is written as
/// float32).
static const char *descriptor(DType dtype) {
  return dtypeInfo(dtype == DType::BFloat16 ? DType::Float32 : dtype).numpyName;
}

/// The dtypes numpy has, by type string.
static std::optional<DType> fromDescriptor(llvm::StringRef text) {
  for (DType dtype : kAllDTypes)
    if (*dtypeInfo(dtype).numpyName && text == dtypeInfo(dtype).numpyName)
      return dtype;
  return std::nullopt;
}

/// "<f4 <f8 ...": the type strings fromDescriptor reads.
static std::string supportedDescriptors() {
  std::string text;
  for (DType dtype : kAllDTypes) {
    const char *name = dtypeInfo(dtype).numpyName;
    if (*name)
      text += (text.empty() ? "" : " ") + std::string(name);
  }
  return text;
}

/// The text of `key`'s value in a .npy header, a Python dict literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`: a quoted
/// string, a parenthesized tuple or a bare word. None if `key` is missing or
/// its value is none of these.
static std::optional<llvm::StringRef> dictValue(llvm::StringRef header,
                                                llvm::StringRef key) {
  std::string quoted = ("'" + key + "'").str();
  size_t at = header.find(quoted);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  size_t end;
  if (rest.starts_with("'"))
    end = rest.find('\'', 1);
  else if (rest.starts_with("("))
    end = rest.find(')');
  else if (llvm::StringRef word =
               rest.take_while([](char c) { return std::isalpha(c); });
           !word.empty())
    return word;
  else
    return std::nullopt;
  if (end == llvm::StringRef::npos)
    return std::nullopt;
  return rest.take_front(end + 1);
}

/// Parses a tuple of non-negative dimensions: `()`, `(4,)`, `(2, 3)`.
static std::optional<std::vector<int64_t>> parseShape(llvm::StringRef text) {
  if (!text.consume_front("(") || !text.consume_back(")"))
    return std::nullopt;
  std::vector<int64_t> shape;
  if (text.trim().empty())
    return shape;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  // One trailing comma is allowed, and needed for rank 1: `(4,)`.
  if (parts.size() > 1 && parts.back().trim().empty())
    parts.pop_back();
  for (llvm::StringRef part : parts) {
    int64_t dim;
    // getAsInteger with radix 10 takes digits and a leading '-' only.
    if (part.trim().getAsInteger(10, dim) || dim < 0)
      return std::nullopt;
    shape.push_back(dim);
  }
  return shape;
}

static uint16_t floatToBFloat16(float value) {
  llvm::APFloat wide(value);
  bool losesInfo = false;
  wide.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
               &losesInfo);
  return static_cast<uint16_t>(wide.bitcastToAPInt().getZExtValue());
}

static float bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

llvm::Expected<npy::Array> npy::read(llvm::StringRef path, bool wantBFloat16) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(path + ": " + why);
  };
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!file)
    return fail("cannot read: " + file.getError().message());
  llvm::StringRef data = (*file)->getBuffer();
  if (data.size() < 10 || !data.starts_with(llvm::StringRef(kMagic, 6)))
    return fail("not a .npy file");
  unsigned major = static_cast<uint8_t>(data[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(data[8]) | (uint8_t(data[9]) << 8);
    headerStart = 10;
  } else if ((major == 2 || major == 3) && data.size() >= 12) {
    headerLength = uint8_t(data[8]) | (uint8_t(data[9]) << 8) |
                   (uint32_t(uint8_t(data[10])) << 16) |
                   (uint32_t(uint8_t(data[11])) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + llvm::Twine(major));
  }
  if (headerStart + headerLength > data.size())
    return fail("truncated header");
  llvm::StringRef header = data.substr(headerStart, headerLength);

  std::optional<llvm::StringRef> descr = dictValue(header, "descr");
  if (!descr || !descr->consume_front("'") || !descr->consume_back("'"))
    return fail("header has no 'descr'");
  std::optional<DType> dtype = fromDescriptor(*descr);
  if (!dtype)
    return fail("unsupported element type '" + *descr +
                "' (supported: " + supportedDescriptors() + ")");
  std::optional<llvm::StringRef> fortranOrder =
      dictValue(header, "fortran_order");
  if (fortranOrder && *fortranOrder == "True")
    return fail("Fortran-order arrays are not supported");
  std::optional<llvm::StringRef> shapeText = dictValue(header, "shape");
  if (!shapeText)
    return fail("header has no 'shape' tuple");
  std::optional<std::vector<int64_t>> shape = parseShape(*shapeText);
  if (!shape)
    return fail("bad shape " + *shapeText +
                " (expected a tuple of non-negative integers)");
  Array array{*dtype, std::move(*shape), {}};

  // The element count and byte size, refused where they overflow.
  size_t elements = 1, bytes;
  for (int64_t dim : array.shape)
    if (__builtin_mul_overflow(elements, static_cast<size_t>(dim), &elements))
      return fail("shape " + *shapeText + " has too many elements");
  if (__builtin_mul_overflow(elements, sizeOf(*dtype), &bytes))
    return fail("shape " + *shapeText + " has too many elements");
  size_t payload = headerStart + headerLength;
  if (data.size() - payload < bytes)
    return fail("holds " + llvm::Twine(data.size() - payload) +
                " data bytes, its shape needs " + llvm::Twine(bytes));
  array.bytes.assign(data.begin() + payload, data.begin() + payload + bytes);

  if (wantBFloat16) {
    if (*dtype != DType::Float32)
      return fail("bf16 data must be stored as float32 ('<f4')");
    std::vector<uint8_t> narrow(elements * 2);
    for (size_t i = 0; i < elements; ++i) {
      float value;
      std::memcpy(&value, &array.bytes[i * 4], 4);
      uint16_t bits = floatToBFloat16(value);
      std::memcpy(&narrow[i * 2], &bits, 2);
    }
    array.bytes = std::move(narrow);
    array.dtype = DType::BFloat16;
  }
  return array;
}

llvm::Error npy::write(llvm::StringRef path, const Array &array) {
  // numpy's spelling: (), (4,), (2, 3).
  std::string shape = joinDims(array.shape, ", ");
  if (array.shape.size() == 1)
    shape += ",";
  std::string header = std::string("{'descr': '") + descriptor(array.dtype) +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Pad so the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(path + ": cannot write: " + error.message());
  os.write(kMagic, 6);
  os << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  if (array.dtype != DType::BFloat16) {
    os.write(reinterpret_cast<const char *>(array.bytes.data()),
             array.bytes.size());
  } else {
    for (size_t i = 0; i + 1 < array.bytes.size(); i += 2) {
      uint16_t bits;
      std::memcpy(&bits, &array.bytes[i], 2);
      float value = bfloat16ToFloat(bits);
      os.write(reinterpret_cast<const char *>(&value), 4);
    }
  }
  return llvm::Error::success();
}
