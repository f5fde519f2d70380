// RUN: lazyc-opt %s --lazy-store-in-read-layout --split-input-file | FileCheck %s

// The producer's loops run over [3, 2] and store their result transposed
// ([2, 3]); its reader transposes it back, beside an operand it reads in
// loop order. The result is stored [3, 2] and read through the identity,
// as the other operand is.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_store
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<3x2xf32>
//       CHECK:   %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]]
//  CHECK-SAME:     outs(%[[E]] : tensor<3x2xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]]
//  CHECK-SAME:     ins(%{{.*}}, %[[R]] : tensor<3x2xf32>, tensor<3x2xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed_store(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %empty = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #swap], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<3x2xf32>) outs(%empty : tensor<2x3xf32>) {
  ^bb0(%x: f32, %out: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x3xf32>
  %empty2 = tensor.empty() : tensor<3x2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #swap, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %r : tensor<3x2xf32>, tensor<2x3xf32>) outs(%empty2 : tensor<3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3x2xf32>
  return %sum : tensor<3x2xf32>
}

// -----

// A reduction over the spatial dimensions of NCHW values, one of which the
// producer computes channels last and stores NCHW: it is stored channels
// last, and both inputs are read through one map. The broadcast inputs do
// not count.
// CHECK-DAG: #[[NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @mean_of_channels_last
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x5x5x8xf32>
//       CHECK:   %[[H:.*]] = linalg.generic
//  CHECK-SAME:     outs(%[[E]] : tensor<2x5x5x8xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[NHWC]], #[[NHWC]],
//  CHECK-SAME:     ins(%[[H]], %{{.*}} : tensor<2x5x5x8xf32>, tensor<2x5x5x8xf32>,
#nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#to_nchw = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
#read_nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d1)>
#rows = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @mean_of_channels_last(%conv: tensor<2x5x5x8xf32>, %other: tensor<2x5x5x8xf32>, %bias: tensor<8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x8x5x5xf32>
  %h = linalg.generic {indexing_maps = [#nhwc, #to_nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<2x5x5x8xf32>) outs(%empty : tensor<2x8x5x5xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x5x5xf32>
  %init = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #read_nhwc, #channel, #rows], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%h, %other, %bias : tensor<2x8x5x5xf32>, tensor<2x5x5x8xf32>, tensor<8xf32>) outs(%acc : tensor<2x8xf32>) {
  ^bb0(%x: f32, %y: f32, %b: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %b : f32
    %u = arith.addf %out, %t : f32
    linalg.yield %u : f32
  } -> tensor<2x8xf32>
  return %sum : tensor<2x8xf32>
}

// -----

// Left alone: a result that is also returned (its layout is the caller's),
// and one whose reader reads nothing else in the producer's order (the
// scatter would only move from the write to the read).
// CHECK-LABEL: func.func @returned
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-LABEL: func.func @no_aligned_operand
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @returned(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %empty = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #swap], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<3x2xf32>) outs(%empty : tensor<2x3xf32>) {
  ^bb0(%x: f32, %out: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x3xf32>
  %empty2 = tensor.empty() : tensor<3x2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #swap, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %r : tensor<3x2xf32>, tensor<2x3xf32>) outs(%empty2 : tensor<3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3x2xf32>
  return %sum, %r : tensor<3x2xf32>, tensor<2x3xf32>
}
func.func @no_aligned_operand(%a: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %empty = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #swap], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<3x2xf32>) outs(%empty : tensor<2x3xf32>) {
  ^bb0(%x: f32, %out: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x3xf32>
  %empty2 = tensor.empty() : tensor<2x3xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<2x3xf32>) outs(%empty2 : tensor<2x3xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<2x3xf32>
  return %neg : tensor<2x3xf32>
}
