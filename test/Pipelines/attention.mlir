// lazy.attention and lazy.attention_grad through the CPU stages: they stay
// lazy ops through the lowering to linalg and bufferize into one call each
// to the runtime's tiled kernels (lazyc/Runtime/Attention.h): the addresses
// of q, k, v, the bias (0 without one), [out, d_out,] the output, and of
// the 14 sizes on the stack (batch padded with leading 1s, Tq, Tk, d, dv,
// the bias's sizes), then the scale, the dropout, the seed and causal. The
// producer of q (an exp) fuses as usual; the output row slice is a copy.
// One thread, so that no stage depends on the machine.
//
// RUN: lazyc-opt %s -split-input-file --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:     --lazy-cpu-tile="num-threads=1" --lazy-cpu-bufferize \
// RUN:   | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-lower-to-linalg --lazy-cpu-fuse \
// RUN:     --lazy-cpu-tile="num-threads=1" --lazy-cpu-bufferize --lazy-cpu-to-llvm \
// RUN:   | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @lazyrt_attention_forward_f32(i64, i64, i64, i64, i64, i64, f64, f64, i64, i32)
// CHECK-LABEL: func.func @forward
//  CHECK-SAME:   (%[[X:.*]]: memref<2x64x16xf32>, %[[K:.*]]: memref<2x80x16xf32>, %[[V:.*]]: memref<2x80x8xf32>, %[[S:.*]]: memref<i64>, %[[R:.*]]: memref<2x64x8xf32>)
//   CHECK-DAG:   %[[ONE:.*]] = arith.constant 1 : i64
//   CHECK-DAG:   %[[NONE:.*]] = arith.constant 0 : i64
//   CHECK-DAG:   %[[CAUSAL:.*]] = arith.constant 1 : i32
//   CHECK-DAG:   %[[DROPOUT:.*]] = arith.constant 1.000000e-01 : f64
//   CHECK-DAG:   %[[SCALE:.*]] = arith.constant 2.500000e-01 : f64
//       CHECK:   %[[Q:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2x64x16xf32>
//       CHECK:   math.exp
//       CHECK:   %[[SEED:.*]] = memref.load %[[S]][] : memref<i64>
//       CHECK:   %[[SIZES:.*]] = memref.alloca() : memref<14xi64>
//       CHECK:   memref.store %[[ONE]], %[[SIZES]]
//       CHECK:   %[[OUT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2x64x9xf32>
//       CHECK:   %[[PQ:.*]] = memref.extract_aligned_pointer_as_index %[[Q]]
//       CHECK:   %[[AQ:.*]] = arith.index_cast %[[PQ]] : index to i64
//       CHECK:   %[[PK:.*]] = memref.extract_aligned_pointer_as_index %[[K]]
//       CHECK:   %[[AK:.*]] = arith.index_cast %[[PK]] : index to i64
//       CHECK:   %[[PV:.*]] = memref.extract_aligned_pointer_as_index %[[V]]
//       CHECK:   %[[AV:.*]] = arith.index_cast %[[PV]] : index to i64
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//       CHECK:   %[[AO:.*]] = arith.index_cast %[[PO]] : index to i64
//       CHECK:   %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[SIZES]]
//       CHECK:   %[[AS:.*]] = arith.index_cast %[[PS]] : index to i64
//       CHECK:   call @lazyrt_attention_forward_f32(%[[AQ]], %[[AK]], %[[AV]], %[[NONE]], %[[AO]], %[[AS]], %[[SCALE]], %[[DROPOUT]], %[[SEED]], %[[CAUSAL]])
//       CHECK:   %[[ROWS:.*]] = memref.subview %[[OUT]][0, 0, 0] [2, 64, 8] [1, 1, 1]
//       CHECK:   memref.copy %[[ROWS]], %[[R]]

// LLVM-LABEL: llvm.func @forward
//       LLVM:   llvm.call @lazyrt_attention_forward_f32(%{{.*}}) : (i64, i64, i64, i64, i64, i64, f64, f64, i64, i32) -> ()
func.func @forward(%x: tensor<2x64x16xf32>, %k: tensor<2x80x16xf32>, %v: tensor<2x80x8xf32>, %s: tensor<i64>) -> tensor<2x64x8xf32> {
  %q = lazy.exp %x : tensor<2x64x16xf32>
  %0 = lazy.attention %q, %k, %v, seed %s, scale = 0.25, dropout = 0.1 causal : tensor<2x64x16xf32>, tensor<2x80x16xf32>, tensor<2x80x8xf32>, tensor<i64>
  %1 = lazy.slice %0 [0, 0, 0] to [2, 64, 8] step [1, 1, 1] : tensor<2x64x9xf32>
  return %1 : tensor<2x64x8xf32>
}

// -----

// The key/value gradient of f64 attention with a bias [1, Tk], over
// dynamic queries: the bias's sizes follow the batch and length sizes; the
// kernel writes the function's result buffer [Tk, d + dv] itself.
// CHECK-LABEL: func.func @key_value_gradient
//  CHECK-SAME:   (%[[Q:.*]]: memref<?x4xf64>, %[[K:.*]]: memref<6x4xf64>, %[[V:.*]]: memref<6x2xf64>, %[[O:.*]]: memref<?x3xf64>, %[[G:.*]]: memref<?x2xf64>, %[[S:.*]]: memref<i64>, %[[B:.*]]: memref<1x6xf64>, %[[R:.*]]: memref<6x6xf64>)
//       CHECK:   %[[TQ:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x4xf64>
//       CHECK:   %[[TQ64:.*]] = arith.index_cast %[[TQ]] : index to i64
//       CHECK:   %[[SIZES:.*]] = memref.alloca() : memref<14xi64>
//       CHECK:   memref.store %[[TQ64]], %[[SIZES]]
//   CHECK-NOT:   memref.alloc
//       CHECK:   %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[O]]
//       CHECK:   %[[PG:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
//       CHECK:   %[[PR:.*]] = memref.extract_aligned_pointer_as_index %[[R]]
//       CHECK:   call @lazyrt_attention_backward_key_value_f64(%{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, f64, f64, i64, i32) -> ()
func.func @key_value_gradient(%q: tensor<?x4xf64>, %k: tensor<6x4xf64>, %v: tensor<6x2xf64>, %o: tensor<?x3xf64>, %g: tensor<?x2xf64>, %s: tensor<i64>, %b: tensor<1x6xf64>) -> tensor<6x6xf64> {
  %0 = lazy.attention_grad key_value %q, %k, %v, %o, %g, seed %s bias %b, scale = 0.5, dropout = 0.0 : tensor<?x4xf64>, tensor<6x4xf64>, tensor<6x2xf64>, tensor<?x3xf64>, tensor<?x2xf64>, tensor<i64>, tensor<1x6xf64>
  return %0 : tensor<6x6xf64>
}
