// RUN: %numpy-check %s

// i8 and ui8 against numpy's int8 and uint8: arithmetic wraps around, ui8
// divides, compares, takes max/min and converts as unsigned values (200 is
// 200, not -56), i8 as signed ones. Integer division by zero gives 0, as
// numpy does (without its warning); float to i8/ui8 goes through i32 and
// wraps like numpy's astype on x86 (-1.0 to uint8 is 255, 300.0 is 44).

// -----

// ui8 arithmetic with wrap-around, and values above 127.
// ARG: a ui8 [8] values([250, 200, 128, 127, 0, 255, 3, 100])
// ARG: b ui8 [8] values([10, 100, 128, 1, 5, 255, 0, 7])
// OUT: a + b
// OUT: a - b
// OUT: a * b
// OUT: np.maximum(a, b)
// OUT: np.minimum(a, b)
// OUT: np.negative(a)
func.func @ui8_arithmetic(%a: tensor<8xui8>, %b: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>) {
  %0 = lazy.add %a, %b : tensor<8xui8>
  %1 = lazy.sub %a, %b : tensor<8xui8>
  %2 = lazy.mul %a, %b : tensor<8xui8>
  %3 = lazy.max %a, %b : tensor<8xui8>
  %4 = lazy.min %a, %b : tensor<8xui8>
  %5 = lazy.neg %a : tensor<8xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>
}

// -----

// ui8 division (unsigned: 200 // 3 is 66), zero divisors, abs and relu
// (the identity), pow wrapping with exponents above 127.
// ARG: a ui8 [8] values([200, 255, 7, 0, 129, 9, 250, 2])
// ARG: b ui8 [8] values([3, 16, 0, 5, 128, 200, 1, 9])
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))()
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))()
// OUT: np.abs(a)
// OUT: np.maximum(a, 0)
// OUT: np.power(a, b)
func.func @ui8_division(%a: tensor<8xui8>, %b: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>) {
  %0 = lazy.floor_div %a, %b : tensor<8xui8>
  %1 = lazy.mod %a, %b : tensor<8xui8>
  %2 = lazy.abs %a : tensor<8xui8>
  %3 = lazy.relu %a : tensor<8xui8>
  %4 = lazy.pow %a, %b : tensor<8xui8>
  return %0, %1, %2, %3, %4 : tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>
}

// -----

// ui8 random, with zero divisors; odd size for vector tails.
// ARG: a ui8 [7, 19] int(0, 255)
// ARG: b ui8 [7, 19] int(0, 255)
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))()
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))()
// OUT: (a > b).astype(np.int32)
// OUT: (a <= b).astype(np.int32)
func.func @ui8_random(%a: tensor<7x19xui8>, %b: tensor<7x19xui8>) -> (tensor<7x19xui8>, tensor<7x19xui8>, tensor<7x19xi32>, tensor<7x19xi32>) {
  %0 = lazy.floor_div %a, %b : tensor<7x19xui8>
  %1 = lazy.mod %a, %b : tensor<7x19xui8>
  %2 = lazy.compare gt, %a, %b : tensor<7x19xui8>
  %3 = lazy.compare le, %a, %b : tensor<7x19xui8>
  %4 = lazy.cast %2 : tensor<7x19xi1> to tensor<7x19xi32>
  %5 = lazy.cast %3 : tensor<7x19xi1> to tensor<7x19xi32>
  return %0, %1, %4, %5 : tensor<7x19xui8>, tensor<7x19xui8>, tensor<7x19xi32>, tensor<7x19xi32>
}

// -----

// i8: floor division and mod of every sign combination, zero divisors,
// MIN // -1 (wraps to MIN), wrap-around, abs(MIN) and signed compares.
// ARG: a i8 [10] values([-7, 7, -7, 7, 0, -128, -128, 127, 100, -5])
// ARG: b i8 [10] values([2, -2, -2, 2, 0, -1, 7, 1, 100, 0])
// OUT: np.errstate(all='ignore')(lambda: np.floor_divide(a, b))()
// OUT: np.errstate(all='ignore')(lambda: np.mod(a, b))()
// OUT: a + b
// OUT: np.abs(a)
// OUT: (a < b).astype(np.int32)
func.func @i8_arithmetic(%a: tensor<10xi8>, %b: tensor<10xi8>) -> (tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi32>) {
  %0 = lazy.floor_div %a, %b : tensor<10xi8>
  %1 = lazy.mod %a, %b : tensor<10xi8>
  %2 = lazy.add %a, %b : tensor<10xi8>
  %3 = lazy.abs %a : tensor<10xi8>
  %4 = lazy.compare lt, %a, %b : tensor<10xi8>
  %5 = lazy.cast %4 : tensor<10xi1> to tensor<10xi32>
  return %0, %1, %2, %3, %5 : tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi32>
}

// -----

// Casts: ui8 extends with zeros and converts to floats as unsigned values,
// i8 with its sign; i8 <-> ui8 keep the bits; wider integers truncate.
// ARG: u ui8 [6] values([0, 1, 127, 128, 200, 255])
// ARG: s i8 [6] values([0, 1, 127, -128, -56, -1])
// ARG: w i32 [6] values([300, -1, 255, 256, -129, 1000])
// OUT: u.astype(np.float32)
// OUT: u.astype(np.int32)
// OUT: s.astype(np.float16)
// OUT: s.astype(np.int64)
// OUT: s.astype(np.uint8)
// OUT: u.astype(np.int8)
// OUT: w.astype(np.uint8)
// OUT: w.astype(np.int8)
func.func @casts_from_integers(%u: tensor<6xui8>, %s: tensor<6xi8>, %w: tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>, tensor<6xf16>, tensor<6xi64>, tensor<6xui8>, tensor<6xi8>, tensor<6xui8>, tensor<6xi8>) {
  %0 = lazy.cast %u : tensor<6xui8> to tensor<6xf32>
  %1 = lazy.cast %u : tensor<6xui8> to tensor<6xi32>
  %2 = lazy.cast %s : tensor<6xi8> to tensor<6xf16>
  %3 = lazy.cast %s : tensor<6xi8> to tensor<6xi64>
  %4 = lazy.cast %s : tensor<6xi8> to tensor<6xui8>
  %5 = lazy.cast %u : tensor<6xui8> to tensor<6xi8>
  %6 = lazy.cast %w : tensor<6xi32> to tensor<6xui8>
  %7 = lazy.cast %w : tensor<6xi32> to tensor<6xi8>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6xf32>, tensor<6xi32>, tensor<6xf16>, tensor<6xi64>, tensor<6xui8>, tensor<6xi8>, tensor<6xui8>, tensor<6xi8>
}

// -----

// Float to ui8 and i8: truncation toward zero, wrapping through i32 outside
// the 8-bit range.
// ARG: x f32 [8] values([0.5, 200.7, 255.9, -1.0, 300.0, -0.9, 127.9, 128.0])
// OUT: x.astype(np.uint8)
// OUT: x.astype(np.int8)
func.func @casts_from_floats(%x: tensor<8xf32>) -> (tensor<8xui8>, tensor<8xi8>) {
  %0 = lazy.cast %x : tensor<8xf32> to tensor<8xui8>
  %1 = lazy.cast %x : tensor<8xf32> to tensor<8xi8>
  return %0, %1 : tensor<8xui8>, tensor<8xi8>
}

// -----

// Reductions: ui8 maxima and minima above 127, argmax/argmin as unsigned,
// and i8 ones as signed; a sum after widening, as the API records it.
// ARG: u ui8 [3, 5] values([[1, 200, 3, 127, 128], [255, 0, 254, 1, 2], [5, 5, 5, 5, 5]])
// ARG: s i8 [3, 5] values([[1, -56, 3, 127, -128], [-1, 0, -2, 1, 2], [5, 5, 5, 5, 5]])
// OUT: u.max(axis=1)
// OUT: u.min(axis=1)
// OUT: np.argmax(u, axis=1)
// OUT: np.argmin(u, axis=1)
// OUT: s.max(axis=1)
// OUT: np.argmin(s, axis=1)
// OUT: u.sum(axis=1, dtype=np.int64)
func.func @reductions(%u: tensor<3x5xui8>, %s: tensor<3x5xi8>) -> (tensor<3xui8>, tensor<3xui8>, tensor<3xi64>, tensor<3xi64>, tensor<3xi8>, tensor<3xi64>, tensor<3xi64>) {
  %0 = lazy.reduce_max %u [1] : tensor<3x5xui8>
  %1 = lazy.reduce_min %u [1] : tensor<3x5xui8>
  %2 = lazy.argmax %u, axis = 1 : tensor<3x5xui8>
  %3 = lazy.argmin %u, axis = 1 : tensor<3x5xui8>
  %4 = lazy.reduce_max %s [1] : tensor<3x5xi8>
  %5 = lazy.argmin %s, axis = 1 : tensor<3x5xi8>
  %w = lazy.cast %u : tensor<3x5xui8> to tensor<3x5xi64>
  %6 = lazy.reduce_sum %w [1] : tensor<3x5xi64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xui8>, tensor<3xui8>, tensor<3xi64>, tensor<3xi64>, tensor<3xi8>, tensor<3xi64>, tensor<3xi64>
}

// -----

// Folded constants keep the signedness: 200 > 100 as ui8, and a wrapped sum.
// OUT: np.array([1, 0], dtype=np.int32)
// OUT: np.array([4, 44], dtype=np.uint8)
func.func @constants() -> (tensor<2xi32>, tensor<2xui8>) {
  %a = lazy.constant dense<[200, 50]> : tensor<2xui8>
  %b = lazy.constant dense<[100, 60]> : tensor<2xui8>
  %c = lazy.compare gt, %a, %b : tensor<2xui8>
  %0 = lazy.cast %c : tensor<2xi1> to tensor<2xi32>
  %d = lazy.constant dense<[60, 250]> : tensor<2xui8>
  %1 = lazy.add %a, %d : tensor<2xui8>
  return %0, %1 : tensor<2xi32>, tensor<2xui8>
}
