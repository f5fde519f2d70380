//===- Checkpoint.cpp - Variables on disk ---------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the checkpoint writer and reader
// (lazyc/Formats/Checkpoint.h). Every length is checked against what is
// left of the file before use, and every entry against its checksum before
// its fields are trusted.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Formats/Checkpoint.h"
#include "lazyc/Formats/Files.h"
#include "lazyc/Formats/LittleEndian.h"
#include "lazyc/Formats/Npy.h"
#include "lazyc/Runtime/Shape.h"

#include <cstring>

using namespace lazyc;
using namespace lazyc::formats;

namespace {

const char kCheckpointMagic[] = "LAZYCKPT";
const char kCheckpointEnd[] = "LAZYCEND";

void putString(std::string &out, std::string_view text) {
  putLittleEndian<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out += text;
}

/// Reads fields from a checkpoint's bytes; a read past the end fails the
/// reader, with a truncation message saying where.
class CheckpointReader {
public:
  explicit CheckpointReader(const std::string &bytes) : bytes(bytes) {}

  /// What the next read belongs to, for truncation errors.
  std::string context = "the header";
  size_t offset = 0;
  /// Set by the first read past the end.
  std::optional<std::string> truncation;

  const char *take(size_t size) {
    if (truncation)
      return nullptr;
    if (size > bytes.size() - offset) {
      truncation = "is truncated: it ends inside " + context + " (" +
                   std::to_string(size) + " bytes needed at offset " +
                   std::to_string(offset) + ", the file has " +
                   std::to_string(bytes.size()) + ")";
      return nullptr;
    }
    const char *at = bytes.data() + offset;
    offset += size;
    return at;
  }
  template <typename T> T get() {
    const char *at = take(sizeof(T));
    return at ? getLittleEndian<T>(at) : T();
  }
  std::string getString() {
    uint32_t size = get<uint32_t>();
    const char *at = take(size);
    return at ? std::string(at, size) : std::string();
  }

private:
  const std::string &bytes;
};

} // namespace

std::string
formats::checkpointFile(const std::vector<CheckpointRecord> &records,
                        const std::string &version) {
  std::string out(kCheckpointMagic, 8);
  putLittleEndian<uint32_t>(out, kCheckpointVersion);
  putString(out, version);
  putLittleEndian<uint64_t>(out, records.size());
  putLittleEndian<uint64_t>(out, fnv1a(out.data(), out.size()));
  for (const CheckpointRecord &record : records) {
    size_t start = out.size();
    putString(out, record.name);
    putString(out, dtypeInfo(record.dtype).name);
    putLittleEndian<uint32_t>(out, static_cast<uint32_t>(record.shape.size()));
    for (int64_t dim : record.shape)
      putLittleEndian<int64_t>(out, dim);
    putLittleEndian<uint64_t>(out, record.data.size());
    out += record.data;
    putLittleEndian<uint64_t>(out,
                              fnv1a(out.data() + start, out.size() - start));
  }
  out.append(kCheckpointEnd, 8);
  return out;
}

std::optional<Checkpoint> formats::parseCheckpoint(std::string bytes,
                                                   const std::string &version,
                                                   std::string &why) {
  auto fail = [&](std::string text) {
    why = std::move(text);
    return std::nullopt;
  };
  if (bytes.compare(0, 8, kCheckpointMagic) != 0)
    return fail(bytes.compare(0, 6, kNpyMagic) == 0
                    ? "is a numpy .npy file, not a lazyc checkpoint (read it "
                      "with loadNpy)"
                    : "is not a lazyc checkpoint (it does not start with "
                      "\"LAZYCKPT\")");
  Checkpoint checkpoint;
  checkpoint.bytes = std::move(bytes);
  const std::string &data = checkpoint.bytes;
  CheckpointReader reader(data);
  reader.take(8);
  uint32_t formatVersion = reader.get<uint32_t>();
  if (reader.truncation)
    return fail(*reader.truncation);
  if (formatVersion != kCheckpointVersion) {
    // The writer's lazyc version, if this other format still puts it here.
    std::string writer;
    if (data.size() >= 16) {
      uint32_t size = getLittleEndian<uint32_t>(data.data() + 12);
      if (size <= 64 && size <= data.size() - 16)
        writer = " (by lazyc " + data.substr(16, size) + ")";
    }
    return fail("was written in checkpoint format version " +
                std::to_string(formatVersion) + writer + ", but this lazyc (" +
                version + ") reads format version " +
                std::to_string(kCheckpointVersion));
  }
  reader.getString(); // the writer's lazyc version: informative only
  uint64_t count = reader.get<uint64_t>();
  uint64_t expected = fnv1a(data.data(), reader.offset);
  uint64_t recorded = reader.get<uint64_t>();
  if (reader.truncation)
    return fail(*reader.truncation);
  if (recorded != expected)
    return fail("is corrupted: the header's checksum does not match");

  for (uint64_t i = 0; i < count; ++i) {
    size_t start = reader.offset;
    std::string number = std::to_string(i + 1) + " of " + std::to_string(count);
    reader.context = "entry " + number;
    Checkpoint::Entry entry;
    entry.name = reader.getString();
    if (reader.truncation)
      return fail(*reader.truncation);
    reader.context = "entry " + number + " ('" + entry.name + "')";
    std::string dtypeText = reader.getString();
    uint32_t rank = reader.get<uint32_t>();
    if (const char *dims = reader.take(size_t(rank) * 8))
      for (uint32_t d = 0; d < rank; ++d)
        entry.shape.push_back(getLittleEndian<int64_t>(dims + size_t(d) * 8));
    uint64_t dataBytes = reader.get<uint64_t>();
    if (!reader.truncation && dataBytes > data.size())
      reader.take(data.size() + 1); // reports the truncation
    entry.dataOffset = reader.offset;
    reader.take(static_cast<size_t>(dataBytes));
    uint64_t sum = fnv1a(data.data() + start, reader.offset - start);
    uint64_t recordedSum = reader.get<uint64_t>();
    if (reader.truncation)
      return fail(*reader.truncation);
    if (recordedSum != sum)
      return fail("is corrupted: the checksum of " + reader.context +
                  " does not match");
    // The checksum held, so what follows is what the writer wrote.
    std::optional<DType> dtype;
    for (DType candidate : kAllDTypes)
      if (dtypeText == dtypeInfo(candidate).name)
        dtype = candidate;
    if (!dtype)
      return fail("has an unknown dtype '" + dtypeText + "' in " +
                  reader.context);
    entry.dtype = *dtype;
    auto sizes = checkedSizes(entry.shape, entry.dtype);
    if (!sizes || uint64_t(sizes->second) != dataBytes)
      return fail("has " + std::to_string(dataBytes) + " data bytes in " +
                  reader.context + ", which do not fit its shape " +
                  shapeText(entry.shape) + " of " +
                  dtypeInfo(entry.dtype).name);
    checkpoint.entries.push_back(std::move(entry));
  }
  reader.context =
      "the end marker (after " + std::to_string(count) + " entries)";
  const char *end = reader.take(8);
  if (reader.truncation)
    return fail(*reader.truncation);
  if (std::memcmp(end, kCheckpointEnd, 8) != 0)
    return fail("is corrupted: the end marker is missing");
  if (reader.offset != data.size())
    return fail("is corrupted: " + std::to_string(data.size() - reader.offset) +
                " unexpected bytes follow the end marker");
  return checkpoint;
}
