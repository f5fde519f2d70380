//===- Npy.cpp - numpy's .npy format ----------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the .npy reader and writer (lazyc/Formats/Npy.h):
// the header parsed strictly, every size checked before it is used.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Formats/Npy.h"
#include "lazyc/Formats/LittleEndian.h"
#include "lazyc/Runtime/Shape.h"

#include <cstring>
#include <utility>

using namespace lazyc;
using namespace lazyc::formats;

/// Little-endian hosts only: elements are copied as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the .npy code assumes a little-endian host");

namespace {

std::optional<DType> fromNpyDescriptor(const std::string &descr) {
  for (DType dtype : kAllDTypes)
    if (*dtypeInfo(dtype).numpyName && descr == dtypeInfo(dtype).numpyName)
      return dtype;
  return std::nullopt;
}

/// The .npy header, a Python dict literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, parsed
/// strictly: the three keys once each and nothing else.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

class NpyHeaderParser {
public:
  explicit NpyHeaderParser(const std::string &text) : text(text) {}

  /// The header, or why it is malformed.
  std::optional<NpyHeader> parse(std::string &why) {
    NpyHeader header;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skipSpace();
    if (!consume('{'))
      return bad(why, "does not start with '{'");
    for (;;) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return bad(why, "has a key that is not a quoted string");
      skipSpace();
      if (!consume(':'))
        return bad(why, "has no ':' after '" + key + "'");
      skipSpace();
      bool *seen = key == "descr"           ? &seenDescr
                   : key == "fortran_order" ? &seenOrder
                   : key == "shape"         ? &seenShape
                                            : nullptr;
      if (!seen)
        return bad(why, "has an unexpected key '" + key + "'");
      if (*seen)
        return bad(why, "has the key '" + key + "' twice");
      *seen = true;
      if (key == "descr" && !parseString(header.descr))
        return bad(why, "has a 'descr' that is not a type string "
                        "(structured dtypes are not supported)");
      if (key == "fortran_order" && !parseBool(header.fortranOrder))
        return bad(why, "has a 'fortran_order' that is neither True nor "
                        "False");
      if (key == "shape" && !parseShape(header.shape))
        return bad(why, "has a 'shape' that is not a tuple of non-negative "
                        "integers");
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (!consume('}'))
        return bad(why, "has no ',' or '}' after '" + key + "'");
      break;
    }
    skipSpace();
    if (at != text.size())
      return bad(why, "has text after the closing '}'");
    const std::pair<bool, const char *> required[] = {
        {seenDescr, "descr"},
        {seenOrder, "fortran_order"},
        {seenShape, "shape"}};
    for (auto [seen, key] : required)
      if (!seen)
        return bad(why, std::string("has no '") + key + "'");
    return header;
  }

private:
  std::optional<NpyHeader> bad(std::string &why, std::string message) {
    why = std::move(message);
    return std::nullopt;
  }
  void skipSpace() {
    while (at < text.size() && std::strchr(" \t\r\n", text[at]) && text[at])
      ++at;
  }
  bool consume(char c) {
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t size = std::strlen(word);
    if (text.compare(at, size, word) != 0)
      return false;
    at += size;
    return true;
  }
  bool parseString(std::string &out) {
    if (at >= text.size() || (text[at] != '\'' && text[at] != '"'))
      return false;
    size_t end = text.find(text[at], at + 1);
    if (end == std::string::npos)
      return false;
    out = text.substr(at + 1, end - at - 1);
    at = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    if (consumeWord("True"))
      return out = true, true;
    if (consumeWord("False"))
      return out = false, true;
    return false;
  }
  /// `()`, `(4,)`, `(2, 3)`; Python 2's `3L` is accepted.
  bool parseShape(std::vector<int64_t> &out) {
    if (!consume('('))
      return false;
    for (;;) {
      skipSpace();
      if (consume(')'))
        return true;
      int64_t dim = 0;
      size_t start = at;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9')
        if (__builtin_mul_overflow(dim, 10, &dim) ||
            __builtin_add_overflow(dim, text[at++] - '0', &dim))
          return false;
      if (at == start)
        return false;
      consume('L');
      out.push_back(dim);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      return consume(')');
    }
  }

  const std::string &text;
  size_t at = 0;
};

} // namespace

std::string formats::npyDescriptors() {
  std::string text;
  for (DType dtype : kAllDTypes)
    if (*dtypeInfo(dtype).numpyName)
      text += (text.empty() ? "'" : ", '") +
              std::string(dtypeInfo(dtype).numpyName) + "'";
  return text;
}

std::optional<std::pair<int64_t, int64_t>>
formats::checkedSizes(const std::vector<int64_t> &shape, DType dtype) {
  int64_t elements = 1, bytes;
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(elements, dim, &elements))
      return std::nullopt;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(sizeOf(dtype)),
                             &bytes))
    return std::nullopt;
  return std::pair{elements, bytes};
}

std::optional<NpyArray> formats::parseNpy(std::string bytes, std::string &why) {
  auto fail = [&](std::string message) -> std::optional<NpyArray> {
    why = std::move(message);
    return std::nullopt;
  };
  if (bytes.size() < 8 || bytes.compare(0, 6, kNpyMagic, 6) != 0)
    return fail("is not a .npy file (it does not start with \"\\x93NUMPY\")");
  unsigned major = static_cast<uint8_t>(bytes[6]);
  unsigned minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return fail("has .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " (1.0, 2.0 and 3.0 are supported)");
  size_t prefix = major == 1 ? 10 : 12;
  if (bytes.size() < prefix)
    return fail("is truncated inside its header length");
  size_t headerSize = major == 1 ? getLittleEndian<uint16_t>(&bytes[8])
                                 : getLittleEndian<uint32_t>(&bytes[8]);
  if (headerSize > bytes.size() - prefix)
    return fail("is truncated: its header needs " + std::to_string(headerSize) +
                " bytes, the file has " +
                std::to_string(bytes.size() - prefix) +
                " after the header length");
  std::string headerText = bytes.substr(prefix, headerSize);
  std::string malformed;
  std::optional<NpyHeader> header =
      NpyHeaderParser(headerText).parse(malformed);
  if (!header)
    return fail("has a malformed header: it " + malformed);

  std::optional<DType> dtype = fromNpyDescriptor(header->descr);
  if (!dtype) {
    std::string little = header->descr;
    if (!little.empty() && little[0] == '>')
      little[0] = '<';
    if (little != header->descr && fromNpyDescriptor(little))
      return fail("holds big-endian data ('" + header->descr +
                  "'); only little-endian is supported (numpy: a.astype('" +
                  little + "'))");
    return fail("has the unsupported dtype '" + header->descr +
                "' (supported: " + npyDescriptors() + ")");
  }
  if (header->fortranOrder)
    return fail("is in Fortran order (fortran_order: True); only C order is "
                "supported (numpy: np.ascontiguousarray(a))");
  auto sizes = checkedSizes(header->shape, *dtype);
  if (!sizes)
    return fail("has a shape " + shapeText(header->shape) +
                " whose size overflows 64 bits");
  size_t dataStart = prefix + headerSize;
  uint64_t have = bytes.size() - dataStart;
  if (have != uint64_t(sizes->second))
    return fail(
        std::string(have < uint64_t(sizes->second) ? "is truncated: it "
                                                   : "is corrupted: it ") +
        "holds " + std::to_string(have) + " data bytes, but its shape " +
        shapeText(header->shape) + " of '" + header->descr + "' needs " +
        std::to_string(sizes->second));
  NpyArray array;
  array.dtype = *dtype;
  array.shape = std::move(header->shape);
  bytes.erase(0, dataStart);
  array.data = std::move(bytes);
  // A numpy bool is one byte, 0 or 1; any other byte is true.
  if (*dtype == DType::Bool)
    for (char &byte : array.data)
      byte = byte != 0;
  return array;
}

std::string formats::npyFile(const NpyArray &array) {
  DType dtype = array.dtype;
  const std::string *data = &array.data;
  std::string wide;
  if (dtype == DType::BFloat16) {
    // numpy has no bfloat16; every bfloat16 is exactly a float32: its bits
    // are the float32's upper half.
    wide.assign(array.data.size() * 2, '\0');
    for (size_t i = 0; i + 1 < array.data.size(); i += 2) {
      wide[2 * i + 2] = array.data[i];
      wide[2 * i + 3] = array.data[i + 1];
    }
    data = &wide;
    dtype = DType::Float32;
  }
  // numpy's spelling of the shape: (), (4,), (2, 3).
  std::string shape;
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(array.shape[i]);
  if (array.shape.size() == 1)
    shape += ",";
  std::string header = std::string("{'descr': '") + dtypeInfo(dtype).numpyName +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Version 1.0 has a 2-byte header length, 2.0 a 4-byte one. The data
  // starts at a multiple of 64 bytes, as numpy writes it.
  bool wideHeader = header.size() + 1 + 10 + 63 > 0xffff;
  size_t prefix = wideHeader ? 12 : 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kNpyMagic, 6);
  out += static_cast<char>(wideHeader ? 2 : 1);
  out += '\0';
  if (wideHeader)
    putLittleEndian<uint32_t>(out, static_cast<uint32_t>(header.size()));
  else
    putLittleEndian<uint16_t>(out, static_cast<uint16_t>(header.size()));
  out += header;
  out += *data;
  return out;
}

NpyArray formats::toBFloat16(const NpyArray &array) {
  NpyArray narrow;
  narrow.dtype = DType::BFloat16;
  narrow.shape = array.shape;
  size_t count = array.data.size() / 4;
  narrow.data.resize(count * 2);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &array.data[4 * i], 4);
    uint16_t high;
    if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet.
      high = static_cast<uint16_t>((bits >> 16) | 0x40);
    else // Round to nearest, ties to even.
      high = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
    std::memcpy(&narrow.data[2 * i], &high, 2);
  }
  return narrow;
}
