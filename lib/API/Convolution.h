//===- Convolution.h - Recording convolutions -------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc: the one recorder of lazy.conv2d nodes, which
// nn::conv2d and the convolution's own gradients share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_CONVOLUTION_H
#define LAZYC_LIB_API_CONVOLUTION_H

#include "lazyc/API/Tensor.h"

#include <array>

namespace lazyc::detail {

/// Zero rows and columns around images: [top, bottom, left, right].
using Padding = std::array<int64_t, 4>;

/// Records a convolution of `images` [N, C, H, W], surrounded by `padding`
/// zeros, with `filters` [F, C, KH, KW] (one group), giving [N, F, OH, OW].
/// Both are cast to their promoted float type. The caller has checked the
/// shapes, and that the dilated kernel fits the padded images.
Tensor conv2d(const Tensor &images, const Tensor &filters,
              std::array<int64_t, 2> stride, std::array<int64_t, 2> dilation,
              Padding padding, SourceLocation where);

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_CONVOLUTION_H
