//===- Dataset.cpp - Classification data in memory ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/Data/Dataset.h"

#include "lazyc/Data/Idx.h"

#include <algorithm>
#include <fstream>
#include <random>

using namespace lazyc;
using namespace lazyc::data;

/// Examples first .. first + size - 1, wrapping around, of rows of `width`.
template <typename T>
static std::vector<T> wrappedRows(const std::vector<T> &rows, int64_t count,
                                  int64_t width, int64_t first, int64_t size) {
  std::vector<T> out(static_cast<size_t>(size * width));
  for (int64_t i = 0; i < size; ++i) {
    int64_t row = (first + i) % count;
    std::copy_n(rows.begin() + row * width, width, out.begin() + i * width);
  }
  return out;
}

static void checkBatch(const Dataset &set, int64_t first, int64_t size,
                       const char *op) {
  if (set.count <= 0)
    throw Error(op, "the data set is empty");
  if (first < 0 || size <= 0)
    throw Error(op, "a batch needs first >= 0 and size > 0, got first " +
                        std::to_string(first) + ", size " +
                        std::to_string(size));
}

Tensor Dataset::batchInputs(int64_t first, int64_t size) const {
  checkBatch(*this, first, size, "batchInputs");
  return Tensor::fromVector(wrappedRows(inputs, count, features, first, size),
                            {size, features});
}

Tensor Dataset::batchLabels(int64_t first, int64_t size) const {
  checkBatch(*this, first, size, "batchLabels");
  return Tensor::fromVector(wrappedRows(labels, count, 1, first, size), {size});
}

/// `directory/<split>-<kind>-idx<rank>-ubyte`, or the `.idx` spelling some
/// copies of MNIST use; the first that exists.
static std::string mnistFile(const std::string &directory,
                             const std::string &split, const char *kind,
                             int rank) {
  std::string stem = directory + "/" + split + "-" + kind;
  std::string rankPart = "idx" + std::to_string(rank) + "-ubyte";
  std::string dashed = stem + "-" + rankPart, dotted = stem + "." + rankPart;
  if (!std::ifstream(dashed) && std::ifstream(dotted))
    return dotted;
  return dashed;
}

Dataset data::loadMnist(const std::string &directory, const std::string &split,
                        SourceLocation where) {
  if (split != "train" && split != "t10k")
    throw Error("loadMnist",
                "the split must be \"train\" or \"t10k\", got \"" + split +
                    "\"",
                where);
  std::string imagePath = mnistFile(directory, split, "images", 3);
  std::string labelPath = mnistFile(directory, split, "labels", 1);
  if (!std::ifstream(imagePath))
    throw Error("loadMnist",
                "no MNIST images in " + directory + " (looked for " +
                    imagePath + ")",
                where);
  IdxArray images = readIdx(imagePath, where);
  IdxArray labels = readIdx(labelPath, where);
  if (images.dims.size() != 3)
    throw Error("loadMnist",
                imagePath +
                    ": images need 3 dimensions (count, rows, "
                    "columns), the file has " +
                    std::to_string(images.dims.size()),
                where);
  if (labels.dims.size() != 1)
    throw Error("loadMnist",
                labelPath + ": labels need 1 dimension, the file has " +
                    std::to_string(labels.dims.size()),
                where);
  if (images.dims[0] != labels.dims[0])
    throw Error("loadMnist",
                imagePath + " has " + std::to_string(images.dims[0]) +
                    " images, but " + labelPath + " has " +
                    std::to_string(labels.dims[0]) + " labels",
                where);

  Dataset set;
  set.count = images.dims[0];
  set.features = images.dims[1] * images.dims[2];
  set.classes = 10;
  set.inputs.resize(images.values.size());
  std::transform(images.values.begin(), images.values.end(), set.inputs.begin(),
                 [](uint8_t pixel) { return pixel / 255.0f; });
  set.labels.reserve(labels.values.size());
  for (size_t i = 0; i < labels.values.size(); ++i) {
    if (labels.values[i] >= set.classes)
      throw Error("loadMnist",
                  labelPath + ": label " + std::to_string(labels.values[i]) +
                      " at index " + std::to_string(i) +
                      " is not a digit (0-9)",
                  where);
    set.labels.push_back(labels.values[i]);
  }
  return set;
}

Dataset data::syntheticClassification(int64_t count, int64_t features,
                                      int64_t classes, uint64_t seed,
                                      double noise) {
  if (count <= 0 || features <= 0 || classes <= 0)
    throw Error("syntheticClassification",
                "count, features and classes must be positive");
  std::mt19937_64 random(seed);
  // The top 24 bits as a float in [0, 1): exact, and far cheaper than
  // uniform_real_distribution (libstdc++'s takes a long-double log per
  // number).
  auto unit = [&random] {
    return static_cast<float>(random() >> 40) * (1.0f / (1 << 24));
  };
  std::vector<float> centers(static_cast<size_t>(classes * features));
  for (float &coordinate : centers)
    coordinate = unit();

  Dataset set;
  set.count = count;
  set.features = features;
  set.classes = classes;
  set.labels.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    set.labels[i] = static_cast<int32_t>(i % classes);
  std::shuffle(set.labels.begin(), set.labels.end(), random);
  set.inputs.resize(static_cast<size_t>(count * features));
  float amplitude = static_cast<float>(noise);
  for (int64_t i = 0; i < count; ++i) {
    const float *center = &centers[set.labels[i] * features];
    for (int64_t f = 0; f < features; ++f) {
      float value = center[f] + amplitude * (2 * unit() - 1);
      set.inputs[i * features + f] = std::clamp(value, 0.0f, 1.0f);
    }
  }
  return set;
}
