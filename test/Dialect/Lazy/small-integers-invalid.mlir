// RUN: lazyc-opt %s -split-input-file -verify-diagnostics

// The lazy dialect's integers are i1, i8, ui8, i32 and i64: explicitly
// signed types and other unsigned widths are not element types.

func.func @signed_i8(%x: tensor<4xsi8>) -> tensor<4xsi8> {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = lazy.add %x, %x : tensor<4xsi8>
  return %0 : tensor<4xsi8>
}

// -----

func.func @unsigned_i32(%x: tensor<4xui32>) -> tensor<4xui32> {
  // expected-error @+1 {{8-bit unsigned integer}}
  %0 = lazy.neg %x : tensor<4xui32>
  return %0 : tensor<4xui32>
}
