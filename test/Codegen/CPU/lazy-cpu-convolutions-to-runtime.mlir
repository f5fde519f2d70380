// RUN: lazyc-opt %s -split-input-file --lazy-cpu-convolutions-to-runtime | FileCheck %s

// A bf16 NCHW convolution into f32 calls the runtime's kernel with its
// buffers as dynamic rank-4 views (descriptors passed by pointer), then
// stride H, stride W, dilation H, dilation W.
// CHECK-LABEL: func.func private @lazyrt_conv2d_nchw_bf16_f32(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64)
//  CHECK-SAME:   attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @nchw
//  CHECK-SAME:   (%[[X:.*]]: memref<1x16x18x18xbf16, strided<[5184, 324, 18, 1], offset: ?>>, %[[W:.*]]: memref<6x16x5x5xbf16>, %[[O:.*]]: memref<1x6x7x14xf32>)
//   CHECK-DAG:   %[[CX:.*]] = memref.cast %[[X]] : {{.*}} to memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>
//   CHECK-DAG:   %[[CW:.*]] = memref.cast %[[W]] : {{.*}} to memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>
//   CHECK-DAG:   %[[CO:.*]] = memref.cast %[[O]] : {{.*}} to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
//       CHECK:   %[[SH:.*]] = arith.constant 2 : i64
//       CHECK:   %[[SW:.*]] = arith.constant 1 : i64
//       CHECK:   %[[DH:.*]] = arith.constant 1 : i64
//       CHECK:   %[[DW:.*]] = arith.constant 1 : i64
//       CHECK:   call @lazyrt_conv2d_nchw_bf16_f32(%[[CX]], %[[CW]], %[[CO]], %[[SH]], %[[SW]], %[[DH]], %[[DW]])
//   CHECK-NOT:   linalg.conv
func.func @nchw(%x: memref<1x16x18x18xbf16, strided<[5184, 324, 18, 1], offset: ?>>, %w: memref<6x16x5x5xbf16>, %o: memref<1x6x7x14xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : memref<1x16x18x18xbf16, strided<[5184, 324, 18, 1], offset: ?>>, memref<6x16x5x5xbf16>) outs(%o : memref<1x6x7x14xf32>)
  return
}

// -----

// Channels last, with a dilation: the NHWC kernel. An f32 convolution and
// one on tensors stay as they are.
// CHECK-LABEL: func.func private @lazyrt_conv2d_nhwc_bf16_f32(
// CHECK-LABEL: func.func @nhwc
//       CHECK:   %[[SH:.*]] = arith.constant 1 : i64
//       CHECK:   %[[SW:.*]] = arith.constant 1 : i64
//       CHECK:   %[[DH:.*]] = arith.constant 3 : i64
//       CHECK:   %[[DW:.*]] = arith.constant 1 : i64
//       CHECK:   call @lazyrt_conv2d_nhwc_bf16_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[SH]], %[[SW]], %[[DH]], %[[DW]])
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : memref<1x14x14x6xf32>, memref<5x5x6x16xf32>)
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x10x10x16xf32>
func.func @nhwc(%x: memref<1x16x14x6xbf16>, %w: memref<2x5x6x16xbf16>, %o: memref<1x13x10x16xf32>,
                %xf: memref<1x14x14x6xf32>, %wf: memref<5x5x6x16xf32>, %of: memref<1x10x10x16xf32>,
                %xt: tensor<1x14x14x6xbf16>, %wt: tensor<5x5x6x16xbf16>, %ot: tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32> {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[3, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x16x14x6xbf16>, memref<2x5x6x16xbf16>) outs(%o : memref<1x13x10x16xf32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xf, %wf : memref<1x14x14x6xf32>, memref<5x5x6x16xf32>) outs(%of : memref<1x10x10x16xf32>)
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xt, %wt : tensor<1x14x14x6xbf16>, tensor<5x5x6x16xbf16>) outs(%ot : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  return %0 : tensor<1x10x10x16xf32>
}
