//===- Zip.cpp - Zip archives (.npz) --------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the zip writer and reader (lazyc/Formats/Zip.h).
// Members are checked with zlib's CRC-32 and deflated with zlib (LLVM links
// zlib already).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Formats/Zip.h"
#include "lazyc/Formats/LittleEndian.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <zlib.h>

using namespace lazyc;
using namespace lazyc::formats;

namespace {

// Sizes and offsets past 32 bits use the zip64 extensions (numpy writes
// zip64 local headers for every member).
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

/// `in` as a raw deflate stream (no zlib header), as zip members hold it;
/// none if zlib cannot allocate its state (the member is then stored).
std::optional<std::string> deflateRaw(const std::string &in) {
  z_stream stream = {};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return std::nullopt;
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
    return std::nullopt; // deflateBound is an upper bound: never reached
  out.resize(out.size() - outLeft);
  return out;
}

/// Inflates the raw deflate stream `in` into exactly `out.size()` bytes;
/// false if it is malformed, holds another number of bytes, or zlib cannot
/// allocate its state.
bool inflateRaw(const char *in, size_t size, std::string &out) {
  z_stream stream = {};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return false;
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

/// One member as written, for the central directory.
struct WrittenMember {
  std::string name;
  uint32_t crc;
  uint64_t compressedSize, size, offset;
  uint16_t method;
};

/// The fields local and central headers share. A zip64 local header has
/// both sizes in its extra field (`sizesInExtra`); a central one only those
/// that overflow.
void putZipEntryFields(std::string &out, const WrittenMember &member,
                       bool zip64, bool sizesInExtra) {
  putLittleEndian<uint16_t>(out, zip64 ? 45 : 20); // version needed: 4.5, 2.0
  bool ascii = std::all_of(member.name.begin(), member.name.end(), [](char c) {
    return static_cast<uint8_t>(c) < 128;
  });
  putLittleEndian<uint16_t>(out, ascii ? 0 : 0x800); // bit 11: UTF-8 name
  putLittleEndian<uint16_t>(out, member.method);
  putLittleEndian<uint16_t>(out, 0);    // time 00:00:00
  putLittleEndian<uint16_t>(out, 0x21); // date 1980-01-01: reproducible files
  putLittleEndian<uint32_t>(out, member.crc);
  for (uint64_t size : {member.compressedSize, member.size})
    putLittleEndian<uint32_t>(
        out, static_cast<uint32_t>(sizesInExtra ? kZip32Max
                                                : std::min(size, kZip32Max)));
}

} // namespace

std::string formats::zipArchive(const std::vector<ZipMember> &inputs,
                                bool deflate) {
  std::string out;
  std::vector<WrittenMember> members;
  for (const ZipMember &input : inputs) {
    WrittenMember member{input.name,
                         crc32Of(input.data.data(), input.data.size()), 0,
                         input.data.size(), out.size()};
    std::optional<std::string> deflated;
    if (deflate)
      deflated = deflateRaw(input.data);
    const std::string &stored = deflated ? *deflated : input.data;
    member.method = deflated ? kZipDeflated : kZipStored;
    member.compressedSize = stored.size();
    bool zip64 = member.size >= kZip32Max || member.compressedSize >= kZip32Max;
    putLittleEndian<uint32_t>(out, kZipLocalHeader);
    putZipEntryFields(out, member, zip64, zip64);
    putLittleEndian<uint16_t>(out, static_cast<uint16_t>(member.name.size()));
    putLittleEndian<uint16_t>(out, zip64 ? 20 : 0);
    out += member.name;
    if (zip64) {
      putLittleEndian<uint16_t>(out, kZip64ExtraId);
      putLittleEndian<uint16_t>(out, 16);
      putLittleEndian<uint64_t>(out, member.size);
      putLittleEndian<uint64_t>(out, member.compressedSize);
    }
    out += stored;
    members.push_back(std::move(member));
  }

  uint64_t directoryStart = out.size();
  for (const WrittenMember &member : members) {
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
    putZipEntryFields(out, member, !extra.empty(), false);
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
  return out;
}

std::optional<std::vector<ZipMember>> formats::readZip(const std::string &bytes,
                                                       const std::string &kind,
                                                       std::string &why) {
  auto fail = [&](std::string text) {
    why = std::move(text);
    return std::nullopt;
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
  if (!end)
    return fail(bytes.compare(0, 4, "PK\x03\x04", 4) == 0
                    ? "is truncated: its zip end-of-central-directory record "
                      "is missing"
                    : "is not " + kind +
                          " (not a zip archive: no end-of-central-directory "
                          "record)");
  if (u16(*end + 4) != 0 || u16(*end + 6) != 0)
    return fail("is a zip archive split over several disks (not supported)");
  uint64_t count = u16(*end + 10), directorySize = u32(*end + 12),
           directoryStart = u32(*end + 16);
  if (count == 0xffff || directorySize == kZip32Max ||
      directoryStart == kZip32Max) {
    uint64_t locator = *end - std::min<uint64_t>(*end, kZip64LocatorBytes);
    if (*end < kZip64LocatorBytes || u32(locator) != kZip64Locator)
      return fail("is corrupted: its zip64 end-of-central-directory locator is "
                  "missing");
    uint64_t zip64End = u64(locator + 8);
    if (!inside(zip64End, kZip64EndBytes) || u32(zip64End) != kZip64End)
      return fail("is corrupted: its zip64 end-of-central-directory record is "
                  "missing");
    count = u64(zip64End + 32);
    directorySize = u64(zip64End + 40);
    directoryStart = u64(zip64End + 48);
  }
  if (!inside(directoryStart, directorySize) ||
      directoryStart + directorySize > *end)
    return fail("is " +
                std::string(directoryStart + directorySize > bytes.size()
                                ? "truncated"
                                : "corrupted") +
                ": its central directory (" + std::to_string(directorySize) +
                " bytes at offset " + std::to_string(directoryStart) +
                ") does not fit before its end record at offset " +
                std::to_string(*end));

  std::vector<ZipMember> members;
  uint64_t at = directoryStart;
  const uint64_t directoryEnd = directoryStart + directorySize;
  for (uint64_t i = 0; i < count; ++i) {
    std::string number = std::to_string(i + 1) + " of " + std::to_string(count);
    if (directoryEnd - at < kZipCentralHeaderBytes ||
        u32(at) != kZipCentralHeader)
      return fail("is corrupted: central directory entry " + number +
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
      return fail("is corrupted: central directory entry " + number +
                  " runs past the directory");
    std::string name = bytes.substr(at + kZipCentralHeaderBytes, nameBytes);
    std::string member = "member '" + name + "'";
    // The zip64 extra holds the fields whose 32-bit value is all ones.
    for (uint64_t extra = at + kZipCentralHeaderBytes + nameBytes,
                  extraEnd = extra + extraBytes;
         extraEnd - extra >= 4;) {
      uint16_t id = u16(extra), blockBytes = u16(extra + 2);
      if (blockBytes > extraEnd - extra - 4)
        return fail("is corrupted: the extra fields of " + member +
                    " are malformed");
      if (id == kZip64ExtraId) {
        uint64_t field = extra + 4, fieldEnd = field + blockBytes;
        for (uint64_t *value : {&size, &compressedSize, &offset}) {
          if (*value != kZip32Max)
            continue;
          if (fieldEnd - field < 8)
            return fail("is corrupted: the zip64 extra field of " + member +
                        " is too short");
          *value = u64(field);
          field += 8;
        }
      }
      extra += 4 + blockBytes;
    }
    at = next;

    if (flags & 1)
      return fail("holds the encrypted " + member + " (not supported)");
    if (method != kZipStored && method != kZipDeflated)
      return fail("holds " + member + " compressed with zip method " +
                  std::to_string(method) +
                  " (only stored and deflated members are supported)");

    if (!inside(offset, kZipLocalHeaderBytes) || u32(offset) != kZipLocalHeader)
      return fail("is corrupted: the local header of " + member +
                  " (at offset " + std::to_string(offset) + ") is missing");
    uint64_t dataStart =
        offset + kZipLocalHeaderBytes + u16(offset + 26) + u16(offset + 28);
    if (!inside(dataStart, compressedSize))
      return fail("is truncated: " + member + " needs " +
                  std::to_string(compressedSize) + " bytes at offset " +
                  std::to_string(dataStart) + ", the file has " +
                  std::to_string(bytes.size()));
    const char *data = bytes.data() + dataStart;
    std::string npy;
    if (method == kZipStored) {
      if (size != compressedSize)
        return fail("is corrupted: the stored " + member + " has " +
                    std::to_string(compressedSize) +
                    " bytes but records a size of " + std::to_string(size));
      npy.assign(data, compressedSize);
    } else {
      if (size / kMaxDeflateRatio > compressedSize + 1)
        return fail("is corrupted: " + member + " claims " +
                    std::to_string(size) + " bytes from " +
                    std::to_string(compressedSize) +
                    " deflated ones, more than deflate can encode");
      npy.resize(size);
      if (!inflateRaw(data, compressedSize, npy))
        return fail("is corrupted: the deflated data of " + member +
                    " is malformed or does not hold its recorded " +
                    std::to_string(size) + " bytes");
    }
    if (uint32_t actual = crc32Of(npy.data(), npy.size()); actual != crc) {
      char text[64];
      std::snprintf(text, sizeof text, "0x%08x, but the archive records 0x%08x",
                    actual, crc);
      return fail("is corrupted: the CRC-32 of " + member + " is " + text);
    }
    members.push_back({std::move(name), std::move(npy)});
  }
  return members;
}
