// RUN: lazyc-run %s --entry=constant_f32 --print | FileCheck %s --check-prefix=CONST
// RUN: lazyc-run %s --entry=constant_int_bool --print | FileCheck %s --check-prefix=INTS
// RUN: lazyc-run %s --entry=uniform_f32 --print | FileCheck %s --check-prefix=UNIFORM32
// RUN: lazyc-run %s --entry=uniform_f64 --print | FileCheck %s --check-prefix=UNIFORM64
// RUN: lazyc-run %s --entry=relu --input=random:4x8 --print | FileCheck %s --check-prefix=RELU
// RUN: lazyc-run %s --entry=relu --input=random:4x8 --seed=1 --print | FileCheck %s --check-prefix=RELU
// RUN: lazyc-run %s --entry=dynamic_rows --input=random:3x8 --print | FileCheck %s --check-prefix=DYNAMIC
// RUN: lazyc-run %s --entry=two_outputs --input=random --input=random --print | FileCheck %s --check-prefix=TWO

// lazyc-run compiles one function of the file, runs it once and, with
// --print, prints each output as `out<i>: <type> [<up to 8 leading elements>]`
// (", ...]" when there are more). Floats print as %e (6 decimals), so the
// values below are checked to that precision.

// A constant: the values come back as written, in row-major order.
// CONST: out0: tensor<2x3xf32> [1.000000e+00, -2.500000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, -6.000000e+00]
// CONST-NOT: out1
func.func @constant_f32() -> tensor<2x3xf32> {
  %0 = lazy.constant dense<[[1.0, -2.5, 3.0], [4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Integer and boolean outputs; 10 elements print the first 8 and "...".
// INTS: out0: tensor<10xi32> [0, -1, 2, -3, 4, -5, 6, -7, ...]
// INTS: out1: tensor<3xi1> [true, false, true]
// INTS: out2: tensor<i64> [42]
func.func @constant_int_bool() -> (tensor<10xi32>, tensor<3xi1>, tensor<i64>) {
  %0 = lazy.constant dense<[0, -1, 2, -3, 4, -5, 6, -7, 8, -9]> : tensor<10xi32>
  %1 = lazy.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = lazy.constant dense<42> : tensor<i64>
  return %0, %1, %2 : tensor<10xi32>, tensor<3xi1>, tensor<i64>
}

// random_uniform, seed 42, f32 on [-1, 1). Expected values computed with
// numpy from the generator documented in lib/Conversion/LazyToLinalg/Random.cpp
// (element i: SplitMix64 of the state seed + (i + 1) * 0x9E3779B97F4A7C15; its
// top 24 bits times 2^-24 give u; value = u * 2 + -1 in f32):
//   z = (s ^ s >> 30) * 0xBF58476D1CE4E5B9; z = (z ^ z >> 27) * 0x94D049BB133111EB;
//   bits = z ^ z >> 31 (all mod 2^64).
// UNIFORM32: out0: tensor<3x4xf32> [4.831297e-01, -6.801792e-01, -4.427978e-01, -3.116187e-01, -9.239397e-01, 7.364560e-01, -5.631896e-01, 6.012636e-01, ...]
func.func @uniform_f32() -> tensor<3x4xf32> {
  %seed0 = lazy.constant dense<42> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = -1.0, high = 1.0 : tensor<i64> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// random_uniform, seed 7, f64 on [2, 3): the top 53 bits times 2^-53, plus 2
// (computed the same way in double precision).
// UNIFORM64: out0: tensor<5xf64> [2.389830e+00, 2.016788e+00, 2.900761e+00, 2.582930e+00, 2.452442e+00]
func.func @uniform_f64() -> tensor<5xf64> {
  %seed0 = lazy.constant dense<7> : tensor<i64>
  %0 = lazy.random_uniform %seed0, low = 2.0, high = 3.0 : tensor<i64> -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// relu of a generated input (uniform in [-1, 1), so about half negative):
// every printed element is 0 or positive (no leading minus sign).
// RELU: out0: tensor<4x8xf32> [{{([0-9]\.[0-9]+e[-+][0-9]+, )+}}...]
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A dynamic dimension takes its size from --input=random:3x8, and so does the
// output.
// DYNAMIC: out0: tensor<3x8xf32> [
func.func @dynamic_rows(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = lazy.neg %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// Two outputs of different types and shapes, printed in order; x - x is 0.
// TWO: out0: tensor<2x2xf32> [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
// TWO: out1: tensor<2xi32> [{{-?[0-9]+}}, {{-?[0-9]+}}]
func.func @two_outputs(%x: tensor<2x2xf32>, %i: tensor<2xi32>) -> (tensor<2x2xf32>, tensor<2xi32>) {
  %0 = lazy.sub %x, %x : tensor<2x2xf32>
  %1 = lazy.add %i, %i : tensor<2xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<2xi32>
}
