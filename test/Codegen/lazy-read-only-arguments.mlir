// RUN: lazyc-opt %s -split-input-file --lazy-read-only-arguments | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-read-only-arguments --lazy-cpu-bufferize | FileCheck %s --check-prefix=BUFFERS

// Tensor arguments no result is tied to are not writable; a donated one
// (w, tied to result 0) stays writable.
// CHECK-LABEL: func.func @marks
//  CHECK-SAME:   (%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32> {bufferization.writable = false}, %{{.*}}: index)
func.func @marks(%w: tensor<8xf32>, %g: tensor<8xf32>, %n: index) -> (tensor<8xf32> {lazy.tied_argument = 0 : i64}) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.add ins(%w, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A loop inserting into its argument's value (a scatter) writes into a
// copy in the result's buffer, never into the argument the caller reads.
// BUFFERS-LABEL: func.func @insert_into_argument
//  BUFFERS-SAME:   (%[[X:.*]]: memref<4xf32>, %{{.*}}: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
//       BUFFERS:   memref.copy %[[X]], %[[OUT]]
//       BUFFERS:   scf.for
//       BUFFERS:     memref.store %{{.*}}, %[[OUT]]
//   BUFFERS-NOT:   memref.store %{{.*}}, %[[X]]
func.func @insert_into_argument(%x: tensor<4xf32>, %u: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %v = tensor.extract %u[%i] : tensor<4xf32>
    %old = tensor.extract %acc[%i] : tensor<4xf32>
    %s = arith.addf %old, %v : f32
    %new = tensor.insert %s into %acc[%i] : tensor<4xf32>
    scf.yield %new : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
