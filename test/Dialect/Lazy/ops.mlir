// RUN: lazyc-opt %s | lazyc-opt | FileCheck %s
// RUN: lazyc-opt %s --mlir-print-op-generic | lazyc-opt | FileCheck %s

// Every lazy op round-trips through its custom syntax and through the generic
// form, and keeps its inferred result type.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xi64>, tensor<3xi1>, tensor<f16>) {
  // CHECK: lazy.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = lazy.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: lazy.constant dense<7> : tensor<2x2xi64>
  %1 = lazy.constant dense<7> : tensor<2x2xi64>
  // CHECK: lazy.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = lazy.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK: lazy.constant dense<5.000000e-01> : tensor<f16>
  %3 = lazy.constant dense<0.5> : tensor<f16>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2x2xi64>, tensor<3xi1>, tensor<f16>
}

// CHECK-LABEL: func.func @binary
//  CHECK-SAME: (%[[A:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<4x?xf32>, %[[I:.*]]: tensor<3xi32>)
func.func @binary(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %i: tensor<3xi32>) {
  // CHECK: lazy.add %[[A]], %[[B]] : tensor<4x?xf32>
  %0 = lazy.add %a, %b : tensor<4x?xf32>
  // CHECK: lazy.sub %[[A]], %[[B]] : tensor<4x?xf32>
  %1 = lazy.sub %a, %b : tensor<4x?xf32>
  // CHECK: lazy.mul %[[A]], %[[B]] : tensor<4x?xf32>
  %2 = lazy.mul %a, %b : tensor<4x?xf32>
  // CHECK: lazy.div %[[A]], %[[B]] : tensor<4x?xf32>
  %3 = lazy.div %a, %b : tensor<4x?xf32>
  // CHECK: lazy.pow %[[A]], %[[B]] : tensor<4x?xf32>
  %4 = lazy.pow %a, %b : tensor<4x?xf32>
  // CHECK: lazy.max %[[A]], %[[B]] : tensor<4x?xf32>
  %5 = lazy.max %a, %b : tensor<4x?xf32>
  // CHECK: lazy.min %[[A]], %[[B]] : tensor<4x?xf32>
  %6 = lazy.min %a, %b : tensor<4x?xf32>
  // CHECK: lazy.add %[[I]], %[[I]] : tensor<3xi32>
  %7 = lazy.add %i, %i : tensor<3xi32>
  // CHECK: lazy.div %[[I]], %[[I]] : tensor<3xi32>
  %8 = lazy.div %i, %i : tensor<3xi32>
  // CHECK: lazy.floor_div %[[A]], %[[B]] : tensor<4x?xf32>
  %fd = lazy.floor_div %a, %b : tensor<4x?xf32>
  // CHECK: lazy.mod %[[I]], %[[I]] : tensor<3xi32>
  %md = lazy.mod %i, %i : tensor<3xi32>
  // CHECK: lazy.pow %[[I]], %[[I]] : tensor<3xi32>
  %9 = lazy.pow %i, %i : tensor<3xi32>
  return
}

// CHECK-LABEL: func.func @unary
//  CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>, %[[I:.*]]: tensor<2xi64>, %[[D:.*]]: tensor<f64>)
func.func @unary(%x: tensor<8xbf16>, %i: tensor<2xi64>, %d: tensor<f64>) {
  // CHECK: lazy.neg %[[X]] : tensor<8xbf16>
  %0 = lazy.neg %x : tensor<8xbf16>
  // CHECK: lazy.abs %[[I]] : tensor<2xi64>
  %1 = lazy.abs %i : tensor<2xi64>
  // CHECK: lazy.exp %[[X]] : tensor<8xbf16>
  %2 = lazy.exp %x : tensor<8xbf16>
  // CHECK: lazy.log %[[D]] : tensor<f64>
  %3 = lazy.log %d : tensor<f64>
  // CHECK: lazy.tanh %[[X]] : tensor<8xbf16>
  %4 = lazy.tanh %x : tensor<8xbf16>
  // CHECK: lazy.sigmoid %[[D]] : tensor<f64>
  %5 = lazy.sigmoid %d : tensor<f64>
  // CHECK: lazy.relu %[[I]] : tensor<2xi64>
  %6 = lazy.relu %i : tensor<2xi64>
  // CHECK: lazy.sqrt %[[D]] : tensor<f64>
  %7 = lazy.sqrt %d : tensor<f64>
  // CHECK: lazy.rsqrt %[[D]] : tensor<f64>
  %8 = lazy.rsqrt %d : tensor<f64>
  // CHECK: lazy.sin %[[X]] : tensor<8xbf16>
  %9 = lazy.sin %x : tensor<8xbf16>
  // CHECK: lazy.cos %[[X]] : tensor<8xbf16>
  %10 = lazy.cos %x : tensor<8xbf16>
  // CHECK: lazy.erf %[[X]] : tensor<8xbf16>
  %11 = lazy.erf %x : tensor<8xbf16>
  // CHECK: lazy.neg %[[I]] : tensor<2xi64>
  %12 = lazy.neg %i : tensor<2xi64>
  // CHECK: lazy.asin %[[X]] : tensor<8xbf16>
  %13 = lazy.asin %x : tensor<8xbf16>
  // CHECK: lazy.acos %[[D]] : tensor<f64>
  %14 = lazy.acos %d : tensor<f64>
  // CHECK: lazy.atan %[[X]] : tensor<8xbf16>
  %15 = lazy.atan %x : tensor<8xbf16>
  return
}

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %p: tensor<2x3xi1>) -> tensor<2x3xf32> {
  // CHECK: %[[C:.*]] = lazy.compare eq, %{{.*}}, %{{.*}} : tensor<2x3xf32>
  %0 = lazy.compare eq, %a, %b : tensor<2x3xf32>
  // CHECK: lazy.compare ne, {{.*}} : tensor<2x3xf32>
  %1 = lazy.compare ne, %a, %b : tensor<2x3xf32>
  // CHECK: lazy.compare lt, {{.*}} : tensor<2x3xf32>
  %2 = lazy.compare lt, %a, %b : tensor<2x3xf32>
  // CHECK: lazy.compare le, {{.*}} : tensor<2x3xf32>
  %3 = lazy.compare le, %a, %b : tensor<2x3xf32>
  // CHECK: lazy.compare gt, {{.*}} : tensor<2x3xf32>
  %4 = lazy.compare gt, %a, %b : tensor<2x3xf32>
  // CHECK: lazy.compare ge, {{.*}} : tensor<2x3xi1>
  %5 = lazy.compare ge, %p, %p : tensor<2x3xi1>
  // CHECK: lazy.select %[[C]], %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
  %6 = lazy.select %0, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast
func.func @cast(%x: tensor<4xf32>, %i: tensor<4xi1>) {
  // CHECK: lazy.cast %{{.*}} : tensor<4xf32> to tensor<4xi32>
  %0 = lazy.cast %x : tensor<4xf32> to tensor<4xi32>
  // CHECK: lazy.cast %{{.*}} : tensor<4xi1> to tensor<4xf16>
  %1 = lazy.cast %i : tensor<4xi1> to tensor<4xf16>
  // CHECK: lazy.cast %{{.*}} : tensor<4xf32> to tensor<?xf64>
  %2 = lazy.cast %x : tensor<4xf32> to tensor<?xf64>
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<1x3xf32>, %y: tensor<6xi64>, %z: tensor<2x3x4xf32>) -> tensor<4x3xf32> {
  // CHECK: lazy.broadcast %{{.*}} to [4, 3] : tensor<1x3xf32>
  %0 = lazy.broadcast %x to [4, 3] : tensor<1x3xf32>
  // CHECK: lazy.broadcast %{{.*}} to [2, 5, 1, 3] : tensor<1x3xf32>
  %1 = lazy.broadcast %x to [2, 5, 1, 3] : tensor<1x3xf32>
  // CHECK: lazy.reshape %{{.*}} to [2, 3] : tensor<6xi64>
  %2 = lazy.reshape %y to [2, 3] : tensor<6xi64>
  // CHECK: lazy.reshape %{{.*}} to [3] : tensor<1x3xf32>
  %r = lazy.reshape %x to [3] : tensor<1x3xf32>
  // CHECK: lazy.reshape %{{.*}} to [] : tensor<1x1xf32>
  %s = lazy.slice %x [0, 0] to [1, 1] step [1, 1] : tensor<1x3xf32>
  %scalar = lazy.reshape %s to [] : tensor<1x1xf32>
  // CHECK: lazy.transpose %{{.*}} [2, 0, 1] : tensor<2x3x4xf32>
  %3 = lazy.transpose %z [2, 0, 1] : tensor<2x3x4xf32>
  // CHECK: lazy.slice %{{.*}} [0, 1, 0] to [2, 3, 4] step [1, 1, 3] : tensor<2x3x4xf32>
  %4 = lazy.slice %z [0, 1, 0] to [2, 3, 4] step [1, 1, 3] : tensor<2x3x4xf32>
  // CHECK: lazy.slice %{{.*}} [1] to [1] step [1] : tensor<6xi64>
  %5 = lazy.slice %y [1] to [1] step [1] : tensor<6xi64>
  // CHECK: lazy.concat %{{.*}}, %{{.*}}, %{{.*}} axis = 0 : tensor<1x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>
  %6 = lazy.concat %x, %0, %x axis = 0 : tensor<1x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>
  // CHECK: lazy.concat %{{.*}} axis = 0 : tensor<6xi64>
  %7 = lazy.concat %y axis = 0 : tensor<6xi64>
  return %0 : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<5xi32>, %d: tensor<2x?xf64>) {
  // CHECK: lazy.reduce_sum %{{.*}} [1] : tensor<2x3x4xf32>
  %0 = lazy.reduce_sum %x [1] : tensor<2x3x4xf32>
  // CHECK: lazy.reduce_sum %{{.*}} [0, 2] keep_dims : tensor<2x3x4xf32>
  %1 = lazy.reduce_sum %x [0, 2] keep_dims : tensor<2x3x4xf32>
  // CHECK: lazy.reduce_max %{{.*}} [0] : tensor<5xi32>
  %2 = lazy.reduce_max %i [0] : tensor<5xi32>
  // CHECK: lazy.reduce_min %{{.*}} [1] keep_dims : tensor<2x?xf64>
  %3 = lazy.reduce_min %d [1] keep_dims : tensor<2x?xf64>
  // CHECK: lazy.reduce_mean %{{.*}} [0, 1, 2] : tensor<2x3x4xf32>
  %4 = lazy.reduce_mean %x [0, 1, 2] : tensor<2x3x4xf32>
  // CHECK: lazy.reduce_sum %{{.*}} [] : tensor<5xi32>
  %5 = lazy.reduce_sum %i [] : tensor<5xi32>
  return
}

// Convolution: the output size follows stride and dilation; dynamic
// images give dynamic output sizes.
// CHECK-LABEL: func.func @conv2d
func.func @conv2d(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x2xf32>, %y: tensor<?x3x?x8xf64>, %v: tensor<4x3x3x2xf64>) -> (tensor<2x4x4x5xf32>, tensor<?x4x?x7xf64>) {
  // CHECK: lazy.conv2d %{{.*}}, %{{.*}} stride [2, 1] dilation [1, 3] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>
  %0 = lazy.conv2d %x, %w stride [2, 1] dilation [1, 3] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>
  // CHECK: lazy.conv2d %{{.*}}, %{{.*}} stride [1, 1] dilation [1, 1] : tensor<?x3x?x8xf64>, tensor<4x3x3x2xf64>
  %1 = lazy.conv2d %y, %v stride [1, 1] dilation [1, 1] : tensor<?x3x?x8xf64>, tensor<4x3x3x2xf64>
  return %0, %1 : tensor<2x4x4x5xf32>, tensor<?x4x?x7xf64>
}

// Zero padding is the default: written or not, it is not printed.
// CHECK-LABEL: func.func @zero_padding
// CHECK: lazy.conv2d %{{.*}}, %{{.*}} stride [1, 1] dilation [1, 1] : tensor<1x2x5x5xf32>
func.func @zero_padding(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] padding [0, 0, 0, 0] : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// Padding [top, bottom, left, right] counts toward the result's size:
// (9 + 1 + 2 - 3) / 2 + 1 = 5 rows, (8 + 0 + 3 - 2) + 1 = 10 columns.
// CHECK-LABEL: func.func @padded_conv2d
func.func @padded_conv2d(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x4x5x10xf32> {
  // CHECK: lazy.conv2d %{{.*}}, %{{.*}} stride [2, 1] dilation [1, 1] padding [1, 2, 0, 3] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>
  %0 = lazy.conv2d %x, %w stride [2, 1] dilation [1, 1] padding [1, 2, 0, 3] : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>
  return %0 : tensor<2x4x5x10xf32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<2x8x16xf64>, %d: tensor<2x16x?xf64>) -> (tensor<8x4xf32>, tensor<2x8x?xf64>) {
  // CHECK: lazy.matmul %{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>
  %0 = lazy.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32>
  // CHECK: lazy.matmul %{{.*}}, %{{.*}} : tensor<2x8x16xf64>, tensor<2x16x?xf64>
  %1 = lazy.matmul %c, %d : tensor<2x8x16xf64>, tensor<2x16x?xf64>
  return %0, %1 : tensor<8x4xf32>, tensor<2x8x?xf64>
}

// CHECK-LABEL: func.func @composites
func.func @composites(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: lazy.softmax %{{.*}}, axis = 1 : tensor<4x8xf32>
  %0 = lazy.softmax %x, axis = 1 : tensor<4x8xf32>
  // CHECK: lazy.log_softmax %{{.*}}, axis = 0 : tensor<4x8xf32>
  %1 = lazy.log_softmax %x, axis = 0 : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @random
//  CHECK-SAME:   (%[[SEED:.*]]: tensor<i64>, %[[N:.*]]: index)
func.func @random(%seed: tensor<i64>, %n: index) -> (tensor<4x3xf32>, tensor<16xf64>, tensor<?x3xf32>) {
  // CHECK: lazy.random_uniform %[[SEED]], low = -1.000000e+00, high = 1.000000e+00 : tensor<i64> -> tensor<4x3xf32>
  %0 = lazy.random_uniform %seed, low = -1.0, high = 1.0 : tensor<i64> -> tensor<4x3xf32>
  // CHECK: lazy.random_normal %[[SEED]], mean = 0.000000e+00, stddev = 2.000000e+00 : tensor<i64> -> tensor<16xf64>
  %1 = lazy.random_normal %seed, mean = 0.0, stddev = 2.0 : tensor<i64> -> tensor<16xf64>
  // CHECK: lazy.random_uniform %[[SEED]][%[[N]]], low = 0.000000e+00, high = 1.000000e+00 : tensor<i64> -> tensor<?x3xf32>
  %2 = lazy.random_uniform %seed [%n], low = 0.0, high = 1.0 : tensor<i64> -> tensor<?x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<16xf64>, tensor<?x3xf32>
}

// Target sizes given as values make those result dimensions dynamic.
// CHECK-LABEL: func.func @dynamic_target_sizes
//  CHECK-SAME:   (%[[S:.*]]: tensor<f32>, %[[Y:.*]]: tensor<?xf32>, %[[N:.*]]: index)
func.func @dynamic_target_sizes(%s: tensor<f32>, %y: tensor<?xf32>, %n: index) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  // CHECK: lazy.broadcast %[[S]] to [%[[N]], 3] : tensor<f32>
  %0 = lazy.broadcast %s to [%n, 3] : tensor<f32>
  // CHECK: lazy.reshape %[[Y]] to [%[[N]], 3] : tensor<?xf32>
  %1 = lazy.reshape %y to [%n, 3] : tensor<?xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// Indexing and scans.
// CHECK-LABEL: func.func @indexing_and_scans
//  CHECK-SAME:   (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x3xi64>, %[[U:.*]]: tensor<4x3xf32>, %[[D:.*]]: tensor<?x8xf32>, %[[J:.*]]: tensor<?x2xi32>)
func.func @indexing_and_scans(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %u: tensor<4x3xf32>, %d: tensor<?x8xf32>, %j: tensor<?x2xi32>) -> (tensor<4x3xf32>, tensor<?x2xf32>, tensor<4x8xf32>, tensor<4xi64>, tensor<1x8xi64>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: lazy.gather %[[X]][%[[I]]], axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>
  %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>
  // CHECK: lazy.gather %[[D]][%[[J]]], axis = 1 : tensor<?x8xf32>, tensor<?x2xi32>
  %1 = lazy.gather %d[%j], axis = 1 : tensor<?x8xf32>, tensor<?x2xi32>
  // CHECK: lazy.scatter_add %[[X]][%[[I]]], %[[U]], axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  %2 = lazy.scatter_add %x[%i], %u, axis = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  // CHECK: lazy.argmax %[[X]], axis = 1 : tensor<4x8xf32>
  %3 = lazy.argmax %x, axis = 1 : tensor<4x8xf32>
  // CHECK: lazy.argmin %[[X]], axis = 0 keep_dims : tensor<4x8xf32>
  %4 = lazy.argmin %x, axis = 0 keep_dims : tensor<4x8xf32>
  // CHECK: lazy.cumsum %[[X]], axis = 1 : tensor<4x8xf32>
  %5 = lazy.cumsum %x, axis = 1 : tensor<4x8xf32>
  // CHECK: lazy.cumsum %[[X]], axis = 0 reverse : tensor<4x8xf32>
  %6 = lazy.cumsum %x, axis = 0 reverse : tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x3xf32>, tensor<?x2xf32>, tensor<4x8xf32>, tensor<4xi64>, tensor<1x8xi64>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Collectives: all four kinds, with their optional `reduce` and `root`. The
// result type is verified against the inferred one: all_reduce and broadcast
// keep the input's type, all_gather multiplies dimension 0 by world_size (a
// dynamic dimension 0 stays dynamic), and reduce_scatter divides it.
// CHECK-LABEL: func.func @collectives
//  CHECK-SAME:   (%[[G:.*]]: tensor<512xf32>, %[[I:.*]]: tensor<4x3xi32>, %[[S:.*]]: tensor<f32>, %[[W:.*]]: tensor<8xbf16>, %[[X:.*]]: tensor<2x8xf32>, %[[D:.*]]: tensor<?x8xf64>, %[[U:.*]]: tensor<8x2xui8>)
func.func @collectives(%g: tensor<512xf32>, %i: tensor<4x3xi32>, %s: tensor<f32>, %w: tensor<8xbf16>, %x: tensor<2x8xf32>, %d: tensor<?x8xf64>, %u: tensor<8x2xui8>) -> (tensor<512xf32>, tensor<4x3xi32>, tensor<f32>, tensor<8xbf16>, tensor<8x8xf32>, tensor<?x8xf64>, tensor<2x2xui8>) {
  // CHECK: lazy.collective all_reduce %[[G]] reduce sum, world_size = 2 : tensor<512xf32> -> tensor<512xf32>
  %0 = lazy.collective all_reduce %g reduce sum, world_size = 2 : tensor<512xf32> -> tensor<512xf32>
  // CHECK: lazy.collective all_reduce %[[I]] reduce max, world_size = 4 : tensor<4x3xi32> -> tensor<4x3xi32>
  %1 = lazy.collective all_reduce %i reduce max, world_size = 4 : tensor<4x3xi32> -> tensor<4x3xi32>
  // CHECK: lazy.collective all_reduce %[[S]] reduce min, world_size = 1 : tensor<f32> -> tensor<f32>
  %2 = lazy.collective all_reduce %s reduce min, world_size = 1 : tensor<f32> -> tensor<f32>
  // CHECK: lazy.collective broadcast %[[W]] root 1, world_size = 2 : tensor<8xbf16> -> tensor<8xbf16>
  %3 = lazy.collective broadcast %w root 1, world_size = 2 : tensor<8xbf16> -> tensor<8xbf16>
  // CHECK: lazy.collective all_gather %[[X]], world_size = 4 : tensor<2x8xf32> -> tensor<8x8xf32>
  %4 = lazy.collective all_gather %x, world_size = 4 : tensor<2x8xf32> -> tensor<8x8xf32>
  // CHECK: lazy.collective all_gather %[[D]], world_size = 4 : tensor<?x8xf64> -> tensor<?x8xf64>
  %5 = lazy.collective all_gather %d, world_size = 4 : tensor<?x8xf64> -> tensor<?x8xf64>
  // CHECK: lazy.collective reduce_scatter %[[U]] reduce max, world_size = 4 : tensor<8x2xui8> -> tensor<2x2xui8>
  %6 = lazy.collective reduce_scatter %u reduce max, world_size = 4 : tensor<8x2xui8> -> tensor<2x2xui8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<512xf32>, tensor<4x3xi32>, tensor<f32>, tensor<8xbf16>, tensor<8x8xf32>, tensor<?x8xf64>, tensor<2x2xui8>
}

// Attention in tiles: the forward's result is the output rows with each
// row's log-sum-exp after them (dv + 1 columns, dynamic when dv is); the
// gradients are dq (q's type) and dk, dv side by side (d + dv columns).
// CHECK-LABEL: func.func @attention
//  CHECK-SAME:   (%[[Q:.*]]: tensor<2x8x16x4xf32>, %[[K:.*]]: tensor<2x8x32x4xf32>, %[[V:.*]]: tensor<2x8x32x6xf32>, %[[S:.*]]: tensor<i64>, %[[B:.*]]: tensor<2x1x1x32xf32>, %[[D:.*]]: tensor<?x?xf64>)
func.func @attention(%q: tensor<2x8x16x4xf32>, %k: tensor<2x8x32x4xf32>, %v: tensor<2x8x32x6xf32>, %s: tensor<i64>, %b: tensor<2x1x1x32xf32>, %d: tensor<?x?xf64>) -> (tensor<2x8x16x7xf32>, tensor<2x8x16x7xf32>, tensor<2x8x16x4xf32>, tensor<2x8x32x10xf32>, tensor<?x?xf64>) {
  // CHECK: %[[O:.*]] = lazy.attention %[[Q]], %[[K]], %[[V]], seed %[[S]], scale = 5.000000e-01, dropout = 0.000000e+00 : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<i64>
  %0 = lazy.attention %q, %k, %v, seed %s, scale = 0.5, dropout = 0.0 : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<i64>
  // CHECK: lazy.attention %[[Q]], %[[K]], %[[V]], seed %[[S]] bias %[[B]], scale = 5.000000e-01, dropout = 1.000000e-01 causal : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<i64>, tensor<2x1x1x32xf32>
  %1 = lazy.attention %q, %k, %v, seed %s bias %b, scale = 0.5, dropout = 0.1 causal : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<i64>, tensor<2x1x1x32xf32>
  %g = lazy.slice %0 [0, 0, 0, 0] to [2, 8, 16, 6] step [1, 1, 1, 1] : tensor<2x8x16x7xf32>
  // CHECK: lazy.attention_grad query %[[Q]], %[[K]], %[[V]], %[[O]], %{{.*}}, seed %[[S]], scale = 5.000000e-01, dropout = 0.000000e+00 : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<2x8x16x7xf32>, tensor<2x8x16x6xf32>, tensor<i64>
  %2 = lazy.attention_grad query %q, %k, %v, %0, %g, seed %s, scale = 0.5, dropout = 0.0 : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<2x8x16x7xf32>, tensor<2x8x16x6xf32>, tensor<i64>
  // CHECK: lazy.attention_grad key_value
  %3 = lazy.attention_grad key_value %q, %k, %v, %0, %g, seed %s, scale = 0.5, dropout = 0.0 : tensor<2x8x16x4xf32>, tensor<2x8x32x4xf32>, tensor<2x8x32x6xf32>, tensor<2x8x16x7xf32>, tensor<2x8x16x6xf32>, tensor<i64>
  // CHECK: lazy.attention %[[D]], %[[D]], %[[D]], seed %[[S]], scale = 1.000000e+00, dropout = 0.000000e+00 causal : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<i64>
  %4 = lazy.attention %d, %d, %d, seed %s, scale = 1.0, dropout = 0.0 causal : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<i64>
  return %0, %1, %2, %3, %4 : tensor<2x8x16x7xf32>, tensor<2x8x16x7xf32>, tensor<2x8x16x4xf32>, tensor<2x8x32x10xf32>, tensor<?x?xf64>
}
