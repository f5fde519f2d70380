// RUN: lazyc-opt %s -split-input-file --lazy-cpu-widen-narrow-products | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-cpu-widen-narrow-products="bf16-dot-convolutions" | FileCheck %s --check-prefix=DOT

// A bf16 product into a zero fill: the fill is of f32, the product
// accumulates in f32 (the region extends its inputs), one truncf rounds
// the result to bf16.
// CHECK-LABEL: func.func @bf16_product
//  CHECK-SAME:   (%[[A:.*]]: tensor<16x256xbf16>, %[[B:.*]]: tensor<256x8xbf16>)
//       CHECK:   %[[ZERO:.*]] = arith.extf %{{.*}} : bf16 to f32
//       CHECK:   %[[EMPTY:.*]] = tensor.empty() : tensor<16x8xf32>
//       CHECK:   %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<16x8xf32>)
//       CHECK:   %[[WIDE:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x256xbf16>, tensor<256x8xbf16>) outs(%[[FILL]] : tensor<16x8xf32>)
//       CHECK:   %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xbf16>)
//       CHECK:     arith.truncf %{{.*}} : f32 to bf16
//       CHECK:   return %[[ROUNDED]]
func.func @bf16_product(%a: tensor<16x256xbf16>, %b: tensor<256x8xbf16>) -> tensor<16x8xbf16> {
  %zero = arith.constant 0.0 : bf16
  %empty = tensor.empty() : tensor<16x8xbf16>
  %fill = linalg.fill ins(%zero : bf16) outs(%empty : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  %0 = linalg.matmul ins(%a, %b : tensor<16x256xbf16>, tensor<256x8xbf16>) outs(%fill : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %0 : tensor<16x8xbf16>
}

// -----

// An f16 batched product into values that are not a fill (dynamic batch):
// the initial values are extended to f32 first.
// CHECK-LABEL: func.func @f16_batch_into_values
//       CHECK:   %[[WIDE_INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<?x4x2xf16>) outs(%{{.*}} : tensor<?x4x2xf32>)
//       CHECK:     arith.extf %{{.*}} : f16 to f32
//       CHECK:   %[[WIDE:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<?x4x3xf16>, tensor<?x3x2xf16>) outs(%[[WIDE_INIT]] : tensor<?x4x2xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[WIDE]] : tensor<?x4x2xf32>) outs(%{{.*}} : tensor<?x4x2xf16>)
//       CHECK:     arith.truncf %{{.*}} : f32 to f16
func.func @f16_batch_into_values(%a: tensor<?x4x3xf16>, %b: tensor<?x3x2xf16>, %c: tensor<?x4x2xf16>) -> tensor<?x4x2xf16> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<?x4x3xf16>, tensor<?x3x2xf16>) outs(%c : tensor<?x4x2xf16>) -> tensor<?x4x2xf16>
  return %0 : tensor<?x4x2xf16>
}

// -----

// Left alone: f32 products, and products that mix types already.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   arith.truncf
//   CHECK-NOT:   arith.extf
//       CHECK:   return
func.func @left_alone(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>, %c: tensor<4x2xf32>, %h: tensor<4x3xbf16>, %g: tensor<3x2xbf16>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  %1 = linalg.matmul ins(%h, %g : tensor<4x3xbf16>, tensor<3x2xbf16>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A bf16 convolution: both operands are widened to f32 (elementwise extf),
// the convolution accumulates into an f32 fill, and one truncf rounds the
// result, so the f32 convolution kernels run it. With
// bf16-dot-convolutions the operands stay bf16 (the runtime's dot-product
// kernels read them); only the accumulator is f32.
// DOT-LABEL: func.func @bf16_convolution
//  DOT-SAME:   (%[[X:.*]]: tensor<2x3x8x8xbf16>, %[[W:.*]]: tensor<4x3x3x3xbf16>)
//       DOT:   %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x6x6xf32>)
//   DOT-NOT:   arith.extf
//       DOT:   %[[WIDE:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W]] : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>) outs(%[[FILL]] : tensor<2x4x6x6xf32>)
//       DOT:   linalg.generic {{.*}} ins(%[[WIDE]] : tensor<2x4x6x6xf32>) outs(%{{.*}} : tensor<2x4x6x6xbf16>)
//       DOT:     arith.truncf %{{.*}} : f32 to bf16
// CHECK-LABEL: func.func @bf16_convolution
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x3x8x8xbf16>, %[[W:.*]]: tensor<4x3x3x3xbf16>)
//       CHECK:   %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x6x6xf32>)
//       CHECK:   %[[WX:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3x8x8xbf16>) outs(%{{.*}} : tensor<2x3x8x8xf32>)
//       CHECK:     arith.extf %{{.*}} : bf16 to f32
//       CHECK:   %[[WW:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<4x3x3x3xbf16>) outs(%{{.*}} : tensor<4x3x3x3xf32>)
//       CHECK:     arith.extf %{{.*}} : bf16 to f32
//       CHECK:   %[[WIDE:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[WX]], %[[WW]] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%[[FILL]] : tensor<2x4x6x6xf32>)
//       CHECK:   %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<2x4x6x6xf32>) outs(%{{.*}} : tensor<2x4x6x6xbf16>)
//       CHECK:     arith.truncf %{{.*}} : f32 to bf16
//       CHECK:   return %[[ROUNDED]]
func.func @bf16_convolution(%x: tensor<2x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<2x4x6x6xbf16> {
  %zero = arith.constant 0.0 : bf16
  %empty = tensor.empty() : tensor<2x4x6x6xbf16>
  %fill = linalg.fill ins(%zero : bf16) outs(%empty : tensor<2x4x6x6xbf16>) -> tensor<2x4x6x6xbf16>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>) outs(%fill : tensor<2x4x6x6xbf16>) -> tensor<2x4x6x6xbf16>
  return %0 : tensor<2x4x6x6xbf16>
}

// -----

// An f16 convolution (channels last) is widened with or without
// bf16-dot-convolutions: the runtime's dot products are bf16 only.
// CHECK-LABEL: func.func @f16_convolution
//       CHECK:   arith.extf %{{.*}} : f16 to f32
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>)
// DOT-LABEL: func.func @f16_convolution
//       DOT:   arith.extf %{{.*}} : f16 to f32
//       DOT:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>)
func.func @f16_convolution(%x: tensor<1x5x5x2xf16>, %w: tensor<3x3x2x4xf16>, %c: tensor<1x3x3x4xf16>) -> tensor<1x3x3x4xf16> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x2xf16>, tensor<3x3x2x4xf16>) outs(%c : tensor<1x3x3x4xf16>) -> tensor<1x3x3x4xf16>
  return %0 : tensor<1x3x3x4xf16>
}
