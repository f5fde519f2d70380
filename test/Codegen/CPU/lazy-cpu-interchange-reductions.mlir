// RUN: lazyc-opt %s --pass-pipeline='builtin.module(func.func(lazy-cpu-interchange-reductions))' --split-input-file | FileCheck %s

// A mean over H and W of NCHW values stored channels last: the loops run
// N, H, W, C, so the inputs are read through the identity and the
// innermost loop is the channels'. The bias broadcast and the result
// follow the interchange.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @spatial_sum_channels_last
//       CHECK:   linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[C]], #[[OUT]]],
//  CHECK-SAME:     iterator_types = ["parallel", "reduction", "reduction", "parallel"]
#nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
#channel = affine_map<(d0, d1, d2, d3) -> (d1)>
#rows = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @spatial_sum_channels_last(%a: tensor<2x5x5x8xf32>, %b: tensor<2x5x5x8xf32>, %bias: tensor<8xf32>, %acc: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sum = linalg.generic {indexing_maps = [#nhwc, #nhwc, #channel, #rows], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b, %bias : tensor<2x5x5x8xf32>, tensor<2x5x5x8xf32>, tensor<8xf32>) outs(%acc : tensor<2x8xf32>) {
  ^bb0(%x: f32, %y: f32, %c: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %c : f32
    %u = arith.addf %out, %t : f32
    linalg.yield %u : f32
  } -> tensor<2x8xf32>
  return %sum : tensor<2x8xf32>
}

// -----

// Left alone: inputs read in two different orders, and a reduction whose
// input is already read in loop order.
// CHECK-LABEL: func.func @mixed_orders
//       CHECK:   iterator_types = ["parallel", "reduction"]
// CHECK-LABEL: func.func @in_order
//       CHECK:   iterator_types = ["parallel", "reduction"]
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @mixed_orders(%a: tensor<4x3xf32>, %b: tensor<3x4xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {indexing_maps = [#id, #swap, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x3xf32>, tensor<3x4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.mulf %x, %y : f32
    %u = arith.addf %out, %s : f32
    linalg.yield %u : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
func.func @in_order(%a: tensor<4x3xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x3xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %u = arith.addf %out, %x : f32
    linalg.yield %u : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
