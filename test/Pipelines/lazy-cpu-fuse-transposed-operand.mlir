// RUN: lazyc-opt %s --lazy-decompose --convert-lazy-to-linalg --lazy-cpu-fuse | FileCheck %s

// A weight gradient reads the transposed activation h^T, where h = relu(x @ w
// + b) is stored anyway (the next layer's GEMM reads it). lazy-cpu-fuse
// folds the transpose into the gradient's matmul before elementwise fusion,
// so the matmul reads the stored h through a transposed map; fusing first
// recomputed relu(x @ w + b) into a transposed copy.
// CHECK-DAG: #[[TRANSPOSED:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @weight_gradient_of_a_stored_activation
//       CHECK:   %[[XW:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>)
//       CHECK:   %[[H:.*]] = linalg.generic
//  CHECK-SAME:     ins(%[[XW]], %{{.*}} : tensor<8x32xf32>, tensor<32xf32>)
//       CHECK:     arith.maximumf
//   CHECK-NOT:   tensor<32x8xf32>
//       CHECK:   linalg.matmul ins(%[[H]], %{{.*}} : tensor<8x32xf32>, tensor<32x4xf32>)
//       CHECK:   linalg.matmul indexing_maps = [#[[TRANSPOSED]], {{.*}}] ins(%[[H]], %{{.*}} : tensor<8x32xf32>, tensor<8x4xf32>)
func.func @weight_gradient_of_a_stored_activation(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>, %w2: tensor<32x4xf32>, %dy: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<32x4xf32>) {
  %xw = lazy.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32>
  %bb = lazy.broadcast %b to [8, 32] : tensor<32xf32>
  %pre = lazy.add %xw, %bb : tensor<8x32xf32>
  %h = lazy.relu %pre : tensor<8x32xf32>
  %y = lazy.matmul %h, %w2 : tensor<8x32xf32>, tensor<32x4xf32>
  %ht = lazy.transpose %h [1, 0] : tensor<8x32xf32>
  %dw2 = lazy.matmul %ht, %dy : tensor<32x8xf32>, tensor<8x4xf32>
  return %y, %dw2 : tensor<8x4xf32>, tensor<32x4xf32>
}
