// REQUIRES: avx512
// RUN: %numpy-check %s

// On CPUs with AVX-512 the JIT scales exp by 2^n with vscalefps
// (lazy-math-approximation's scale-in-hardware): results past ln(FLT_MAX) =
// 88.7228 overflow to inf, results below FLT_MIN (x < -87.34) are rounded
// subnormals rather than 0 (within 2 subnormal units), 0 below -103.97, and
// NaN, +-inf and +-0 are IEEE's. A length that is not a multiple of 16
// lanes pads its last register; a scalar (the reduction's epilogue) fills
// one.

// ARG: x f32 [21] values([nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 88.72, 88.7228, 88.73, 89.5, 1e30, -87.3, -87.5, -90.0, -95.0, -100.0, -103.0, -104.0, -120.0, -1e30])
// OUT: np.exp(x.astype(np.float64)) ; rtol=1e-6, atol=3e-45
func.func @exp_edges(%x: tensor<21xf32>) -> tensor<21xf32> {
  %0 = lazy.exp %x : tensor<21xf32>
  return %0 : tensor<21xf32>
}

// -----

// Each row of 131 (two full vectors of 64 and a remainder of 3), scaled by
// its largest element (the difference rounded to f32 in the reference too),
// through the same polynomial as above.
// ARG: x f32 [7, 131] uniform(-100, 100)
// OUT: np.exp((x - x.max(axis=1, keepdims=True)).astype(np.float64)) ; rtol=1e-6, atol=3e-45
func.func @exp_rows(%x: tensor<7x131xf32>) -> tensor<7x131xf32> {
  %m = lazy.reduce_max %x [1] keep_dims : tensor<7x131xf32>
  %mb = lazy.broadcast %m to [7, 131] : tensor<7x1xf32>
  %d = lazy.sub %x, %mb : tensor<7x131xf32>
  %0 = lazy.exp %d : tensor<7x131xf32>
  return %0 : tensor<7x131xf32>
}
