//===- ModelFile.h - Exported functions on disk -----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The `.lazyc` file lazyc::save writes and lazyc::load and lazyc-run read: a
// function's concrete functions as one MLIR bytecode module (`lazy`
// dialect, a func per concrete function), what each takes and returns, and
// the values they read besides their arguments (Variables and constants).
// No exceptions here (lazyc-run links it too): errors are llvm::Error.
//
//   "LAZYCFN\0"  u32 format version  payload  u64 FNV-1a of the payload
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_FORMATS_MODELFILE_H
#define LAZYC_FORMATS_MODELFILE_H

#include "lazyc/Runtime/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lazyc::model {

inline constexpr char kMagic[8] = {'L', 'A', 'Z', 'Y', 'C', 'F', 'N', '\0'};
/// Version 2 adds the unknown dimensions (Concrete's last four fields);
/// version 1 files are read with none.
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kOldestFormatVersion = 1;

/// An integer that follows a function's unknown dimensions: (scale * S +
/// offset) / divisor, exactly, for S the size of unknown dimension
/// `dimension`, or the constant `offset` (`dimension` -1).
struct SizeFormula {
  int32_t dimension = -1;
  int64_t scale = 0, offset = 0, divisor = 1;

  int64_t evaluate(const std::vector<int64_t> &sizes) const {
    if (dimension < 0)
      return offset;
    return (scale * sizes[size_t(dimension)] + offset) / divisor;
  }
};

/// A tensor's type, and a name (a parameter's, a Variable's).
struct TypedName {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
};

/// A saved value: a Variable's (its name) or a constant's ("constant#i").
struct Value : TypedName {
  std::vector<uint8_t> data; ///< Little-endian elements, row-major.
};

/// One concrete function: `entry` in the module takes `inputs`, then the
/// saved values named by `captured`, and returns `results`. A result named
/// by a Variable is that Variable's new value; the others are the call's.
struct Concrete {
  std::string entry;
  std::string signature;
  std::vector<TypedName> inputs;
  std::vector<std::string> captured;
  std::vector<TypedName> results;
  /// The dimensions the signature leaves unknown ("x_dim0"); the module's
  /// function leaves them to the call.
  std::vector<std::string> dimensions;
  /// Per input, per axis: the unknown dimension it is, or -1 (its size is
  /// then the input's shape's).
  std::vector<std::vector<int32_t>> inputDimensions;
  /// The sizes the function reads as its last argument (a tensor<Nxi64>,
  /// trace::runtimeSizes), as formulas of the dimensions; none: no such
  /// argument.
  std::vector<SizeFormula> runtimeSizes;
  /// Per result, per axis: its size.
  std::vector<std::vector<SizeFormula>> resultSizes;

  /// The sizes of the unknown dimensions given the inputs' shapes; none,
  /// with `why`, if an input does not fit (another rank, a known size
  /// that differs, two sizes for one dimension).
  std::optional<std::vector<int64_t>>
  dimensionSizes(const std::vector<std::vector<int64_t>> &shapes,
                 std::string &why) const;
};

struct ModelFile {
  std::string name;
  std::string lazycVersion;
  std::vector<Concrete> functions;
  std::vector<Value> values;
  std::string module; ///< MLIR bytecode.

  const Value *value(const std::string &name) const;
};

/// Writes `file` to `path` through a temporary file and a rename; false,
/// with `why` (a phrase to follow the file's name), if it cannot.
bool write(const ModelFile &file, const std::string &path, std::string &why);

/// Reads and checks a file: magic, format version, checksum, sizes; none,
/// with `why`, if it cannot be read or is damaged.
std::optional<ModelFile> read(const std::string &path, std::string &why);

/// Whether the file at `path` starts like a `.lazyc` file.
bool looksLikeModelFile(const std::string &path);

} // namespace lazyc::model

#endif // LAZYC_FORMATS_MODELFILE_H
