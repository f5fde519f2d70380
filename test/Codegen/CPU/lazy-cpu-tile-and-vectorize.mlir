// RUN: lazyc-opt %s -split-input-file --lazy-decompose --convert-lazy-to-linalg --lazy-cpu-fuse --lazy-cpu-tile-and-vectorize="num-threads=2" --canonicalize --cse | FileCheck %s

// The inputs are lazy IR taken through the earlier stages, so each case is
// the fused linalg the JIT gives the pass. The pass is followed by
// canonicalize and cse, as in the lazy-cpu-tile pipeline. Two threads,
// 64-element vectors. Static chunks are spelled as tile sizes (a multiple of
// 64 along a vectorized dimension); dynamic ones as a thread count.

// A 1-D elementwise op of 2^20 elements is split over the 2 threads (one
// scf.forall of 2 chunks of 524288), and each chunk is vectorized in
// 64-element steps.
// CHECK-LABEL: func.func @large_elementwise
//  CHECK-SAME:   (%[[X:.*]]: tensor<1048576xf32>)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
//   CHECK-DAG:   %[[CHUNK:.*]] = arith.constant 524288 : index
//   CHECK-NOT:   scf.forall
//       CHECK:   %[[R:.*]] = scf.forall (%{{.*}}) = (0) to (1048576) step (524288) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1048576xf32>)
//       CHECK:     tensor.extract_slice %[[X]][%{{.*}}] [524288] [1]
//       CHECK:     scf.for %{{.*}} = %[[C0]] to %[[CHUNK]] step %[[C64]]
//       CHECK:       %[[V:.*]] = vector.transfer_read %{{.*}} : tensor<64xf32>, vector<64xf32>
//       CHECK:       %[[E:.*]] = math.exp %[[V]] : vector<64xf32>
//       CHECK:       %[[S:.*]] = arith.addf %[[E]], %[[V]] : vector<64xf32>
//       CHECK:       vector.transfer_write %[[S]], %{{.*}} : vector<64xf32>, tensor<64xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
func.func @large_elementwise(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %0 = lazy.exp %x : tensor<1048576xf32>
  %1 = lazy.add %0, %x : tensor<1048576xf32>
  return %1 : tensor<1048576xf32>
}

// -----

// 1024 elements are below the parallel threshold (2^15 iterations): no
// scf.forall, but the op is still vectorized in 64-element steps.
// CHECK-LABEL: func.func @small_elementwise
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
//   CHECK-DAG:   %[[C1024:.*]] = arith.constant 1024 : index
//   CHECK-NOT:   scf.forall
//       CHECK:   %[[R:.*]] = scf.for %{{.*}} = %[[C0]] to %[[C1024]] step %[[C64]]
//       CHECK:     vector.transfer_read %{{.*}} : tensor<64xf32>, vector<64xf32>
//       CHECK:     math.exp %{{.*}} : vector<64xf32>
//       CHECK:     vector.transfer_write %{{.*}} : vector<64xf32>, tensor<64xf32>
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
func.func @small_elementwise(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = lazy.exp %x : tensor<1024xf32>
  %1 = lazy.add %0, %x : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}

// -----

// Row softmax: one scf.forall over row blocks, the four fused ops inside it
// row by row (scf.for step 1); max and sum accumulate 64 partial results
// (vector<1x64xf32>) across the row, and vector.multi_reduction combines
// them once, after the 64-element loop. The max is maxnumf marked nnan (a
// NaN makes the row NaN through the sum anyway), whose partials start at
// -inf, not at NaN, its identity; the row is multiplied by its sum's
// reciprocal, one division per row.
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.*]]: tensor<4096x1024xf32>)
//   CHECK-DAG:   %[[NINF:.*]] = arith.constant dense<0xFF800000> : vector<1x64xf32>
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
//   CHECK-DAG:   %[[C1024:.*]] = arith.constant 1024 : index
//   CHECK-DAG:   %[[ROWS:.*]] = arith.constant 2048 : index
//   CHECK-NOT:   scf.forall
//       CHECK:   %[[R:.*]] = scf.forall (%{{.*}}) = (0) to (4096) step (2048) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<4096x1024xf32>)
//       CHECK:     scf.for %{{.*}} = %[[C0]] to %[[ROWS]] step %[[C1]]
//       CHECK:       vector.transfer_write %[[NINF]]
//       CHECK:       scf.for %{{.*}} = %[[C0]] to %[[C1024]] step %[[C64]] iter_args(%{{.*}}) -> (tensor<1x64xf32>)
//   CHECK-NOT:         vector.multi_reduction
//       CHECK:         arith.maxnumf %{{.*}} fastmath<nnan> : vector<1x64xf32>
//       CHECK:         scf.yield
//       CHECK:       vector.multi_reduction <maxnumf>, %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
//       CHECK:       scf.for %{{.*}} = %[[C0]] to %[[C1024]] step %[[C64]]
//       CHECK:         arith.subf %{{.*}} : vector<1x64xf32>
//       CHECK:         math.exp %{{.*}} : vector<1x64xf32>
//       CHECK:       scf.for %{{.*}} = %[[C0]] to %[[C1024]] step %[[C64]] iter_args(%{{.*}}) -> (tensor<1x64xf32>)
//   CHECK-NOT:         vector.multi_reduction
//       CHECK:         arith.addf %{{.*}} : vector<1x64xf32>
//       CHECK:         scf.yield
//       CHECK:       %[[SUM:.*]] = vector.multi_reduction <add>, %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
//       CHECK:       arith.divf %{{.*}}, %[[SUM]] : vector<1xf32>
//       CHECK:       scf.for %{{.*}} = %[[C0]] to %[[C1024]] step %[[C64]]
//   CHECK-NOT:         arith.divf
//       CHECK:         arith.mulf %{{.*}} : vector<1x64xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   linalg.
//       CHECK:   return %[[R]]
func.func @softmax(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}

// -----

// matmul + bias + relu: the linalg.matmul (left for BLAS, not vectorized) and
// its epilogue (vectorized) are in the same scf.forall: each thread runs the
// epilogue on its rows of the product right after computing them.
// CHECK-LABEL: func.func @matmul_bias_relu
//  CHECK-SAME:   (%[[A:.*]]: tensor<512x256xf32>, %[[B:.*]]: tensor<256x128xf32>, %[[BIAS:.*]]: tensor<128xf32>)
//   CHECK-NOT:   linalg.matmul
//   CHECK-NOT:   scf.forall
//       CHECK:   %[[R:.*]] = scf.forall (%{{.*}}) = (0) to (512) step (256) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<512x128xf32>)
//       CHECK:     linalg.matmul ins(%{{.*}}, %[[B]] : tensor<{{[0-9]+}}x256xf32>, tensor<256x128xf32>)
//       CHECK:     tensor.extract_slice %[[BIAS]]
//       CHECK:     arith.addf %{{.*}} : vector<1x64xf32>
//       CHECK:     arith.maximumf %{{.*}} : vector<1x64xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   linalg.matmul
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
func.func @matmul_bias_relu(%a: tensor<512x256xf32>, %b: tensor<256x128xf32>, %bias: tensor<128xf32>) -> tensor<512x128xf32> {
  %0 = lazy.matmul %a, %b : tensor<512x256xf32>, tensor<256x128xf32>
  %1 = lazy.broadcast %bias to [512, 128] : tensor<128xf32>
  %2 = lazy.add %0, %1 : tensor<512x128xf32>
  %3 = lazy.relu %2 : tensor<512x128xf32>
  return %3 : tensor<512x128xf32>
}

// -----

// A dynamic size: one chunk per thread if the op has at least 2^15
// elements, else one chunk. The tile loop is peeled: full 64-element tiles
// need no mask, and only the chunk's last, partial tile is masked by a mask
// of its size.
// CHECK-LABEL: func.func @dynamic_elementwise
//   CHECK-DAG:   %[[TWO:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[ONE:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[MIN:.*]] = arith.constant 32768 : index
//       CHECK:   %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?xf32>
//       CHECK:   %[[BIG:.*]] = arith.cmpi sge, %[[N]], %[[MIN]] : index
//       CHECK:   %[[CHUNKS:.*]] = arith.select %[[BIG]], %[[TWO]], %[[ONE]] : index
//       CHECK:   scf.forall (%{{.*}}) in (%[[CHUNKS]])
//       CHECK:     %[[FULL:.*]] = scf.for %{{.*}} = %{{.*}} to %[[SPLIT:.*]] step %{{.*}}
//   CHECK-NOT:       vector.mask
//       CHECK:       vector.transfer_read %{{.*}} : tensor<64xf32>, vector<64xf32>
//       CHECK:       vector.transfer_read %{{.*}} : tensor<64xf32>, vector<64xf32>
//       CHECK:       arith.mulf %{{.*}}, %{{.*}} : vector<64xf32>
//       CHECK:       vector.transfer_write %{{.*}} : vector<64xf32>, tensor<64xf32>
//       CHECK:     scf.for %[[I:.*]] = %[[SPLIT]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[FULL]])
//       CHECK:       %[[SIZE:.*]] = affine.apply #{{.*}}(%[[I]])
//       CHECK:       %[[MASK:.*]] = vector.create_mask %[[SIZE]] : vector<64xi1>
//       CHECK:       %[[L:.*]] = vector.mask %[[MASK]] { vector.transfer_read %{{.*}} : tensor<?xf32>, vector<64xf32> }
//       CHECK:       %[[R:.*]] = vector.mask %[[MASK]] { vector.transfer_read %{{.*}} : tensor<?xf32>, vector<64xf32> }
//       CHECK:       %[[P:.*]] = arith.mulf %[[L]], %[[R]] : vector<64xf32>
//       CHECK:       vector.mask %[[MASK]] { vector.transfer_write %[[P]], %{{.*}} : vector<64xf32>, tensor<?xf32> }
//   CHECK-NOT:   linalg.generic
func.func @dynamic_elementwise(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = lazy.mul %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// An op on i1 operands stays a scalar linalg.generic (an i1 vector would be
// stored as packed bits, a tensor of i1 is one byte per element).
// CHECK-LABEL: func.func @bool_operands
//   CHECK-NOT:   vector.
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.*}}, %{{.*}} : tensor<1024xi1>, tensor<1024xi1>)
//       CHECK:     arith.cmpi ne, %{{.*}}, %{{.*}} : i1
//   CHECK-NOT:   vector.
//       CHECK:   return
func.func @bool_operands(%a: tensor<1024xi1>, %b: tensor<1024xi1>) -> tensor<1024xi1> {
  %0 = lazy.compare ne, %a, %b : tensor<1024xi1>
  return %0 : tensor<1024xi1>
}

// -----

// An i1 result: the op is still split over the threads, but each chunk stays
// a scalar linalg.generic.
// CHECK-LABEL: func.func @bool_result
//   CHECK-NOT:   vector.
//       CHECK:   scf.forall (%{{.*}}) = (0) to (1048576) step (524288)
//       CHECK:     linalg.generic
//  CHECK-SAME:       outs(%{{.*}} : tensor<524288xi1>)
//       CHECK:       arith.cmpf olt, %{{.*}}, %{{.*}} : f32
//   CHECK-NOT:   vector.
//       CHECK:   return
func.func @bool_result(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>) -> tensor<1048576xi1> {
  %0 = lazy.compare lt, %a, %b : tensor<1048576xf32>
  return %0 : tensor<1048576xi1>
}

// -----

// A loop nest with a static range of 0 and a dynamic one (a max over an
// empty dimension): no iterations, so the reduction is neither split over
// threads nor vectorized (its -inf fill is). Splitting the dynamic
// dimension over the threads crashed in the tiler (linalg::computeTileSizes);
// found feeding lazyc-opt edge-case shapes.
// CHECK-LABEL: func.func @empty_dynamic_reduction
//   CHECK-NOT:   scf.forall
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins(%{{.*}} : tensor<0x?xf32>)
//       CHECK:   return
func.func @empty_dynamic_reduction(%x: tensor<0x?xf32>) -> tensor<?xf32> {
  %0 = lazy.reduce_max %x [0] : tensor<0x?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A column sum of values that need each row's sum (a layer norm's weight
// gradient needs the row statistics): the row sums are computed once, in a
// loop of their own, not again in the tile of every column. The column sum
// runs in blocks of 64 rows (lazy-block-reductions), the blocks split over
// the threads, and each step of a block's loop over its rows adds one vector
// of columns to the block's partial sums (no loop per column, no horizontal
// reduction); a last loop adds the 8 blocks' partial sums.
// CHECK-LABEL: func.func @row_statistics_in_a_column_sum
//  CHECK-SAME:   (%[[X:.*]]: tensor<512x128xf32>, %[[DY:.*]]: tensor<512x128xf32>)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
//       CHECK:   %[[SUMS:.*]] = scf.forall (%{{.*}}) = (0) to (512) step (256)
//       CHECK:     vector.multi_reduction <add>, %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
//       CHECK:   tensor.expand_shape %[[SUMS]] {{\[}}[0, 1]] output_shape [8, 64]
//       CHECK:   %[[PARTIALS:.*]] = scf.forall (%{{.*}}) = (0) to (8) step (4)
//   CHECK-NOT:     vector.multi_reduction
//       CHECK:     scf.for %{{.*}} = %[[C0]] to %[[C64]] step %[[C1]]
//       CHECK:       arith.subf %{{.*}} : vector<1x1x64xf32>
//       CHECK:       %[[P:.*]] = arith.mulf %{{.*}} : vector<1x1x64xf32>
//       CHECK:       %[[F:.*]] = vector.shape_cast %[[P]] : vector<1x1x64xf32> to vector<1x64xf32>
//       CHECK:       arith.addf %{{.*}}, %[[F]] : vector<1x64xf32>
//   CHECK-NOT:     vector.multi_reduction
//       CHECK:   %[[R:.*]] = scf.for
//       CHECK:       tensor.extract_slice %[[PARTIALS]]
//       CHECK:       arith.addf %{{.*}} : vector<64xf32>
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
func.func @row_statistics_in_a_column_sum(%x: tensor<512x128xf32>, %dy: tensor<512x128xf32>) -> tensor<128xf32> {
  %s = lazy.reduce_sum %x [1] : tensor<512x128xf32>
  %r = lazy.reshape %s to [512, 1] : tensor<512xf32>
  %rb = lazy.broadcast %r to [512, 128] : tensor<512x1xf32>
  %xc = lazy.sub %x, %rb : tensor<512x128xf32>
  %p = lazy.mul %xc, %dy : tensor<512x128xf32>
  %g = lazy.reduce_sum %p [0] : tensor<512x128xf32>
  return %g : tensor<128xf32>
}

// -----

// A row's sum of products (a softmax gradient's sum(dP * P)) is a
// contraction by linalg's definition but no GEMM: it is vectorized like any
// row reduction, not left as a scalar loop for BLAS that BLAS never takes.
// CHECK-LABEL: func.func @row_dot_products
//       CHECK:   scf.forall (%{{.*}}) = (0) to (512) step (256)
//       CHECK:     scf.for
//       CHECK:       arith.mulf %{{.*}} : vector<1x1x64xf32>
//       CHECK:       vector.multi_reduction <add>, %{{.*}} [2] : vector<1x1x64xf32> to vector<1x1xf32>
//   CHECK-NOT:   linalg.
//       CHECK:   return
func.func @row_dot_products(%a: tensor<512x64xf32>, %b: tensor<512x64xf32>) -> tensor<512x1xf32> {
  %0 = lazy.mul %a, %b : tensor<512x64xf32>
  %1 = lazy.reduce_sum %0 [1] keep_dims : tensor<512x64xf32>
  return %1 : tensor<512x1xf32>
}

// -----

// A column sum with a producer fused in that is not part of its body (here
// erf(x), also needed by the second result), over 32 x 64 rows: its blocks
// of 64 rows (lazy-block-reductions) are split over the threads; each
// thread zeroes its blocks' partial sums once, then goes row by row,
// computing the row's producer and adding it to the sums while in cache,
// instead of first storing the producer for its whole chunk; a last loop
// adds the 32 blocks' partial sums.
// CHECK-LABEL: func.func @column_sum_of_a_shared_value
//       CHECK:   %[[PARTIALS:.*]] = scf.forall (%{{.*}}) = (0) to (32) step (16)
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:       vector.transfer_write %{{.*}} : vector<1x64xf32>, tensor<1x64xf32>
//   CHECK-NOT:     math.erf
//       CHECK:     scf.for %{{.*}} = %[[Z:.*]] to %{{.*}} step
//       CHECK:       scf.for %{{.*}} = %[[Z]] to %{{.*}} step
//       CHECK:         scf.for
//       CHECK:           math.erf %{{.*}} : vector<1x1x64xf32>
//       CHECK:         scf.for
//       CHECK:           arith.addf %{{.*}} : vector<1x64xf32>
//       CHECK:     scf.forall.in_parallel
//       CHECK:   scf.for
//       CHECK:       tensor.extract_slice %[[PARTIALS]]
//       CHECK:       arith.addf %{{.*}} : vector<64xf32>
func.func @column_sum_of_a_shared_value(%x: tensor<32x64x512xf32>, %g: tensor<32x64x512xf32>) -> (tensor<512xf32>, tensor<32x64x512xf32>) {
  %0 = lazy.erf %x : tensor<32x64x512xf32>
  %1 = lazy.mul %0, %g : tensor<32x64x512xf32>
  %2 = lazy.mul %1, %x : tensor<32x64x512xf32>
  %3 = lazy.reduce_sum %2 [0, 1] : tensor<32x64x512xf32>
  %4 = lazy.mul %0, %x : tensor<32x64x512xf32>
  return %3, %4 : tensor<512xf32>, tensor<32x64x512xf32>
}

// -----

// A convolution is split over the threads by images and goes on image by
// image inside each chunk, with its zero fill fused in (vectorized); the
// convolution itself stays linalg, for lazy-cpu-direct-convolution's
// register kernels.
// CHECK-LABEL: func.func @convolution
//       CHECK:   scf.forall (%[[CHUNK:.*]]) = (0) to (64) step (32)
//       CHECK:     scf.for %[[IMAGE:.*]] = %c0 to %c32 step %c1
//       CHECK:       vector.transfer_write
//       CHECK:       linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x6x12x12xf32>, tensor<6x6x5x5xf32>) outs(%{{.*}} : tensor<1x6x8x8xf32>)
func.func @convolution(%x: tensor<64x6x12x12xf32>, %w: tensor<6x6x5x5xf32>) -> tensor<64x6x8x8xf32> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<64x6x12x12xf32>, tensor<6x6x5x5xf32>
  return %0 : tensor<64x6x8x8xf32>
}

// -----

// A convolution of one image (a filter gradient) is split by its filters,
// and each chunk stays whole: a row loop would leave the register kernel
// one filter per tile.
// CHECK-LABEL: func.func @one_image_convolution
//       CHECK:   scf.forall (%[[CHUNK:.*]]) = (0) to (6) step (3)
//       CHECK:     %[[FILTERS:.*]] = tensor.extract_slice %{{.*}}[%[[CHUNK]], 0, 0, 0] [3, 64, 28, 28]
//       CHECK:     linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %[[FILTERS]] : tensor<1x64x32x32xf32>, tensor<3x64x28x28xf32>) outs(%{{.*}} : tensor<1x3x5x5xf32>)
func.func @one_image_convolution(%x: tensor<1x64x32x32xf32>, %w: tensor<6x64x28x28xf32>) -> tensor<1x6x5x5xf32> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<1x64x32x32xf32>, tensor<6x64x28x28xf32>
  return %0 : tensor<1x6x5x5xf32>
}

// -----

// A filter gradient (input channels as its images, the batch as its
// channels) read by an optimizer's update: the update is split over the
// threads by filters, and each chunk's convolution computes all the chunk's
// 16 filters at once. Going on row by row, as other fused reductions do,
// would slice it to one filter per row, one lane of the register kernel.
// CHECK-LABEL: func.func @filter_gradient_into_an_update
//       CHECK:   scf.forall (%{{.*}}) = (0) to (32) step (16)
//   CHECK-NOT:     tensor<4x4x64x1xf32>
//       CHECK:     linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x6x6x64xf32>, tensor<4x4x64x16xf32>) outs(%{{.*}} : tensor<16x3x3x16xf32>)
func.func @filter_gradient_into_an_update(%x: tensor<16x64x6x6xf32>, %g: tensor<32x64x4x4xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<32x16x3x3xf32> {
  %lr = lazy.constant dense<0.1> : tensor<32x16x3x3xf32>
  %dw = lazy.conv2d %x, %g stride [1, 1] dilation [1, 1] : tensor<16x64x6x6xf32>, tensor<32x64x4x4xf32>
  %t = lazy.transpose %dw [1, 0, 2, 3] : tensor<16x32x3x3xf32>
  %s = lazy.mul %t, %lr : tensor<32x16x3x3xf32>
  %u = lazy.sub %w, %s : tensor<32x16x3x3xf32>
  return %u : tensor<32x16x3x3xf32>
}

// -----

// A 2x2 max-pool (the reduction of a [.., 14, 2, 14, 2] view): each window
// is 4 elements, so a row of 14 windows is one vector read, reduced to 14
// results at once, not one 2x2 vector per result.
// CHECK-LABEL: func.func @max_pool
//       CHECK:   scf.forall
//       CHECK:     vector.transfer_read {{.*}} : tensor<1x1x1x2x14x2xf32>, vector<1x1x1x2x14x2xf32>
//       CHECK:     vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [3, 5] : vector<1x1x1x2x14x2xf32> to vector<1x1x1x14xf32>
//   CHECK-NOT:     vector<1x1x1x2x1x2xf32>
func.func @max_pool(%x: tensor<64x6x28x28xf32>) -> tensor<64x6x14x14xf32> {
  %0 = lazy.reshape %x to [64, 6, 14, 2, 14, 2] : tensor<64x6x28x28xf32>
  %1 = lazy.reduce_max %0 [3, 5] : tensor<64x6x14x2x14x2xf32>
  return %1 : tensor<64x6x14x14xf32>
}

// -----

// A row sum whose body reads its element index (random numbers fused into
// the sum do): each 64-element chunk of the row's partial sums reads the
// index from the chunk's start, not from 0 (MLIR 22's partial reduction
// tiling leaves it at 0; lazyc-fuzz seed 1200 summed the row's first 64
// random numbers over and over).
// CHECK-LABEL: func.func @element_index_in_a_row_sum
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %c2
//       CHECK:     scf.for %[[CHUNK:.*]] = %{{.*}} to %c4096 step %c64
//       CHECK:       %[[OFFSET:.*]] = linalg.index 1 : index
//       CHECK:       %[[J:.*]] = affine.apply #{{.*}}(%[[CHUNK]])[%[[OFFSET]]]
//       CHECK:       arith.index_cast %[[J]] : index to i64
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @element_index_in_a_row_sum(%x: tensor<2x4096xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x4096xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %j : index to i64
    %f = arith.sitofp %i : i64 to f32
    %t = arith.mulf %in, %f : f32
    %r = arith.addf %out, %t : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// A log-softmax along a dynamic number of rows: the column maxima and the
// (f64) column sums of exponentials are computed once, each in a loop of
// its own, not again inside every row tile of the result (fused there, a
// slice that is the whole result in every tile: quadratic in the rows,
// lazyc-fuzz seed 1250 took minutes in eager mode).
// CHECK-LABEL: func.func @column_log_softmax_of_dynamic_rows
//       CHECK:   %[[MAX:.*]] = scf.forall
//       CHECK:     arith.maxnumf
//       CHECK:   scf.forall.in_parallel
//       CHECK:   %[[SUM:.*]] = scf.forall
//       CHECK:     math.exp
//       CHECK:   scf.forall.in_parallel
//       CHECK:   scf.forall
//   CHECK-NOT:     math.exp
//       CHECK:     math.log
func.func @column_log_softmax_of_dynamic_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = lazy.log_softmax %x, axis = 0 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A residual stream whose values are each read by a sum and by the next
// step: a tile fuses an elementwise producer with readers elsewhere only if
// it recomputes from stored values (x1 = x0 + a1 from the arguments), not
// chains of them. The last sum reads the stored x3; it used to add x0, a1,
// a2 and a3 again in its tile, and every layer of a transformer summed its
// whole residual stream.
// CHECK-LABEL: func.func @residual_stream
//       CHECK:   scf.forall (
//       CHECK:   scf.forall (
//       CHECK:   scf.forall (
//       CHECK:   scf.forall (
//       CHECK:   scf.forall ({{.*}} -> (tensor<64x1xf32>)
//   CHECK-NOT:     arith.addf {{.*}} : vector<1x64xf32>
//       CHECK:     vector.multi_reduction <add>
//   CHECK-NOT:   scf.forall (
//       CHECK:   return
func.func @residual_stream(%x0: tensor<64x1024xf32>, %a1: tensor<64x1024xf32>, %a2: tensor<64x1024xf32>, %a3: tensor<64x1024xf32>) -> (tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x1024xf32>) {
  %x1 = lazy.add %x0, %a1 : tensor<64x1024xf32>
  %s1 = lazy.reduce_sum %x1 [1] keep_dims : tensor<64x1024xf32>
  %x2 = lazy.add %x1, %a2 : tensor<64x1024xf32>
  %s2 = lazy.reduce_sum %x2 [1] keep_dims : tensor<64x1024xf32>
  %x3 = lazy.add %x2, %a3 : tensor<64x1024xf32>
  %s3 = lazy.reduce_sum %x3 [1] keep_dims : tensor<64x1024xf32>
  return %s1, %s2, %s3, %x3 : tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x1024xf32>
}

// -----

// A chain of nested row sums, each scaling the values the next one sums: every
// value is read by two others in the tile (a diamond per level), and
// tile-and-fuse fused each producer once per reader, doubling the copies at
// every level (2^15 copies of the first sum here, merged by CSE only
// afterwards: 98 s). A producer is fused into a tile at most 8 times, and a
// tile fuses at most 64 ops; past either bound the producer is computed once,
// as a root of its own: here one nest per sum.
// CHECK-LABEL: func.func @nested_row_sums
// CHECK-COUNT-16: scf.forall (
//   CHECK-NOT: scf.forall (
//       CHECK: return
func.func @nested_row_sums(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %r1 = lazy.reduce_sum %x [1] keep_dims : tensor<64x1024xf32>
  %b1 = lazy.broadcast %r1 to [64, 1024] : tensor<64x1xf32>
  %v1 = lazy.mul %x, %b1 : tensor<64x1024xf32>
  %r2 = lazy.reduce_sum %v1 [1] keep_dims : tensor<64x1024xf32>
  %b2 = lazy.broadcast %r2 to [64, 1024] : tensor<64x1xf32>
  %v2 = lazy.mul %v1, %b2 : tensor<64x1024xf32>
  %r3 = lazy.reduce_sum %v2 [1] keep_dims : tensor<64x1024xf32>
  %b3 = lazy.broadcast %r3 to [64, 1024] : tensor<64x1xf32>
  %v3 = lazy.mul %v2, %b3 : tensor<64x1024xf32>
  %r4 = lazy.reduce_sum %v3 [1] keep_dims : tensor<64x1024xf32>
  %b4 = lazy.broadcast %r4 to [64, 1024] : tensor<64x1xf32>
  %v4 = lazy.mul %v3, %b4 : tensor<64x1024xf32>
  %r5 = lazy.reduce_sum %v4 [1] keep_dims : tensor<64x1024xf32>
  %b5 = lazy.broadcast %r5 to [64, 1024] : tensor<64x1xf32>
  %v5 = lazy.mul %v4, %b5 : tensor<64x1024xf32>
  %r6 = lazy.reduce_sum %v5 [1] keep_dims : tensor<64x1024xf32>
  %b6 = lazy.broadcast %r6 to [64, 1024] : tensor<64x1xf32>
  %v6 = lazy.mul %v5, %b6 : tensor<64x1024xf32>
  %r7 = lazy.reduce_sum %v6 [1] keep_dims : tensor<64x1024xf32>
  %b7 = lazy.broadcast %r7 to [64, 1024] : tensor<64x1xf32>
  %v7 = lazy.mul %v6, %b7 : tensor<64x1024xf32>
  %r8 = lazy.reduce_sum %v7 [1] keep_dims : tensor<64x1024xf32>
  %b8 = lazy.broadcast %r8 to [64, 1024] : tensor<64x1xf32>
  %v8 = lazy.mul %v7, %b8 : tensor<64x1024xf32>
  %r9 = lazy.reduce_sum %v8 [1] keep_dims : tensor<64x1024xf32>
  %b9 = lazy.broadcast %r9 to [64, 1024] : tensor<64x1xf32>
  %v9 = lazy.mul %v8, %b9 : tensor<64x1024xf32>
  %r10 = lazy.reduce_sum %v9 [1] keep_dims : tensor<64x1024xf32>
  %b10 = lazy.broadcast %r10 to [64, 1024] : tensor<64x1xf32>
  %v10 = lazy.mul %v9, %b10 : tensor<64x1024xf32>
  %r11 = lazy.reduce_sum %v10 [1] keep_dims : tensor<64x1024xf32>
  %b11 = lazy.broadcast %r11 to [64, 1024] : tensor<64x1xf32>
  %v11 = lazy.mul %v10, %b11 : tensor<64x1024xf32>
  %r12 = lazy.reduce_sum %v11 [1] keep_dims : tensor<64x1024xf32>
  %b12 = lazy.broadcast %r12 to [64, 1024] : tensor<64x1xf32>
  %v12 = lazy.mul %v11, %b12 : tensor<64x1024xf32>
  %r13 = lazy.reduce_sum %v12 [1] keep_dims : tensor<64x1024xf32>
  %b13 = lazy.broadcast %r13 to [64, 1024] : tensor<64x1xf32>
  %v13 = lazy.mul %v12, %b13 : tensor<64x1024xf32>
  %r14 = lazy.reduce_sum %v13 [1] keep_dims : tensor<64x1024xf32>
  %b14 = lazy.broadcast %r14 to [64, 1024] : tensor<64x1xf32>
  %v14 = lazy.mul %v13, %b14 : tensor<64x1024xf32>
  %r15 = lazy.reduce_sum %v14 [1] keep_dims : tensor<64x1024xf32>
  %b15 = lazy.broadcast %r15 to [64, 1024] : tensor<64x1xf32>
  %v15 = lazy.mul %v14, %b15 : tensor<64x1024xf32>
  %r16 = lazy.reduce_sum %v15 [1] keep_dims : tensor<64x1024xf32>
  %b16 = lazy.broadcast %r16 to [64, 1024] : tensor<64x1xf32>
  %v16 = lazy.mul %v15, %b16 : tensor<64x1024xf32>
  return %v16 : tensor<64x1024xf32>
}

// -----

// Fewer rows than columns: the product is split by columns, so each
// thread's BLAS call packs half of the weight instead of all of it (an
// LSTM step's [16, 128] x [128, 512]).
// CHECK-LABEL: func.func @matmul_few_rows
//  CHECK-SAME:   (%[[A:.*]]: tensor<16x128xf32>, %[[B:.*]]: tensor<128x512xf32>)
//       CHECK:   scf.forall (%[[J:.*]]) = (0) to (512) step (256)
//       CHECK:     %[[COLUMNS:.*]] = tensor.extract_slice %[[B]][0, %[[J]]] [128, 256] [1, 1]
//       CHECK:     linalg.matmul ins(%[[A]], %[[COLUMNS]] : tensor<16x128xf32>, tensor<128x256xf32>)
//       CHECK:     arith.maximumf %{{.*}} : vector<1x64xf32>
func.func @matmul_few_rows(%a: tensor<16x128xf32>, %b: tensor<128x512xf32>) -> tensor<16x512xf32> {
  %0 = lazy.matmul %a, %b : tensor<16x128xf32>, tensor<128x512xf32>
  %1 = lazy.relu %0 : tensor<16x512xf32>
  return %1 : tensor<16x512xf32>
}
