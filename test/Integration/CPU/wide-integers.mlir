// RUN: %numpy-check %s

// i16, ui16, ui32 and ui64 against numpy's int16, uint16, uint32 and uint64:
// arithmetic wraps around; the unsigned types divide, compare, take max/min,
// raise to powers and convert as unsigned values past the signed range
// (ui64 from 2^63); floats reach the 16-bit types through i32 and wrap like
// numpy's astype on x86, and ui32/ui64 exactly within their range.

// -----

// ui64 past 2^63: wrap-around, unsigned division, order and powers (with
// exponents from 2^63, which math.ipowi would take as negative).
// ARG: a ui64 [6] values([2**64 - 1, 2**63 + 5, 10, 2**63, 3, 6])
// ARG: b ui64 [6] values([1, 2, 3, 2**63 + 1, 2**63 + 7, 2**63])
// OUT: a + b
// OUT: a * b
// OUT: np.floor_divide(a, b)
// OUT: np.mod(a, b)
// OUT: np.maximum(a, b)
// OUT: (a < b).astype(np.int32)
// OUT: np.power(a, b)
func.func @ui64(%a: tensor<6xui64>, %b: tensor<6xui64>) -> (tensor<6xui64>, tensor<6xui64>, tensor<6xui64>, tensor<6xui64>, tensor<6xui64>, tensor<6xi32>, tensor<6xui64>) {
  %0 = lazy.add %a, %b : tensor<6xui64>
  %1 = lazy.mul %a, %b : tensor<6xui64>
  %2 = lazy.floor_div %a, %b : tensor<6xui64>
  %3 = lazy.mod %a, %b : tensor<6xui64>
  %4 = lazy.max %a, %b : tensor<6xui64>
  %5 = lazy.compare lt, %a, %b : tensor<6xui64>
  %6 = lazy.cast %5 : tensor<6xi1> to tensor<6xi32>
  %7 = lazy.pow %a, %b : tensor<6xui64>
  return %0, %1, %2, %3, %4, %6, %7 : tensor<6xui64>, tensor<6xui64>, tensor<6xui64>, tensor<6xui64>, tensor<6xui64>, tensor<6xi32>, tensor<6xui64>
}

// -----

// ui32 random over the whole range, odd size for vector tails; powers with
// exponents from 2^31.
// ARG: a ui32 [5, 13] int(0, 4294967295)
// ARG: b ui32 [5, 13] int(1, 4294967295)
// ARG: e ui32 [4] values([2**31, 2**31 + 5, 3000000000, 7])
// ARG: p ui32 [4] values([3, 3, 2, 5])
// OUT: np.floor_divide(a, b)
// OUT: np.mod(a, b)
// OUT: (a > b).astype(np.int32)
// OUT: np.minimum(a, b)
// OUT: np.power(p, e)
func.func @ui32(%a: tensor<5x13xui32>, %b: tensor<5x13xui32>, %e: tensor<4xui32>, %p: tensor<4xui32>) -> (tensor<5x13xui32>, tensor<5x13xui32>, tensor<5x13xi32>, tensor<5x13xui32>, tensor<4xui32>) {
  %0 = lazy.floor_div %a, %b : tensor<5x13xui32>
  %1 = lazy.mod %a, %b : tensor<5x13xui32>
  %2 = lazy.compare gt, %a, %b : tensor<5x13xui32>
  %3 = lazy.cast %2 : tensor<5x13xi1> to tensor<5x13xi32>
  %4 = lazy.min %a, %b : tensor<5x13xui32>
  %5 = lazy.pow %p, %e : tensor<4xui32>
  return %0, %1, %3, %4, %5 : tensor<5x13xui32>, tensor<5x13xui32>, tensor<5x13xi32>, tensor<5x13xui32>, tensor<4xui32>
}

// -----

// i16 and ui16: wrap-around, signed and unsigned floor division and mod.
// ARG: a i16 [8] values([32767, -32768, -7, 7, 300, -300, 0, -1])
// ARG: b i16 [8] values([1, -1, 2, -2, 300, 7, 5, 3])
// ARG: u ui16 [8] values([65535, 40000, 0, 1, 32768, 7, 65534, 9])
// ARG: v ui16 [8] values([1, 40000, 1, 65535, 3, 0, 2, 65535])
// OUT: a + b
// OUT: a * b
// OUT: np.floor_divide(a, b)
// OUT: np.mod(a, b)
// OUT: u + v
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(u, v))()
// OUT: (u >= v).astype(np.int32)
func.func @sixteen(%a: tensor<8xi16>, %b: tensor<8xi16>, %u: tensor<8xui16>, %v: tensor<8xui16>) -> (tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xui16>, tensor<8xui16>, tensor<8xi32>) {
  %0 = lazy.add %a, %b : tensor<8xi16>
  %1 = lazy.mul %a, %b : tensor<8xi16>
  %2 = lazy.floor_div %a, %b : tensor<8xi16>
  %3 = lazy.mod %a, %b : tensor<8xi16>
  %4 = lazy.add %u, %v : tensor<8xui16>
  %5 = lazy.floor_div %u, %v : tensor<8xui16>
  %6 = lazy.compare ge, %u, %v : tensor<8xui16>
  %7 = lazy.cast %6 : tensor<8xi1> to tensor<8xi32>
  return %0, %1, %2, %3, %4, %5, %7 : tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xui16>, tensor<8xui16>, tensor<8xi32>
}

// -----

// Casts from floats (truncation toward zero; the 16-bit types wrap through
// i32) and between the integers (zero-extended from unsigned types,
// sign-extended from signed ones, truncated to narrower ones).
// ARG: x f64 [4] values([40000.0, -1.0, 65535.0, -40000.0])
// ARG: y f64 [4] values([3e9, 1.5, 0.0, 4294967295.0])
// ARG: z f64 [4] values([1e19, 2.0**63, 12.9, 0.0])
// ARG: s i16 [3] values([-1, -32768, 5])
// ARG: w ui64 [3] values([2**64 - 1, 2**63, 3])
// OUT: x.astype(np.int16)
// OUT: x.astype(np.uint16)
// OUT: y.astype(np.uint32)
// OUT: z.astype(np.uint64)
// OUT: s.astype(np.uint32)
// OUT: w.astype(np.float64)
// OUT: w.astype(np.int64)
// OUT: w.astype(np.uint16)
func.func @casts(%x: tensor<4xf64>, %y: tensor<4xf64>, %z: tensor<4xf64>, %s: tensor<3xi16>, %w: tensor<3xui64>) -> (tensor<4xi16>, tensor<4xui16>, tensor<4xui32>, tensor<4xui64>, tensor<3xui32>, tensor<3xf64>, tensor<3xi64>, tensor<3xui16>) {
  %0 = lazy.cast %x : tensor<4xf64> to tensor<4xi16>
  %1 = lazy.cast %x : tensor<4xf64> to tensor<4xui16>
  %2 = lazy.cast %y : tensor<4xf64> to tensor<4xui32>
  %3 = lazy.cast %z : tensor<4xf64> to tensor<4xui64>
  %4 = lazy.cast %s : tensor<3xi16> to tensor<3xui32>
  %5 = lazy.cast %w : tensor<3xui64> to tensor<3xf64>
  %6 = lazy.cast %w : tensor<3xui64> to tensor<3xi64>
  %7 = lazy.cast %w : tensor<3xui64> to tensor<3xui16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi16>, tensor<4xui16>, tensor<4xui32>, tensor<4xui64>, tensor<3xui32>, tensor<3xf64>, tensor<3xi64>, tensor<3xui16>
}

// -----

// Reductions over unsigned values past the signed range.
// ARG: a ui64 [2, 3] values([[2**63, 1, 2**64 - 1], [5, 0, 2**62]])
// ARG: u ui32 [2, 3] values([[4000000000, 1, 7], [0, 3000000000, 2]])
// OUT: a.max(axis=1)
// OUT: a.min(axis=1)
// OUT: u.max(axis=1)
// OUT: u.min(axis=1)
func.func @reductions(%a: tensor<2x3xui64>, %u: tensor<2x3xui32>) -> (tensor<2xui64>, tensor<2xui64>, tensor<2xui32>, tensor<2xui32>) {
  %0 = lazy.reduce_max %a [1] : tensor<2x3xui64>
  %1 = lazy.reduce_min %a [1] : tensor<2x3xui64>
  %2 = lazy.reduce_max %u [1] : tensor<2x3xui32>
  %3 = lazy.reduce_min %u [1] : tensor<2x3xui32>
  return %0, %1, %2, %3 : tensor<2xui64>, tensor<2xui64>, tensor<2xui32>, tensor<2xui32>
}

// -----

// Bitwise ops and shifts, numpy's: shift amounts of the width or more (or
// negative: read as unsigned) give 0, or -1 for a right shift of a
// negative signed value.
// ARG: a i16 [8] values([1, -8, 3, -1, 5, 1, 12, -7])
// ARG: s i16 [8] values([3, 2, 15, 16, -1, 0, 10, 3])
// ARG: u ui64 [4] values([1, 2**63, 2**64 - 1, 5])
// ARG: t ui64 [4] values([63, 1, 64, 70])
// ARG: p i1 [4] values([1, 1, 0, 0])
// ARG: q i1 [4] values([1, 0, 1, 0])
// OUT: np.left_shift(a, s)
// OUT: np.right_shift(a, s)
// OUT: a & s
// OUT: a | s
// OUT: a ^ s
// OUT: ~a
// OUT: np.left_shift(u, t)
// OUT: np.right_shift(u, t)
// OUT: ~u
// OUT: (p ^ q).astype(np.int32)
// OUT: (~p).astype(np.int32)
func.func @bits(%a: tensor<8xi16>, %s: tensor<8xi16>, %u: tensor<4xui64>, %t: tensor<4xui64>, %p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<4xui64>, tensor<4xui64>, tensor<4xui64>, tensor<4xi32>, tensor<4xi32>) {
  %0 = lazy.shift_left %a, %s : tensor<8xi16>
  %1 = lazy.shift_right %a, %s : tensor<8xi16>
  %2 = lazy.bit_and %a, %s : tensor<8xi16>
  %3 = lazy.bit_or %a, %s : tensor<8xi16>
  %4 = lazy.bit_xor %a, %s : tensor<8xi16>
  %5 = lazy.bit_not %a : tensor<8xi16>
  %6 = lazy.shift_left %u, %t : tensor<4xui64>
  %7 = lazy.shift_right %u, %t : tensor<4xui64>
  %8 = lazy.bit_not %u : tensor<4xui64>
  %9 = lazy.bit_xor %p, %q : tensor<4xi1>
  %10 = lazy.cast %9 : tensor<4xi1> to tensor<4xi32>
  %11 = lazy.bit_not %p : tensor<4xi1>
  %12 = lazy.cast %11 : tensor<4xi1> to tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %10, %12 : tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<4xui64>, tensor<4xui64>, tensor<4xui64>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Shifts of random 32-bit values by random amounts (some past the width).
// ARG: a ui32 [3, 11] int(0, 4294967295)
// ARG: s ui32 [3, 11] int(0, 40)
// ARG: b i32 [3, 11] int(-2147483648, 2147483647)
// ARG: r i32 [3, 11] int(-3, 40)
// OUT: np.left_shift(a, s)
// OUT: np.right_shift(a, s)
// OUT: np.left_shift(b, r)
// OUT: np.right_shift(b, r)
func.func @random_shifts(%a: tensor<3x11xui32>, %s: tensor<3x11xui32>, %b: tensor<3x11xi32>, %r: tensor<3x11xi32>) -> (tensor<3x11xui32>, tensor<3x11xui32>, tensor<3x11xi32>, tensor<3x11xi32>) {
  %0 = lazy.shift_left %a, %s : tensor<3x11xui32>
  %1 = lazy.shift_right %a, %s : tensor<3x11xui32>
  %2 = lazy.shift_left %b, %r : tensor<3x11xi32>
  %3 = lazy.shift_right %b, %r : tensor<3x11xi32>
  return %0, %1, %2, %3 : tensor<3x11xui32>, tensor<3x11xui32>, tensor<3x11xi32>, tensor<3x11xi32>
}
