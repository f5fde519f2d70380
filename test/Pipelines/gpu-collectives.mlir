// A lazy.collective and a matmul through the GPU stages. The collective
// bufferizes as on the CPU (collectives.mlir); its wait moves down to the
// kernel that reads its output, so the kernels between run while it is in
// flight; and it calls the runtime's NCCL entry points, which queue on the
// device. Neither the collective's calls nor a GEMM's make the host wait
// for the device.
//
// RUN: lazyc-opt %s -split-input-file --lazy-lower-to-linalg --lazy-gpu-fuse \
// RUN:     --lazy-gpu-bufferize --lazy-gpu-map | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-gpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=HOST

// sum(all_reduce(exp(x))) and, unrelated, tanh(y): the exp kernel, the
// start (ALL_REDUCE = 0, SUM = 0, Float32 = 0, root 0, 32768 elements) on
// device buffers, the tanh kernel, the wait, then the sum's kernels (a
// block for each of its 2 rows of 16384, lazy-block-reductions); both
// buffers are freed after it.
// CHECK-LABEL: func.func @all_reduce
//       CHECK:   %[[IN:.*]] = gpu.alloc () : memref<32768xf32>
//       CHECK:   gpu.launch
//       CHECK:     math.exp
//       CHECK:   %[[OUT:.*]] = gpu.alloc () : memref<32768xf32>
//       CHECK:   %[[H:.*]] = call @lazyrt_cuda_collective_start(
//   CHECK-NOT:   collective_wait
//       CHECK:   gpu.launch
//       CHECK:     math.tanh
//       CHECK:   %[[BLOCKS:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [2, 16384]
//       CHECK:   call @lazyrt_cuda_collective_wait(%[[H]],
//  CHECK-NEXT:   gpu.launch
//       CHECK:     memref.load %[[BLOCKS]]
//       CHECK:   gpu.dealloc %[[IN]]
//       CHECK:   gpu.dealloc %[[OUT]]

// HOST-LABEL: llvm.func @all_reduce
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.call @lazyrt_cuda_collective_start(
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.call @lazyrt_cuda_collective_wait(
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.return
func.func @all_reduce(%x: tensor<32768xf32>, %y: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %e = lazy.exp %x : tensor<32768xf32>
  %t = lazy.tanh %y : tensor<64xf32>
  %r = lazy.collective all_reduce %e reduce sum, world_size = 2 : tensor<32768xf32> -> tensor<32768xf32>
  %s = lazy.reduce_sum %r [0] : tensor<32768xf32>
  return %s, %t : tensor<f32>, tensor<64xf32>
}

// -----

// A GEMM behind a kernel that computes its operand is queued behind it: no
// wait for the device in between.
// CHECK-LABEL: func.func @gemm_after_a_kernel
//       CHECK:   gpu.launch
//       CHECK:   call @lazyrt_cuda_matmul_f32(

// HOST-LABEL: llvm.func @gemm_after_a_kernel
//       HOST:   gpu.launch_func
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.call @lazyrt_cuda_matmul_f32(
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   gpu.launch_func
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.return
func.func @gemm_after_a_kernel(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %x = lazy.exp %a : tensor<64x64xf32>
  %c = lazy.matmul %x, %b : tensor<64x64xf32>, tensor<64x64xf32>
  %e = lazy.exp %c : tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}
