// RUN: %numpy-check %s

// Gather, scatter_add, argmax/argmin and cumsum against numpy. Gathers and
// positions are exact; sums compare at rtol=1e-6 (f32, few terms).

// -----

// gather along the last and the first axis, negative and out-of-range indices (clamped), f32 and i32 inputs, i64 and i32 indices.
// ARG: x f32 [4, 8]
// ARG: i i64 [4, 5] int(-8, 7)
// ARG: j i32 [6, 8] int(-7, 6)
// ARG: n i32 [3, 8]
// OUT: np.take_along_axis(x, np.where(i < 0, i + 8, i), axis=1) ; rtol=0, atol=0
// OUT: np.take_along_axis(x, np.clip(np.where(j < 0, j + 4, j), 0, 3), axis=0) ; rtol=0, atol=0
// OUT: np.take_along_axis(n, np.array([[0, 1, 2, 0, 1, 2, 0, 1]] * 3), axis=0)
func.func @gather(%x: tensor<4x8xf32>, %i: tensor<4x5xi64>, %j: tensor<6x8xi32>, %n: tensor<3x8xi32>) -> (tensor<4x5xf32>, tensor<6x8xf32>, tensor<3x8xi32>) {
  %0 = lazy.gather %x[%i], axis = 1 : tensor<4x8xf32>, tensor<4x5xi64>
  %1 = lazy.gather %x[%j], axis = 0 : tensor<4x8xf32>, tensor<6x8xi32>
  %k = lazy.constant dense<[[0, 1, 2, 0, 1, 2, 0, 1], [0, 1, 2, 0, 1, 2, 0, 1], [0, 1, 2, 0, 1, 2, 0, 1]]> : tensor<3x8xi64>
  %2 = lazy.gather %n[%k], axis = 0 : tensor<3x8xi32>, tensor<3x8xi64>
  return %0, %1, %2 : tensor<4x5xf32>, tensor<6x8xf32>, tensor<3x8xi32>
}

// -----

// gather of a rank-3 tensor along the middle axis, with elementwise producers and consumers that fuse with it.
// ARG: x f32 [3, 10, 4]
// ARG: i i64 [3, 6, 4] int(0, 9)
// OUT: np.exp(np.take_along_axis(x * 2, i, axis=1)) ; rtol=1e-6, atol=1e-6
func.func @gather_fused(%x: tensor<3x10x4xf32>, %i: tensor<3x6x4xi64>) -> tensor<3x6x4xf32> {
  %two = lazy.constant dense<2.0> : tensor<3x10x4xf32>
  %y = lazy.mul %x, %two : tensor<3x10x4xf32>
  %g = lazy.gather %y[%i], axis = 1 : tensor<3x10x4xf32>, tensor<3x6x4xi64>
  %e = lazy.exp %g : tensor<3x6x4xf32>
  return %e : tensor<3x6x4xf32>
}

// -----

// gather with dynamic sizes.
// ARG: x f32 [5, 7]
// ARG: i i64 [5, 3] int(0, 6)
// OUT: np.take_along_axis(x, i, axis=1) ; rtol=0, atol=0
func.func @gather_dynamic(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>) -> tensor<?x?xf32> {
  %0 = lazy.gather %x[%i], axis = 1 : tensor<?x?xf32>, tensor<?x?xi64>
  return %0 : tensor<?x?xf32>
}

// -----

// scatter_add along each axis with repeated, negative and out-of-range indices, f32 and i64.
// ARG: x f32 [5, 3]
// ARG: i i64 [7, 3] int(-6, 6)
// ARG: u f32 [7, 3]
// ARG: y i64 [2, 4]
// ARG: j i32 [2, 9] int(0, 3)
// ARG: v i64 [2, 9]
// OUT: (lambda r: (np.add.at(r, (np.clip(np.where(i < 0, i + 5, i), 0, 4), np.arange(3)[None, :]), u), r)[1])(x.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: (lambda r: (np.add.at(r, (np.arange(2)[:, None], j), v), r)[1])(y.copy())
func.func @scatter_add(%x: tensor<5x3xf32>, %i: tensor<7x3xi64>, %u: tensor<7x3xf32>, %y: tensor<2x4xi64>, %j: tensor<2x9xi32>, %v: tensor<2x9xi64>) -> (tensor<5x3xf32>, tensor<2x4xi64>) {
  %0 = lazy.scatter_add %x[%i], %u, axis = 0 : tensor<5x3xf32>, tensor<7x3xi64>, tensor<7x3xf32>
  %1 = lazy.scatter_add %y[%j], %v, axis = 1 : tensor<2x4xi64>, tensor<2x9xi32>, tensor<2x9xi64>
  return %0, %1 : tensor<5x3xf32>, tensor<2x4xi64>
}

// -----

// argmax / argmin along each axis, keep_dims, integer ties (first wins) and NaNs (first NaN, as numpy).
// ARG: x f32 [6, 9]
// ARG: n i32 [5, 7] int(-2, 2)
// ARG: v f32 [2, 4] values([1, nan, 3, nan, -inf, -inf, -inf, 2])
// OUT: np.argmax(x, axis=1)
// OUT: np.argmin(x, axis=0)
// OUT: np.argmax(n, axis=0)[None, :]
// OUT: np.argmin(n, axis=1)
// OUT: np.argmax(v, axis=1)
// OUT: np.argmin(v, axis=1)
func.func @arg_reduce(%x: tensor<6x9xf32>, %n: tensor<5x7xi32>, %v: tensor<2x4xf32>) -> (tensor<6xi64>, tensor<9xi64>, tensor<1x7xi64>, tensor<5xi64>, tensor<2xi64>, tensor<2xi64>) {
  %0 = lazy.argmax %x, axis = 1 : tensor<6x9xf32>
  %1 = lazy.argmin %x, axis = 0 : tensor<6x9xf32>
  %2 = lazy.argmax %n, axis = 0 keep_dims : tensor<5x7xi32>
  %3 = lazy.argmin %n, axis = 1 : tensor<5x7xi32>
  %4 = lazy.argmax %v, axis = 1 : tensor<2x4xf32>
  %5 = lazy.argmin %v, axis = 1 : tensor<2x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6xi64>, tensor<9xi64>, tensor<1x7xi64>, tensor<5xi64>, tensor<2xi64>, tensor<2xi64>
}

// -----

// argmax of a long row (vectorizer-sized), and of a dynamic one.
// ARG: x f32 [3, 1000]
// ARG: y f32 [4, 37]
// OUT: np.argmax(x, axis=1)
// OUT: np.argmax(y, axis=1)
func.func @arg_reduce_long(%x: tensor<3x1000xf32>, %y: tensor<?x?xf32>) -> (tensor<3xi64>, tensor<?xi64>) {
  %0 = lazy.argmax %x, axis = 1 : tensor<3x1000xf32>
  %1 = lazy.argmax %y, axis = 1 : tensor<?x?xf32>
  return %0, %1 : tensor<3xi64>, tensor<?xi64>
}

// -----

// cumsum forward and reverse along each axis, f32, f64 and i64.
// ARG: x f32 [4, 6]
// ARG: d f64 [3, 5, 2]
// ARG: n i64 [7]
// OUT: np.cumsum(x.astype(np.float64), axis=1) ; rtol=1e-6, atol=1e-6
// OUT: np.cumsum(x.astype(np.float64)[::-1], axis=0)[::-1] ; rtol=1e-6, atol=1e-6
// OUT: np.cumsum(d, axis=1) ; rtol=1e-12, atol=1e-12
// OUT: np.cumsum(n)
// OUT: np.cumsum(n[::-1])[::-1]
func.func @cumsum(%x: tensor<4x6xf32>, %d: tensor<3x5x2xf64>, %n: tensor<7xi64>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<3x5x2xf64>, tensor<7xi64>, tensor<7xi64>) {
  %0 = lazy.cumsum %x, axis = 1 : tensor<4x6xf32>
  %1 = lazy.cumsum %x, axis = 0 reverse : tensor<4x6xf32>
  %2 = lazy.cumsum %d, axis = 1 : tensor<3x5x2xf64>
  %3 = lazy.cumsum %n, axis = 0 : tensor<7xi64>
  %4 = lazy.cumsum %n, axis = 0 reverse : tensor<7xi64>
  return %0, %1, %2, %3, %4 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<3x5x2xf64>, tensor<7xi64>, tensor<7xi64>
}

// -----

// cumsum with a dynamic size along the summed axis.
// ARG: x f32 [3, 11]
// OUT: np.cumsum(x.astype(np.float64), axis=1) ; rtol=1e-6, atol=1e-6
func.func @cumsum_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = lazy.cumsum %x, axis = 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Was a bug (lazyc-fuzz seed 1716): the vectorized gather read a slice with
// a step (a strided view), which LLVM lowering of vector.gather does not
// take; it now loads lane by lane there.
// ARG: b i1 [16]
// ARG: x f32 [16]
// ARG: i i64 [5] int(0, 4)
// OUT: b[2:15:3][i]
// OUT: x[2:15:3][i] ; rtol=0, atol=0
func.func @gather_from_strided_slice(%b: tensor<16xi1>, %x: tensor<16xf32>, %i: tensor<5xi64>) -> (tensor<5xi1>, tensor<5xf32>) {
  %s = lazy.slice %b [2] to [15] step [3] : tensor<16xi1>
  %0 = lazy.gather %s[%i], axis = 0 : tensor<5xi1>, tensor<5xi64>
  %t = lazy.slice %x [2] to [15] step [3] : tensor<16xf32>
  %1 = lazy.gather %t[%i], axis = 0 : tensor<5xf32>, tensor<5xi64>
  return %0, %1 : tensor<5xi1>, tensor<5xf32>
}

// -----

// Was a bug (lazyc-fuzz seed 20248): gathers from a 2-D slice with a step
// read as if the slice were contiguous when the vectorizer linearized their
// indices; they stay scalar loads now.
// ARG: x i32 [16, 1]
// ARG: y f32 [6, 5]
// ARG: i i64 [3, 1] int(0, 2)
// ARG: j i64 [2, 5] int(0, 1)
// OUT: np.take_along_axis(x[10:15:2], i, axis=0)
// OUT: np.take_along_axis(y[1:6:3], j, axis=0) ; rtol=0, atol=0
func.func @gather_from_strided_rows(%x: tensor<16x1xi32>, %y: tensor<6x5xf32>, %i: tensor<3x1xi64>, %j: tensor<2x5xi64>) -> (tensor<3x1xi32>, tensor<2x5xf32>) {
  %s = lazy.slice %x [10, 0] to [15, 1] step [2, 1] : tensor<16x1xi32>
  %0 = lazy.gather %s[%i], axis = 0 : tensor<3x1xi32>, tensor<3x1xi64>
  %t = lazy.slice %y [1, 0] to [6, 5] step [3, 1] : tensor<6x5xf32>
  %1 = lazy.gather %t[%j], axis = 0 : tensor<2x5xf32>, tensor<2x5xi64>
  return %0, %1 : tensor<3x1xi32>, tensor<2x5xf32>
}
