//===- ModelFile.cpp - Exported functions on disk -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
// This file implements the `.lazyc` file of exported functions
// (lazyc/Formats/ModelFile.h).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Formats/ModelFile.h"
#include "lazyc/Formats/Files.h"
#include "lazyc/Formats/LittleEndian.h"
#include "lazyc/Formats/Npy.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

using namespace lazyc;
using namespace lazyc::model;

const Value *ModelFile::value(const std::string &name) const {
  for (const Value &value : values)
    if (value.name == name)
      return &value;
  return nullptr;
}

std::optional<std::vector<int64_t>>
Concrete::dimensionSizes(const std::vector<std::vector<int64_t>> &shapes,
                         std::string &why) const {
  std::vector<int64_t> sizes(dimensions.size(), -1);
  if (shapes.size() != inputs.size()) {
    why = "takes " + std::to_string(inputs.size()) + " inputs, not " +
          std::to_string(shapes.size());
    return std::nullopt;
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<int64_t> &shape = shapes[i];
    if (shape.size() != inputs[i].shape.size()) {
      why = "input " + std::to_string(i + 1) + " has rank " +
            std::to_string(shape.size()) + ", not " +
            std::to_string(inputs[i].shape.size());
      return std::nullopt;
    }
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      int32_t dimension = inputDimensions[i][axis];
      int64_t expected =
          dimension < 0 ? inputs[i].shape[axis] : sizes[size_t(dimension)];
      if (dimension >= 0 && expected < 0) {
        sizes[size_t(dimension)] = shape[axis]; // Its first input.
        continue;
      }
      if (expected != shape[axis]) {
        why = "input " + std::to_string(i + 1) + " has size " +
              std::to_string(shape[axis]) + " in dimension " +
              std::to_string(axis) + ", where " +
              (dimension < 0
                   ? std::string("the function takes ")
                   : "its " + dimensions[size_t(dimension)] + " is already ") +
              std::to_string(expected);
        return std::nullopt;
      }
    }
  }
  return sizes;
}

namespace {

class Writer {
public:
  template <typename T> void integer(T value) {
    formats::putLittleEndian<T>(out, value);
  }
  void string(std::string_view text) {
    integer<uint64_t>(text.size());
    out.append(text.begin(), text.end());
  }
  void formula(const SizeFormula &size) {
    integer<int32_t>(size.dimension);
    integer<int64_t>(size.scale);
    integer<int64_t>(size.offset);
    integer<int64_t>(size.divisor);
  }
  void typedName(const TypedName &typed) {
    string(typed.name);
    integer<uint8_t>(static_cast<uint8_t>(typed.dtype));
    integer<uint64_t>(typed.shape.size());
    for (int64_t dim : typed.shape)
      integer<int64_t>(dim);
  }
  std::string out;
};

/// Reads the payload; every read is checked against its end.
class Reader {
public:
  explicit Reader(std::string_view bytes) : bytes(bytes) {}
  template <typename T> bool integer(T &value) {
    if (bytes.size() - offset < sizeof(T))
      return false;
    value = formats::getLittleEndian<T>(bytes.data() + offset);
    offset += sizeof(T);
    return true;
  }
  bool string(std::string &text) {
    uint64_t size;
    if (!integer(size) || bytes.size() - offset < size)
      return false;
    text = std::string(bytes.substr(offset, size));
    offset += size;
    return true;
  }
  bool typedName(TypedName &typed) {
    uint8_t dtype;
    uint64_t rank;
    if (!string(typed.name) || !integer(dtype) || !integer(rank) ||
        dtype >= std::size(kAllDTypes) || rank > 64)
      return false;
    typed.dtype = static_cast<DType>(dtype);
    typed.shape.resize(rank);
    for (int64_t &dim : typed.shape)
      if (!integer(dim) || dim < 0)
        return false;
    return true;
  }
  bool formula(SizeFormula &size, size_t dimensions) {
    return integer(size.dimension) && integer(size.scale) &&
           integer(size.offset) && integer(size.divisor) &&
           size.dimension >= -1 && size.dimension < int64_t(dimensions) &&
           size.divisor > 0;
  }
  bool done() const { return offset == bytes.size(); }

private:
  std::string_view bytes;
  size_t offset = 0;
};

} // namespace

bool model::write(const ModelFile &file, const std::string &path,
                  std::string &why) {
  Writer payload;
  payload.string(file.name);
  payload.string(file.lazycVersion);
  payload.integer<uint64_t>(file.functions.size());
  for (const Concrete &function : file.functions) {
    payload.string(function.entry);
    payload.string(function.signature);
    payload.integer<uint64_t>(function.inputs.size());
    for (const TypedName &input : function.inputs)
      payload.typedName(input);
    payload.integer<uint64_t>(function.captured.size());
    for (const std::string &name : function.captured)
      payload.string(name);
    payload.integer<uint64_t>(function.results.size());
    for (const TypedName &result : function.results)
      payload.typedName(result);
    // Version 2: the unknown dimensions.
    payload.integer<uint64_t>(function.dimensions.size());
    for (const std::string &name : function.dimensions)
      payload.string(name);
    for (size_t i = 0; i < function.inputs.size(); ++i)
      for (size_t axis = 0; axis < function.inputs[i].shape.size(); ++axis)
        payload.integer<int32_t>(i < function.inputDimensions.size() &&
                                         axis <
                                             function.inputDimensions[i].size()
                                     ? function.inputDimensions[i][axis]
                                     : -1);
    payload.integer<uint64_t>(function.runtimeSizes.size());
    for (const SizeFormula &size : function.runtimeSizes)
      payload.formula(size);
    for (size_t i = 0; i < function.results.size(); ++i)
      for (size_t axis = 0; axis < function.results[i].shape.size(); ++axis)
        payload.formula(
            i < function.resultSizes.size() &&
                    axis < function.resultSizes[i].size()
                ? function.resultSizes[i][axis]
                : SizeFormula{-1, 0, function.results[i].shape[axis], 1});
  }
  payload.integer<uint64_t>(file.values.size());
  for (const Value &value : file.values) {
    payload.typedName(value);
    payload.string(std::string_view(
        reinterpret_cast<const char *>(value.data.data()), value.data.size()));
  }
  payload.string(file.module);

  Writer whole;
  whole.out.append(kMagic, sizeof(kMagic));
  whole.integer<uint32_t>(kFormatVersion);
  whole.out += payload.out;
  whole.integer<uint64_t>(
      formats::fnv1a(payload.out.data(), payload.out.size()));

  return formats::writeFileAtomically(path, whole.out, why);
}

bool model::looksLikeModelFile(const std::string &path) {
  char head[sizeof(kMagic)];
  std::ifstream in(path, std::ios::binary);
  return in.read(head, sizeof(head)) &&
         std::memcmp(head, kMagic, sizeof(kMagic)) == 0;
}

std::optional<ModelFile> model::read(const std::string &path,
                                     std::string &why) {
  std::optional<std::string> contents = formats::readFile(path, why);
  if (!contents)
    return std::nullopt;
  auto problem = [&](std::string text) {
    why = std::move(text);
    return std::nullopt;
  };
  std::string_view bytes = *contents;
  constexpr size_t kFixed =
      sizeof(kMagic) + sizeof(uint32_t) + sizeof(uint64_t);
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return problem("is not a lazyc function file (no LAZYCFN header)");
  if (bytes.size() < kFixed)
    return problem("is truncated");
  uint32_t version = 0;
  Reader(bytes.substr(sizeof(kMagic), 4)).integer(version);
  if (version < kOldestFormatVersion || version > kFormatVersion)
    return problem("has format version " + std::to_string(version) +
                   ", but this lazyc reads versions " +
                   std::to_string(kOldestFormatVersion) + " to " +
                   std::to_string(kFormatVersion));
  std::string_view payload =
      bytes.substr(sizeof(kMagic) + 4, bytes.size() - kFixed);
  uint64_t checksum = 0;
  Reader(bytes.substr(bytes.size() - 8)).integer(checksum);
  if (checksum != formats::fnv1a(payload.data(), payload.size()))
    return problem("is corrupted or truncated (checksum mismatch)");

  ModelFile file;
  Reader reader(payload);
  auto malformed = [&] { return problem("is malformed"); };
  uint64_t count;
  if (!reader.string(file.name) || !reader.string(file.lazycVersion) ||
      !reader.integer(count) || count > (uint64_t(1) << 20))
    return malformed();
  file.functions.resize(count);
  for (Concrete &function : file.functions) {
    uint64_t inputs, captured, results;
    if (!reader.string(function.entry) || !reader.string(function.signature) ||
        !reader.integer(inputs) || inputs > (uint64_t(1) << 20))
      return malformed();
    function.inputs.resize(inputs);
    for (TypedName &input : function.inputs)
      if (!reader.typedName(input))
        return malformed();
    if (!reader.integer(captured) || captured > (uint64_t(1) << 20))
      return malformed();
    function.captured.resize(captured);
    for (std::string &name : function.captured)
      if (!reader.string(name))
        return malformed();
    if (!reader.integer(results) || results > (uint64_t(1) << 20))
      return malformed();
    function.results.resize(results);
    for (TypedName &result : function.results)
      if (!reader.typedName(result))
        return malformed();
    function.inputDimensions.resize(function.inputs.size());
    for (auto [i, input] : llvm::enumerate(function.inputs))
      function.inputDimensions[i].assign(input.shape.size(), -1);
    function.resultSizes.resize(function.results.size());
    for (auto [i, result] : llvm::enumerate(function.results))
      for (int64_t dim : result.shape)
        function.resultSizes[i].push_back({-1, 0, dim, 1});
    if (version < 2)
      continue;
    uint64_t dimensions, sizes;
    if (!reader.integer(dimensions) || dimensions > (uint64_t(1) << 20))
      return malformed();
    function.dimensions.resize(dimensions);
    for (std::string &name : function.dimensions)
      if (!reader.string(name))
        return malformed();
    for (std::vector<int32_t> &axes : function.inputDimensions)
      for (int32_t &dimension : axes)
        if (!reader.integer(dimension) || dimension < -1 ||
            dimension >= int64_t(dimensions))
          return malformed();
    if (!reader.integer(sizes) || sizes > (uint64_t(1) << 20))
      return malformed();
    function.runtimeSizes.resize(sizes);
    for (SizeFormula &size : function.runtimeSizes)
      if (!reader.formula(size, dimensions))
        return malformed();
    for (std::vector<SizeFormula> &axes : function.resultSizes)
      for (SizeFormula &size : axes)
        if (!reader.formula(size, dimensions))
          return malformed();
  }
  if (!reader.integer(count) || count > (uint64_t(1) << 20))
    return malformed();
  file.values.resize(count);
  for (Value &value : file.values) {
    std::string data;
    if (!reader.typedName(value) || !reader.string(data))
      return malformed();
    auto sizes = formats::checkedSizes(value.shape, value.dtype);
    if (!sizes || sizes->second != static_cast<int64_t>(data.size()))
      return malformed();
    value.data.assign(data.begin(), data.end());
  }
  if (!reader.string(file.module) || !reader.done())
    return malformed();
  for (const Concrete &function : file.functions)
    for (const std::string &name : function.captured)
      if (!file.value(name))
        return problem("is malformed: " + function.entry +
                       " reads a value it does not hold, " + name);
  return file;
}
