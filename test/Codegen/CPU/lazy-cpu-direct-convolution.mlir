// RUN: lazyc-opt %s -split-input-file --lazy-cpu-direct-convolution -cse | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-cpu-direct-convolution=vector-bits=256 | FileCheck %s --check-prefix=AVX2

// f32 and f64 convolutions on buffers become loops around register tiles:
// up to 16 accumulator vectors, loaded from the output, updated by one
// fused multiply-add per vector and tap (input channel, kernel row, kernel
// column: three loops carrying the accumulators), and stored back.
// - linalg.conv_2d_nhwc_hwcf: vectors of output channels (one or two) for
//   rows x columns of output pixels; per tap the filter's vectors are
//   loaded and each pixel's input value broadcast.
// - linalg.conv_2d_nchw_fchw with a width stride of 1: vectors of an output
//   row's pixels (one or two) for filters x rows; per tap the input rows'
//   vectors are loaded and each filter's weight broadcast.
// Partial vectors are masked; blocks left over by a dynamic extent are
// masked vectors in a loop, or power-of-two tiles of pixels or filters.
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
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %c64 step %c32 {
//       CHECK:       scf.for %[[Y:[^ ]+]] =
//       CHECK:         scf.for %[[X0:[^ ]+]] = %{{.*}} to %c16 step %c8 {
//       CHECK:           %{{.*}}:16 = scf.for %[[I:[^ ]+]] =
//       CHECK:             %{{.*}}:16 = scf.for %[[J:[^ ]+]] =
//       CHECK:               %{{.*}}:16 = scf.for
//       CHECK:                 %[[TOP:.*]] = arith.muli %[[I]], %c3 : index
//       CHECK:                 %[[LEFT:.*]] = arith.muli %[[J]], %[[TWO:.*]] : index
//       CHECK:                 %[[Y2:.*]] = arith.muli %[[Y]], %[[TWO]] : index
//       CHECK:                 %[[ROW:.*]] = arith.addi %[[Y2]], %[[TOP]] : index
//       CHECK:                 %[[COLUMN:.*]] = arith.addi %[[X0]], %[[LEFT]] : index
//       CHECK:                 memref.load %{{.*}}[%{{.*}}, %[[ROW]], %[[COLUMN]], %{{.*}}]
// The last 3 pixels of the row: a tile of 3 x 2 vectors.
//       CHECK:         %{{.*}}:6 = scf.for
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

// NCHW, 6 filters over rows of 8 pixels: tiles of the 6 filters x 2 rows
// x one vector masked to 8 lanes (12 accumulators); per tap the two input
// rows' vectors are loaded and each filter's weight broadcast.
// CHECK-LABEL: func.func @width_two_rows
//  CHECK-SAME:   (%[[X:.*]]: memref<2x3x12x12xf32>, %[[W:.*]]: memref<6x3x5x5xf32>, %[[O:.*]]: memref<2x6x8x8xf32>)
//       CHECK:   scf.for %[[N:[^ ]+]] =
//       CHECK:     scf.for %[[F:[^ ]+]] = %{{.*}} to %c6 step %c6 {
//       CHECK:       scf.for %[[Y:[^ ]+]] = %{{.*}} to %c8 step %c2 {
//       CHECK:         %[[MASK:.*]] = vector.constant_mask [8] : vector<16xi1>
//       CHECK:         vector.maskedload %[[O]][%[[N]], %[[F]], %[[Y]], %c0], %[[MASK]]
// CHECK-COUNT-11:      vector.maskedload %[[O]]
//       CHECK:         %{{.*}}:12 = scf.for %[[C:[^ ]+]] =
//       CHECK:           %{{.*}}:12 = scf.for %[[I:[^ ]+]] =
//       CHECK:             %{{.*}}:12 = scf.for %[[J:[^ ]+]] =
//       CHECK:               %[[ROW:.*]] = arith.addi %[[Y]], %[[I]] : index
//       CHECK:               %[[COL:.*]] = arith.addi %c0, %[[J]] : index
//       CHECK:               %[[P0:.*]] = vector.maskedload %[[X]][%[[N]], %[[C]], %[[ROW]], %[[COL]]], %[[MASK]]
//       CHECK:               vector.maskedload %[[X]]
//       CHECK:               %[[WEIGHT:.*]] = memref.load %[[W]][%[[F]], %[[C]], %[[I]], %[[J]]] : memref<6x3x5x5xf32>
//       CHECK:               %[[S:.*]] = vector.broadcast %[[WEIGHT]] : f32 to vector<16xf32>
//       CHECK:               vector.fma %[[S]], %[[P0]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-11:            vector.fma
//       CHECK:         vector.maskedstore %[[O]][%[[N]], %[[F]], %[[Y]], %c0], %[[MASK]]
//   CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @width_two_rows(%x: memref<2x3x12x12xf32>, %w: memref<6x3x5x5xf32>, %o: memref<2x6x8x8xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<2x3x12x12xf32>, memref<6x3x5x5xf32>) outs(%o : memref<2x6x8x8xf32>)
  return
}

// -----

// NCHW with every size dynamic (a row stride of 2): blocks of 16 filters by
// one row by a vector of pixels, then a masked vector for the pixels left
// in a row (create_mask of what is left), then blocks of 8, 4, 2 and 1
// filters for those left, each under an scf.if on its bit.
// CHECK-LABEL: func.func @dynamic_width
//       CHECK:   scf.for
//       CHECK:     %[[F:.*]] = memref.dim %{{.*}}, %c1
//       CHECK:     %[[REST:.*]] = arith.remui %[[F]], %c16 : index
//       CHECK:     %[[WHOLE:.*]] = arith.subi %[[F]], %[[REST]] : index
//       CHECK:     scf.for %{{.*}} = %c0 to %[[WHOLE]] step %c16 {
//       CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %c16 {
//       CHECK:             %{{.*}}:16 = scf.for
//       CHECK:           scf.for %[[PX:[^ ]+]] = %{{.*}} to %[[WIDTH:.*]] step %c16 {
//       CHECK:             %[[LEFT:.*]] = arith.subi %[[WIDTH]], %[[PX]] : index
//       CHECK:             vector.create_mask %[[LEFT]] : vector<16xi1>
//       CHECK:             %{{.*}}:16 = scf.for
//       CHECK:     %[[LEFT_F:.*]] = arith.subi %[[F]], %[[WHOLE]] : index
//       CHECK:     %[[BIT8:.*]] = arith.andi %[[LEFT_F]], %c8 : index
//       CHECK:     %[[HAS8:.*]] = arith.cmpi ne, %[[BIT8]], %c0 : index
//       CHECK:     scf.if %[[HAS8]] {
//       CHECK:       %{{.*}}:8 = scf.for
//       CHECK:     scf.if
//       CHECK:       %{{.*}}:4 = scf.for
//       CHECK:     scf.if
//       CHECK:       %{{.*}}:2 = scf.for
//       CHECK:     scf.if
//       CHECK:       %{{[0-9]+}} = scf.for
//   CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @dynamic_width(%x: memref<?x?x?x?xf32>, %w: memref<?x?x3x3xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : memref<?x?x?x?xf32>, memref<?x?x3x3xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

// -----

// Channels last with dynamic channels: two-vector blocks, then single
// masked vectors; a dynamic width: tiles of 8 pixels, then of 4, 2 and 1.
// CHECK-LABEL: func.func @dynamic_channels_last
//       CHECK:   %[[F:.*]] = memref.dim %{{.*}}, %c3
//       CHECK:   arith.remui %[[F]], %c32 : index
//       CHECK:   vector.create_mask
//       CHECK:   scf.if
//   CHECK-NOT:   linalg.conv_2d_nhwc_hwcf
func.func @dynamic_channels_last(%x: memref<?x?x?x?xf32>, %w: memref<3x3x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<?x?x?x?xf32>, memref<3x3x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

// -----

// Left alone: f16 (no kernel), NCHW with a width stride, tensors.
// CHECK-LABEL: func.func @left_alone
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : memref<1x4x4x2xf16>
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} strides = dense<[1, 2]>
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x3x3x4xf32>
func.func @left_alone(%a: memref<1x4x4x2xf16>, %b: memref<2x2x2x4xf16>, %c: memref<1x3x3x4xf16>,
                      %d: memref<1x2x5x7xf32>, %e: memref<4x2x3x3xf32>, %f: memref<1x4x3x3xf32>,
                      %g: tensor<1x4x4x2xf32>, %h: tensor<2x2x2x4xf32>, %i: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %b : memref<1x4x4x2xf16>, memref<2x2x2x4xf16>) outs(%c : memref<1x3x3x4xf16>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%d, %e : memref<1x2x5x7xf32>, memref<4x2x3x3xf32>) outs(%f : memref<1x4x3x3xf32>)
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %h : tensor<1x4x4x2xf32>, tensor<2x2x2x4xf32>) outs(%i : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}
