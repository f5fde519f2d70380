// RUN: %numpy-check %s

// lazy.compare (every predicate on f32, f64, f16, bf16, i32, i64, i1), lazy.select
// and lazy.cast between the element types, against numpy.
//
// Every check here is exact (rtol=0, atol=0 for floats; numpy_check compares
// integers and booleans exactly): comparisons and selects do no arithmetic,
// and each cast is either exact or one IEEE round-to-nearest-even, which numpy
// performs identically. bf16 outputs are stored as f32 and numpy has no bf16,
// so casts to bf16 spell the round-to-nearest-even on the f32 bits out in the
// expected expression (the same rounding numpy_check applies to bf16 inputs).
//
// Most compare results leave as i32 (lazy.cast i1 -> i32 gives 0 or 1) and
// most i1 operands come from lazy.cast of i32 arguments, so i1 values also
// stay inside fused code; the *_i1_io cases pass i1 through function
// arguments and results (one byte per element in the .npy files).

// -----

// f32 compare, every predicate, on random values, and x against itself (ties).
// ARG: a f32 [7, 19]
// ARG: b f32 [7, 19]
// OUT: a == b
// OUT: a != b
// OUT: a < b
// OUT: a <= b
// OUT: a > b
// OUT: a >= b
// OUT: np.ones_like(a)
// OUT: np.zeros_like(a)
// OUT: np.ones_like(a)
func.func @compare_f32(%a: tensor<7x19xf32>, %b: tensor<7x19xf32>) -> (tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>) {
  %0 = lazy.compare eq, %a, %b : tensor<7x19xf32>
  %1 = lazy.compare ne, %a, %b : tensor<7x19xf32>
  %2 = lazy.compare lt, %a, %b : tensor<7x19xf32>
  %3 = lazy.compare le, %a, %b : tensor<7x19xf32>
  %4 = lazy.compare gt, %a, %b : tensor<7x19xf32>
  %5 = lazy.compare ge, %a, %b : tensor<7x19xf32>
  %6 = lazy.compare eq, %a, %a : tensor<7x19xf32>
  %7 = lazy.compare lt, %a, %a : tensor<7x19xf32>
  %8 = lazy.compare ge, %a, %a : tensor<7x19xf32>
  %r0 = lazy.cast %0 : tensor<7x19xi1> to tensor<7x19xi32>
  %r1 = lazy.cast %1 : tensor<7x19xi1> to tensor<7x19xi32>
  %r2 = lazy.cast %2 : tensor<7x19xi1> to tensor<7x19xi32>
  %r3 = lazy.cast %3 : tensor<7x19xi1> to tensor<7x19xi32>
  %r4 = lazy.cast %4 : tensor<7x19xi1> to tensor<7x19xi32>
  %r5 = lazy.cast %5 : tensor<7x19xi1> to tensor<7x19xi32>
  %r6 = lazy.cast %6 : tensor<7x19xi1> to tensor<7x19xi32>
  %r7 = lazy.cast %7 : tensor<7x19xi1> to tensor<7x19xi32>
  %r8 = lazy.cast %8 : tensor<7x19xi1> to tensor<7x19xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8 : tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>, tensor<7x19xi32>
}

// -----

// f32 compare on all pairs of special values: NaN compares false except ne; -0.0 == +0.0; infinities order.
// ARG: a f32 [9, 1] values([[nan], [inf], [-inf], [-0.0], [0.0], [1], [-1], [1e-40], [3.4e38]])
// ARG: b f32 [1, 9] values([[nan, inf, -inf, -0.0, 0.0, 1, -1, 1e-40, 3.4e38]])
// OUT: a == b
// OUT: a != b
// OUT: a < b
// OUT: a <= b
// OUT: a > b
// OUT: a >= b
func.func @compare_f32_special(%a: tensor<9x1xf32>, %b: tensor<1x9xf32>) -> (tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>) {
  %x = lazy.broadcast %a to [9, 9] : tensor<9x1xf32>
  %y = lazy.broadcast %b to [9, 9] : tensor<1x9xf32>
  %0 = lazy.compare eq, %x, %y : tensor<9x9xf32>
  %1 = lazy.compare ne, %x, %y : tensor<9x9xf32>
  %2 = lazy.compare lt, %x, %y : tensor<9x9xf32>
  %3 = lazy.compare le, %x, %y : tensor<9x9xf32>
  %4 = lazy.compare gt, %x, %y : tensor<9x9xf32>
  %5 = lazy.compare ge, %x, %y : tensor<9x9xf32>
  %r0 = lazy.cast %0 : tensor<9x9xi1> to tensor<9x9xi32>
  %r1 = lazy.cast %1 : tensor<9x9xi1> to tensor<9x9xi32>
  %r2 = lazy.cast %2 : tensor<9x9xi1> to tensor<9x9xi32>
  %r3 = lazy.cast %3 : tensor<9x9xi1> to tensor<9x9xi32>
  %r4 = lazy.cast %4 : tensor<9x9xi1> to tensor<9x9xi32>
  %r5 = lazy.cast %5 : tensor<9x9xi1> to tensor<9x9xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>, tensor<9x9xi32>
}

// -----

// i32 compare, every predicate, signed, with many ties (values in [-3, 3]) and the extremes.
// ARG: a i32 [67] int(-3, 3)
// ARG: b i32 [67] int(-3, 3)
// ARG: m i32 [4] values([-2147483648, 2147483647, -1, 0])
// ARG: n i32 [4] values([2147483647, -2147483648, 0, -1])
// OUT: a == b
// OUT: a != b
// OUT: a < b
// OUT: a <= b
// OUT: a > b
// OUT: a >= b
// OUT: m < n
// OUT: m >= n
func.func @compare_i32(%a: tensor<67xi32>, %b: tensor<67xi32>, %m: tensor<4xi32>, %n: tensor<4xi32>) -> (tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = lazy.compare eq, %a, %b : tensor<67xi32>
  %1 = lazy.compare ne, %a, %b : tensor<67xi32>
  %2 = lazy.compare lt, %a, %b : tensor<67xi32>
  %3 = lazy.compare le, %a, %b : tensor<67xi32>
  %4 = lazy.compare gt, %a, %b : tensor<67xi32>
  %5 = lazy.compare ge, %a, %b : tensor<67xi32>
  %6 = lazy.compare lt, %m, %n : tensor<4xi32>
  %7 = lazy.compare ge, %m, %n : tensor<4xi32>
  %r0 = lazy.cast %0 : tensor<67xi1> to tensor<67xi32>
  %r1 = lazy.cast %1 : tensor<67xi1> to tensor<67xi32>
  %r2 = lazy.cast %2 : tensor<67xi1> to tensor<67xi32>
  %r3 = lazy.cast %3 : tensor<67xi1> to tensor<67xi32>
  %r4 = lazy.cast %4 : tensor<67xi1> to tensor<67xi32>
  %r5 = lazy.cast %5 : tensor<67xi1> to tensor<67xi32>
  %r6 = lazy.cast %6 : tensor<4xi1> to tensor<4xi32>
  %r7 = lazy.cast %7 : tensor<4xi1> to tensor<4xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<67xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// i1 compare, every predicate, on all four pairs (false < true); i1 operands from i32 via cast (x != 0).
// ARG: a i32 [2, 2] values([[0, 0], [5, -1]])
// ARG: b i32 [2, 2] values([[0, 2], [0, 1]])
// OUT: (a != 0) == (b != 0)
// OUT: (a != 0) != (b != 0)
// OUT: (a != 0) < (b != 0)
// OUT: (a != 0) <= (b != 0)
// OUT: (a != 0) > (b != 0)
// OUT: (a != 0) >= (b != 0)
func.func @compare_i1(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>) {
  %p = lazy.cast %a : tensor<2x2xi32> to tensor<2x2xi1>
  %q = lazy.cast %b : tensor<2x2xi32> to tensor<2x2xi1>
  %0 = lazy.compare eq, %p, %q : tensor<2x2xi1>
  %1 = lazy.compare ne, %p, %q : tensor<2x2xi1>
  %2 = lazy.compare lt, %p, %q : tensor<2x2xi1>
  %3 = lazy.compare le, %p, %q : tensor<2x2xi1>
  %4 = lazy.compare gt, %p, %q : tensor<2x2xi1>
  %5 = lazy.compare ge, %p, %q : tensor<2x2xi1>
  %r0 = lazy.cast %0 : tensor<2x2xi1> to tensor<2x2xi32>
  %r1 = lazy.cast %1 : tensor<2x2xi1> to tensor<2x2xi32>
  %r2 = lazy.cast %2 : tensor<2x2xi1> to tensor<2x2xi32>
  %r3 = lazy.cast %3 : tensor<2x2xi1> to tensor<2x2xi32>
  %r4 = lazy.cast %4 : tensor<2x2xi1> to tensor<2x2xi32>
  %r5 = lazy.cast %5 : tensor<2x2xi1> to tensor<2x2xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>
}

// -----

// i1 compare on random booleans (from i32 in [0, 1]), every predicate.
// ARG: a i32 [37] int(0, 1)
// ARG: b i32 [37] int(0, 1)
// OUT: (a != 0) == (b != 0)
// OUT: (a != 0) != (b != 0)
// OUT: (a != 0) < (b != 0)
// OUT: (a != 0) <= (b != 0)
// OUT: (a != 0) > (b != 0)
// OUT: (a != 0) >= (b != 0)
func.func @compare_i1_random(%a: tensor<37xi32>, %b: tensor<37xi32>) -> (tensor<37xi32>, tensor<37xi32>, tensor<37xi32>, tensor<37xi32>, tensor<37xi32>, tensor<37xi32>) {
  %p = lazy.cast %a : tensor<37xi32> to tensor<37xi1>
  %q = lazy.cast %b : tensor<37xi32> to tensor<37xi1>
  %0 = lazy.compare eq, %p, %q : tensor<37xi1>
  %1 = lazy.compare ne, %p, %q : tensor<37xi1>
  %2 = lazy.compare lt, %p, %q : tensor<37xi1>
  %3 = lazy.compare le, %p, %q : tensor<37xi1>
  %4 = lazy.compare gt, %p, %q : tensor<37xi1>
  %5 = lazy.compare ge, %p, %q : tensor<37xi1>
  %r0 = lazy.cast %0 : tensor<37xi1> to tensor<37xi32>
  %r1 = lazy.cast %1 : tensor<37xi1> to tensor<37xi32>
  %r2 = lazy.cast %2 : tensor<37xi1> to tensor<37xi32>
  %r3 = lazy.cast %3 : tensor<37xi1> to tensor<37xi32>
  %r4 = lazy.cast %4 : tensor<37xi1> to tensor<37xi32>
  %r5 = lazy.cast %5 : tensor<37xi1> to tensor<37xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<37xi32>, tensor<37xi32>, tensor<37xi32>, tensor<37xi32>, tensor<37xi32>, tensor<37xi32>
}

// -----

// i64 compare beyond the i32 range (values differing only above bit 31 must not compare equal).
// ARG: a i64 [6] values([4294967296, -4294967296, 4294967297, 1, 8589934591, -1])
// ARG: b i64 [6] values([0, 0, 1, 4294967297, -1, 4294967295])
// ARG: c i64 [40] int(-5000000000, 5000000000)
// ARG: d i64 [40] int(-5000000000, 5000000000)
// OUT: a == b
// OUT: a < b
// OUT: a > b
// OUT: c <= d
// OUT: c != d
// OUT: c >= d
func.func @compare_i64(%a: tensor<6xi64>, %b: tensor<6xi64>, %c: tensor<40xi64>, %d: tensor<40xi64>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<40xi32>, tensor<40xi32>, tensor<40xi32>) {
  %0 = lazy.compare eq, %a, %b : tensor<6xi64>
  %1 = lazy.compare lt, %a, %b : tensor<6xi64>
  %2 = lazy.compare gt, %a, %b : tensor<6xi64>
  %3 = lazy.compare le, %c, %d : tensor<40xi64>
  %4 = lazy.compare ne, %c, %d : tensor<40xi64>
  %5 = lazy.compare ge, %c, %d : tensor<40xi64>
  %r0 = lazy.cast %0 : tensor<6xi1> to tensor<6xi32>
  %r1 = lazy.cast %1 : tensor<6xi1> to tensor<6xi32>
  %r2 = lazy.cast %2 : tensor<6xi1> to tensor<6xi32>
  %r3 = lazy.cast %3 : tensor<40xi1> to tensor<40xi32>
  %r4 = lazy.cast %4 : tensor<40xi1> to tensor<40xi32>
  %r5 = lazy.cast %5 : tensor<40xi1> to tensor<40xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<40xi32>, tensor<40xi32>, tensor<40xi32>
}

// -----

// f64, f16 and bf16 compare, every predicate, with NaN, signed zeros, subnormals and ties.
// ARG: a f64 [8] values([1, 2, nan, 0.0, 1e-300, 1, -inf, 3])
// ARG: b f64 [8] values([1, 1, 1, -0.0, 0, nan, -inf, 4])
// ARG: h f16 [8] values([1, 2, nan, 0.0, 6e-8, 65504, -inf, 3])
// ARG: g f16 [8] values([1, 1, 1, -0.0, 0, 65504, -inf, 4])
// ARG: p bf16 [8] values([1, 2, nan, 0.0, 1e-38, 3e38, -inf, 3])
// ARG: q bf16 [8] values([1, 1, 1, -0.0, 0, 3e38, -inf, 4])
// OUT: a == b
// OUT: a != b
// OUT: a < b
// OUT: a >= b
// OUT: h <= g
// OUT: h > g
// OUT: h == g
// OUT: h != g
// OUT: p != q
// OUT: p < q
// OUT: p >= q
// OUT: p == q
func.func @compare_f64_f16_bf16(%a: tensor<8xf64>, %b: tensor<8xf64>, %h: tensor<8xf16>, %g: tensor<8xf16>, %p: tensor<8xbf16>, %q: tensor<8xbf16>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %0 = lazy.compare eq, %a, %b : tensor<8xf64>
  %1 = lazy.compare ne, %a, %b : tensor<8xf64>
  %2 = lazy.compare lt, %a, %b : tensor<8xf64>
  %3 = lazy.compare ge, %a, %b : tensor<8xf64>
  %4 = lazy.compare le, %h, %g : tensor<8xf16>
  %5 = lazy.compare gt, %h, %g : tensor<8xf16>
  %6 = lazy.compare eq, %h, %g : tensor<8xf16>
  %7 = lazy.compare ne, %h, %g : tensor<8xf16>
  %8 = lazy.compare ne, %p, %q : tensor<8xbf16>
  %9 = lazy.compare lt, %p, %q : tensor<8xbf16>
  %10 = lazy.compare ge, %p, %q : tensor<8xbf16>
  %11 = lazy.compare eq, %p, %q : tensor<8xbf16>
  %r0 = lazy.cast %0 : tensor<8xi1> to tensor<8xi32>
  %r1 = lazy.cast %1 : tensor<8xi1> to tensor<8xi32>
  %r2 = lazy.cast %2 : tensor<8xi1> to tensor<8xi32>
  %r3 = lazy.cast %3 : tensor<8xi1> to tensor<8xi32>
  %r4 = lazy.cast %4 : tensor<8xi1> to tensor<8xi32>
  %r5 = lazy.cast %5 : tensor<8xi1> to tensor<8xi32>
  %r6 = lazy.cast %6 : tensor<8xi1> to tensor<8xi32>
  %r7 = lazy.cast %7 : tensor<8xi1> to tensor<8xi32>
  %r8 = lazy.cast %8 : tensor<8xi1> to tensor<8xi32>
  %r9 = lazy.cast %9 : tensor<8xi1> to tensor<8xi32>
  %r10 = lazy.cast %10 : tensor<8xi1> to tensor<8xi32>
  %r11 = lazy.cast %11 : tensor<8xi1> to tensor<8xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}

// -----

// select on f32, i32, i1, f16 and NaN values; the condition is computed (c > 0).
// ARG: c f32 [5, 13]
// ARG: a f32 [5, 13]
// ARG: b f32 [5, 13]
// ARG: i i32 [5, 13]
// ARG: j i32 [5, 13]
// ARG: h f16 [5, 13]
// ARG: n f32 [5, 13] values([nan] * 65)
// OUT: np.where(c > 0, a, b) ; rtol=0, atol=0
// OUT: np.where(c > 0, i, j)
// OUT: np.where(c > 0, i != 0, j != 0)
// OUT: np.where(c > 0, h, -h) ; rtol=0, atol=0
// OUT: np.where(c > 0, n, a) ; rtol=0, atol=0
func.func @select(%c: tensor<5x13xf32>, %a: tensor<5x13xf32>, %b: tensor<5x13xf32>, %i: tensor<5x13xi32>, %j: tensor<5x13xi32>, %h: tensor<5x13xf16>, %n: tensor<5x13xf32>) -> (tensor<5x13xf32>, tensor<5x13xi32>, tensor<5x13xi32>, tensor<5x13xf16>, tensor<5x13xf32>) {
  %zero = lazy.constant dense<0.0> : tensor<5x13xf32>
  %cond = lazy.compare gt, %c, %zero : tensor<5x13xf32>
  %0 = lazy.select %cond, %a, %b : tensor<5x13xi1>, tensor<5x13xf32>
  %1 = lazy.select %cond, %i, %j : tensor<5x13xi1>, tensor<5x13xi32>
  %p = lazy.cast %i : tensor<5x13xi32> to tensor<5x13xi1>
  %q = lazy.cast %j : tensor<5x13xi32> to tensor<5x13xi1>
  %s = lazy.select %cond, %p, %q : tensor<5x13xi1>, tensor<5x13xi1>
  %2 = lazy.cast %s : tensor<5x13xi1> to tensor<5x13xi32>
  %nh = lazy.neg %h : tensor<5x13xf16>
  %3 = lazy.select %cond, %h, %nh : tensor<5x13xi1>, tensor<5x13xf16>
  %4 = lazy.select %cond, %n, %a : tensor<5x13xi1>, tensor<5x13xf32>
  return %0, %1, %2, %3, %4 : tensor<5x13xf32>, tensor<5x13xi32>, tensor<5x13xi32>, tensor<5x13xf16>, tensor<5x13xf32>
}

// -----

// select driven by a compare of its own operands (where(x > y, x, y)) on f32, i64, f64 and bf16.
// ARG: x f32 [41]
// ARG: y f32 [41]
// ARG: k i64 [41] int(-5000000000, 5000000000)
// ARG: l i64 [41] int(-5000000000, 5000000000)
// ARG: d f64 [41]
// ARG: e f64 [41]
// ARG: u bf16 [40]
// ARG: v bf16 [40]
// OUT: np.where(x > y, x, y) ; rtol=0, atol=0
// OUT: np.where(k < l, k, l)
// OUT: np.where(d <= e, e, d) ; rtol=0, atol=0
// OUT: np.where(u >= v, u, v) ; rtol=0, atol=0
func.func @select_compare(%x: tensor<41xf32>, %y: tensor<41xf32>, %k: tensor<41xi64>, %l: tensor<41xi64>, %d: tensor<41xf64>, %e: tensor<41xf64>, %u: tensor<40xbf16>, %v: tensor<40xbf16>) -> (tensor<41xf32>, tensor<41xi64>, tensor<41xf64>, tensor<40xbf16>) {
  %c0 = lazy.compare gt, %x, %y : tensor<41xf32>
  %0 = lazy.select %c0, %x, %y : tensor<41xi1>, tensor<41xf32>
  %c1 = lazy.compare lt, %k, %l : tensor<41xi64>
  %1 = lazy.select %c1, %k, %l : tensor<41xi1>, tensor<41xi64>
  %c2 = lazy.compare le, %d, %e : tensor<41xf64>
  %2 = lazy.select %c2, %e, %d : tensor<41xi1>, tensor<41xf64>
  %c3 = lazy.compare ge, %u, %v : tensor<40xbf16>
  %3 = lazy.select %c3, %u, %v : tensor<40xi1>, tensor<40xbf16>
  return %0, %1, %2, %3 : tensor<41xf32>, tensor<41xi64>, tensor<41xf64>, tensor<40xbf16>
}

// -----

// cast f32 -> f64 is exact; f64 -> f32 rounds to nearest even (ties, overflow to inf, subnormals, NaN).
// ARG: x f32 [45] uniform(-1e6, 1e6)
// ARG: d f64 [45] uniform(-1e6, 1e6)
// ARG: s f64 [8] values([1.0000000596046448, 1.0000001788139343, 3.5e38, -3.5e38, 1e-45, 1e-39, nan, -0.0])
// OUT: x ; rtol=0, atol=0
// OUT: d.astype(np.float32) ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: s.astype(np.float32))() ; rtol=0, atol=0
func.func @cast_f32_f64(%x: tensor<45xf32>, %d: tensor<45xf64>, %s: tensor<8xf64>) -> (tensor<45xf64>, tensor<45xf32>, tensor<8xf32>) {
  %0 = lazy.cast %x : tensor<45xf32> to tensor<45xf64>
  %1 = lazy.cast %d : tensor<45xf64> to tensor<45xf32>
  %2 = lazy.cast %s : tensor<8xf64> to tensor<8xf32>
  return %0, %1, %2 : tensor<45xf64>, tensor<45xf32>, tensor<8xf32>
}

// -----

// cast f32 -> f16 rounds to nearest even (ties, overflow to inf, f16 subnormals, NaN); f16 -> f32 is exact.
// ARG: x f32 [45] uniform(-100, 100)
// ARG: s f32 [10] values([1.00048828125, 1.00146484375, 65520, 65519, -1e6, 1e-5, 3e-8, 2.9e-8, nan, -0.0])
// ARG: h f16 [45] uniform(-60000, 60000)
// OUT: x.astype(np.float16) ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: s.astype(np.float16))() ; rtol=0, atol=0
// OUT: h ; rtol=0, atol=0
func.func @cast_f32_f16(%x: tensor<45xf32>, %s: tensor<10xf32>, %h: tensor<45xf16>) -> (tensor<45xf16>, tensor<10xf16>, tensor<45xf32>) {
  %0 = lazy.cast %x : tensor<45xf32> to tensor<45xf16>
  %1 = lazy.cast %s : tensor<10xf32> to tensor<10xf16>
  %2 = lazy.cast %h : tensor<45xf16> to tensor<45xf32>
  return %0, %1, %2 : tensor<45xf16>, tensor<10xf16>, tensor<45xf32>
}

// -----

// cast f32 -> bf16 rounds to nearest even (ties both ways, overflow to inf, subnormals, NaN); bf16 -> f32 is exact.
// ARG: x f32 [45] uniform(-100, 100)
// ARG: s f32 [12] values([1.00390625, 1.01171875, 1.0039063, -3.3961775e38, 3.4e38, -0.0, 7, nan, inf, -inf, 1e-40, -1.1754942e-38])
// ARG: b bf16 [45] uniform(-1e30, 1e30)
// OUT: (lambda v: ((v.view(np.uint32).astype(np.uint64) + 0x7FFF + ((v.view(np.uint32).astype(np.uint64) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32))(x) ; rtol=0, atol=0
// OUT: np.where(np.isnan(s), s, (lambda v: ((v.view(np.uint32).astype(np.uint64) + 0x7FFF + ((v.view(np.uint32).astype(np.uint64) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32))(s)) ; rtol=0, atol=0
// OUT: b ; rtol=0, atol=0
func.func @cast_f32_bf16(%x: tensor<45xf32>, %s: tensor<12xf32>, %b: tensor<45xbf16>) -> (tensor<45xbf16>, tensor<12xbf16>, tensor<45xf32>) {
  %0 = lazy.cast %x : tensor<45xf32> to tensor<45xbf16>
  %1 = lazy.cast %s : tensor<12xf32> to tensor<12xbf16>
  %2 = lazy.cast %b : tensor<45xbf16> to tensor<45xf32>
  return %0, %1, %2 : tensor<45xbf16>, tensor<12xbf16>, tensor<45xf32>
}

// -----

// cast f16 -> bf16 rounds once to nearest even; bf16 -> f16 rounds (overflow to inf, f16 subnormals).
// ARG: h f16 [45] uniform(-1000, 1000)
// ARG: t f16 [6] values([1.00390625, 1.01171875, 65504, 6e-8, nan, -0.0])
// ARG: b bf16 [45] uniform(-1000, 1000)
// ARG: s bf16 [6] values([1e5, -7e4, 1e-6, 1e-9, 3.0078125, -0.0])
// OUT: (lambda v: ((v.view(np.uint32).astype(np.uint64) + 0x7FFF + ((v.view(np.uint32).astype(np.uint64) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32))(h.astype(np.float32)) ; rtol=0, atol=0
// OUT: np.where(np.isnan(t), np.float32(np.nan), (lambda v: ((v.view(np.uint32).astype(np.uint64) + 0x7FFF + ((v.view(np.uint32).astype(np.uint64) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32))(t.astype(np.float32))) ; rtol=0, atol=0
// OUT: b.astype(np.float16) ; rtol=0, atol=0
// OUT: np.errstate(all='ignore')(lambda: s.astype(np.float16))() ; rtol=0, atol=0
func.func @cast_f16_bf16(%h: tensor<45xf16>, %t: tensor<6xf16>, %b: tensor<45xbf16>, %s: tensor<6xbf16>) -> (tensor<45xbf16>, tensor<6xbf16>, tensor<45xf16>, tensor<6xf16>) {
  %0 = lazy.cast %h : tensor<45xf16> to tensor<45xbf16>
  %1 = lazy.cast %t : tensor<6xf16> to tensor<6xbf16>
  %2 = lazy.cast %b : tensor<45xbf16> to tensor<45xf16>
  %3 = lazy.cast %s : tensor<6xbf16> to tensor<6xf16>
  return %0, %1, %2, %3 : tensor<45xbf16>, tensor<6xbf16>, tensor<45xf16>, tensor<6xf16>
}

// -----

// cast f32 -> i32 and f64 -> i64 truncate toward zero (inputs in range).
// ARG: x f32 [53] uniform(-2000000000, 2000000000)
// ARG: y f32 [53] uniform(-10, 10)
// ARG: s f32 [8] values([0.99999994, -0.99999994, 1.5, -1.5, 2.5, -2.5, -0.0, 16777217])
// ARG: d f64 [53] uniform(-1e15, 1e15)
// OUT: np.trunc(x)
// OUT: np.trunc(y)
// OUT: np.trunc(s)
// OUT: np.trunc(d)
func.func @cast_float_int(%x: tensor<53xf32>, %y: tensor<53xf32>, %s: tensor<8xf32>, %d: tensor<53xf64>) -> (tensor<53xi32>, tensor<53xi32>, tensor<8xi32>, tensor<53xi64>) {
  %0 = lazy.cast %x : tensor<53xf32> to tensor<53xi32>
  %1 = lazy.cast %y : tensor<53xf32> to tensor<53xi32>
  %2 = lazy.cast %s : tensor<8xf32> to tensor<8xi32>
  %3 = lazy.cast %d : tensor<53xf64> to tensor<53xi64>
  return %0, %1, %2, %3 : tensor<53xi32>, tensor<53xi32>, tensor<8xi32>, tensor<53xi64>
}

// -----

// cast f16 and bf16 -> i32, and f32 -> i64, truncate toward zero.
// ARG: h f16 [31] uniform(-60000, 60000)
// ARG: b bf16 [31] uniform(-1e9, 1e9)
// ARG: x f32 [31] uniform(-1e12, 1e12)
// OUT: np.trunc(h.astype(np.float64))
// OUT: np.trunc(b.astype(np.float64))
// OUT: np.trunc(x.astype(np.float64))
func.func @cast_half_int(%h: tensor<31xf16>, %b: tensor<31xbf16>, %x: tensor<31xf32>) -> (tensor<31xi32>, tensor<31xi32>, tensor<31xi64>) {
  %0 = lazy.cast %h : tensor<31xf16> to tensor<31xi32>
  %1 = lazy.cast %b : tensor<31xbf16> to tensor<31xi32>
  %2 = lazy.cast %x : tensor<31xf32> to tensor<31xi64>
  return %0, %1, %2 : tensor<31xi32>, tensor<31xi32>, tensor<31xi64>
}

// -----

// cast i32 -> f32 rounds to nearest even (above 2^24); i32 -> f64 and i64 -> f64 (below 2^53) exact; i32 -> f16/bf16 round.
// ARG: i i32 [53] int(-2147483648, 2147483647)
// ARG: s i32 [6] values([16777217, 16777219, -16777217, 2147483647, -2147483648, 0])
// ARG: k i64 [53] int(-4503599627370496, 4503599627370496)
// ARG: m i32 [53] int(-60000, 60000)
// OUT: i.astype(np.float32) ; rtol=0, atol=0
// OUT: s.astype(np.float32) ; rtol=0, atol=0
// OUT: i.astype(np.float64) ; rtol=0, atol=0
// OUT: k.astype(np.float64) ; rtol=0, atol=0
// OUT: m.astype(np.float16) ; rtol=0, atol=0
// OUT: (lambda v: ((v.view(np.uint32).astype(np.uint64) + 0x7FFF + ((v.view(np.uint32).astype(np.uint64) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32))(m.astype(np.float32)) ; rtol=0, atol=0
func.func @cast_int_float(%i: tensor<53xi32>, %s: tensor<6xi32>, %k: tensor<53xi64>, %m: tensor<53xi32>) -> (tensor<53xf32>, tensor<6xf32>, tensor<53xf64>, tensor<53xf64>, tensor<53xf16>, tensor<53xbf16>) {
  %0 = lazy.cast %i : tensor<53xi32> to tensor<53xf32>
  %1 = lazy.cast %s : tensor<6xi32> to tensor<6xf32>
  %2 = lazy.cast %i : tensor<53xi32> to tensor<53xf64>
  %3 = lazy.cast %k : tensor<53xi64> to tensor<53xf64>
  %4 = lazy.cast %m : tensor<53xi32> to tensor<53xf16>
  %5 = lazy.cast %m : tensor<53xi32> to tensor<53xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<53xf32>, tensor<6xf32>, tensor<53xf64>, tensor<53xf64>, tensor<53xf16>, tensor<53xbf16>
}

// -----

// cast i64 -> i32 keeps the low 32 bits (wraps); i32 -> i64 sign-extends.
// ARG: k i64 [53] int(-1000000000000, 1000000000000)
// ARG: s i64 [6] values([2147483648, 4294967295, 4294967296, -2147483649, 6442450943, -1])
// ARG: i i32 [53] int(-2147483648, 2147483647)
// OUT: k.astype(np.int32)
// OUT: np.array([-2147483648, -1, 0, 2147483647, 2147483647, -1])
// OUT: i.astype(np.int64)
func.func @cast_int_int(%k: tensor<53xi64>, %s: tensor<6xi64>, %i: tensor<53xi32>) -> (tensor<53xi32>, tensor<6xi32>, tensor<53xi64>) {
  %0 = lazy.cast %k : tensor<53xi64> to tensor<53xi32>
  %1 = lazy.cast %s : tensor<6xi64> to tensor<6xi32>
  %2 = lazy.cast %i : tensor<53xi32> to tensor<53xi64>
  return %0, %1, %2 : tensor<53xi32>, tensor<6xi32>, tensor<53xi64>
}

// -----

// cast i1 -> f32, f64, f16, bf16, i32, i64 gives 0 or 1 (true is 1, not -1); the i1 comes from i32 (x != 0).
// ARG: a i32 [37] int(-2, 2)
// OUT: (a != 0).astype(np.float32) ; rtol=0, atol=0
// OUT: (a != 0).astype(np.float64) ; rtol=0, atol=0
// OUT: (a != 0).astype(np.float16) ; rtol=0, atol=0
// OUT: (a != 0).astype(np.float32) ; rtol=0, atol=0
// OUT: (a != 0).astype(np.int32)
// OUT: (a != 0).astype(np.int64)
func.func @cast_from_i1(%a: tensor<37xi32>) -> (tensor<37xf32>, tensor<37xf64>, tensor<37xf16>, tensor<37xbf16>, tensor<37xi32>, tensor<37xi64>) {
  %b = lazy.cast %a : tensor<37xi32> to tensor<37xi1>
  %0 = lazy.cast %b : tensor<37xi1> to tensor<37xf32>
  %1 = lazy.cast %b : tensor<37xi1> to tensor<37xf64>
  %2 = lazy.cast %b : tensor<37xi1> to tensor<37xf16>
  %3 = lazy.cast %b : tensor<37xi1> to tensor<37xbf16>
  %4 = lazy.cast %b : tensor<37xi1> to tensor<37xi32>
  %5 = lazy.cast %b : tensor<37xi1> to tensor<37xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<37xf32>, tensor<37xf64>, tensor<37xf16>, tensor<37xbf16>, tensor<37xi32>, tensor<37xi64>
}

// -----

// cast to i1 is x != 0: -0.0 is false; NaN, subnormals and infinities are true; integers by value, not the low bit.
// ARG: x f32 [10] values([0.0, -0.0, 1, -1, 0.5, 1e-45, nan, inf, -inf, 2])
// ARG: d f64 [4] values([0.0, -0.0, 1e-310, nan])
// ARG: h f16 [4] values([0.0, -0.0, 6e-8, nan])
// ARG: b bf16 [4] values([0.0, -0.0, 1e-30, nan])
// ARG: i i32 [8] values([0, 1, -1, 2, 4, -2147483648, 256, 65536])
// ARG: k i64 [4] values([0, 4294967296, -4294967296, 1])
// OUT: x != 0
// OUT: d != 0
// OUT: h != 0
// OUT: b != 0
// OUT: i != 0
// OUT: k != 0
func.func @cast_to_i1(%x: tensor<10xf32>, %d: tensor<4xf64>, %h: tensor<4xf16>, %b: tensor<4xbf16>, %i: tensor<8xi32>, %k: tensor<4xi64>) -> (tensor<10xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<8xi32>, tensor<4xi32>) {
  %0 = lazy.cast %x : tensor<10xf32> to tensor<10xi1>
  %1 = lazy.cast %d : tensor<4xf64> to tensor<4xi1>
  %2 = lazy.cast %h : tensor<4xf16> to tensor<4xi1>
  %3 = lazy.cast %b : tensor<4xbf16> to tensor<4xi1>
  %4 = lazy.cast %i : tensor<8xi32> to tensor<8xi1>
  %5 = lazy.cast %k : tensor<4xi64> to tensor<4xi1>
  %r0 = lazy.cast %0 : tensor<10xi1> to tensor<10xi32>
  %r1 = lazy.cast %1 : tensor<4xi1> to tensor<4xi32>
  %r2 = lazy.cast %2 : tensor<4xi1> to tensor<4xi32>
  %r3 = lazy.cast %3 : tensor<4xi1> to tensor<4xi32>
  %r4 = lazy.cast %4 : tensor<8xi1> to tensor<8xi32>
  %r5 = lazy.cast %5 : tensor<4xi1> to tensor<4xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<10xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<8xi32>, tensor<4xi32>
}

// -----

// cast to the same type is the identity; f64 -> f16 and f64 -> bf16 round once (no double rounding through f32: ties in f32 are not ties in f64).
// ARG: x f32 [9]
// ARG: d f64 [4] values([1.0004882812500002, 1.0004882812499998, 1.0014648437499998, 70000])
// ARG: e f64 [4] values([1.0039062500000002, 1.0039062499999998, 1.0117187499999998, -2.5])
// OUT: x ; rtol=0, atol=0
// OUT: np.array([1.0009765625, 1.0, 1.0009765625, np.inf]) ; rtol=0, atol=0
// OUT: np.array([1.0078125, 1.0, 1.0078125, -2.5]) ; rtol=0, atol=0
func.func @cast_identity_f64_half(%x: tensor<9xf32>, %d: tensor<4xf64>, %e: tensor<4xf64>) -> (tensor<9xf32>, tensor<4xf16>, tensor<4xbf16>) {
  %0 = lazy.cast %x : tensor<9xf32> to tensor<9xf32>
  %1 = lazy.cast %d : tensor<4xf64> to tensor<4xf16>
  %2 = lazy.cast %e : tensor<4xf64> to tensor<4xbf16>
  return %0, %1, %2 : tensor<9xf32>, tensor<4xf16>, tensor<4xbf16>
}

// -----

// i1 results: compare of f32 returning i1 directly, every predicate, with NaN (false except ne).
// ARG: a f32 [70] values([1, 2, 3, 4, 5, 6, 7, nan, 0.0, -0.0] * 7)
// ARG: b f32 [70] values([1, 0, 3, 9, 5, 0, 8, 1, -0.0, nan] * 7)
// OUT: a == b
// OUT: a != b
// OUT: a < b
// OUT: a <= b
// OUT: a > b
// OUT: a >= b
func.func @compare_i1_io(%a: tensor<70xf32>, %b: tensor<70xf32>) -> (tensor<70xi1>, tensor<70xi1>, tensor<70xi1>, tensor<70xi1>, tensor<70xi1>, tensor<70xi1>) {
  %0 = lazy.compare eq, %a, %b : tensor<70xf32>
  %1 = lazy.compare ne, %a, %b : tensor<70xf32>
  %2 = lazy.compare lt, %a, %b : tensor<70xf32>
  %3 = lazy.compare le, %a, %b : tensor<70xf32>
  %4 = lazy.compare gt, %a, %b : tensor<70xf32>
  %5 = lazy.compare ge, %a, %b : tensor<70xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<70xi1>, tensor<70xi1>, tensor<70xi1>, tensor<70xi1>, tensor<70xi1>, tensor<70xi1>
}

// -----

// i1 arguments and results: i1 compare, every predicate, on all four pairs and on random booleans (67: a vector tail).
// ARG: a i1 [2, 2] values([[0, 0], [1, 1]])
// ARG: b i1 [2, 2] values([[0, 1], [0, 1]])
// ARG: p i1 [67]
// ARG: q i1 [67]
// OUT: a == b
// OUT: a != b
// OUT: a < b
// OUT: a <= b
// OUT: a > b
// OUT: a >= b
// OUT: p < q
// OUT: p >= q
// OUT: p == q
func.func @compare_i1_args_i1_io(%a: tensor<2x2xi1>, %b: tensor<2x2xi1>, %p: tensor<67xi1>, %q: tensor<67xi1>) -> (tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<67xi1>, tensor<67xi1>, tensor<67xi1>) {
  %0 = lazy.compare eq, %a, %b : tensor<2x2xi1>
  %1 = lazy.compare ne, %a, %b : tensor<2x2xi1>
  %2 = lazy.compare lt, %a, %b : tensor<2x2xi1>
  %3 = lazy.compare le, %a, %b : tensor<2x2xi1>
  %4 = lazy.compare gt, %a, %b : tensor<2x2xi1>
  %5 = lazy.compare ge, %a, %b : tensor<2x2xi1>
  %6 = lazy.compare lt, %p, %q : tensor<67xi1>
  %7 = lazy.compare ge, %p, %q : tensor<67xi1>
  %8 = lazy.compare eq, %p, %q : tensor<67xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>, tensor<67xi1>, tensor<67xi1>, tensor<67xi1>
}

// -----

// i1 results: i32 and i64 compare returning i1 (67 and 5 elements).
// ARG: a i32 [67] int(-3, 3)
// ARG: b i32 [67] int(-3, 3)
// ARG: k i64 [5] values([4294967296, -1, 0, 7, -4294967296])
// ARG: l i64 [5] values([0, -1, 4294967296, 8, 0])
// OUT: a <= b
// OUT: a != b
// OUT: k == l
// OUT: k > l
func.func @compare_int_i1_io(%a: tensor<67xi32>, %b: tensor<67xi32>, %k: tensor<5xi64>, %l: tensor<5xi64>) -> (tensor<67xi1>, tensor<67xi1>, tensor<5xi1>, tensor<5xi1>) {
  %0 = lazy.compare le, %a, %b : tensor<67xi32>
  %1 = lazy.compare ne, %a, %b : tensor<67xi32>
  %2 = lazy.compare eq, %k, %l : tensor<5xi64>
  %3 = lazy.compare gt, %k, %l : tensor<5xi64>
  return %0, %1, %2, %3 : tensor<67xi1>, tensor<67xi1>, tensor<5xi1>, tensor<5xi1>
}

// -----

// i1 arguments: select with an i1 condition argument on f32, i32, i1 and f64 values.
// ARG: c i1 [5, 13]
// ARG: a f32 [5, 13]
// ARG: b f32 [5, 13]
// ARG: i i32 [5, 13]
// ARG: j i32 [5, 13]
// ARG: p i1 [5, 13]
// ARG: q i1 [5, 13]
// ARG: d f64 [5, 13]
// OUT: np.where(c, a, b) ; rtol=0, atol=0
// OUT: np.where(c, i, j)
// OUT: np.where(c, p, q)
// OUT: np.where(c, d, -d) ; rtol=0, atol=0
func.func @select_i1_io(%c: tensor<5x13xi1>, %a: tensor<5x13xf32>, %b: tensor<5x13xf32>, %i: tensor<5x13xi32>, %j: tensor<5x13xi32>, %p: tensor<5x13xi1>, %q: tensor<5x13xi1>, %d: tensor<5x13xf64>) -> (tensor<5x13xf32>, tensor<5x13xi32>, tensor<5x13xi1>, tensor<5x13xf64>) {
  %0 = lazy.select %c, %a, %b : tensor<5x13xi1>, tensor<5x13xf32>
  %1 = lazy.select %c, %i, %j : tensor<5x13xi1>, tensor<5x13xi32>
  %2 = lazy.select %c, %p, %q : tensor<5x13xi1>, tensor<5x13xi1>
  %nd = lazy.neg %d : tensor<5x13xf64>
  %3 = lazy.select %c, %d, %nd : tensor<5x13xi1>, tensor<5x13xf64>
  return %0, %1, %2, %3 : tensor<5x13xf32>, tensor<5x13xi32>, tensor<5x13xi1>, tensor<5x13xf64>
}

// -----

// i1 arguments and results: cast i1 -> f32, f16, bf16, i32, i64 (0 or 1) and f32, f64, i32, i64 -> i1 (x != 0; -0.0 false, NaN true).
// ARG: b i1 [37]
// ARG: x f32 [10] values([0.0, -0.0, 1, -1, 0.5, 1e-45, nan, inf, -inf, 2])
// ARG: d f64 [4] values([0.0, -0.0, 1e-310, nan])
// ARG: i i32 [8] values([0, 1, -1, 2, 4, -2147483648, 256, 65536])
// ARG: k i64 [4] values([0, 4294967296, -4294967296, 1])
// OUT: b.astype(np.float32) ; rtol=0, atol=0
// OUT: b.astype(np.float16) ; rtol=0, atol=0
// OUT: b.astype(np.float32) ; rtol=0, atol=0
// OUT: b.astype(np.int32)
// OUT: b.astype(np.int64)
// OUT: x != 0
// OUT: d != 0
// OUT: i != 0
// OUT: k != 0
func.func @cast_i1_io(%b: tensor<37xi1>, %x: tensor<10xf32>, %d: tensor<4xf64>, %i: tensor<8xi32>, %k: tensor<4xi64>) -> (tensor<37xf32>, tensor<37xf16>, tensor<37xbf16>, tensor<37xi32>, tensor<37xi64>, tensor<10xi1>, tensor<4xi1>, tensor<8xi1>, tensor<4xi1>) {
  %0 = lazy.cast %b : tensor<37xi1> to tensor<37xf32>
  %1 = lazy.cast %b : tensor<37xi1> to tensor<37xf16>
  %2 = lazy.cast %b : tensor<37xi1> to tensor<37xbf16>
  %3 = lazy.cast %b : tensor<37xi1> to tensor<37xi32>
  %4 = lazy.cast %b : tensor<37xi1> to tensor<37xi64>
  %5 = lazy.cast %x : tensor<10xf32> to tensor<10xi1>
  %6 = lazy.cast %d : tensor<4xf64> to tensor<4xi1>
  %7 = lazy.cast %i : tensor<8xi32> to tensor<8xi1>
  %8 = lazy.cast %k : tensor<4xi64> to tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<37xf32>, tensor<37xf16>, tensor<37xbf16>, tensor<37xi32>, tensor<37xi64>, tensor<10xi1>, tensor<4xi1>, tensor<8xi1>, tensor<4xi1>
}
