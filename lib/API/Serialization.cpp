//===- Serialization.cpp - .npy files and checkpoints ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements saveNpy/loadNpy, saveNpz/loadNpz and
// saveVariables/loadVariables: tensors to and from the bytes of the formats
// in lib/Formats (.npy, zip archives, checkpoints), with errors as
// lazyc::Error naming the op, the file and the user's line.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Serialization.h"
#include "Engine/Convert.h"
#include "Engine/Engine.h"
#include "TensorAccess.h"

#include "lazyc/API/Autodiff.h"
#include "lazyc/Formats/Checkpoint.h"
#include "lazyc/Formats/Files.h"
#include "lazyc/Formats/Npy.h"
#include "lazyc/Formats/Zip.h"
#include "lazyc/Runtime/Shape.h"

#include <optional>

#ifndef LAZYC_VERSION_STRING
#define LAZYC_VERSION_STRING "unknown"
#endif

using namespace lazyc;

static_assert(kCheckpointFormatVersion == formats::kCheckpointVersion,
              "lazyc/API/Serialization.h names the format lib/Formats writes");

namespace {

//===----------------------------------------------------------------------===//
// Files and bytes
//===----------------------------------------------------------------------===//

[[noreturn]] void fail(const char *op, const std::string &path,
                       const std::string &why, SourceLocation where) {
  throw Error(op, "'" + path + "' " + why, where);
}

/// The whole file.
std::string readFile(const char *op, const std::string &path,
                     SourceLocation where) {
  std::string why;
  std::optional<std::string> bytes = formats::readFile(path, why);
  if (!bytes)
    fail(op, path, why, where);
  return std::move(*bytes);
}

/// Writes the file aside and renames it over `path`.
void writeFile(const char *op, const std::string &path,
               const std::string &bytes, SourceLocation where) {
  if (std::string why; !formats::writeFileAtomically(path, bytes, why))
    fail(op, path, why, where);
}

/// Little-endian hosts only: tensor bytes go into the files as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the file formats assume a little-endian host");

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

// An .npz file is a zip archive of .npy members, one per tensor, named
// after it.

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
  std::vector<formats::ZipMember> members;
  for (size_t i = 0; i < values.size(); ++i)
    members.push_back(
        {tensors[i].first + ".npy", npyFile(values[i], std::move(data[i]))});
  writeFile(op, path, formats::zipArchive(members, compress), where);
}

std::map<std::string, Tensor> readNpz(const char *op, const std::string &path,
                                      SourceLocation where) {
  std::string bytes = readFile(op, path, where);
  if (bytes.compare(0, 6, formats::kNpyMagic, 6) == 0)
    fail(op, path, "is a .npy file, not an .npz archive (read it with loadNpy)",
         where);
  std::string why;
  std::optional<std::vector<formats::ZipMember>> members =
      formats::readZip(bytes, "an .npz file", why);
  if (!members)
    fail(op, path, why, where);
  std::map<std::string, Tensor> tensors;
  for (formats::ZipMember &member : *members) {
    const std::string &name = member.name;
    if (!name.ends_with(".npy"))
      fail(op, path,
           "holds member '" + name +
               "', which is not a .npy array (unsupported member)",
           where);
    std::string key = name.substr(0, name.size() - 4);
    if (tensors.count(key))
      fail(op, path, "holds two members named '" + name + "'", where);
    tensors.emplace(key, parseNpy(op, "'" + path + "' member '" + name + "'",
                                  std::move(member.data), where));
  }
  return tensors;
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

using formats::Checkpoint;

/// One variable to write.
struct SavedEntry {
  std::string name;
  const Variable *variable;
};

Checkpoint readCheckpoint(const char *op, const std::string &path,
                          SourceLocation where) {
  std::string why;
  std::optional<Checkpoint> checkpoint = formats::parseCheckpoint(
      readFile(op, path, where), LAZYC_VERSION_STRING, why);
  if (!checkpoint)
    fail(op, path, why, where);
  return std::move(*checkpoint);
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
  std::vector<formats::CheckpointRecord> records;
  for (size_t i = 0; i < entries.size(); ++i)
    records.push_back(
        {entries[i].name, values[i].dtype(), values[i].shape(), data[i]});
  writeFile(op, path, formats::checkpointFile(records, LAZYC_VERSION_STRING),
            where);
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
    variable->assign(newTensor(entry.dtype, entry.shape, checkpoint.data(entry),
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
  writeFile(op, path, npyFile(tensor, std::move(data)), where);
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
