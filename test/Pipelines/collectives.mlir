// A lazy.collective through the CPU stages: it stays a lazy op through the
// lowering to linalg and bufferizes into a lazyrt_collective_start call
// (kind, reduction, dtype, root, input address, output address, input
// element count) and a lazyrt_collective_wait on the same addresses, which
// lazy-overlap-collectives moves down to the first op that touches the
// buffers. One thread, so that no stage depends on the machine.
//
// RUN: lazyc-opt %s -split-input-file --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:     --lazy-cpu-tile="num-threads=1" --lazy-cpu-bufferize \
// RUN:   | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:     --lazy-cpu-tile="num-threads=1" --lazy-cpu-bufferize --lazy-cpu-to-llvm \
// RUN:   | FileCheck %s --check-prefix=LLVM

// sum(all_reduce(exp(x))) and, unrelated, tanh(y). The all-reduce is issued
// right after the exp (lazy-schedule-collectives), reads exp's 128 KiB
// buffer (too big for the stack: a heap allocation) and writes a fresh
// 64-byte aligned one. Its constants: ALL_REDUCE = 0, SUM = 0, Float32 = 0,
// root 0, 32768 elements. The wait moves past the tanh and the sum's
// initialization (and the view of the output as the sum's 8 blocks of 4096,
// lazy-block-reductions) down to the sum's loop, which reads the output;
// exp's buffer is freed only after the wait.
// CHECK-LABEL: func.func @all_reduce
//  CHECK-SAME:   (%[[X:.*]]: memref<32768xf32>, %[[Y:.*]]: memref<64xf32>, %[[S:.*]]: memref<f32>, %[[T:.*]]: memref<64xf32>)
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0 : i32
//   CHECK-DAG:   %[[ROOT:.*]] = arith.constant 0 : i64
//   CHECK-DAG:   %[[COUNT:.*]] = arith.constant 32768 : i64
//       CHECK:   %[[IN:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32768xf32>
//       CHECK:   scf.for
//       CHECK:     math.exp
//       CHECK:   %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32768xf32>
//       CHECK:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
//       CHECK:   %[[AI:.*]] = arith.index_cast %[[PI]] : index to i64
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//       CHECK:   %[[AO:.*]] = arith.index_cast %[[PO]] : index to i64
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ROOT]], %[[AI]], %[[AO]], %[[COUNT]])
//   CHECK-NOT:   lazyrt_collective_wait
//   CHECK-NOT:   memref.dealloc
//       CHECK:   math.tanh
//       CHECK:   vector.transfer_write %{{.*}}, %[[T]]
//   CHECK-NOT:   lazyrt_collective_wait
//   CHECK-NOT:   memref.dealloc
//       CHECK:   linalg.fill {{.*}} outs(%[[S]] : memref<f32>)
//       CHECK:   %[[BLOCKS:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [8, 4096]
//   CHECK-NOT:   memref.dealloc
//       CHECK:   call @lazyrt_collective_wait(%[[H]], %[[AI]], %[[AO]])
//  CHECK-NEXT:   scf.for
//  CHECK-NEXT:     memref.subview %[[BLOCKS]]
//       CHECK:   memref.dealloc %[[IN]]
//       CHECK:   return

// LLVM-LABEL: llvm.func @all_reduce
//       LLVM:   %[[H:.*]] = llvm.call @lazyrt_collective_start(%{{.*}}) : (i32, i32, i32, i64, i64, i64, i64) -> i64
//       LLVM:   llvm.call @lazyrt_collective_wait(%[[H]], %{{.*}}, %{{.*}}) : (i64, i64, i64) -> i32
func.func @all_reduce(%x: tensor<32768xf32>, %y: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %e = lazy.exp %x : tensor<32768xf32>
  %t = lazy.tanh %y : tensor<64xf32>
  %r = lazy.collective all_reduce %e reduce sum, world_size = 2 : tensor<32768xf32> -> tensor<32768xf32>
  %s = lazy.reduce_sum %r [0] : tensor<32768xf32>
  return %s, %t : tensor<f32>, tensor<64xf32>
}

// -----

// A ui8 reduce-scatter with max: REDUCE_SCATTER = 3, MAX = 1, UInt8 = 8
// (the element type is i8 after the lowering to linalg; the op remembers
// that it was unsigned), root 0, 32 input elements. Its result is
// returned, so it writes straight into the out-parameter; nothing else
// touches the buffers, so the wait ends up just before the return.
// CHECK-LABEL: func.func @reduce_scatter_ui8
//  CHECK-SAME:   (%[[U:.*]]: memref<8x4xi8>, %[[S:.*]]: memref<2x4xi8>)
//   CHECK-DAG:   %[[KIND:.*]] = arith.constant 3 : i32
//   CHECK-DAG:   %[[MAX:.*]] = arith.constant 1 : i32
//   CHECK-DAG:   %[[UINT8:.*]] = arith.constant 8 : i32
//   CHECK-DAG:   %[[ROOT:.*]] = arith.constant 0 : i64
//   CHECK-DAG:   %[[COUNT:.*]] = arith.constant 32 : i64
//   CHECK-NOT:   memref.alloc
//       CHECK:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[U]]
//       CHECK:   %[[AI:.*]] = arith.index_cast %[[PI]]
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//       CHECK:   %[[AO:.*]] = arith.index_cast %[[PO]]
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(%[[KIND]], %[[MAX]], %[[UINT8]], %[[ROOT]], %[[AI]], %[[AO]], %[[COUNT]])
//  CHECK-NEXT:   call @lazyrt_collective_wait(%[[H]], %[[AI]], %[[AO]])
//  CHECK-NEXT:   return

// LLVM-LABEL: llvm.func @reduce_scatter_ui8
//       LLVM:   llvm.call @lazyrt_collective_start
//       LLVM:   llvm.call @lazyrt_collective_wait
func.func @reduce_scatter_ui8(%u: tensor<8x4xui8>) -> tensor<2x4xui8> {
  %s = lazy.collective reduce_scatter %u reduce max, world_size = 4 : tensor<8x4xui8> -> tensor<2x4xui8>
  return %s : tensor<2x4xui8>
}

// -----

// An all-gather with a dynamic dimension 0: ALL_GATHER = 2, Float64 = 1,
// root 0; the count is the input's elements (rows * 3) and the output has
// rows * world_size (4) rows: the out-parameter when the caller's has that
// many, else a fresh 64-byte aligned allocation of that size (freed after
// the wait).
// CHECK-LABEL: func.func @all_gather_dynamic
//  CHECK-SAME:   (%[[D:.*]]: memref<?x3xf64>, %[[G:.*]]: memref<?x3xf64>)
//   CHECK-DAG:   %[[KIND:.*]] = arith.constant 2 : i32
//   CHECK-DAG:   %[[NONE:.*]] = arith.constant 0 : i32
//   CHECK-DAG:   %[[FLOAT64:.*]] = arith.constant 1 : i32
//   CHECK-DAG:   %[[ROOT:.*]] = arith.constant 0 : i64
//   CHECK-DAG:   %[[WORLD:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[COLS:.*]] = arith.constant 3 : index
//       CHECK:   %[[ROWS:.*]] = memref.dim %[[D]], %{{.*}} : memref<?x3xf64>
//       CHECK:   %[[GROWS:.*]] = arith.muli %[[ROWS]], %[[WORLD]] : index
//       CHECK:   %[[OUT:.*]] = scf.if
//       CHECK:     scf.yield %[[G]]
//       CHECK:     memref.alloc(%[[GROWS]]) {alignment = 64 : i64} : memref<?x3xf64>
//       CHECK:   %[[N:.*]] = arith.muli %[[ROWS]], %[[COLS]] : index
//       CHECK:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
//       CHECK:   %[[AI:.*]] = arith.index_cast %[[PI]]
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//       CHECK:   %[[AO:.*]] = arith.index_cast %[[PO]]
//       CHECK:   %[[COUNT:.*]] = arith.index_cast %[[N]] : index to i64
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(%[[KIND]], %[[NONE]], %[[FLOAT64]], %[[ROOT]], %[[AI]], %[[AO]], %[[COUNT]])
//  CHECK-NEXT:   call @lazyrt_collective_wait(%[[H]], %[[AI]], %[[AO]])
//  CHECK-NEXT:   memref.extract_strided_metadata %[[OUT]]
//       CHECK:     memref.dealloc
func.func @all_gather_dynamic(%d: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %g = lazy.collective all_gather %d, world_size = 4 : tensor<?x3xf64> -> tensor<?x3xf64>
  return %g : tensor<?x3xf64>
}

// -----

// The runtime takes contiguous buffers: a slice of columns is a strided
// view, so it is copied into a contiguous (64-byte aligned, small enough for
// the stack) buffer first, and that buffer is the input. BROADCAST = 1,
// Int32 = 4, root 1, 32 elements.
// CHECK-LABEL: func.func @broadcast_of_a_slice
//  CHECK-SAME:   (%[[M:.*]]: memref<8x8xi32>, %[[B:.*]]: memref<8x4xi32>)
//   CHECK-DAG:   %[[KIND:.*]] = arith.constant 1 : i32
//   CHECK-DAG:   %[[NONE:.*]] = arith.constant 0 : i32
//   CHECK-DAG:   %[[INT32:.*]] = arith.constant 4 : i32
//   CHECK-DAG:   %[[ROOT:.*]] = arith.constant 1 : i64
//   CHECK-DAG:   %[[COUNT:.*]] = arith.constant 32 : i64
//       CHECK:   %[[VIEW:.*]] = memref.subview %[[M]][0, 2] [8, 4] [1, 1] : memref<8x8xi32> to memref<8x4xi32, strided<[8, 1], offset: 2>>
//       CHECK:   %[[DENSE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x4xi32>
//       CHECK:   memref.copy %[[VIEW]], %[[DENSE]]
//       CHECK:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[DENSE]]
//       CHECK:   %[[AI:.*]] = arith.index_cast %[[PI]]
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
//       CHECK:   %[[AO:.*]] = arith.index_cast %[[PO]]
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(%[[KIND]], %[[NONE]], %[[INT32]], %[[ROOT]], %[[AI]], %[[AO]], %[[COUNT]])
//       CHECK:   call @lazyrt_collective_wait(%[[H]], %[[AI]], %[[AO]])
//  CHECK-NEXT:   return
func.func @broadcast_of_a_slice(%m: tensor<8x8xi32>) -> tensor<8x4xi32> {
  %s = lazy.slice %m [0, 2] to [8, 6] step [1, 1] : tensor<8x8xi32>
  %b = lazy.collective broadcast %s root 1, world_size = 4 : tensor<8x4xi32> -> tensor<8x4xi32>
  return %b : tensor<8x4xi32>
}
