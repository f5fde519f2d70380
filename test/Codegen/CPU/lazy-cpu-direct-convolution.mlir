// RUN: lazyc-opt %s -split-input-file --lazy-cpu-direct-convolution -cse | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-cpu-direct-convolution=vector-bits=256 | FileCheck %s --check-prefix=AVX2

// f32 and f64 linalg.conv_2d_nhwc_hwcf on buffers, with a static output
// width and channel count, become loops over images and output rows around
// register tiles: up to 16 accumulator vectors (rows of the output row by
// one or two vectors of channels), loaded from the output, updated by one
// fused multiply-add per pixel, vector and tap (kernel row, kernel column,
// input channel: three loops carrying the accumulators), and stored back.
// Other convolutions stay linalg.

// 20 output channels: one vector and a masked one of 4 lanes; 5 pixels per
// output row: one tile of 5 rows.
// CHECK-LABEL: func.func @twenty_channels
//  CHECK-SAME:   (%[[X:.*]]: memref<2x5x7x3xf32>, %[[W:.*]]: memref<3x3x3x20xf32>, %[[O:.*]]: memref<2x3x5x20xf32>)
//       CHECK:   scf.for %[[N:[^ ]+]] = %{{.*}} to %{{.*}} step
//       CHECK:     scf.for %[[Y:[^ ]+]] = %{{.*}} to %{{.*}} step
//       CHECK:       scf.for %[[X0:[^ ]+]] = %{{.*}} to %{{.*}} step
//       CHECK:         vector.load %[[O]][%[[N]], %[[Y]], %[[X0]], %{{.*}}] : memref<2x3x5x20xf32>, vector<16xf32>
//       CHECK:         %[[MASK:.*]] = vector.constant_mask [4] : vector<16xi1>
//       CHECK:         vector.maskedload %[[O]][%[[N]], %[[Y]], %[[X0]], %{{.*}}], %[[MASK]]
// CHECK-COUNT-4:       vector.maskedload %[[O]]
//       CHECK:         %{{.*}}:10 = scf.for %[[I:[^ ]+]] = {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
//       CHECK:           %{{.*}}:10 = scf.for %[[J:[^ ]+]] =
//       CHECK:             %{{.*}}:10 = scf.for %[[C:[^ ]+]] =
//       CHECK:               %[[T0:.*]] = vector.load %[[W]][%[[I]], %[[J]], %[[C]], %{{.*}}] : memref<3x3x3x20xf32>, vector<16xf32>
//       CHECK:               %[[T1:.*]] = vector.maskedload %[[W]][%[[I]], %[[J]], %[[C]], %{{.*}}]
//       CHECK:               %[[P:.*]] = memref.load %[[X]][%[[N]], %{{.*}}, %{{.*}}, %[[C]]] : memref<2x5x7x3xf32>
//       CHECK:               %[[S:.*]] = vector.broadcast %[[P]] : f32 to vector<16xf32>
//       CHECK:               vector.fma %[[S]], %[[T0]], %{{.*}} : vector<16xf32>
//       CHECK:               vector.fma %[[S]], %[[T1]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-4:             memref.load %[[X]]
//       CHECK:               scf.yield
//       CHECK:         vector.store %{{.*}}, %[[O]][%[[N]], %[[Y]], %[[X0]], %{{.*}}] : memref<2x3x5x20xf32>, vector<16xf32>
//       CHECK:         vector.maskedstore %[[O]][%[[N]], %[[Y]], %[[X0]], %{{.*}}], %{{.*}}, %{{.*}} : memref<2x3x5x20xf32>, vector<16xi1>, vector<16xf32>
//   CHECK-NOT:   linalg.conv_2d_nhwc_hwcf
// With 256-bit vectors: 8 lanes, so 20 channels are two vectors in a loop
// step of 16 and a masked vector of 4 lanes.
// AVX2-LABEL: func.func @twenty_channels
//       AVX2:   vector.load {{.*}} vector<8xf32>
//       AVX2:   vector.constant_mask [4] : vector<8xi1>
func.func @twenty_channels(%x: memref<2x5x7x3xf32>, %w: memref<3x3x3x20xf32>, %o: memref<2x3x5x20xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<2x5x7x3xf32>, memref<3x3x3x20xf32>) outs(%o : memref<2x3x5x20xf32>)
  return
}

// -----

// Stride and dilation: the input row of kernel row i is y * 2 + i * 3, the
// input column of tile pixel r and kernel column j is (x + r) * 1 + j * 2.
// 64 channels are two tiles of two vectors (a loop of step 32); 19 pixels
// are two tiles of 8 and one of 3.
// CHECK-LABEL: func.func @strided_dilated
//       CHECK:   scf.for
//       CHECK:     scf.for %[[Y:[^ ]+]] =
//       CHECK:       scf.for %{{.*}} = %{{.*}} to %c64 step %c32 {
//       CHECK:         scf.for %[[X0:[^ ]+]] = %{{.*}} to %c16 step %c8 {
//       CHECK:           %[[TOP:.*]] = arith.muli %[[Y]], %[[TWO:.*]] : index
//       CHECK:           %{{.*}}:16 = scf.for %[[I:[^ ]+]] =
//       CHECK:             %[[DI:.*]] = arith.muli %[[I]], %c3 : index
//       CHECK:             %[[ROW:.*]] = arith.addi %[[TOP]], %[[DI]] : index
//       CHECK:             %{{.*}}:16 = scf.for %[[J:[^ ]+]] =
//       CHECK:               %[[DJ:.*]] = arith.muli %[[J]], %[[TWO]] : index
//       CHECK:               %[[COLUMN:.*]] = arith.addi %[[X0]], %[[DJ]] : index
//       CHECK:                 memref.load %{{.*}}[%{{.*}}, %[[ROW]], %[[COLUMN]], %{{.*}}]
// The last 3 pixels of the row: a tile of 3 x 2 vectors.
//       CHECK:           %{{.*}}:6 = scf.for
//   CHECK-NOT:   linalg.conv_2d_nhwc_hwcf
func.func @strided_dilated(%x: memref<1x11x23x4xf32>, %w: memref<2x3x4x64xf32>, %o: memref<1x2x19x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[3, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : memref<1x11x23x4xf32>, memref<2x3x4x64xf32>) outs(%o : memref<1x2x19x64xf32>)
  return
}

// -----

// f64: 8 lanes, so 9 channels are one vector and a masked one of 1 lane.
// CHECK-LABEL: func.func @f64
//       CHECK:   vector.load {{.*}} vector<8xf64>
//       CHECK:   vector.constant_mask [1] : vector<8xi1>
//       CHECK:   vector.fma {{.*}} : vector<8xf64>
//   CHECK-NOT:   linalg.conv_2d_nhwc_hwcf
func.func @f64(%x: memref<1x4x4x2xf64>, %w: memref<2x2x2x9xf64>, %o: memref<1x3x3x9xf64>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x4x2xf64>, memref<2x2x2x9xf64>) outs(%o : memref<1x3x3x9xf64>)
  return
}

// -----

// Left alone: f16 (no kernel), a dynamic output width, tensors.
// CHECK-LABEL: func.func @left_alone
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : memref<1x4x4x2xf16>
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : memref<1x3x?x4xf32>)
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x3x3x4xf32>
func.func @left_alone(%a: memref<1x4x4x2xf16>, %b: memref<2x2x2x4xf16>, %c: memref<1x3x3x4xf16>,
                      %d: memref<1x4x?x2xf32>, %e: memref<2x2x2x4xf32>, %f: memref<1x3x?x4xf32>,
                      %g: tensor<1x4x4x2xf32>, %h: tensor<2x2x2x4xf32>, %i: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %b : memref<1x4x4x2xf16>, memref<2x2x2x4xf16>) outs(%c : memref<1x3x3x4xf16>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%d, %e : memref<1x4x?x2xf32>, memref<2x2x2x4xf32>) outs(%f : memref<1x3x?x4xf32>)
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %h : tensor<1x4x4x2xf32>, tensor<2x2x2x4xf32>) outs(%i : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}
