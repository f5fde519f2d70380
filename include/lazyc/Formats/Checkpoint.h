//===- Checkpoint.h - Variables on disk -------------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The checkpoint format of saveVariables/loadVariables (all integers
// little endian):
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

#ifndef LAZYC_FORMATS_CHECKPOINT_H
#define LAZYC_FORMATS_CHECKPOINT_H

#include "lazyc/Runtime/DType.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lazyc::formats {

inline constexpr uint32_t kCheckpointVersion = 1;

/// A checkpoint read and checked; the entries' data stays in `bytes`.
struct Checkpoint {
  struct Entry {
    std::string name;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    size_t dataOffset = 0;
  };
  std::string bytes;
  std::vector<Entry> entries;

  const char *data(const Entry &entry) const {
    return bytes.data() + entry.dataOffset;
  }
};

/// One entry to write: `data` holds its elements, row-major.
struct CheckpointRecord {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  std::string_view data;
};

/// The bytes of a checkpoint of `records`, written by lazyc `version`.
std::string checkpointFile(const std::vector<CheckpointRecord> &records,
                           const std::string &version);

/// The checkpoint in `bytes`, every checksum, dtype and size checked; none
/// if it is not one or is damaged: `why` then says what is wrong as a
/// phrase to follow the file's name ("is truncated: it ends inside entry 2
/// of 2 ('layer.bias') ..."). `version` is the reading lazyc's, for the
/// message about another format version.
std::optional<Checkpoint> parseCheckpoint(std::string bytes,
                                          const std::string &version,
                                          std::string &why);

} // namespace lazyc::formats

#endif // LAZYC_FORMATS_CHECKPOINT_H
