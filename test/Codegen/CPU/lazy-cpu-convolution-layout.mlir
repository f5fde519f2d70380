// RUN: lazyc-opt %s -split-input-file --lazy-cpu-convolution-layout | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-cpu-convolution-layout=vector-bits=256 | FileCheck %s --check-prefix=AVX2

// f32/f64 NCHW convolutions with at least a vector of output channels (16
// f32 lanes in 512 bits), or a width stride, move to channels last: the
// images to NHWC, the filters to [KH, KW, C, F] and the result back to NCHW
// by copying generics, a zero-filled accumulator refilled in the new shape.
// Fewer channels, unknown channel counts and other element types stay NCHW.

// CHECK-DAG: #[[TO_NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[TO_HWCF:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2, d0, d1)>
// CHECK-DAG: #[[TO_NCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @sixteen_filters
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x6x12x12xf32>, %[[W:.*]]: tensor<16x6x5x5xf32>)
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[IMAGES:.*]] = linalg.generic {indexing_maps = [#[[TO_NHWC]], #[[ID]]]{{.*}} ins(%[[X]] : tensor<2x6x12x12xf32>) outs(%{{.*}} : tensor<2x12x12x6xf32>)
//       CHECK:   %[[FILTERS:.*]] = linalg.generic {indexing_maps = [#[[TO_HWCF]], #[[ID]]]{{.*}} ins(%[[W]] : tensor<16x6x5x5xf32>) outs(%{{.*}} : tensor<5x5x6x16xf32>)
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x8x8x16xf32>)
//       CHECK:   %[[NHWC:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[IMAGES]], %[[FILTERS]] : tensor<2x12x12x6xf32>, tensor<5x5x6x16xf32>) outs(%[[ACC]] : tensor<2x8x8x16xf32>)
//       CHECK:   %[[R:.*]] = linalg.generic {indexing_maps = [#[[TO_NCHW]], #[[ID]]]{{.*}} ins(%[[NHWC]] : tensor<2x8x8x16xf32>) outs(%{{.*}} : tensor<2x16x8x8xf32>)
//       CHECK:   return %[[R]]
// 256-bit vectors: 8 lanes, so 16 filters go channels last too.
// AVX2-LABEL: func.func @sixteen_filters
//       AVX2:   linalg.conv_2d_nhwc_hwcf
func.func @sixteen_filters(%x: tensor<2x6x12x12xf32>, %w: tensor<16x6x5x5xf32>) -> tensor<2x16x8x8xf32> {
  %e = tensor.empty() : tensor<2x16x8x8xf32>
  %z = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x6x12x12xf32>, tensor<16x6x5x5xf32>) outs(%acc : tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
  return %0 : tensor<2x16x8x8xf32>
}

// -----

// 6 filters and a width stride of 1: NCHW. With 256-bit vectors (8 lanes),
// still NCHW; 8 f64 filters fill a 512-bit vector: channels last, and an
// accumulator that is not a fill is transposed like the images.
// CHECK-LABEL: func.func @few_filters
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} -> tensor<2x6x8x8xf32>
//       CHECK:   %[[ACC:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x4x4xf64>) outs(%{{.*}} : tensor<1x4x4x8xf64>)
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} outs(%[[ACC]] : tensor<1x4x4x8xf64>)
// AVX2-LABEL: func.func @few_filters
//       AVX2:   linalg.conv_2d_nchw_fchw {{.*}} -> tensor<2x6x8x8xf32>
//       AVX2:   linalg.conv_2d_nhwc_hwcf
func.func @few_filters(%x: tensor<2x6x12x12xf32>, %w: tensor<6x6x5x5xf32>, %acc: tensor<2x6x8x8xf32>,
                       %y: tensor<1x3x6x6xf64>, %v: tensor<8x3x3x3xf64>, %acc2: tensor<1x8x4x4xf64>) -> (tensor<2x6x8x8xf32>, tensor<1x8x4x4xf64>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x6x12x12xf32>, tensor<6x6x5x5xf32>) outs(%acc : tensor<2x6x8x8xf32>) -> tensor<2x6x8x8xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %v : tensor<1x3x6x6xf64>, tensor<8x3x3x3xf64>) outs(%acc2 : tensor<1x8x4x4xf64>) -> tensor<1x8x4x4xf64>
  return %0, %1 : tensor<2x6x8x8xf32>, tensor<1x8x4x4xf64>
}

// -----

// A width stride moves even 2 filters to channels last; unknown channel
// counts and f16 stay NCHW.
// CHECK-LABEL: func.func @stride_unknown_f16
//       CHECK:   linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>}
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x?x4x4xf32>
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x32x4x4xf16>
func.func @stride_unknown_f16(%x: tensor<1x3x6x7xf32>, %w: tensor<2x3x3x3xf32>, %acc: tensor<1x2x4x3xf32>,
                              %y: tensor<1x?x6x6xf32>, %v: tensor<?x?x3x3xf32>, %acc2: tensor<1x?x4x4xf32>,
                              %z: tensor<1x3x6x6xf16>, %u: tensor<32x3x3x3xf16>, %acc3: tensor<1x32x4x4xf16>) -> (tensor<1x2x4x3xf32>, tensor<1x?x4x4xf32>, tensor<1x32x4x4xf16>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x, %w : tensor<1x3x6x7xf32>, tensor<2x3x3x3xf32>) outs(%acc : tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %v : tensor<1x?x6x6xf32>, tensor<?x?x3x3xf32>) outs(%acc2 : tensor<1x?x4x4xf32>) -> tensor<1x?x4x4xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%z, %u : tensor<1x3x6x6xf16>, tensor<32x3x3x3xf16>) outs(%acc3 : tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  return %0, %1, %2 : tensor<1x2x4x3xf32>, tensor<1x?x4x4xf32>, tensor<1x32x4x4xf16>
}

// -----

// Padded images as LazyToLinalg builds them (inserted into a zero fill)
// stay padded channels last: a fill of the NHWC shape with the images
// transposed straight into its interior, no transpose of the padded tensor.
// CHECK-LABEL: func.func @padded_images
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x16x8x8xf32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x10x10x16xf32>
//       CHECK:   %[[FILLED:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x10x10x16xf32>)
//       CHECK:   %[[SLOT:.*]] = tensor.extract_slice %[[FILLED]][0, 1, 1, 0] [2, 8, 8, 16] [1, 1, 1, 1]
//       CHECK:   %[[T:.*]] = linalg.generic {indexing_maps = [#[[TO_NHWC]], #[[ID]]]{{.*}} ins(%{{.*}} : tensor<2x16x8x8xf32>) outs(%[[SLOT]] : tensor<2x8x8x16xf32>)
//       CHECK:   %[[IMAGES:.*]] = tensor.insert_slice %[[T]] into %[[FILLED]][0, 1, 1, 0] [2, 8, 8, 16] [1, 1, 1, 1]
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[IMAGES]], %{{.*}} : tensor<2x10x10x16xf32>, tensor<3x3x16x32xf32>)
func.func @padded_images(%x: tensor<2x16x8x8xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x10x10xf32>
  %filled = linalg.fill ins(%z : f32) outs(%e : tensor<2x16x10x10xf32>) -> tensor<2x16x10x10xf32>
  %padded = tensor.insert_slice %x into %filled[0, 0, 1, 1] [2, 16, 8, 8] [1, 1, 1, 1] : tensor<2x16x8x8xf32> into tensor<2x16x10x10xf32>
  %e2 = tensor.empty() : tensor<2x32x8x8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<2x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%acc : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  return %0 : tensor<2x32x8x8xf32>
}
