// RUN: lazyc-opt %s -split-input-file -canonicalize | FileCheck %s

// Splat constants fold through arithmetic.
// CHECK-LABEL: func.func @fold_splat_arith
//       CHECK:   %[[C:.*]] = lazy.constant dense<1.100000e+01> : tensor<4xf32>
//  CHECK-NEXT:   return %[[C]]
func.func @fold_splat_arith() -> tensor<4xf32> {
  %a = lazy.constant dense<2.0> : tensor<4xf32>
  %b = lazy.constant dense<3.0> : tensor<4xf32>
  %c = lazy.constant dense<5.0> : tensor<4xf32>
  %0 = lazy.mul %a, %b : tensor<4xf32>
  %1 = lazy.add %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Non-splat constants fold element by element.
// CHECK-LABEL: func.func @fold_dense_sub_div
//       CHECK:   lazy.constant dense<[-5.000000e-01, 5.000000e-01, 0x7FC00000]> : tensor<3xf32>
func.func @fold_dense_sub_div() -> tensor<3xf32> {
  %a = lazy.constant dense<[1.0, 3.0, 0.0]> : tensor<3xf32>
  %b = lazy.constant dense<[2.0, 2.0, 0.0]> : tensor<3xf32>
  %d = lazy.sub %a, %b : tensor<3xf32>
  %q = lazy.div %d, %b : tensor<3xf32>
  return %q : tensor<3xf32>
}

// -----

// Integer division truncates toward zero; integers wrap around.
// CHECK-LABEL: func.func @fold_int
//       CHECK:   %[[Q:.*]] = lazy.constant dense<[-3, 3]> : tensor<2xi32>
//       CHECK:   %[[W:.*]] = lazy.constant dense<-2147483648> : tensor<2xi32>
//       CHECK:   return %[[Q]], %[[W]]
func.func @fold_int() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = lazy.constant dense<[-7, 7]> : tensor<2xi32>
  %b = lazy.constant dense<2> : tensor<2xi32>
  %q = lazy.div %a, %b : tensor<2xi32>
  %max = lazy.constant dense<2147483647> : tensor<2xi32>
  %one = lazy.constant dense<1> : tensor<2xi32>
  %w = lazy.add %max, %one : tensor<2xi32>
  return %q, %w : tensor<2xi32>, tensor<2xi32>
}

// -----

// Integer division by zero has no defined value: it is not folded.
// CHECK-LABEL: func.func @no_fold_int_div_by_zero
//       CHECK:   lazy.div
func.func @no_fold_int_div_by_zero() -> tensor<2xi32> {
  %a = lazy.constant dense<[1, 2]> : tensor<2xi32>
  %z = lazy.constant dense<0> : tensor<2xi32>
  %q = lazy.div %a, %z : tensor<2xi32>
  return %q : tensor<2xi32>
}

// -----

// Integer powers, including negative exponents (math.ipowi semantics).
// CHECK-LABEL: func.func @fold_int_pow
//       CHECK:   lazy.constant dense<[8, 0, 1, -1]> : tensor<4xi64>
func.func @fold_int_pow() -> tensor<4xi64> {
  %b = lazy.constant dense<[2, 2, 1, -1]> : tensor<4xi64>
  %e = lazy.constant dense<[3, -1, -5, -3]> : tensor<4xi64>
  %p = lazy.pow %b, %e : tensor<4xi64>
  return %p : tensor<4xi64>
}

// -----

// x + -0.0, x - +0.0, x * 1, x / 1 and x ^ 1 are exact identities.
// CHECK-LABEL: func.func @float_identities
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//   CHECK-NOT:   lazy.add
//   CHECK-NOT:   lazy.sub
//   CHECK-NOT:   lazy.mul
//   CHECK-NOT:   lazy.div
//   CHECK-NOT:   lazy.pow
//       CHECK:   return %[[X]]
func.func @float_identities(%x: tensor<4xf32>) -> tensor<4xf32> {
  %nz = lazy.constant dense<-0.0> : tensor<4xf32>
  %pz = lazy.constant dense<0.0> : tensor<4xf32>
  %one = lazy.constant dense<1.0> : tensor<4xf32>
  %0 = lazy.add %x, %nz : tensor<4xf32>
  %1 = lazy.sub %0, %pz : tensor<4xf32>
  %2 = lazy.mul %one, %1 : tensor<4xf32>
  %3 = lazy.div %2, %one : tensor<4xf32>
  %4 = lazy.pow %3, %one : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// x + +0.0 is not an identity (-0.0 + +0.0 == +0.0), nor x - -0.0.
// CHECK-LABEL: func.func @float_non_identities
//       CHECK:   lazy.add
//       CHECK:   lazy.sub
func.func @float_non_identities(%x: tensor<4xf32>) -> tensor<4xf32> {
  %pz = lazy.constant dense<0.0> : tensor<4xf32>
  %nz = lazy.constant dense<-0.0> : tensor<4xf32>
  %0 = lazy.add %x, %pz : tensor<4xf32>
  %1 = lazy.sub %0, %nz : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// For integers x + 0, x - 0, x * 1 are identities.
// CHECK-LABEL: func.func @int_identities
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xi64>)
//  CHECK-NEXT:   return %[[X]]
func.func @int_identities(%x: tensor<4xi64>) -> tensor<4xi64> {
  %zero = lazy.constant dense<0> : tensor<4xi64>
  %one = lazy.constant dense<1> : tensor<4xi64>
  %0 = lazy.add %zero, %x : tensor<4xi64>
  %1 = lazy.sub %0, %zero : tensor<4xi64>
  %2 = lazy.mul %1, %one : tensor<4xi64>
  return %2 : tensor<4xi64>
}

// -----

// Unary folds: neg(neg x) = x, abs and relu are idempotent, max(x, x) = x.
// CHECK-LABEL: func.func @unary_identities
//  CHECK-SAME:   (%[[X:.*]]: tensor<4xf32>)
//       CHECK:   %[[A:.*]] = lazy.abs %[[X]]
//       CHECK:   %[[R:.*]] = lazy.relu %[[X]]
//       CHECK:   return %[[X]], %[[A]], %[[R]], %[[X]]
func.func @unary_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n = lazy.neg %x : tensor<4xf32>
  %nn = lazy.neg %n : tensor<4xf32>
  %a = lazy.abs %x : tensor<4xf32>
  %aa = lazy.abs %a : tensor<4xf32>
  %r = lazy.relu %x : tensor<4xf32>
  %rr = lazy.relu %r : tensor<4xf32>
  %m = lazy.max %x, %x : tensor<4xf32>
  return %nn, %aa, %rr, %m : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Unary constant folding: relu(-0.0) is +0.0 and NaN stays NaN; exp, sqrt,
// sigmoid fold in double precision and round once.
// CHECK-LABEL: func.func @fold_unary_constants
//   CHECK-DAG:   lazy.constant dense<[0.000000e+00, 0.000000e+00, 2.500000e+00, 0x7FC00000]> : tensor<4xf32>
//   CHECK-DAG:   lazy.constant dense<[1.000000e+00, 2.71828175, 7.3890562, 0x7FC00000]> : tensor<4xf32>
//   CHECK-DAG:   lazy.constant dense<[0.000000e+00, 1.000000e+00, 1.41421354, 0x{{7|F}}FC00000]> : tensor<4xf32>
//   CHECK-DAG:   lazy.constant dense<5.000000e-01> : tensor<2xf64>
//   CHECK-DAG:   lazy.constant dense<[-1, 5]> : tensor<2xi32>
func.func @fold_unary_constants() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf64>, tensor<2xi32>) {
  %c = lazy.constant dense<[-1.0, -0.0, 2.5, 0x7FC00000]> : tensor<4xf32>
  %r = lazy.relu %c : tensor<4xf32>
  %e_in = lazy.constant dense<[0.0, 1.0, 2.0, 0x7FC00000]> : tensor<4xf32>
  %e = lazy.exp %e_in : tensor<4xf32>
  %s_in = lazy.constant dense<[0.0, 1.0, 2.0, -1.0]> : tensor<4xf32>
  %s = lazy.sqrt %s_in : tensor<4xf32>
  %z = lazy.constant dense<0.0> : tensor<2xf64>
  %g = lazy.sigmoid %z : tensor<2xf64>
  %i = lazy.constant dense<[1, -5]> : tensor<2xi32>
  %n = lazy.neg %i : tensor<2xi32>
  return %r, %e, %s, %g, %n : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf64>, tensor<2xi32>
}

// -----

// asin, acos and atan fold in double precision too: +-pi/2 at +-1 (and at
// -inf for atan), the sign of -0 kept, NaN outside [-1, 1] and for NaN.
// CHECK-LABEL: func.func @fold_inverse_trig_constants
//   CHECK-DAG:   lazy.constant dense<[-1.57079637, -0.000000e+00, 1.57079637, 0x{{7|F}}FC00000]> : tensor<4xf32>
//   CHECK-DAG:   lazy.constant dense<[3.1415926535897931, 1.0471975511965979, 0.000000e+00, 0x{{7|F}}FF8000000000000]> : tensor<4xf64>
//   CHECK-DAG:   lazy.constant dense<[-1.57079637, 0.785398185, 0x7FC00000]> : tensor<3xf32>
//   CHECK-NOT:   lazy.asin
//   CHECK-NOT:   lazy.acos
//   CHECK-NOT:   lazy.atan
func.func @fold_inverse_trig_constants() -> (tensor<4xf32>, tensor<4xf64>, tensor<3xf32>) {
  %a_in = lazy.constant dense<[-1.0, -0.0, 1.0, 2.0]> : tensor<4xf32>
  %a = lazy.asin %a_in : tensor<4xf32>
  %c_in = lazy.constant dense<[-1.0, 0.5, 1.0, -1.5]> : tensor<4xf64>
  %c = lazy.acos %c_in : tensor<4xf64>
  %t_in = lazy.constant dense<[0xFF800000, 1.0, 0x7FC00000]> : tensor<3xf32>
  %t = lazy.atan %t_in : tensor<3xf32>
  return %a, %c, %t : tensor<4xf32>, tensor<4xf64>, tensor<3xf32>
}

// -----

// Float compares are ordered except `ne`: NaN != NaN is true.
// CHECK-LABEL: func.func @fold_compare
//   CHECK-DAG:   lazy.constant dense<[true, false, false]> : tensor<3xi1>
//   CHECK-DAG:   lazy.constant dense<[false, false, true]> : tensor<3xi1>
//   CHECK-DAG:   lazy.constant dense<[true, false]> : tensor<2xi1>
func.func @fold_compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<2xi1>) {
  %a = lazy.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %b = lazy.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %c = lazy.constant dense<[2.0, 1.0, 0x7FC00000]> : tensor<3xf32>
  %lt = lazy.compare lt, %a, %c : tensor<3xf32>
  %ne = lazy.compare ne, %a, %b : tensor<3xf32>
  %f = lazy.constant dense<[false, true]> : tensor<2xi1>
  %t = lazy.constant dense<[true, true]> : tensor<2xi1>
  // i1 orders false < true.
  %blt = lazy.compare lt, %f, %t : tensor<2xi1>
  return %lt, %ne, %blt : tensor<3xi1>, tensor<3xi1>, tensor<2xi1>
}

// -----

// A splat condition picks a side; equal sides need no condition.
// CHECK-LABEL: func.func @fold_select
//  CHECK-SAME:   (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xi1>)
//       CHECK:   return %[[B]], %[[A]]
func.func @fold_select(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %false = lazy.constant dense<false> : tensor<4xi1>
  %0 = lazy.select %false, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = lazy.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Casts of constants: float to int truncates toward zero, int to bool is
// `!= 0`, bool to float is 0 or 1.
// CHECK-LABEL: func.func @fold_cast
//   CHECK-DAG:   lazy.constant dense<[-2, 2, 0]> : tensor<3xi32>
//   CHECK-DAG:   lazy.constant dense<[true, false, true]> : tensor<3xi1>
//   CHECK-DAG:   lazy.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf16>
//   CHECK-DAG:   lazy.constant dense<[-1, 255]> : tensor<2xi64>
func.func @fold_cast() -> (tensor<3xi32>, tensor<3xi1>, tensor<2xf16>, tensor<2xi64>) {
  %f = lazy.constant dense<[-2.7, 2.7, 0.5]> : tensor<3xf32>
  %i = lazy.cast %f : tensor<3xf32> to tensor<3xi32>
  %j = lazy.constant dense<[3, 0, -1]> : tensor<3xi64>
  %b = lazy.cast %j : tensor<3xi64> to tensor<3xi1>
  %t = lazy.constant dense<[true, false]> : tensor<2xi1>
  %h = lazy.cast %t : tensor<2xi1> to tensor<2xf16>
  %s = lazy.constant dense<[-1, 255]> : tensor<2xi32>
  %w = lazy.cast %s : tensor<2xi32> to tensor<2xi64>
  return %i, %b, %h, %w : tensor<3xi32>, tensor<3xi1>, tensor<2xf16>, tensor<2xi64>
}

// -----

// NaN has no integer value: the cast stays.
// CHECK-LABEL: func.func @no_fold_cast_nan
//       CHECK:   lazy.cast
func.func @no_fold_cast_nan() -> tensor<1xi32> {
  %f = lazy.constant dense<0x7FC00000> : tensor<1xf32>
  %i = lazy.cast %f : tensor<1xf32> to tensor<1xi32>
  return %i : tensor<1xi32>
}

// -----

// Identity broadcasts, reshapes, transposes, slices, concats, reductions and
// casts disappear; float sums and means of one element stay (0 + x makes
// -0.0 +0.0), integer ones go.
// CHECK-LABEL: func.func @identity_shape_ops
//  CHECK-SAME:   (%[[X:.*]]: tensor<2x1xf32>, %[[K:.*]]: tensor<2x1xi32>)
//  CHECK-NEXT:   %[[SUM:.*]] = lazy.reduce_sum %[[X]] [] : tensor<2x1xf32>
//  CHECK-NEXT:   %[[MEAN:.*]] = lazy.reduce_mean %[[X]] [1] keep_dims : tensor<2x1xf32>
//  CHECK-NEXT:   return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[SUM]], %[[X]], %[[X]], %[[MEAN]], %[[K]]
func.func @identity_shape_ops(%x: tensor<2x1xf32>, %k: tensor<2x1xi32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xi32>) {
  %0 = lazy.broadcast %x to [2, 1] : tensor<2x1xf32>
  %1 = lazy.reshape %x to [2, 1] : tensor<2x1xf32>
  %2 = lazy.transpose %x [0, 1] : tensor<2x1xf32>
  %3 = lazy.slice %x [0, 0] to [2, 1] step [1, 1] : tensor<2x1xf32>
  %4 = lazy.concat %x axis = 1 : tensor<2x1xf32>
  %5 = lazy.reduce_sum %x [] : tensor<2x1xf32>
  %6 = lazy.reduce_max %x [1] keep_dims : tensor<2x1xf32>
  %7 = lazy.cast %x : tensor<2x1xf32> to tensor<2x1xf32>
  %8 = lazy.reduce_mean %x [1] keep_dims : tensor<2x1xf32>
  %9 = lazy.reduce_sum %k [1] keep_dims : tensor<2x1xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xi32>
}

// -----

// Chains compose: two reshapes are one, two broadcasts are one, and
// transposes compose (here to the identity).
// CHECK-LABEL: func.func @compose_chains
//  CHECK-SAME:   (%[[X:.*]]: tensor<6xf32>, %[[Y:.*]]: tensor<3xf32>, %[[Z:.*]]: tensor<2x3x4xf32>)
//       CHECK:   %[[R:.*]] = lazy.reshape %[[X]] to [3, 2] : tensor<6xf32>
//       CHECK:   %[[B:.*]] = lazy.broadcast %[[Y]] to [5, 2, 3] : tensor<3xf32>
//       CHECK:   %[[T:.*]] = lazy.transpose %[[Z]] [2, 1, 0] : tensor<2x3x4xf32>
//       CHECK:   return %[[R]], %[[B]], %[[Z]], %[[T]]
func.func @compose_chains(%x: tensor<6xf32>, %y: tensor<3xf32>, %z: tensor<2x3x4xf32>) -> (tensor<3x2xf32>, tensor<5x2x3xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %r0 = lazy.reshape %x to [2, 3] : tensor<6xf32>
  %r1 = lazy.reshape %r0 to [3, 2] : tensor<2x3xf32>
  %b0 = lazy.broadcast %y to [2, 3] : tensor<3xf32>
  %b1 = lazy.broadcast %b0 to [5, 2, 3] : tensor<2x3xf32>
  %t0 = lazy.transpose %z [1, 2, 0] : tensor<2x3x4xf32>
  %t1 = lazy.transpose %t0 [2, 0, 1] : tensor<3x4x2xf32>
  %u0 = lazy.transpose %z [1, 0, 2] : tensor<2x3x4xf32>
  %u1 = lazy.transpose %u0 [2, 0, 1] : tensor<3x2x4xf32>
  return %r1, %b1, %t1, %u1 : tensor<3x2xf32>, tensor<5x2x3xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// -----

// Shape ops on constants fold to constants.
// CHECK-LABEL: func.func @fold_shape_constants
//   CHECK-DAG:   lazy.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
//   CHECK-DAG:   lazy.constant dense<1.500000e+00> : tensor<3x4xf32>
//   CHECK-DAG:   lazy.constant dense<1.500000e+00> : tensor<2x3xf32>
//   CHECK-NOT:   lazy.broadcast
//   CHECK-NOT:   lazy.transpose
func.func @fold_shape_constants() -> (tensor<2x2xi32>, tensor<3x4xf32>, tensor<2x3xf32>) {
  %c = lazy.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %r = lazy.reshape %c to [2, 2] : tensor<4xi32>
  %s = lazy.constant dense<1.5> : tensor<4xf32>
  %b = lazy.broadcast %s to [3, 4] : tensor<4xf32>
  %t = lazy.constant dense<1.5> : tensor<3x2xf32>
  %tt = lazy.transpose %t [1, 0] : tensor<3x2xf32>
  return %r, %b, %tt : tensor<2x2xi32>, tensor<3x4xf32>, tensor<2x3xf32>
}

// -----

// The tape's gradients of three slices along axis 0 (each between zeros)
// add up to one concat of the three: the zero pieces split to the other
// side's cuts, and the adds are piece-sized (x + +0.0 stays: it is not x
// for x = -0.0).
// CHECK-LABEL: func.func @sum_of_padded_slices
//  CHECK-SAME:   (%[[A:.*]]: tensor<1x4xf32>, %[[B:.*]]: tensor<1x4xf32>, %[[C:.*]]: tensor<1x4xf32>)
//   CHECK-DAG:   %[[Z:.*]] = lazy.constant dense<0.000000e+00> : tensor<1x4xf32>
//   CHECK-DAG:   %[[SA:.*]] = lazy.add %[[A]], %[[Z]]
//   CHECK-DAG:   %[[SB:.*]] = lazy.add %[[B]], %[[Z]]
//   CHECK-DAG:   %[[SC:.*]] = lazy.add %[[C]], %[[Z]]
//       CHECK:   %[[R:.*]] = lazy.concat %[[SA]], %[[SB]], %[[SC]] axis = 0
//   CHECK-NOT:   lazy.add
//       CHECK:   return %[[R]]
func.func @sum_of_padded_slices(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>, %c: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %z2 = lazy.constant dense<0.0> : tensor<2x4xf32>
  %z1 = lazy.constant dense<0.0> : tensor<1x4xf32>
  %ga = lazy.concat %a, %z2 axis = 0 : tensor<1x4xf32>, tensor<2x4xf32>
  %gb = lazy.concat %z1, %b, %z1 axis = 0 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
  %gc = lazy.concat %z2, %c axis = 0 : tensor<2x4xf32>, tensor<1x4xf32>
  %s = lazy.add %ga, %gb : tensor<3x4xf32>
  %t = lazy.add %s, %gc : tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}

// -----

// A piece that is not a splat constant is not split: the add stays whole.
// CHECK-LABEL: func.func @sum_of_concats_cut_differently
//       CHECK:   lazy.concat
//       CHECK:   lazy.concat
//       CHECK:   lazy.add %{{.*}}, %{{.*}} : tensor<3x4xf32>
func.func @sum_of_concats_cut_differently(%a: tensor<2x4xf32>, %b: tensor<1x4xf32>, %c: tensor<1x4xf32>, %d: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %x = lazy.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<1x4xf32>
  %y = lazy.concat %c, %d axis = 0 : tensor<1x4xf32>, tensor<2x4xf32>
  %s = lazy.add %x, %y : tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}
