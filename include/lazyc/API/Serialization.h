//===- Serialization.h - .npy files and checkpoints -------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what moves values in and out of a process: tensors as
// numpy .npy files and .npz archives, and Variables (a model's parameters, an
// optimizer's state) as one versioned, checksummed checkpoint file, so that a
// training run can stop and resume with the same results. Every failure is a
// lazyc::Error naming the file and what is wrong with it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_SERIALIZATION_H
#define LAZYC_API_SERIALIZATION_H

#include "lazyc/API/Tensor.h"
#include "lazyc/API/Variable.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lazyc {

/// Writes `tensor` (materializes) to `path` as a numpy .npy file: format
/// 1.0 (2.0 for a header past 64 KiB), C order, little endian. BFloat16,
/// which numpy lacks, is written as float32 ('<f4'), exactly. The file is
/// written aside and renamed into place, so `path` never holds half a file.
void saveNpy(const Tensor &tensor, const std::string &path,
             SourceLocation where = SourceLocation::current());

/// Reads a numpy .npy file (format 1.0, 2.0 or 3.0) in C order as a tensor
/// of its dtype: '<f4', '<f8', '<f2', '<i4', '<i8', '|b1', '|i1', '|u1',
/// '<i2', '<u2', '<u4' or '<u8' (the DType table's numpy names).
Tensor loadNpy(const std::string &path,
               SourceLocation where = SourceLocation::current());

/// Writes `tensors` (materializes them, in one trace) to `path` as a numpy
/// .npz archive, as numpy.savez writes it: an uncompressed zip of one .npy
/// member per tensor, "<name>.npy", in the given order (zip64 past 4 GiB).
/// `saveNpz("model.npz", {{"w", w}, {"b", b}})`. A name given twice or an
/// empty tensor is an error. Written aside and renamed into place.
void saveNpz(const std::string &path,
             const std::vector<std::pair<std::string, Tensor>> &tensors,
             SourceLocation where = SourceLocation::current());
/// saveNpz with every member compressed by deflate (numpy.savez_compressed).
void saveNpzCompressed(
    const std::string &path,
    const std::vector<std::pair<std::string, Tensor>> &tensors,
    SourceLocation where = SourceLocation::current());

/// Reads a numpy .npz archive (numpy.savez or savez_compressed: stored or
/// deflated members, zip64 or not): each member, a .npy file loadNpy would
/// read, under its name without ".npy". Members that are not .npy files,
/// encrypted ones, other compression methods, duplicate names, a bad CRC-32
/// or a truncated archive are errors naming the file and the member.
std::map<std::string, Tensor>
loadNpz(const std::string &path,
        SourceLocation where = SourceLocation::current());

/// Writes the current values of `variables` (materializes) to `path` as one
/// checkpoint: each under its name(), with its dtype, shape and data. The
/// file is written aside and renamed into place.
void saveVariables(const std::string &path,
                   const std::vector<const Variable *> &variables,
                   SourceLocation where = SourceLocation::current());
/// The list nn modules and optimizers hand out (`model.parameters()`).
void saveVariables(const std::string &path,
                   const std::vector<Variable *> &variables,
                   SourceLocation where = SourceLocation::current());
/// `saveVariables(path, {&w, &b})`.
void saveVariables(const std::string &path,
                   std::initializer_list<const Variable *> variables,
                   SourceLocation where = SourceLocation::current());
/// Writes each variable under its key instead of its name().
void saveVariables(const std::string &path,
                   const std::map<std::string, const Variable *> &variables,
                   SourceLocation where = SourceLocation::current());

/// Assigns `variables` the values of a checkpoint saved from a list of as
/// many variables with the same names, dtypes and shapes, in the same order
/// (as `Variable::assign`: recorded in lazy mode, run in eager mode). The
/// whole file is checked before any variable changes: on an error, none
/// has.
void loadVariables(const std::string &path,
                   const std::vector<Variable *> &variables,
                   SourceLocation where = SourceLocation::current());
/// `loadVariables(path, {&w, &b})`.
void loadVariables(const std::string &path,
                   std::initializer_list<Variable *> variables,
                   SourceLocation where = SourceLocation::current());
/// Assigns each variable the checkpoint's entry named by its key (its dtype
/// and shape must match); entries no key names are left alone, so a model
/// can be loaded alone from a model-and-optimizer checkpoint.
void loadVariables(const std::string &path,
                   const std::map<std::string, Variable *> &variables,
                   SourceLocation where = SourceLocation::current());

/// One entry of a checkpoint, as checkpointEntries lists it.
struct CheckpointEntry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
};

/// The entries of a checkpoint, in file order (checks the whole file, reads
/// no value into a tensor).
std::vector<CheckpointEntry>
checkpointEntries(const std::string &path,
                  SourceLocation where = SourceLocation::current());

/// The version of the checkpoint format this lazyc writes and reads.
constexpr uint32_t kCheckpointFormatVersion = 1;

} // namespace lazyc

#endif // LAZYC_API_SERIALIZATION_H
