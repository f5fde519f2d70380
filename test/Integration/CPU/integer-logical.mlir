// RUN: %numpy-check %s

// floor_div and mod against numpy's floor_divide and mod (Python's // and %):
// the quotient rounds toward negative infinity, the remainder takes the
// divisor's sign. Integer division by zero gives 0, as numpy does (without
// its warning); MIN // -1 wraps to MIN. Floats follow numpy's divmod step by
// step, in f32 for f32 and f16 (rounded once), so they are exact
// (rtol=0, atol=0); NaNs compare equal.

// -----

// i32 with every sign combination, zero divisors and MIN // -1.
// ARG: a i32 [12] values([7, -7, 7, -7, 0, 5, -5, 6, -2147483648, -2147483648, 2147483647, 3])
// ARG: b i32 [12] values([2, 2, -2, -2, 3, 0, 0, 3, -1, 7, -2, 1])
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))()
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))()
func.func @i32_special(%a: tensor<12xi32>, %b: tensor<12xi32>) -> (tensor<12xi32>, tensor<12xi32>) {
  %0 = lazy.floor_div %a, %b : tensor<12xi32>
  %1 = lazy.mod %a, %b : tensor<12xi32>
  return %0, %1 : tensor<12xi32>, tensor<12xi32>
}

// -----

// i32 random, with zero divisors among them; odd size for vector tails.
// ARG: a i32 [7, 19] int(-50, 50)
// ARG: b i32 [7, 19] int(-6, 6)
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))()
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))()
func.func @i32_random(%a: tensor<7x19xi32>, %b: tensor<7x19xi32>) -> (tensor<7x19xi32>, tensor<7x19xi32>) {
  %0 = lazy.floor_div %a, %b : tensor<7x19xi32>
  %1 = lazy.mod %a, %b : tensor<7x19xi32>
  return %0, %1 : tensor<7x19xi32>, tensor<7x19xi32>
}

// -----

// i64 random.
// ARG: a i64 [33] int(-1000, 1000)
// ARG: b i64 [33] int(-9, 9)
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))()
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))()
func.func @i64_random(%a: tensor<33xi64>, %b: tensor<33xi64>) -> (tensor<33xi64>, tensor<33xi64>) {
  %0 = lazy.floor_div %a, %b : tensor<33xi64>
  %1 = lazy.mod %a, %b : tensor<33xi64>
  return %0, %1 : tensor<33xi64>, tensor<33xi64>
}

// -----

// f32 random: exact against numpy's float32 floor_divide and mod.
// ARG: a f32 [5, 23] uniform(-100, 100)
// ARG: b f32 [5, 23] uniform(-7, 7)
// OUT: np.floor_divide(a, b) ; rtol=0, atol=0
// OUT: np.mod(a, b) ; rtol=0, atol=0
func.func @f32_random(%a: tensor<5x23xf32>, %b: tensor<5x23xf32>) -> (tensor<5x23xf32>, tensor<5x23xf32>) {
  %0 = lazy.floor_div %a, %b : tensor<5x23xf32>
  %1 = lazy.mod %a, %b : tensor<5x23xf32>
  return %0, %1 : tensor<5x23xf32>, tensor<5x23xf32>
}

// -----

// f32 special values: signed zeros, zero divisors, 1 // 0.1 (9, not 10),
// exact multiples, NaN and infinities.
// ARG: a f32 [14] values([1, 7.5, -7.5, 7.5, 0, -0.0, 3, -3, 0, 6, nan, inf, 1, 2])
// ARG: b f32 [14] values([0.1, 2, 2, -2, 5, 5, 0, 0, 0, 3, 2, 2, inf, nan])
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))() ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))() ; rtol=0, atol=0
func.func @f32_special(%a: tensor<14xf32>, %b: tensor<14xf32>) -> (tensor<14xf32>, tensor<14xf32>) {
  %0 = lazy.floor_div %a, %b : tensor<14xf32>
  %1 = lazy.mod %a, %b : tensor<14xf32>
  return %0, %1 : tensor<14xf32>, tensor<14xf32>
}

// -----

// f64 random.
// ARG: a f64 [41] uniform(-1000, 1000)
// ARG: b f64 [41] uniform(-3, 3)
// OUT: np.floor_divide(a, b) ; rtol=0, atol=0
// OUT: np.mod(a, b) ; rtol=0, atol=0
func.func @f64_random(%a: tensor<41xf64>, %b: tensor<41xf64>) -> (tensor<41xf64>, tensor<41xf64>) {
  %0 = lazy.floor_div %a, %b : tensor<41xf64>
  %1 = lazy.mod %a, %b : tensor<41xf64>
  return %0, %1 : tensor<41xf64>, tensor<41xf64>
}

// -----

// f16 computes in f32 and rounds once, as numpy's half floor_divide does.
// ARG: a f16 [29] uniform(-60, 60)
// ARG: b f16 [29] uniform(-5, 5)
// OUT: np.floor_divide(a, b) ; rtol=0, atol=0
// OUT: np.mod(a, b) ; rtol=0, atol=0
func.func @f16_random(%a: tensor<29xf16>, %b: tensor<29xf16>) -> (tensor<29xf16>, tensor<29xf16>) {
  %0 = lazy.floor_div %a, %b : tensor<29xf16>
  %1 = lazy.mod %a, %b : tensor<29xf16>
  return %0, %1 : tensor<29xf16>, tensor<29xf16>
}
