// RUN: lazyc-opt %s -split-input-file -verify-diagnostics

// The lazy dialect's integers are i1, i8, ui8, i16, ui16, i32, ui32, i64
// and ui64: explicitly signed types and other widths are not element types.

func.func @signed_i8(%x: tensor<4xsi8>) -> tensor<4xsi8> {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = lazy.add %x, %x : tensor<4xsi8>
  return %0 : tensor<4xsi8>
}

// -----

func.func @unsigned_i24(%x: tensor<4xui24>) -> tensor<4xui24> {
  // expected-error @+1 {{64-bit unsigned integer}}
  %0 = lazy.neg %x : tensor<4xui24>
  return %0 : tensor<4xui24>
}

// -----

func.func @signless_i24(%x: tensor<4xi24>) -> tensor<4xi24> {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = lazy.abs %x : tensor<4xi24>
  return %0 : tensor<4xi24>
}
