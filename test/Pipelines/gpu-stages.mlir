// Each stage pipeline of the GPU path runs on its own, in a separate
// lazyc-opt, on the previous stage's printed output, as documented in
// include/lazyc/Pipelines/Pipelines.h (a dumped trace can be replayed stage by
// stage).
//
// RUN: lazyc-opt %s --lazy-lower-to-linalg -o %t.linalg.mlir
// RUN: lazyc-opt %t.linalg.mlir --lazy-gpu-fuse -o %t.fused.mlir
// RUN: FileCheck %s --check-prefix=FUSE --input-file=%t.fused.mlir
// RUN: lazyc-opt %t.fused.mlir --lazy-gpu-bufferize -o %t.buffers.mlir
// RUN: FileCheck %s --check-prefix=BUFFERIZE --input-file=%t.buffers.mlir
// RUN: lazyc-opt %t.buffers.mlir --lazy-gpu-map -o %t.kernels.mlir
// RUN: FileCheck %s --check-prefix=MAP --input-file=%t.kernels.mlir
// RUN: lazyc-opt %t.kernels.mlir --lazy-gpu-to-llvm -o %t.llvm.mlir
// RUN: FileCheck %s --check-prefix=LLVM --input-file=%t.llvm.mlir
// The stages together are the whole pipeline (but for the time the NVPTX
// back end took, which the binary records):
// RUN: lazyc-opt %s --lazy-gpu-pipeline | sed 's/LLVMIRToISATimeInMs = [0-9]*//' > %t.whole.mlir
// RUN: sed 's/LLVMIRToISATimeInMs = [0-9]*//' %t.llvm.mlir | diff %t.whole.mlir -

// exp(x + b) with b broadcast over the rows, and its row sums.

// FUSE-LABEL: func.func @trace
//  FUSE-COUNT-2: linalg.generic
//   FUSE-NOT:   linalg.generic

// BUFFERIZE-LABEL: func.func @trace
//  BUFFERIZE-SAME:   memref<64x256xf32>, %{{.*}}: memref<256xf32>, %{{.*}}: memref<64x256xf32>, %{{.*}}: memref<64xf32>)
//   BUFFERIZE-NOT:   tensor<

// One kernel, a block per row: the exponentials, then their sum.
// MAP-LABEL: func.func @trace
//       MAP:   gpu.launch
//       MAP:     gpu.all_reduce add
//   MAP-NOT:   gpu.launch
//   MAP-NOT:   linalg.
//   MAP-NOT:   scf.parallel

// LLVM-LABEL: llvm.func @trace
//       LLVM:   gpu.launch_func
//       LLVM: gpu.binary @
func.func @trace(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<64x256xf32>, tensor<64xf32>) {
  %0 = lazy.broadcast %b to [64, 256] : tensor<256xf32>
  %1 = lazy.add %x, %0 : tensor<64x256xf32>
  %2 = lazy.exp %1 : tensor<64x256xf32>
  %3 = lazy.reduce_sum %2 [1] : tensor<64x256xf32>
  return %2, %3 : tensor<64x256xf32>, tensor<64xf32>
}
