// RUN: %numpy-check %s

// Reductions (sum, max, min, mean), matmul and softmax/log_softmax against
// numpy (float64 reference rounded to the output type).
//
// Tolerances (numpy_check's default is rtol=1e-6, atol=1e-6):
// - max/min reductions select an element: exact (rtol=0, atol=0). Integer
//   sums, products and matmuls: exact (numpy_check compares integers exactly).
// - f32 sums and dot products accumulate in f32 in some order: each addition
//   rounds by 2^-24 relative to the running value, so the error grows like
//   sqrt(n) * 2^-24 * (size of the partial sums). Inputs are in [-1, 1):
//   rtol=1e-5, atol=1e-5 for n <= ~65 terms, atol=2e-5 for the 64-term dot
//   products of the 64x64 matmul (partial sums grow like sqrt(n)), atol=1e-4
//   for n = 315 terms. A wrong or missing term changes the result by ~0.1-1,
//   far above these.
// - f32 mean: a sum divided by n, same bounds divided by n (so the sum's
//   tolerance is conservative).
// - f64: rtol=1e-12, atol=1e-12 (same reasoning with 2^-53); the f64 matmul
//   of values in [-100, 100) has partial sums ~1e5, so atol=1e-9 (~K * 1e5 *
//   2^-53 with margin) for results that cancel to near zero; f64 softmax
//   atol=1e-15 (probabilities), log_softmax atol=1e-12 (values up to ~60).
// - f16 reductions and matmul: the accumulator precision is not specified
//   (f16 or wider), so allow f16 accumulation: n terms of |x| <= 1 rounding
//   at up to 2^-11 * |partial sum| each, n = 8: atol=2e-2, rtol=1e-2 (the
//   mean, a sum divided by 8: atol=2e-3).
// - softmax: exp (a few f32 ulp), a sum and a division: rtol=1e-5,
//   atol=1e-7. log_softmax: x - max - log(sum), absolute error about
//   2^-24 * |x - max| plus log's error: rtol=1e-5, atol=1e-5. With large
//   magnitudes exp underflows: atol must cover flushing the results below the
//   smallest normal f32 (1.2e-38) to zero; log_softmax values reach -160,
//   2^-24 * 160 ~ 1e-5 absolute, so atol=5e-5.

// -----

// f32 reduce_sum over each axis of a rank-3 tensor, keep_dims off and on.
// ARG: x f32 [5, 7, 9]
// OUT: x.astype(np.float64).sum(axis=0) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=1) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=2) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=0, keepdims=True) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=1, keepdims=True) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=2, keepdims=True) ; rtol=1e-5, atol=1e-5
func.func @sum_each_axis(%x: tensor<5x7x9xf32>) -> (tensor<7x9xf32>, tensor<5x9xf32>, tensor<5x7xf32>, tensor<1x7x9xf32>, tensor<5x1x9xf32>, tensor<5x7x1xf32>) {
  %0 = lazy.reduce_sum %x [0] : tensor<5x7x9xf32>
  %1 = lazy.reduce_sum %x [1] : tensor<5x7x9xf32>
  %2 = lazy.reduce_sum %x [2] : tensor<5x7x9xf32>
  %3 = lazy.reduce_sum %x [0] keep_dims : tensor<5x7x9xf32>
  %4 = lazy.reduce_sum %x [1] keep_dims : tensor<5x7x9xf32>
  %5 = lazy.reduce_sum %x [2] keep_dims : tensor<5x7x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<7x9xf32>, tensor<5x9xf32>, tensor<5x7xf32>, tensor<1x7x9xf32>, tensor<5x1x9xf32>, tensor<5x7x1xf32>
}

// -----

// f32 reduce_sum over several axes (pairs, all three to rank 0, all three kept) and the empty axis list (identity).
// ARG: x f32 [5, 7, 9]
// OUT: x.astype(np.float64).sum(axis=(0, 1)) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=(0, 2), keepdims=True) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=(1, 2)) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum() ; rtol=1e-5, atol=1e-4
// OUT: x.astype(np.float64).sum(keepdims=True) ; rtol=1e-5, atol=1e-4
// OUT: x ; rtol=0, atol=0
func.func @sum_several_axes(%x: tensor<5x7x9xf32>) -> (tensor<9xf32>, tensor<1x7x1xf32>, tensor<5xf32>, tensor<f32>, tensor<1x1x1xf32>, tensor<5x7x9xf32>) {
  %0 = lazy.reduce_sum %x [0, 1] : tensor<5x7x9xf32>
  %1 = lazy.reduce_sum %x [0, 2] keep_dims : tensor<5x7x9xf32>
  %2 = lazy.reduce_sum %x [1, 2] : tensor<5x7x9xf32>
  %3 = lazy.reduce_sum %x [0, 1, 2] : tensor<5x7x9xf32>
  %4 = lazy.reduce_sum %x [0, 1, 2] keep_dims : tensor<5x7x9xf32>
  %5 = lazy.reduce_sum %x [] : tensor<5x7x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<9xf32>, tensor<1x7x1xf32>, tensor<5xf32>, tensor<f32>, tensor<1x1x1xf32>, tensor<5x7x9xf32>
}

// -----

// f32 reduce_max over each axis and several axes, keep_dims off and on: exact.
// ARG: x f32 [5, 7, 9]
// OUT: x.max(axis=0) ; rtol=0, atol=0
// OUT: x.max(axis=1, keepdims=True) ; rtol=0, atol=0
// OUT: x.max(axis=2) ; rtol=0, atol=0
// OUT: x.max(axis=(0, 2)) ; rtol=0, atol=0
// OUT: x.max(axis=(1, 2), keepdims=True) ; rtol=0, atol=0
// OUT: x.max() ; rtol=0, atol=0
func.func @max_axes(%x: tensor<5x7x9xf32>) -> (tensor<7x9xf32>, tensor<5x1x9xf32>, tensor<5x7xf32>, tensor<7xf32>, tensor<5x1x1xf32>, tensor<f32>) {
  %0 = lazy.reduce_max %x [0] : tensor<5x7x9xf32>
  %1 = lazy.reduce_max %x [1] keep_dims : tensor<5x7x9xf32>
  %2 = lazy.reduce_max %x [2] : tensor<5x7x9xf32>
  %3 = lazy.reduce_max %x [0, 2] : tensor<5x7x9xf32>
  %4 = lazy.reduce_max %x [1, 2] keep_dims : tensor<5x7x9xf32>
  %5 = lazy.reduce_max %x [0, 1, 2] : tensor<5x7x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<7x9xf32>, tensor<5x1x9xf32>, tensor<5x7xf32>, tensor<7xf32>, tensor<5x1x1xf32>, tensor<f32>
}

// -----

// f32 reduce_min over each axis and several axes, keep_dims off and on: exact.
// ARG: x f32 [5, 7, 9]
// OUT: x.min(axis=0, keepdims=True) ; rtol=0, atol=0
// OUT: x.min(axis=1) ; rtol=0, atol=0
// OUT: x.min(axis=2, keepdims=True) ; rtol=0, atol=0
// OUT: x.min(axis=(0, 1)) ; rtol=0, atol=0
// OUT: x.min(axis=(0, 2), keepdims=True) ; rtol=0, atol=0
// OUT: x.min(keepdims=True) ; rtol=0, atol=0
func.func @min_axes(%x: tensor<5x7x9xf32>) -> (tensor<1x7x9xf32>, tensor<5x9xf32>, tensor<5x7x1xf32>, tensor<9xf32>, tensor<1x7x1xf32>, tensor<1x1x1xf32>) {
  %0 = lazy.reduce_min %x [0] keep_dims : tensor<5x7x9xf32>
  %1 = lazy.reduce_min %x [1] : tensor<5x7x9xf32>
  %2 = lazy.reduce_min %x [2] keep_dims : tensor<5x7x9xf32>
  %3 = lazy.reduce_min %x [0, 1] : tensor<5x7x9xf32>
  %4 = lazy.reduce_min %x [0, 2] keep_dims : tensor<5x7x9xf32>
  %5 = lazy.reduce_min %x [0, 1, 2] keep_dims : tensor<5x7x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x7x9xf32>, tensor<5x9xf32>, tensor<5x7x1xf32>, tensor<9xf32>, tensor<1x7x1xf32>, tensor<1x1x1xf32>
}

// -----

// f32 reduce_mean over each axis and several axes, keep_dims off and on.
// ARG: x f32 [5, 7, 9]
// OUT: x.astype(np.float64).mean(axis=0) ; rtol=1e-5, atol=1e-6
// OUT: x.astype(np.float64).mean(axis=1, keepdims=True) ; rtol=1e-5, atol=1e-6
// OUT: x.astype(np.float64).mean(axis=2) ; rtol=1e-5, atol=1e-6
// OUT: x.astype(np.float64).mean(axis=(0, 1), keepdims=True) ; rtol=1e-5, atol=1e-6
// OUT: x.astype(np.float64).mean(axis=(1, 2)) ; rtol=1e-5, atol=1e-6
// OUT: x.astype(np.float64).mean() ; rtol=1e-5, atol=1e-6
func.func @mean_axes(%x: tensor<5x7x9xf32>) -> (tensor<7x9xf32>, tensor<5x1x9xf32>, tensor<5x7xf32>, tensor<1x1x9xf32>, tensor<5xf32>, tensor<f32>) {
  %0 = lazy.reduce_mean %x [0] : tensor<5x7x9xf32>
  %1 = lazy.reduce_mean %x [1] keep_dims : tensor<5x7x9xf32>
  %2 = lazy.reduce_mean %x [2] : tensor<5x7x9xf32>
  %3 = lazy.reduce_mean %x [0, 1] keep_dims : tensor<5x7x9xf32>
  %4 = lazy.reduce_mean %x [1, 2] : tensor<5x7x9xf32>
  %5 = lazy.reduce_mean %x [0, 1, 2] : tensor<5x7x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<7x9xf32>, tensor<5x1x9xf32>, tensor<5x7xf32>, tensor<1x1x9xf32>, tensor<5xf32>, tensor<f32>
}

// -----

// i32 reduce_sum, reduce_max, reduce_min over each axis and several axes: exact.
// ARG: x i32 [4, 6, 5] int(-100000, 100000)
// OUT: x.sum(axis=0)
// OUT: x.sum(axis=(1, 2), keepdims=True)
// OUT: x.sum()
// OUT: x.max(axis=1)
// OUT: x.max(axis=(0, 2), keepdims=True)
// OUT: x.min(axis=2)
// OUT: x.min(axis=(0, 1))
// OUT: x.min()
func.func @int_reductions(%x: tensor<4x6x5xi32>) -> (tensor<6x5xi32>, tensor<4x1x1xi32>, tensor<i32>, tensor<4x5xi32>, tensor<1x6x1xi32>, tensor<4x6xi32>, tensor<5xi32>, tensor<i32>) {
  %0 = lazy.reduce_sum %x [0] : tensor<4x6x5xi32>
  %1 = lazy.reduce_sum %x [1, 2] keep_dims : tensor<4x6x5xi32>
  %2 = lazy.reduce_sum %x [0, 1, 2] : tensor<4x6x5xi32>
  %3 = lazy.reduce_max %x [1] : tensor<4x6x5xi32>
  %4 = lazy.reduce_max %x [0, 2] keep_dims : tensor<4x6x5xi32>
  %5 = lazy.reduce_min %x [2] : tensor<4x6x5xi32>
  %6 = lazy.reduce_min %x [0, 1] : tensor<4x6x5xi32>
  %7 = lazy.reduce_min %x [0, 1, 2] : tensor<4x6x5xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6x5xi32>, tensor<4x1x1xi32>, tensor<i32>, tensor<4x5xi32>, tensor<1x6x1xi32>, tensor<4x6xi32>, tensor<5xi32>, tensor<i32>
}

// -----

// i32 max/min reductions reach the extremes; i64 sum beyond the i32 range.
// ARG: m i32 [2, 3] values([[-2147483648, 0, 5], [2147483647, -1, 7]])
// ARG: k i64 [3, 4] int(-3000000000000, 3000000000000)
// OUT: m.max(axis=0)
// OUT: m.min(axis=0)
// OUT: m.max(axis=1)
// OUT: k.sum(axis=0)
// OUT: k.max(axis=1)
// OUT: k.min()
func.func @int_reductions_extremes(%m: tensor<2x3xi32>, %k: tensor<3x4xi64>) -> (tensor<3xi32>, tensor<3xi32>, tensor<2xi32>, tensor<4xi64>, tensor<3xi64>, tensor<i64>) {
  %0 = lazy.reduce_max %m [0] : tensor<2x3xi32>
  %1 = lazy.reduce_min %m [0] : tensor<2x3xi32>
  %2 = lazy.reduce_max %m [1] : tensor<2x3xi32>
  %3 = lazy.reduce_sum %k [0] : tensor<3x4xi64>
  %4 = lazy.reduce_max %k [1] : tensor<3x4xi64>
  %5 = lazy.reduce_min %k [0, 1] : tensor<3x4xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi32>, tensor<3xi32>, tensor<2xi32>, tensor<4xi64>, tensor<3xi64>, tensor<i64>
}

// -----

// reductions along rows whose length is not a multiple of the vector width (67), and down columns.
// ARG: x f32 [3, 67]
// OUT: x.astype(np.float64).sum(axis=1) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64).sum(axis=0) ; rtol=1e-5, atol=1e-5
// OUT: x.max(axis=1) ; rtol=0, atol=0
// OUT: x.min(axis=0) ; rtol=0, atol=0
// OUT: x.astype(np.float64).mean(axis=1) ; rtol=1e-5, atol=1e-6
func.func @reduce_odd_rows(%x: tensor<3x67xf32>) -> (tensor<3xf32>, tensor<67xf32>, tensor<3xf32>, tensor<67xf32>, tensor<3xf32>) {
  %0 = lazy.reduce_sum %x [1] : tensor<3x67xf32>
  %1 = lazy.reduce_sum %x [0] : tensor<3x67xf32>
  %2 = lazy.reduce_max %x [1] : tensor<3x67xf32>
  %3 = lazy.reduce_min %x [0] : tensor<3x67xf32>
  %4 = lazy.reduce_mean %x [1] : tensor<3x67xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<67xf32>, tensor<3xf32>, tensor<67xf32>, tensor<3xf32>
}

// -----

// reduce_max/min propagate NaN (a NaN anywhere in the slice gives NaN) and handle infinities and signed zeros; reduce_sum gives NaN for inf + -inf.
// ARG: x f32 [4, 4] values([[1, nan, 3, -2], [-inf, -1, -5, -inf], [inf, 2, nan, 0], [-0.0, 0.0, -0.0, -0.0]])
// OUT: np.max(x, axis=1) ; rtol=0, atol=0
// OUT: np.min(x, axis=1) ; rtol=0, atol=0
// OUT: np.max(x, axis=0) ; rtol=0, atol=0
// OUT: np.min(x, axis=0) ; rtol=0, atol=0
// OUT: np.max(x) ; rtol=0, atol=0
// OUT: np.array([np.nan, np.nan, np.nan, -np.inf]) ; rtol=0, atol=0
func.func @reduce_nan_inf(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>) {
  %0 = lazy.reduce_max %x [1] : tensor<4x4xf32>
  %1 = lazy.reduce_min %x [1] : tensor<4x4xf32>
  %2 = lazy.reduce_max %x [0] : tensor<4x4xf32>
  %3 = lazy.reduce_min %x [0] : tensor<4x4xf32>
  %4 = lazy.reduce_max %x [0, 1] : tensor<4x4xf32>
  %5 = lazy.reduce_sum %x [0] : tensor<4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>
}

// -----

// f64 reductions at f64 accuracy (would fail if accumulated in f32).
// ARG: x f64 [6, 11] uniform(-1000, 1000)
// OUT: x.sum(axis=1) ; rtol=1e-12, atol=1e-12
// OUT: x.sum() ; rtol=1e-12, atol=1e-12
// OUT: x.mean(axis=0) ; rtol=1e-12, atol=1e-12
// OUT: x.max(axis=0) ; rtol=0, atol=0
// OUT: x.min(axis=1) ; rtol=0, atol=0
func.func @f64_reductions(%x: tensor<6x11xf64>) -> (tensor<6xf64>, tensor<f64>, tensor<11xf64>, tensor<11xf64>, tensor<6xf64>) {
  %0 = lazy.reduce_sum %x [1] : tensor<6x11xf64>
  %1 = lazy.reduce_sum %x [0, 1] : tensor<6x11xf64>
  %2 = lazy.reduce_mean %x [0] : tensor<6x11xf64>
  %3 = lazy.reduce_max %x [0] : tensor<6x11xf64>
  %4 = lazy.reduce_min %x [1] : tensor<6x11xf64>
  return %0, %1, %2, %3, %4 : tensor<6xf64>, tensor<f64>, tensor<11xf64>, tensor<11xf64>, tensor<6xf64>
}

// -----

// f16 and bf16 reductions: max/min exact; sum/mean within f16 accumulation error (8 terms).
// ARG: h f16 [3, 8]
// ARG: b bf16 [3, 8]
// OUT: h.max(axis=1) ; rtol=0, atol=0
// OUT: h.min(axis=0) ; rtol=0, atol=0
// OUT: h.astype(np.float64).sum(axis=1) ; rtol=1e-2, atol=2e-2
// OUT: h.astype(np.float64).mean(axis=1) ; rtol=1e-2, atol=2e-3
// OUT: b.max(axis=1) ; rtol=0, atol=0
// OUT: b.min(axis=0) ; rtol=0, atol=0
func.func @half_reductions(%h: tensor<3x8xf16>, %b: tensor<3x8xbf16>) -> (tensor<3xf16>, tensor<8xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xbf16>, tensor<8xbf16>) {
  %0 = lazy.reduce_max %h [1] : tensor<3x8xf16>
  %1 = lazy.reduce_min %h [0] : tensor<3x8xf16>
  %2 = lazy.reduce_sum %h [1] : tensor<3x8xf16>
  %3 = lazy.reduce_mean %h [1] : tensor<3x8xf16>
  %4 = lazy.reduce_max %b [1] : tensor<3x8xbf16>
  %5 = lazy.reduce_min %b [0] : tensor<3x8xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf16>, tensor<8xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xbf16>, tensor<8xbf16>
}

// -----

// matmul rank 2 with shapes that are not multiples of vector widths: 7x13 @ 13x5 and 33x65 @ 65x17.
// ARG: a f32 [7, 13]
// ARG: b f32 [13, 5]
// ARG: c f32 [33, 65]
// ARG: d f32 [65, 17]
// OUT: a.astype(np.float64) @ b ; rtol=1e-5, atol=1e-5
// OUT: c.astype(np.float64) @ d ; rtol=1e-5, atol=1e-5
func.func @matmul_odd(%a: tensor<7x13xf32>, %b: tensor<13x5xf32>, %c: tensor<33x65xf32>, %d: tensor<65x17xf32>) -> (tensor<7x5xf32>, tensor<33x17xf32>) {
  %0 = lazy.matmul %a, %b : tensor<7x13xf32>, tensor<13x5xf32>
  %1 = lazy.matmul %c, %d : tensor<33x65xf32>, tensor<65x17xf32>
  return %0, %1 : tensor<7x5xf32>, tensor<33x17xf32>
}

// -----

// matmul degenerate shapes: 1xK @ Kx1 (dot product), Mx1 @ 1xN (outer product), 1x1 @ 1x1, 1xK @ KxN.
// ARG: a f32 [1, 37]
// ARG: b f32 [37, 1]
// ARG: c f32 [6, 1]
// ARG: d f32 [1, 9]
// ARG: e f32 [37, 10]
// OUT: a.astype(np.float64) @ b ; rtol=1e-5, atol=1e-5
// OUT: c.astype(np.float64) @ d ; rtol=0, atol=0
// OUT: c[:1].astype(np.float64) @ d[:, :1] ; rtol=0, atol=0
// OUT: a.astype(np.float64) @ e ; rtol=1e-5, atol=1e-5
func.func @matmul_degenerate(%a: tensor<1x37xf32>, %b: tensor<37x1xf32>, %c: tensor<6x1xf32>, %d: tensor<1x9xf32>, %e: tensor<37x10xf32>) -> (tensor<1x1xf32>, tensor<6x9xf32>, tensor<1x1xf32>, tensor<1x10xf32>) {
  %0 = lazy.matmul %a, %b : tensor<1x37xf32>, tensor<37x1xf32>
  %1 = lazy.matmul %c, %d : tensor<6x1xf32>, tensor<1x9xf32>
  %c1 = lazy.slice %c [0, 0] to [1, 1] step [1, 1] : tensor<6x1xf32>
  %d1 = lazy.slice %d [0, 0] to [1, 1] step [1, 1] : tensor<1x9xf32>
  %2 = lazy.matmul %c1, %d1 : tensor<1x1xf32>, tensor<1x1xf32>
  %3 = lazy.matmul %a, %e : tensor<1x37xf32>, tensor<37x10xf32>
  return %0, %1, %2, %3 : tensor<1x1xf32>, tensor<6x9xf32>, tensor<1x1xf32>, tensor<1x10xf32>
}

// -----

// matmul of a square 64x64 (full vector tiles) and of transposed (non-contiguous) operands.
// ARG: a f32 [64, 64]
// ARG: b f32 [64, 64]
// ARG: c f32 [9, 6]
// ARG: d f32 [11, 9]
// OUT: a.astype(np.float64) @ b ; rtol=1e-5, atol=2e-5
// OUT: c.T.astype(np.float64) @ d.T ; rtol=1e-5, atol=1e-5
func.func @matmul_square_transposed(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<9x6xf32>, %d: tensor<11x9xf32>) -> (tensor<64x64xf32>, tensor<6x11xf32>) {
  %0 = lazy.matmul %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
  %ct = lazy.transpose %c [1, 0] : tensor<9x6xf32>
  %dt = lazy.transpose %d [1, 0] : tensor<11x9xf32>
  %1 = lazy.matmul %ct, %dt : tensor<6x9xf32>, tensor<9x11xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<6x11xf32>
}

// -----

// Epilogues computed over their products (lazy-cpu-tile-and-vectorize): a
// bias and a ReLU added in place to a GEMM's tiles, which the GEMM writes
// into the result's buffer; an input projection x W^T + b whose transposed
// weight is copied in 16 x 16 squares (lazy-fold-transpose-into-matmul)
// for the runtime's few-row kernel; a GEMM that is also returned keeps its
// own buffer beside its epilogue's; and a convolution with its bias.
// ARG: x f32 [512, 64]
// ARG: w f32 [64, 256]
// ARG: v f32 [512, 64]
// ARG: b f32 [256]
// ARG: c f32 [512]
// ARG: i f32 [2, 16, 10, 10]
// ARG: k f32 [32, 16, 3, 3]
// ARG: kb f32 [32]
// OUT: np.maximum(x.astype(np.float64) @ w + b, 0) ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64) @ v.T + c ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64) @ w * 2 ; rtol=1e-5, atol=1e-5
// OUT: x.astype(np.float64) @ w ; rtol=1e-5, atol=1e-5
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(i.astype(np.float64), (3, 3), axis=(2, 3)), k.astype(np.float64)) + kb[None, :, None, None] ; rtol=1e-5, atol=5e-5
func.func @epilogues_over_products(%x: tensor<512x64xf32>, %w: tensor<64x256xf32>, %v: tensor<512x64xf32>, %b: tensor<256xf32>, %c: tensor<512xf32>, %i: tensor<2x16x10x10xf32>, %k: tensor<32x16x3x3xf32>, %kb: tensor<32xf32>) -> (tensor<512x256xf32>, tensor<512x512xf32>, tensor<512x256xf32>, tensor<512x256xf32>, tensor<2x32x8x8xf32>) {
  %p = lazy.matmul %x, %w : tensor<512x64xf32>, tensor<64x256xf32>
  %bb = lazy.broadcast %b to [512, 256] : tensor<256xf32>
  %s = lazy.add %p, %bb : tensor<512x256xf32>
  %zero = lazy.constant dense<0.0> : tensor<512x256xf32>
  %0 = lazy.max %s, %zero : tensor<512x256xf32>
  %vt = lazy.transpose %v [1, 0] : tensor<512x64xf32>
  %q = lazy.matmul %x, %vt : tensor<512x64xf32>, tensor<64x512xf32>
  %cb = lazy.broadcast %c to [512, 512] : tensor<512xf32>
  %1 = lazy.add %q, %cb : tensor<512x512xf32>
  %r = lazy.matmul %x, %w : tensor<512x64xf32>, tensor<64x256xf32>
  %two = lazy.constant dense<2.0> : tensor<512x256xf32>
  %2 = lazy.mul %r, %two : tensor<512x256xf32>
  %conv = lazy.conv2d %i, %k stride [1, 1] dilation [1, 1] : tensor<2x16x10x10xf32>, tensor<32x16x3x3xf32>
  %kr = lazy.reshape %kb to [1, 32, 1, 1] : tensor<32xf32>
  %kbb = lazy.broadcast %kr to [2, 32, 8, 8] : tensor<1x32x1x1xf32>
  %3 = lazy.add %conv, %kbb : tensor<2x32x8x8xf32>
  return %0, %1, %2, %r, %3 : tensor<512x256xf32>, tensor<512x512xf32>, tensor<512x256xf32>, tensor<512x256xf32>, tensor<2x32x8x8xf32>
}

// -----

// Transposed operands read in place by BLAS (lazy-fold-transpose-into-matmul
// and the runtime's transpose flags), large enough to be split over threads,
// with the transposed matrix also returned in the second function, and in
// f64; one operand transposed at a time, as backward passes do.
// ARG: x f32 [70, 130]
// ARG: g f32 [70, 33]
// ARG: w f32 [29, 130]
// ARG: y f64 [40, 25]
// ARG: v f64 [40, 12]
// OUT: x.T.astype(np.float64) @ g ; rtol=1e-5, atol=1e-4
// OUT: x.astype(np.float64) @ w.T ; rtol=1e-5, atol=1e-4
// OUT: y.T @ v ; rtol=1e-12, atol=1e-12
// OUT: y.T
func.func @matmul_transposed_operands(%x: tensor<70x130xf32>, %g: tensor<70x33xf32>, %w: tensor<29x130xf32>, %y: tensor<40x25xf64>, %v: tensor<40x12xf64>) -> (tensor<130x33xf32>, tensor<70x29xf32>, tensor<25x12xf64>, tensor<25x40xf64>) {
  %xt = lazy.transpose %x [1, 0] : tensor<70x130xf32>
  %0 = lazy.matmul %xt, %g : tensor<130x70xf32>, tensor<70x33xf32>
  %wt = lazy.transpose %w [1, 0] : tensor<29x130xf32>
  %1 = lazy.matmul %x, %wt : tensor<70x130xf32>, tensor<130x29xf32>
  %yt = lazy.transpose %y [1, 0] : tensor<40x25xf64>
  %2 = lazy.matmul %yt, %v : tensor<25x40xf64>, tensor<40x12xf64>
  return %0, %1, %2, %yt : tensor<130x33xf32>, tensor<70x29xf32>, tensor<25x12xf64>, tensor<25x40xf64>
}

// -----

// matmul rank 3 (batched) and rank 4 (two batch dims).
// ARG: a f32 [3, 7, 13]
// ARG: b f32 [3, 13, 5]
// ARG: c f32 [2, 3, 4, 5]
// ARG: d f32 [2, 3, 5, 6]
// OUT: a.astype(np.float64) @ b ; rtol=1e-5, atol=1e-5
// OUT: c.astype(np.float64) @ d ; rtol=1e-5, atol=1e-5
func.func @matmul_batched(%a: tensor<3x7x13xf32>, %b: tensor<3x13x5xf32>, %c: tensor<2x3x4x5xf32>, %d: tensor<2x3x5x6xf32>) -> (tensor<3x7x5xf32>, tensor<2x3x4x6xf32>) {
  %0 = lazy.matmul %a, %b : tensor<3x7x13xf32>, tensor<3x13x5xf32>
  %1 = lazy.matmul %c, %d : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>
  return %0, %1 : tensor<3x7x5xf32>, tensor<2x3x4x6xf32>
}

// -----

// matmul i32 (rank 2 and batched) and i64: exact.
// ARG: a i32 [6, 9] int(-100, 100)
// ARG: b i32 [9, 7] int(-100, 100)
// ARG: c i32 [2, 3, 5] int(-1000, 1000)
// ARG: d i32 [2, 5, 4] int(-1000, 1000)
// ARG: k i64 [3, 4] int(-1000000, 1000000)
// ARG: l i64 [4, 2] int(-1000000, 1000000)
// OUT: a.astype(np.int64) @ b
// OUT: c.astype(np.int64) @ d
// OUT: k @ l
func.func @matmul_int(%a: tensor<6x9xi32>, %b: tensor<9x7xi32>, %c: tensor<2x3x5xi32>, %d: tensor<2x5x4xi32>, %k: tensor<3x4xi64>, %l: tensor<4x2xi64>) -> (tensor<6x7xi32>, tensor<2x3x4xi32>, tensor<3x2xi64>) {
  %0 = lazy.matmul %a, %b : tensor<6x9xi32>, tensor<9x7xi32>
  %1 = lazy.matmul %c, %d : tensor<2x3x5xi32>, tensor<2x5x4xi32>
  %2 = lazy.matmul %k, %l : tensor<3x4xi64>, tensor<4x2xi64>
  return %0, %1, %2 : tensor<6x7xi32>, tensor<2x3x4xi32>, tensor<3x2xi64>
}

// -----

// matmul f64 at f64 accuracy; f16 within f16 accumulation error (K = 8).
// ARG: a f64 [5, 12] uniform(-100, 100)
// ARG: b f64 [12, 3] uniform(-100, 100)
// ARG: h f16 [4, 8]
// ARG: g f16 [8, 6]
// OUT: a @ b ; rtol=1e-12, atol=1e-9
// OUT: h.astype(np.float64) @ g ; rtol=1e-2, atol=2e-2
func.func @matmul_f64_f16(%a: tensor<5x12xf64>, %b: tensor<12x3xf64>, %h: tensor<4x8xf16>, %g: tensor<8x6xf16>) -> (tensor<5x3xf64>, tensor<4x6xf16>) {
  %0 = lazy.matmul %a, %b : tensor<5x12xf64>, tensor<12x3xf64>
  %1 = lazy.matmul %h, %g : tensor<4x8xf16>, tensor<8x6xf16>
  return %0, %1 : tensor<5x3xf64>, tensor<4x6xf16>
}

// -----

// matmul with a zero-size contraction (K = 0) gives zeros; zero-size M gives an empty result.
// ARG: a f32 [3, 0]
// ARG: b f32 [0, 4]
// ARG: c f32 [0, 5]
// ARG: d f32 [5, 2]
// OUT: np.zeros((3, 4)) ; rtol=0, atol=0
// OUT: np.zeros((0, 2)) ; rtol=0, atol=0
func.func @matmul_zero_size(%a: tensor<3x0xf32>, %b: tensor<0x4xf32>, %c: tensor<0x5xf32>, %d: tensor<5x2xf32>) -> (tensor<3x4xf32>, tensor<0x2xf32>) {
  %0 = lazy.matmul %a, %b : tensor<3x0xf32>, tensor<0x4xf32>
  %1 = lazy.matmul %c, %d : tensor<0x5xf32>, tensor<5x2xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<0x2xf32>
}

// -----

// softmax over each axis of a rank-3 tensor.
// ARG: x f32 [3, 4, 5] uniform(-5, 5)
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(x.astype(np.float64) - x.max(axis=0, keepdims=True)), 0) ; rtol=1e-5, atol=1e-7
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True)), 1) ; rtol=1e-5, atol=1e-7
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(x.astype(np.float64) - x.max(axis=2, keepdims=True)), 2) ; rtol=1e-5, atol=1e-7
func.func @softmax_axes(%x: tensor<3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %0 = lazy.softmax %x, axis = 0 : tensor<3x4x5xf32>
  %1 = lazy.softmax %x, axis = 1 : tensor<3x4x5xf32>
  %2 = lazy.softmax %x, axis = 2 : tensor<3x4x5xf32>
  return %0, %1, %2 : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>
}

// -----

// log_softmax over each axis of a rank-3 tensor.
// ARG: x f32 [3, 4, 5] uniform(-5, 5)
// OUT: (lambda y, a: y - np.log(np.exp(y - y.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True)) - y.max(axis=a, keepdims=True))(x.astype(np.float64), 0) ; rtol=1e-5, atol=1e-5
// OUT: (lambda y, a: y - np.log(np.exp(y - y.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True)) - y.max(axis=a, keepdims=True))(x.astype(np.float64), 1) ; rtol=1e-5, atol=1e-5
// OUT: (lambda y, a: y - np.log(np.exp(y - y.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True)) - y.max(axis=a, keepdims=True))(x.astype(np.float64), 2) ; rtol=1e-5, atol=1e-5
func.func @log_softmax_axes(%x: tensor<3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %0 = lazy.log_softmax %x, axis = 0 : tensor<3x4x5xf32>
  %1 = lazy.log_softmax %x, axis = 1 : tensor<3x4x5xf32>
  %2 = lazy.log_softmax %x, axis = 2 : tensor<3x4x5xf32>
  return %0, %1, %2 : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>
}

// -----

// softmax/log_softmax with large magnitudes (uniform(-80, 80), and +-100 offsets where a naive exp overflows f32) are stable: no inf or NaN.
// ARG: x f32 [4, 6, 5] uniform(-80, 80)
// ARG: y f32 [3, 7] uniform(95, 110)
// ARG: z f32 [3, 7] uniform(-110, -95)
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(x.astype(np.float64) - x.max(axis=2, keepdims=True)), 2) ; rtol=1e-5, atol=1.2e-38
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(x.astype(np.float64) - x.max(axis=0, keepdims=True)), 0) ; rtol=1e-5, atol=1.2e-38
// OUT: (lambda v, a: v - np.log(np.exp(v - v.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True)) - v.max(axis=a, keepdims=True))(x.astype(np.float64), 1) ; rtol=1e-5, atol=5e-5
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(y.astype(np.float64) - y.max(axis=1, keepdims=True)), 1) ; rtol=1e-5, atol=1e-7
// OUT: (lambda v, a: v - np.log(np.exp(v - v.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True)) - v.max(axis=a, keepdims=True))(z.astype(np.float64), 1) ; rtol=1e-5, atol=2e-5
func.func @softmax_large(%x: tensor<4x6x5xf32>, %y: tensor<3x7xf32>, %z: tensor<3x7xf32>) -> (tensor<4x6x5xf32>, tensor<4x6x5xf32>, tensor<4x6x5xf32>, tensor<3x7xf32>, tensor<3x7xf32>) {
  %0 = lazy.softmax %x, axis = 2 : tensor<4x6x5xf32>
  %1 = lazy.softmax %x, axis = 0 : tensor<4x6x5xf32>
  %2 = lazy.log_softmax %x, axis = 1 : tensor<4x6x5xf32>
  %3 = lazy.softmax %y, axis = 1 : tensor<3x7xf32>
  %4 = lazy.log_softmax %z, axis = 1 : tensor<3x7xf32>
  return %0, %1, %2, %3, %4 : tensor<4x6x5xf32>, tensor<4x6x5xf32>, tensor<4x6x5xf32>, tensor<3x7xf32>, tensor<3x7xf32>
}

// -----

// softmax/log_softmax in f64 (f64 accuracy) and along a length-67 row (vector tail).
// ARG: d f64 [4, 9] uniform(-30, 30)
// ARG: x f32 [2, 67] uniform(-5, 5)
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(d - d.max(axis=1, keepdims=True)), 1) ; rtol=1e-12, atol=1e-15
// OUT: (lambda v, a: v - np.log(np.exp(v - v.max(axis=a, keepdims=True)).sum(axis=a, keepdims=True)) - v.max(axis=a, keepdims=True))(d, 0) ; rtol=1e-12, atol=1e-12
// OUT: (lambda e, a: e / e.sum(axis=a, keepdims=True))(np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True)), 1) ; rtol=1e-5, atol=1e-7
func.func @softmax_f64_tail(%d: tensor<4x9xf64>, %x: tensor<2x67xf32>) -> (tensor<4x9xf64>, tensor<4x9xf64>, tensor<2x67xf32>) {
  %0 = lazy.softmax %d, axis = 1 : tensor<4x9xf64>
  %1 = lazy.log_softmax %d, axis = 0 : tensor<4x9xf64>
  %2 = lazy.softmax %x, axis = 1 : tensor<2x67xf32>
  return %0, %1, %2 : tensor<4x9xf64>, tensor<4x9xf64>, tensor<2x67xf32>
}

// -----

// A bf16 product of 256 terms accumulates in f32 and rounds once
// (lazy-cpu-widen-narrow-products): within the result's bf16 rounding
// (2^-9 relative: rtol=4e-3) and atol=1e-2 for sums that cancel. With a
// bf16 accumulator each of the 256 additions rounded at 2^-9 of a partial
// sum of size ~5: errors of ~0.1, far above these.
// ARG: a bf16 [16, 256]
// ARG: b bf16 [256, 8]
// OUT: a.astype(np.float64) @ b.astype(np.float64) ; rtol=4e-3, atol=1e-2
func.func @bf16_product_accumulates_in_f32(%a: tensor<16x256xbf16>, %b: tensor<256x8xbf16>) -> tensor<16x8xbf16> {
  %0 = lazy.matmul %a, %b : tensor<16x256xbf16>, tensor<256x8xbf16>
  return %0 : tensor<16x8xbf16>
}
