//===- Dataset.h - Classification data in memory ----------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A classification data set held on the host (float features, int32
// labels), from MNIST's IDX files or generated, and its batches as tensors.
// Batches are copied into fresh tensors rather than sliced out of one big
// tensor: a slice's bounds are part of the trace's structure, so slicing
// would compile one trace per batch position.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_DATA_DATASET_H
#define LAZYC_DATA_DATASET_H

#include "lazyc/API/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lazyc::data {

struct Dataset {
  int64_t count = 0;    ///< examples
  int64_t features = 0; ///< floats per example
  int64_t classes = 0;
  std::vector<float> inputs;   ///< [count, features], row-major
  std::vector<int32_t> labels; ///< [count], each in [0, classes)

  /// Examples first .. first + size - 1 (wrapping around at the end) as a
  /// [size, features] Float32 tensor and a [size] Int32 tensor.
  Tensor batchInputs(int64_t first, int64_t size) const;
  Tensor batchLabels(int64_t first, int64_t size) const;
};

/// MNIST from `directory`: `<split>-images-idx3-ubyte` and
/// `<split>-labels-idx1-ubyte` (also accepted: the `...-images.idx3-ubyte`
/// spelling), where split is "train" or "t10k". Pixels are scaled to
/// [0, 1]; 28x28 images give 784 features; 10 classes. Throws lazyc::Error
/// (op "loadMnist") for missing files, wrong ranks, a count mismatch or a
/// label above 9.
Dataset loadMnist(const std::string &directory, const std::string &split,
                  SourceLocation where = SourceLocation::current());

/// `count` examples of `classes` clusters in `features` dimensions, a pure
/// function of `seed`: class c has a random center with coordinates in
/// [0, 1), and each example is its center plus uniform noise of amplitude
/// `noise` per coordinate, clipped to [0, 1] like pixels. With many features
/// (tens or more) the classes are linearly separable in practice. Labels
/// cycle through the classes in a shuffled order.
Dataset syntheticClassification(int64_t count, int64_t features,
                                int64_t classes, uint64_t seed,
                                double noise = 0.5);

} // namespace lazyc::data

#endif // LAZYC_DATA_DATASET_H
