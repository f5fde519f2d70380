// Each stage pipeline of the CPU path runs on its own, in a separate
// lazyc-opt, on the previous stage's printed output, as documented in
// include/lazyc/Pipelines/Pipelines.h (a dumped trace can be replayed stage by
// stage).
//
// RUN: lazyc-opt %s --lazy-decompose --canonicalize --cse --convert-lazy-to-linalg -o %t.linalg.mlir
// RUN: lazyc-opt %t.linalg.mlir --lazy-cpu-fuse -o %t.fused.mlir
// RUN: FileCheck %s --check-prefix=FUSE --input-file=%t.fused.mlir
// RUN: lazyc-opt %t.fused.mlir --lazy-cpu-tile -o %t.tiled.mlir
// RUN: FileCheck %s --check-prefix=TILE --input-file=%t.tiled.mlir
// RUN: lazyc-opt %t.tiled.mlir --lazy-cpu-bufferize -o %t.buffers.mlir
// RUN: FileCheck %s --check-prefix=BUFFERIZE --input-file=%t.buffers.mlir
// RUN: lazyc-opt %t.buffers.mlir --lazy-cpu-to-llvm -o %t.llvm.mlir
// RUN: FileCheck %s --check-prefix=LLVM --input-file=%t.llvm.mlir \
// RUN:   --implicit-check-not="{{[[:space:]](lazy|linalg|tensor|bufferization|memref|scf|vector|affine|arith|math|cf|func|ub)\.[a-z_]+}}"

// exp(x + b) with b broadcast over the rows, and its row sums; both are
// returned. 64x256 is below the parallel threshold (2^15 iterations), so no
// stage depends on the machine's thread count.

// lazy-cpu-fuse: the broadcast, the add and the exp are one generic reading
// x and b directly; the reduction (which reads it) and its fill stay apart.
// FUSE-LABEL: func.func @stages
//  FUSE-SAME:   (%[[X:.*]]: tensor<64x256xf32>, %[[B:.*]]: tensor<256xf32>) -> (tensor<64x256xf32>, tensor<64xf32>)
//      FUSE:   %[[E:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[B]] : tensor<64x256xf32>, tensor<256xf32>)
//      FUSE:     arith.addf
//      FUSE:     math.exp
//      FUSE:   %[[Z:.*]] = linalg.fill
//      FUSE:   %[[S:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<64x256xf32>) outs(%[[Z]] : tensor<64xf32>)
//      FUSE:     arith.addf
//  FUSE-NOT:   linalg.generic
//      FUSE:   return %[[E]], %[[S]]

// lazy-cpu-tile: no linalg left, vector code on tensors, 64-lane partial
// sums combined once per row; no vector.mask (lowered) and no scf.forall.
// TILE-LABEL: func.func @stages
//  TILE-SAME:   -> (tensor<64x256xf32>, tensor<64xf32>)
//   TILE-NOT:   linalg.
//   TILE-NOT:   scf.forall
//       TILE:   math.exp %{{.*}} : vector<1x64xf32>
//       TILE:   arith.addf %{{.*}} : vector<1x64xf32>
//       TILE:   vector.multi_reduction <add>, %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
//   TILE-NOT:   linalg.
//   TILE-NOT:   vector.mask
//   TILE-NOT:   scf.forall
//       TILE:   return %{{.*}}, %{{.*}} : tensor<64x256xf32>, tensor<64xf32>

// lazy-cpu-bufferize: memrefs only; the two results became out-parameters
// appended after the inputs, which the body writes; the function returns
// nothing.
// BUFFERIZE-LABEL: func.func @stages
//  BUFFERIZE-SAME:   (%{{.*}}: memref<64x256xf32>, %{{.*}}: memref<256xf32>, %[[OUT0:.*]]: memref<64x256xf32>, %[[OUT1:.*]]: memref<64xf32>) {
//   BUFFERIZE-NOT:   tensor
//       BUFFERIZE:   %[[OUT0]]
//   BUFFERIZE-NOT:   tensor
//       BUFFERIZE:   %[[OUT1]]
//   BUFFERIZE-NOT:   tensor
//       BUFFERIZE:   return{{$}}

// lazy-cpu-to-llvm: LLVM dialect only (the implicit checks); the four memref
// descriptors are expanded into pointers and integers, and there is no result.
// LLVM-LABEL: llvm.func @stages(
//  LLVM-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  LLVM-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  LLVM-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  LLVM-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64) {
//       LLVM:   llvm.intr.fma(%{{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
//   LLVM-NOT:   llvm.return %
//       LLVM:   llvm.return{{$}}
func.func @stages(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<64x256xf32>, tensor<64xf32>) {
  %0 = lazy.broadcast %b to [64, 256] : tensor<256xf32>
  %1 = lazy.add %x, %0 : tensor<64x256xf32>
  %2 = lazy.exp %1 : tensor<64x256xf32>
  %3 = lazy.reduce_sum %2 [1] : tensor<64x256xf32>
  return %2, %3 : tensor<64x256xf32>, tensor<64xf32>
}
