//===- Autocast.cpp - Mixed precision by op -------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The autocast setting is per thread, as the recording is: a scope sets it
// and restores the enclosing one. The ops read it when they record.
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Autocast.h"

#include "lazyc/API/Error.h"
#include "lazyc/API/Ops.h"

using namespace lazyc;

namespace {
thread_local std::optional<DType> currentAutocast;

bool isNarrowFloat(DType dtype) {
  return dtype == DType::BFloat16 || dtype == DType::Float16;
}
} // namespace

AutocastScope::AutocastScope(DType dtype, bool enabled, Where where)
    : previous(currentAutocast) {
  if (!isNarrowFloat(dtype))
    throw Error("AutocastScope",
                std::string("autocasts to BFloat16 or Float16, not ") +
                    dtypeName(dtype),
                where);
  currentAutocast = enabled ? std::optional<DType>(dtype) : std::nullopt;
}

AutocastScope::~AutocastScope() { currentAutocast = previous; }

std::optional<DType> lazyc::autocastDType() { return currentAutocast; }

DType detail::autocastProductType(DType promoted) {
  if (currentAutocast &&
      (promoted == DType::Float32 || isNarrowFloat(promoted)))
    return *currentAutocast;
  return promoted;
}

Tensor detail::autocastToFloat32(const Tensor &x, Where where) {
  if (!currentAutocast || !x.defined() || !isNarrowFloat(x.dtype()))
    return x;
  return cast(x, DType::Float32, where);
}

Tensor detail::autocastBias(const Tensor &bias, const Tensor &product,
                            Where where) {
  if (!currentAutocast || !bias.defined() || !product.defined() ||
      product.dtype() != *currentAutocast || bias.dtype() != DType::Float32)
    return bias;
  return cast(bias, product.dtype(), where);
}
