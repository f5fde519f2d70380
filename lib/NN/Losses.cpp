//===- Losses.cpp - Loss functions ----------------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lazyc/NN/Losses.h"

#include "lazyc/API/Autocast.h"

#include "lazyc/Runtime/Shape.h"

#include <string>

using namespace lazyc;

static bool isInteger(DType dtype) {
  return dtype == DType::Int32 || dtype == DType::Int64;
}

static bool isFloat(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 ||
         dtype == DType::Float16 || dtype == DType::BFloat16;
}

Tensor nn::oneHot(const Tensor &labels, int64_t classes, DType dtype,
                  Where where) {
  if (!labels.defined())
    throw Error("oneHot", "the labels are an empty Tensor", where);
  if (labels.rank() != 1 || !isInteger(labels.dtype()))
    throw Error("oneHot",
                std::string("needs rank-1 Int32 or Int64 labels, got ") +
                    typeText(labels.dtype(), labels.shape()),
                where);
  if (classes <= 0)
    throw Error("oneHot",
                "needs a positive class count, got " + std::to_string(classes),
                where);
  // [batch, 1] == [classes]: a Bool [batch, classes] table. The class ids
  // are a buffer (an argument), the same for every batch.
  Tensor classIds =
      arange(0, static_cast<double>(classes), 1, labels.dtype(), where);
  Tensor column = reshape(labels, {labels.shape()[0], 1}, where);
  return cast(At(column, where) == classIds, dtype, where);
}

/// Throws if materialized labels hold a class outside [0, classes): reading
/// them costs a small copy and runs nothing.
static void checkLabelRange(const Tensor &labels, int64_t classes,
                            Where where) {
  if (!labels.isMaterialized())
    return;
  std::vector<int64_t> values = labels.toVector<int64_t>(where);
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] < 0 || values[i] >= classes)
      throw Error("crossEntropy",
                  "label " + std::to_string(values[i]) + " at index " +
                      std::to_string(i) + " is outside [0, " +
                      std::to_string(classes) + ")",
                  where);
}

Tensor nn::crossEntropy(const Tensor &input, const Tensor &targets,
                        Where where) {
  if (!input.defined() || !targets.defined())
    throw Error("crossEntropy", "an operand is an empty Tensor", where);
  Tensor logits = lazyc::detail::autocastToFloat32(input, where);
  if (logits.rank() != 2 || !isFloat(logits.dtype()))
    throw Error("crossEntropy",
                std::string("needs [batch, classes] floating-point logits, "
                            "got ") +
                    typeText(logits.dtype(), logits.shape()),
                where);
  int64_t batch = logits.shape()[0], classes = logits.shape()[1];
  Tensor targetTable;
  if (isInteger(targets.dtype())) {
    if (targets.shape() != Shape{batch})
      throw Error("crossEntropy",
                  "class-index targets must be [" + std::to_string(batch) +
                      "] for logits " + shapeText(logits.shape()) + ", got " +
                      shapeText(targets.shape()),
                  where);
    checkLabelRange(targets, classes, where);
    targetTable = oneHot(targets, classes, logits.dtype(), where);
  } else if (isFloat(targets.dtype())) {
    if (targets.shape() != logits.shape())
      throw Error("crossEntropy",
                  "probability targets must have the logits' shape " +
                      shapeText(logits.shape()) + ", got " +
                      shapeText(targets.shape()),
                  where);
    targetTable = cast(targets, logits.dtype(), where);
  } else {
    throw Error("crossEntropy",
                std::string("targets must be class indices (Int32, Int64) or "
                            "probabilities (floating point), got ") +
                    dtypeName(targets.dtype()),
                where);
  }
  Tensor logProbabilities = logSoftmax(logits, 1, where);
  Tensor perExample =
      sum(At(targetTable, where) * logProbabilities, {1}, false, where);
  return -At(mean(perExample, {}, false, where), where);
}

Tensor nn::mseLoss(const Tensor &predicted, const Tensor &expected,
                   Where where) {
  if (!predicted.defined() || !expected.defined())
    throw Error("mseLoss", "an operand is an empty Tensor", where);
  Tensor prediction = lazyc::detail::autocastToFloat32(predicted, where);
  Tensor target = lazyc::detail::autocastToFloat32(expected, where);
  if (prediction.shape() != target.shape())
    throw Error("mseLoss",
                "the prediction " + shapeText(prediction.shape()) +
                    " and the target " + shapeText(target.shape()) +
                    " differ in shape",
                where);
  Tensor error = At(prediction, where) - target;
  return mean(At(error, where) * error, {}, false, where);
}
