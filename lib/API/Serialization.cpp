//===- Serialization.cpp - .npy files and checkpoints ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements saveNpy/loadNpy, saveNpz/loadNpz (zip archives of
// .npy members) and saveVariables/loadVariables. Every format is read from a
// whole-file buffer with every length and size checked against what is left of
// it before use, so a truncated, corrupted or hostile file is an error, never a
// read past the end or a huge allocation.
//
// A checkpoint (all integers little endian):
//
//   "LAZYCKPT"  u32 format version  string lazyc version  u64 entry count
//   u64 FNV-1a of the header so far
//   per entry: string name  string dtype ("Float32")  u32 rank  i64 dims[rank]
//              u64 data bytes  data  u64 FNV-1a of the entry so far
//   "LAZYCEND"
//
// where a string is a u32 byte count and the bytes.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Serialization.h"
#include "Convert.h"
#include "Engine.h"
#include "TensorAccess.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/Formats/LittleEndian.h"
#include "lazyc/Formats/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <zlib.h>

#ifndef LAZYC_VERSION_STRING
#define LAZYC_VERSION_STRING "unknown"
#endif

using namespace lazyc;
using formats::getLittleEndian;
using formats::putLittleEndian;

namespace {

//===----------------------------------------------------------------------===//
// Files and bytes
//===----------------------------------------------------------------------===//

[[noreturn]] void fail(const char *op, const std::string &path,
                       const std::string &why, SourceLocation where) {
  throw Error(op, "'" + path + "' " + why, where);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// The whole file.
std::string readFile(const char *op, const std::string &path,
                     SourceLocation where) {
  // An ifstream opens a directory and then reads nothing from it.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    fail(op, path, "cannot be read: it is a directory", where);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(op, path, std::string("cannot be opened: ") + std::strerror(errno),
         where);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad())
    fail(op, path, "cannot be read", where);
  return std::move(bytes).str();
}

/// Writes `bytes` to a temporary file next to `path` and renames it over
/// `path`: a crash or a full disk leaves the old file (or none), never a
/// half-written one that a later load would have to reject.
void writeFileAtomically(const char *op, const std::string &path,
                         const std::string &bytes, SourceLocation where) {
  std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  std::FILE *file = std::fopen(temporary.c_str(), "wb");
  if (!file)
    fail(op, path,
         "cannot be written: cannot create '" + temporary +
             "': " + std::strerror(errno),
         where);
  bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() &&
      std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  int error = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    if (written)
      error = errno;
    std::remove(temporary.c_str());
    fail(op, path, std::string("cannot be written: ") + std::strerror(error),
         where);
  }
}

/// FNV-1a, 64 bits: a few lines, no dependency, and any flipped byte
/// changes it.
uint64_t fnv1a(const char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<uint8_t>(data[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// Little-endian hosts only: tensor bytes are copied as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the .npy and checkpoint code assumes a little-endian host");

/// The computed bytes of each tensor, materialized together in one trace
/// (as toVector would, one at a time).
std::vector<std::string> hostBytes(const std::vector<Tensor> &tensors,
                                   const char *op, SourceLocation where) {
  std::vector<trace::Node *> pending;
  for (const Tensor &tensor : tensors)
    if (!tensor.isMaterialized())
      pending.push_back(detail::TensorAccess::node(tensor).get());
  if (!pending.empty())
    engine::materialize(pending, Cause::ToVector, where);
  std::vector<std::string> out;
  for (const Tensor &tensor : tensors) {
    const trace::Node &node = *detail::TensorAccess::node(tensor);
    std::vector<uint8_t> staging;
    const char *data =
        static_cast<const char *>(engine::hostData(node, staging, op, where));
    size_t size = static_cast<size_t>(node.numel()) * sizeOf(node.dtype);
    // An empty buffer's data may be null.
    out.push_back(size ? std::string(data, size) : std::string());
  }
  return out;
}

/// A computed tensor holding a copy of `data`.
Tensor newTensor(DType dtype, std::vector<int64_t> shape, const char *data,
                 const char *op, SourceLocation where) {
  return detail::TensorAccess::wrap(
      engine::newValue(dtype, std::move(shape), data, op, where));
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// The .npy file of `tensor`, whose host bytes are `data`.
std::string npyFile(const Tensor &tensor, std::string data) {
  return formats::npyFile({tensor.dtype(), tensor.shape(), std::move(data)});
}

/// The tensor in the .npy file `bytes`, or an error about `op` naming
/// `subject` ("'x.npy'", "'x.npz' member 'a.npy'").
Tensor parseNpy(const char *op, const std::string &subject, std::string bytes,
                SourceLocation where) {
  std::string why;
  std::optional<formats::NpyArray> array =
      formats::parseNpy(std::move(bytes), why);
  if (!array)
    throw Error(op, subject + " " + why, where);
  return newTensor(array->dtype, std::move(array->shape), array->data.data(),
                   op, where);
}

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

// An .npz file is a zip archive of .npy members, as Python's zipfile writes
// it for numpy.savez (stored) and numpy.savez_compressed (deflated). Sizes
// and offsets past 32 bits use the zip64 extensions (numpy writes zip64
// local headers for every member).
constexpr uint32_t kZipLocalHeader = 0x04034b50;
constexpr uint32_t kZipCentralHeader = 0x02014b50;
constexpr uint32_t kZipEnd = 0x06054b50;
constexpr uint32_t kZip64End = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 1;
constexpr uint16_t kZipStored = 0, kZipDeflated = 8;
constexpr uint64_t kZip32Max = 0xffffffff;
constexpr size_t kZipLocalHeaderBytes = 30, kZipCentralHeaderBytes = 46,
                 kZipEndBytes = 22, kZip64EndBytes = 56,
                 kZip64LocatorBytes = 20;
/// Deflate expands nothing more than 1032 times: a member claiming more is
/// corrupt (and must not make loadNpz allocate what it claims).
constexpr uint64_t kMaxDeflateRatio = 1032;
/// zlib counts in 32-bit unsigned ints: larger buffers go in pieces.
constexpr size_t kZlibChunk = size_t(1) << 30;

uint32_t crc32Of(const char *data, size_t size) {
  uLong crc = ::crc32(0, nullptr, 0);
  for (size_t done = 0; done < size;) {
    size_t piece = std::min(size - done, kZlibChunk);
    crc = ::crc32(crc, reinterpret_cast<const Bytef *>(data + done),
                  static_cast<uInt>(piece));
    done += piece;
  }
  return static_cast<uint32_t>(crc);
}

/// `in` as a raw deflate stream (no zlib header), as zip members hold it.
std::string deflateRaw(const std::string &in) {
  z_stream stream = {};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::bad_alloc();
  std::string out(deflateBound(&stream, in.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
  stream.next_out = reinterpret_cast<Bytef *>(out.data());
  size_t inLeft = in.size(), outLeft = out.size();
  int status = Z_OK;
  while (status == Z_OK) {
    stream.avail_in = static_cast<uInt>(std::min(inLeft, kZlibChunk));
    stream.avail_out = static_cast<uInt>(std::min(outLeft, kZlibChunk));
    uInt inGiven = stream.avail_in, outGiven = stream.avail_out;
    status = deflate(&stream, inLeft == inGiven ? Z_FINISH : Z_NO_FLUSH);
    inLeft -= inGiven - stream.avail_in;
    outLeft -= outGiven - stream.avail_out;
  }
  deflateEnd(&stream);
  if (status != Z_STREAM_END)
    throw std::bad_alloc(); // deflateBound is an upper bound: never reached
  out.resize(out.size() - outLeft);
  return out;
}

/// Inflates the raw deflate stream `in` into exactly `out.size()` bytes;
/// false if it is malformed or holds another number of bytes.
bool inflateRaw(const char *in, size_t size, std::string &out) {
  z_stream stream = {};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    throw std::bad_alloc();
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in));
  stream.next_out = reinterpret_cast<Bytef *>(out.data());
  size_t inLeft = size, outLeft = out.size();
  int status = Z_OK;
  while (status == Z_OK) {
    stream.avail_in = static_cast<uInt>(std::min(inLeft, kZlibChunk));
    stream.avail_out = static_cast<uInt>(std::min(outLeft, kZlibChunk));
    uInt inGiven = stream.avail_in, outGiven = stream.avail_out;
    status = inflate(&stream, Z_NO_FLUSH);
    inLeft -= inGiven - stream.avail_in;
    outLeft -= outGiven - stream.avail_out;
  }
  // Z_BUF_ERROR (no progress: the input ended early, or the output is full
  // before the stream's end) and Z_DATA_ERROR end the loop too.
  inflateEnd(&stream);
  return status == Z_STREAM_END && outLeft == 0 && inLeft == 0;
}

/// One member as saveNpz wrote it, for the central directory.
struct ZipMember {
  std::string name;
  uint32_t crc;
  uint64_t compressedSize, size, offset;
};

/// The fields local and central headers share. A zip64 local header has
/// both sizes in its extra field (`sizesInExtra`); a central one only those
/// that overflow.
void putZipEntryFields(std::string &out, const ZipMember &member,
                       uint16_t method, bool zip64, bool sizesInExtra) {
  putLittleEndian<uint16_t>(out, zip64 ? 45 : 20); // version needed: 4.5, 2.0
  bool ascii = std::all_of(member.name.begin(), member.name.end(), [](char c) {
    return static_cast<uint8_t>(c) < 128;
  });
  putLittleEndian<uint16_t>(out, ascii ? 0 : 0x800); // bit 11: UTF-8 name
  putLittleEndian<uint16_t>(out, method);
  putLittleEndian<uint16_t>(out, 0);    // time 00:00:00
  putLittleEndian<uint16_t>(out, 0x21); // date 1980-01-01: reproducible files
  putLittleEndian<uint32_t>(out, member.crc);
  for (uint64_t size : {member.compressedSize, member.size})
    putLittleEndian<uint32_t>(
        out, static_cast<uint32_t>(sizesInExtra ? kZip32Max
                                                : std::min(size, kZip32Max)));
}

void writeNpz(const char *op, const std::string &path,
              const std::vector<std::pair<std::string, Tensor>> &tensors,
              bool compress, SourceLocation where) {
  std::map<std::string, size_t> seen;
  std::vector<Tensor> values;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto &[name, tensor] = tensors[i];
    if (!tensor.defined())
      throw Error(
          op, "the tensor '" + name + "' to write to '" + path + "' is empty",
          where);
    if (auto [it, inserted] = seen.emplace(name, i); !inserted)
      throw Error(op,
                  "the name '" + name + "' is given twice (tensors " +
                      std::to_string(it->second + 1) + " and " +
                      std::to_string(i + 1) + ") for '" + path + "'",
                  where);
    values.push_back(tensor);
  }
  std::vector<std::string> data = hostBytes(values, op, where);
  uint16_t method = compress ? kZipDeflated : kZipStored;

  std::string out;
  std::vector<ZipMember> members;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string npy = npyFile(values[i], std::move(data[i]));
    ZipMember member{tensors[i].first + ".npy", crc32Of(npy.data(), npy.size()),
                     0, npy.size(), out.size()};
    if (compress)
      npy = deflateRaw(npy);
    member.compressedSize = npy.size();
    bool zip64 = member.size >= kZip32Max || member.compressedSize >= kZip32Max;
    putLittleEndian<uint32_t>(out, kZipLocalHeader);
    putZipEntryFields(out, member, method, zip64, zip64);
    putLittleEndian<uint16_t>(out, static_cast<uint16_t>(member.name.size()));
    putLittleEndian<uint16_t>(out, zip64 ? 20 : 0);
    out += member.name;
    if (zip64) {
      putLittleEndian<uint16_t>(out, kZip64ExtraId);
      putLittleEndian<uint16_t>(out, 16);
      putLittleEndian<uint64_t>(out, member.size);
      putLittleEndian<uint64_t>(out, member.compressedSize);
    }
    out += npy;
    members.push_back(std::move(member));
  }

  uint64_t directoryStart = out.size();
  for (const ZipMember &member : members) {
    // The zip64 extra holds, in this order, the fields that overflow.
    std::string extra;
    if (member.size >= kZip32Max)
      putLittleEndian<uint64_t>(extra, member.size);
    if (member.compressedSize >= kZip32Max)
      putLittleEndian<uint64_t>(extra, member.compressedSize);
    if (member.offset >= kZip32Max)
      putLittleEndian<uint64_t>(extra, member.offset);
    putLittleEndian<uint32_t>(out, kZipCentralHeader);
    putLittleEndian<uint16_t>(out, (3 << 8) | 45); // made by: Unix, 4.5
    putZipEntryFields(out, member, method, !extra.empty(), false);
    putLittleEndian<uint16_t>(out, static_cast<uint16_t>(member.name.size()));
    putLittleEndian<uint16_t>(out,
                              extra.empty() ? 0 : 4 + uint16_t(extra.size()));
    putLittleEndian<uint16_t>(out, 0);              // comment
    putLittleEndian<uint16_t>(out, 0);              // disk
    putLittleEndian<uint16_t>(out, 0);              // internal attributes
    putLittleEndian<uint32_t>(out, 0100644u << 16); // a regular file, rw-r--r--
    putLittleEndian<uint32_t>(
        out, static_cast<uint32_t>(std::min(member.offset, kZip32Max)));
    out += member.name;
    if (!extra.empty()) {
      putLittleEndian<uint16_t>(out, kZip64ExtraId);
      putLittleEndian<uint16_t>(out, static_cast<uint16_t>(extra.size()));
      out += extra;
    }
  }
  uint64_t directorySize = out.size() - directoryStart;
  uint64_t count = members.size();
  if (count >= 0xffff || directoryStart >= kZip32Max ||
      directorySize >= kZip32Max) {
    uint64_t zip64End = out.size();
    putLittleEndian<uint32_t>(out, kZip64End);
    putLittleEndian<uint64_t>(out, kZip64EndBytes - 12); // bytes that follow
    putLittleEndian<uint16_t>(out, (3 << 8) | 45);
    putLittleEndian<uint16_t>(out, 45);
    putLittleEndian<uint32_t>(out, 0); // this disk
    putLittleEndian<uint32_t>(out, 0); // the directory's disk
    putLittleEndian<uint64_t>(out, count);
    putLittleEndian<uint64_t>(out, count);
    putLittleEndian<uint64_t>(out, directorySize);
    putLittleEndian<uint64_t>(out, directoryStart);
    putLittleEndian<uint32_t>(out, kZip64Locator);
    putLittleEndian<uint32_t>(out, 0);
    putLittleEndian<uint64_t>(out, zip64End);
    putLittleEndian<uint32_t>(out, 1); // disks
  }
  putLittleEndian<uint32_t>(out, kZipEnd);
  putLittleEndian<uint16_t>(out, 0);
  putLittleEndian<uint16_t>(out, 0);
  putLittleEndian<uint16_t>(
      out, static_cast<uint16_t>(std::min<uint64_t>(count, 0xffff)));
  putLittleEndian<uint16_t>(
      out, static_cast<uint16_t>(std::min<uint64_t>(count, 0xffff)));
  putLittleEndian<uint32_t>(
      out, static_cast<uint32_t>(std::min(directorySize, kZip32Max)));
  putLittleEndian<uint32_t>(
      out, static_cast<uint32_t>(std::min(directoryStart, kZip32Max)));
  putLittleEndian<uint16_t>(out, 0); // comment
  writeFileAtomically(op, path, out, where);
}

std::map<std::string, Tensor> readNpz(const char *op, const std::string &path,
                                      SourceLocation where) {
  std::string bytes = readFile(op, path, where);
  auto fail = [&](const std::string &why) {
    throw Error(op, "'" + path + "' " + why, where);
  };
  auto u16 = [&](uint64_t at) { return getLittleEndian<uint16_t>(&bytes[at]); };
  auto u32 = [&](uint64_t at) { return getLittleEndian<uint32_t>(&bytes[at]); };
  auto u64 = [&](uint64_t at) { return getLittleEndian<uint64_t>(&bytes[at]); };
  /// Whether [at, at + size) lies inside the file.
  auto inside = [&](uint64_t at, uint64_t size) {
    return at <= bytes.size() && size <= bytes.size() - at;
  };

  // The end record is the last 22 bytes, unless an archive comment (at
  // most 64 KiB) follows it.
  std::optional<uint64_t> end;
  if (bytes.size() >= kZipEndBytes)
    for (uint64_t at = bytes.size() - kZipEndBytes;; --at) {
      if (u32(at) == kZipEnd &&
          at + kZipEndBytes + u16(at + 20) == bytes.size()) {
        end = at;
        break;
      }
      if (at == 0 || bytes.size() - at > kZipEndBytes + 0xffff)
        break;
    }
  if (!end) {
    if (bytes.compare(0, 6, formats::kNpyMagic, 6) == 0)
      fail("is a .npy file, not an .npz archive (read it with loadNpy)");
    fail(bytes.compare(0, 4, "PK\x03\x04", 4) == 0
             ? "is truncated: its zip end-of-central-directory record is "
               "missing"
             : "is not an .npz file (not a zip archive: no "
               "end-of-central-directory record)");
  }
  if (u16(*end + 4) != 0 || u16(*end + 6) != 0)
    fail("is a zip archive split over several disks (not supported)");
  uint64_t count = u16(*end + 10), directorySize = u32(*end + 12),
           directoryStart = u32(*end + 16);
  if (count == 0xffff || directorySize == kZip32Max ||
      directoryStart == kZip32Max) {
    uint64_t locator = *end - std::min<uint64_t>(*end, kZip64LocatorBytes);
    if (*end < kZip64LocatorBytes || u32(locator) != kZip64Locator)
      fail("is corrupted: its zip64 end-of-central-directory locator is "
           "missing");
    uint64_t zip64End = u64(locator + 8);
    if (!inside(zip64End, kZip64EndBytes) || u32(zip64End) != kZip64End)
      fail("is corrupted: its zip64 end-of-central-directory record is "
           "missing");
    count = u64(zip64End + 32);
    directorySize = u64(zip64End + 40);
    directoryStart = u64(zip64End + 48);
  }
  if (!inside(directoryStart, directorySize) ||
      directoryStart + directorySize > *end)
    fail("is " +
         std::string(directoryStart + directorySize > bytes.size()
                         ? "truncated"
                         : "corrupted") +
         ": its central directory (" + std::to_string(directorySize) +
         " bytes at offset " + std::to_string(directoryStart) +
         ") does not fit before its end record at offset " +
         std::to_string(*end));

  std::map<std::string, Tensor> tensors;
  uint64_t at = directoryStart;
  const uint64_t directoryEnd = directoryStart + directorySize;
  for (uint64_t i = 0; i < count; ++i) {
    std::string number = std::to_string(i + 1) + " of " + std::to_string(count);
    if (directoryEnd - at < kZipCentralHeaderBytes ||
        u32(at) != kZipCentralHeader)
      fail("is corrupted: central directory entry " + number +
           " is missing or malformed");
    uint16_t flags = u16(at + 8), method = u16(at + 10);
    uint32_t crc = u32(at + 16);
    uint64_t compressedSize = u32(at + 20), size = u32(at + 24);
    uint16_t nameBytes = u16(at + 28), extraBytes = u16(at + 30),
             commentBytes = u16(at + 32);
    uint64_t offset = u32(at + 42);
    uint64_t next =
        at + kZipCentralHeaderBytes + nameBytes + extraBytes + commentBytes;
    if (next > directoryEnd)
      fail("is corrupted: central directory entry " + number +
           " runs past the directory");
    std::string name = bytes.substr(at + kZipCentralHeaderBytes, nameBytes);
    std::string member = "member '" + name + "'";
    // The zip64 extra holds the fields whose 32-bit value is all ones.
    for (uint64_t extra = at + kZipCentralHeaderBytes + nameBytes,
                  extraEnd = extra + extraBytes;
         extraEnd - extra >= 4;) {
      uint16_t id = u16(extra), blockBytes = u16(extra + 2);
      if (blockBytes > extraEnd - extra - 4)
        fail("is corrupted: the extra fields of " + member + " are malformed");
      if (id == kZip64ExtraId) {
        uint64_t field = extra + 4, fieldEnd = field + blockBytes;
        for (uint64_t *value : {&size, &compressedSize, &offset}) {
          if (*value != kZip32Max)
            continue;
          if (fieldEnd - field < 8)
            fail("is corrupted: the zip64 extra field of " + member +
                 " is too short");
          *value = u64(field);
          field += 8;
        }
      }
      extra += 4 + blockBytes;
    }
    at = next;

    if (flags & 1)
      fail("holds the encrypted " + member + " (not supported)");
    if (method != kZipStored && method != kZipDeflated)
      fail("holds " + member + " compressed with zip method " +
           std::to_string(method) +
           " (only stored and deflated members are supported)");
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0)
      fail("holds " + member +
           ", which is not a .npy array (unsupported member)");
    std::string key = name.substr(0, name.size() - 4);
    if (tensors.count(key))
      fail("holds two members named '" + name + "'");

    if (!inside(offset, kZipLocalHeaderBytes) || u32(offset) != kZipLocalHeader)
      fail("is corrupted: the local header of " + member + " (at offset " +
           std::to_string(offset) + ") is missing");
    uint64_t dataStart =
        offset + kZipLocalHeaderBytes + u16(offset + 26) + u16(offset + 28);
    if (!inside(dataStart, compressedSize))
      fail("is truncated: " + member + " needs " +
           std::to_string(compressedSize) + " bytes at offset " +
           std::to_string(dataStart) + ", the file has " +
           std::to_string(bytes.size()));
    const char *data = bytes.data() + dataStart;
    std::string npy;
    if (method == kZipStored) {
      if (size != compressedSize)
        fail("is corrupted: the stored " + member + " has " +
             std::to_string(compressedSize) + " bytes but records a size of " +
             std::to_string(size));
      npy.assign(data, compressedSize);
    } else {
      if (size / kMaxDeflateRatio > compressedSize + 1)
        fail("is corrupted: " + member + " claims " + std::to_string(size) +
             " bytes from " + std::to_string(compressedSize) +
             " deflated ones, more than deflate can encode");
      npy.resize(size);
      if (!inflateRaw(data, compressedSize, npy))
        fail("is corrupted: the deflated data of " + member +
             " is malformed or does not hold its recorded " +
             std::to_string(size) + " bytes");
    }
    if (uint32_t actual = crc32Of(npy.data(), npy.size()); actual != crc) {
      char text[64];
      std::snprintf(text, sizeof text, "0x%08x, but the archive records 0x%08x",
                    actual, crc);
      fail("is corrupted: the CRC-32 of " + member + " is " + text);
    }
    tensors.emplace(
        key, parseNpy(op, "'" + path + "' " + member, std::move(npy), where));
  }
  return tensors;
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

const char kCheckpointMagic[] = "LAZYCKPT";
const char kCheckpointEnd[] = "LAZYCEND";

void putString(std::string &out, const std::string &text) {
  putLittleEndian<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out += text;
}

/// One variable to write.
struct SavedEntry {
  std::string name;
  const Variable *variable;
};

/// A checkpoint read and checked; the data stays in `bytes`.
struct Checkpoint {
  struct Entry {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    size_t dataOffset;
  };
  std::string bytes;
  std::vector<Entry> entries;
};

/// Reads fields from a checkpoint's bytes; a read past the end is a
/// truncation error saying where.
class CheckpointReader {
public:
  CheckpointReader(const std::string &bytes, const char *op,
                   const std::string &path, SourceLocation where)
      : bytes(bytes), op(op), path(path), where(where) {}

  /// What the next read belongs to, for truncation errors.
  std::string context = "the header";
  size_t offset = 0;

  const char *take(size_t size) {
    if (size > bytes.size() - offset)
      fail(op, path,
           "is truncated: it ends inside " + context + " (" +
               std::to_string(size) + " bytes needed at offset " +
               std::to_string(offset) + ", the file has " +
               std::to_string(bytes.size()) + ")",
           where);
    const char *at = bytes.data() + offset;
    offset += size;
    return at;
  }
  template <typename T> T get() { return getLittleEndian<T>(take(sizeof(T))); }
  std::string getString() {
    uint32_t size = get<uint32_t>();
    return std::string(take(size), size);
  }

private:
  const std::string &bytes;
  const char *op;
  const std::string &path;
  SourceLocation where;
};

Checkpoint readCheckpoint(const char *op, const std::string &path,
                          SourceLocation where) {
  Checkpoint checkpoint;
  checkpoint.bytes = readFile(op, path, where);
  const std::string &bytes = checkpoint.bytes;
  if (bytes.compare(0, 8, kCheckpointMagic) != 0)
    fail(op, path,
         bytes.compare(0, 6, formats::kNpyMagic) == 0
             ? "is a numpy .npy file, not a lazyc checkpoint (read it with "
               "loadNpy)"
             : "is not a lazyc checkpoint (it does not start with "
               "\"LAZYCKPT\")",
         where);
  CheckpointReader reader(bytes, op, path, where);
  reader.take(8);
  uint32_t version = reader.get<uint32_t>();
  if (version != kCheckpointFormatVersion) {
    // The writer's lazyc version, if this other format still puts it here.
    std::string writer;
    if (bytes.size() >= 16) {
      uint32_t size = getLittleEndian<uint32_t>(bytes.data() + 12);
      if (size <= 64 && size <= bytes.size() - 16)
        writer = " (by lazyc " + bytes.substr(16, size) + ")";
    }
    fail(op, path,
         "was written in checkpoint format version " + std::to_string(version) +
             writer + ", but this lazyc (" + LAZYC_VERSION_STRING +
             ") reads format version " +
             std::to_string(kCheckpointFormatVersion),
         where);
  }
  reader.getString(); // the writer's lazyc version: informative only
  uint64_t count = reader.get<uint64_t>();
  uint64_t expected = fnv1a(bytes.data(), reader.offset);
  if (reader.get<uint64_t>() != expected)
    fail(op, path, "is corrupted: the header's checksum does not match", where);

  for (uint64_t i = 0; i < count; ++i) {
    size_t start = reader.offset;
    std::string number = std::to_string(i + 1) + " of " + std::to_string(count);
    reader.context = "entry " + number;
    Checkpoint::Entry entry;
    entry.name = reader.getString();
    reader.context = "entry " + number + " ('" + entry.name + "')";
    std::string dtypeText = reader.getString();
    uint32_t rank = reader.get<uint32_t>();
    reader.take(size_t(rank) * 8);
    for (uint32_t d = 0; d < rank; ++d)
      entry.shape.push_back(getLittleEndian<int64_t>(
          bytes.data() + reader.offset - size_t(rank - d) * 8));
    uint64_t dataBytes = reader.get<uint64_t>();
    if (dataBytes > bytes.size())
      reader.take(bytes.size() + 1); // reports the truncation
    entry.dataOffset = reader.offset;
    reader.take(static_cast<size_t>(dataBytes));
    uint64_t sum = fnv1a(bytes.data() + start, reader.offset - start);
    if (reader.get<uint64_t>() != sum)
      fail(op, path,
           "is corrupted: the checksum of " + reader.context +
               " does not match",
           where);
    // The checksum held, so what follows is what the writer wrote.
    std::optional<DType> dtype;
    for (DType candidate : kAllDTypes)
      if (dtypeText == dtypeInfo(candidate).name)
        dtype = candidate;
    if (!dtype)
      fail(op, path,
           "has an unknown dtype '" + dtypeText + "' in " + reader.context,
           where);
    entry.dtype = *dtype;
    auto sizes = formats::checkedSizes(entry.shape, entry.dtype);
    if (!sizes || uint64_t(sizes->second) != dataBytes)
      fail(op, path,
           "has " + std::to_string(dataBytes) + " data bytes in " +
               reader.context + ", which do not fit its shape " +
               shapeText(entry.shape) + " of " + dtypeName(entry.dtype),
           where);
    checkpoint.entries.push_back(std::move(entry));
  }
  reader.context =
      "the end marker (after " + std::to_string(count) + " entries)";
  if (std::memcmp(reader.take(8), kCheckpointEnd, 8) != 0)
    fail(op, path, "is corrupted: the end marker is missing", where);
  if (reader.offset != bytes.size())
    fail(op, path,
         "is corrupted: " + std::to_string(bytes.size() - reader.offset) +
             " unexpected bytes follow the end marker",
         where);
  return checkpoint;
}

void writeCheckpoint(const std::string &path,
                     const std::vector<SavedEntry> &entries,
                     SourceLocation where) {
  const char *op = "saveVariables";
  std::vector<Tensor> values;
  {
    // Reading to save is not part of any gradient computation.
    NoGradScope noGrad;
    for (size_t i = 0; i < entries.size(); ++i) {
      const Variable *variable = entries[i].variable;
      if (!variable || !variable->defined())
        throw Error(op,
                    "variable " + std::to_string(i + 1) + " ('" +
                        entries[i].name + "') is " +
                        (variable ? "empty (default-constructed or moved "
                                    "from)"
                                  : "a null pointer"),
                    where);
      values.push_back(variable->read(where));
    }
  }
  std::vector<std::string> data = hostBytes(values, op, where);

  std::string out(kCheckpointMagic, 8);
  putLittleEndian<uint32_t>(out, kCheckpointFormatVersion);
  putString(out, LAZYC_VERSION_STRING);
  putLittleEndian<uint64_t>(out, entries.size());
  putLittleEndian<uint64_t>(out, fnv1a(out.data(), out.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    size_t start = out.size();
    putString(out, entries[i].name);
    putString(out, dtypeName(values[i].dtype()));
    putLittleEndian<uint32_t>(out, static_cast<uint32_t>(values[i].rank()));
    for (int64_t dim : values[i].shape())
      putLittleEndian<int64_t>(out, dim);
    putLittleEndian<uint64_t>(out, data[i].size());
    out += data[i];
    putLittleEndian<uint64_t>(out,
                              fnv1a(out.data() + start, out.size() - start));
  }
  out.append(kCheckpointEnd, 8);
  writeFileAtomically(op, path, out, where);
}

/// Checks `variable` against `entry` (a mismatch is an error naming both).
void checkMatches(const Variable *variable, const Checkpoint::Entry &entry,
                  const std::string &description, const std::string &path,
                  SourceLocation where) {
  const char *op = "loadVariables";
  if (!variable || !variable->defined())
    fail(op, path,
         "cannot be loaded into " + description + ": it is " +
             (variable ? "empty (default-constructed or moved from)"
                       : "a null pointer"),
         where);
  if (variable->dtype() != entry.dtype || variable->shape() != entry.shape)
    fail(op, path,
         "holds " + std::string(dtypeName(entry.dtype)) + " " +
             shapeText(entry.shape) + " for '" + entry.name + "', but " +
             description + " is " + dtypeName(variable->dtype()) + " " +
             shapeText(variable->shape()),
         where);
}

/// Assigns the checked entries to their variables.
void assignAll(const Checkpoint &checkpoint,
               const std::vector<std::pair<Variable *, size_t>> &targets,
               SourceLocation where) {
  for (auto [variable, index] : targets) {
    const Checkpoint::Entry &entry = checkpoint.entries[index];
    variable->assign(newTensor(entry.dtype, entry.shape,
                               checkpoint.bytes.data() + entry.dataOffset,
                               "loadVariables", where),
                     where);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Public functions
//===----------------------------------------------------------------------===//

void lazyc::saveNpy(const Tensor &tensor, const std::string &path,
                    SourceLocation where) {
  const char *op = "saveNpy";
  if (!tensor.defined())
    throw Error(op, "the tensor to write to '" + path + "' is empty", where);
  std::string data = std::move(hostBytes({tensor}, op, where).front());
  writeFileAtomically(op, path, npyFile(tensor, std::move(data)), where);
}

Tensor lazyc::loadNpy(const std::string &path, SourceLocation where) {
  const char *op = "loadNpy";
  std::string bytes = readFile(op, path, where);
  return parseNpy(op, "'" + path + "'", std::move(bytes), where);
}

void lazyc::saveNpz(const std::string &path,
                    const std::vector<std::pair<std::string, Tensor>> &tensors,
                    SourceLocation where) {
  writeNpz("saveNpz", path, tensors, /*compress=*/false, where);
}

void lazyc::saveNpzCompressed(
    const std::string &path,
    const std::vector<std::pair<std::string, Tensor>> &tensors,
    SourceLocation where) {
  writeNpz("saveNpzCompressed", path, tensors, /*compress=*/true, where);
}

std::map<std::string, Tensor> lazyc::loadNpz(const std::string &path,
                                             SourceLocation where) {
  return readNpz("loadNpz", path, where);
}

void lazyc::saveVariables(const std::string &path,
                          const std::vector<const Variable *> &variables,
                          SourceLocation where) {
  std::vector<SavedEntry> entries;
  for (const Variable *variable : variables)
    entries.push_back(
        {variable && variable->defined() ? variable->name() : "", variable});
  writeCheckpoint(path, entries, where);
}

void lazyc::saveVariables(const std::string &path,
                          const std::vector<Variable *> &variables,
                          SourceLocation where) {
  saveVariables(
      path, std::vector<const Variable *>(variables.begin(), variables.end()),
      where);
}

void lazyc::saveVariables(const std::string &path,
                          std::initializer_list<const Variable *> variables,
                          SourceLocation where) {
  saveVariables(path, std::vector<const Variable *>(variables), where);
}

void lazyc::saveVariables(
    const std::string &path,
    const std::map<std::string, const Variable *> &variables,
    SourceLocation where) {
  std::vector<SavedEntry> entries;
  for (const auto &[name, variable] : variables)
    entries.push_back({name, variable});
  writeCheckpoint(path, entries, where);
}

void lazyc::loadVariables(const std::string &path,
                          const std::vector<Variable *> &variables,
                          SourceLocation where) {
  const char *op = "loadVariables";
  Checkpoint checkpoint = readCheckpoint(op, path, where);
  if (checkpoint.entries.size() != variables.size())
    fail(op, path,
         "holds " + std::to_string(checkpoint.entries.size()) +
             " variables, but " + std::to_string(variables.size()) +
             " were given to load",
         where);
  std::vector<std::pair<Variable *, size_t>> targets;
  for (size_t i = 0; i < variables.size(); ++i) {
    const Checkpoint::Entry &entry = checkpoint.entries[i];
    std::string description = "variable " + std::to_string(i + 1);
    if (variables[i] && variables[i]->defined()) {
      const std::string &name = variables[i]->name();
      if (name != entry.name)
        fail(op, path,
             "holds '" + entry.name + "' at position " + std::to_string(i + 1) +
                 ", but the variable there is '" + name + "'",
             where);
      description += " ('" + name + "')";
    }
    checkMatches(variables[i], entry, description, path, where);
    targets.emplace_back(variables[i], i);
  }
  assignAll(checkpoint, targets, where);
}

void lazyc::loadVariables(const std::string &path,
                          std::initializer_list<Variable *> variables,
                          SourceLocation where) {
  loadVariables(path, std::vector<Variable *>(variables), where);
}

void lazyc::loadVariables(const std::string &path,
                          const std::map<std::string, Variable *> &variables,
                          SourceLocation where) {
  const char *op = "loadVariables";
  Checkpoint checkpoint = readCheckpoint(op, path, where);
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < checkpoint.entries.size(); ++i)
    if (!byName.emplace(checkpoint.entries[i].name, i).second &&
        variables.count(checkpoint.entries[i].name))
      fail(op, path,
           "holds two entries named '" + checkpoint.entries[i].name +
               "' (load it with a list of variables instead)",
           where);
  std::vector<std::pair<Variable *, size_t>> targets;
  for (const auto &[name, variable] : variables) {
    auto found = byName.find(name);
    if (found == byName.end())
      fail(op, path, "has no entry named '" + name + "'", where);
    checkMatches(variable, checkpoint.entries[found->second],
                 "the variable for '" + name + "'", path, where);
    targets.emplace_back(variable, found->second);
  }
  assignAll(checkpoint, targets, where);
}

std::vector<CheckpointEntry> lazyc::checkpointEntries(const std::string &path,
                                                      SourceLocation where) {
  Checkpoint checkpoint = readCheckpoint("checkpointEntries", path, where);
  std::vector<CheckpointEntry> entries;
  for (Checkpoint::Entry &entry : checkpoint.entries)
    entries.push_back({entry.name, entry.dtype, entry.shape});
  return entries;
}
