// RUN: lazyc-opt %s -split-input-file --lazy-expand-bf16 | FileCheck %s

// Conversions between f32 and bf16 become integer code: extf is a shift of
// the 16 bits into the top half of an i32; truncf rounds to nearest even by
// adding 0x7FFF plus the lowest kept bit before shifting right by 16, and
// maps NaN to the quiet NaN 0x7FC0 (32704). Other float ops, and conversions
// involving other types, are untouched.

// truncf f32 -> bf16.
// CHECK-LABEL: func.func @truncf_scalar
//  CHECK-SAME:   (%[[X:.*]]: f32)
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
//   CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : i32
//   CHECK-DAG:   %[[QNAN:.*]] = arith.constant 32704 : i16
//   CHECK-DAG:   %[[BIAS:.*]] = arith.constant 32767 : i32
//   CHECK-NOT:   arith.truncf
//       CHECK:   %[[ISNAN:.*]] = arith.cmpf une, %[[X]], %[[X]] : f32
//       CHECK:   %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
//       CHECK:   %[[HI:.*]] = arith.shrui %[[BITS]], %[[C16]] : i32
//       CHECK:   %[[LSB:.*]] = arith.andi %[[HI]], %[[C1]] : i32
//       CHECK:   %[[ROUND:.*]] = arith.addi %[[LSB]], %[[BIAS]] : i32
//       CHECK:   %[[SUM:.*]] = arith.addi %[[BITS]], %[[ROUND]] : i32
//       CHECK:   %[[TOP:.*]] = arith.shrui %[[SUM]], %[[C16]] : i32
//       CHECK:   %[[NARROW:.*]] = arith.trunci %[[TOP]] : i32 to i16
//       CHECK:   %[[SEL:.*]] = arith.select %[[ISNAN]], %[[QNAN]], %[[NARROW]] : i16
//       CHECK:   %[[R:.*]] = arith.bitcast %[[SEL]] : i16 to bf16
//   CHECK-NOT:   arith.truncf
//       CHECK:   return %[[R]] : bf16
func.func @truncf_scalar(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// -----

// extf bf16 -> f32 on a vector.
// CHECK-LABEL: func.func @extf_vector
//  CHECK-SAME:   (%[[X:.*]]: vector<4xbf16>)
//       CHECK:   %[[C16:.*]] = arith.constant dense<16> : vector<4xi32>
//   CHECK-NOT:   arith.extf
//       CHECK:   %[[BITS:.*]] = arith.bitcast %[[X]] : vector<4xbf16> to vector<4xi16>
//       CHECK:   %[[WIDE:.*]] = arith.extui %[[BITS]] : vector<4xi16> to vector<4xi32>
//       CHECK:   %[[SHIFTED:.*]] = arith.shli %[[WIDE]], %[[C16]] : vector<4xi32>
//       CHECK:   %[[R:.*]] = arith.bitcast %[[SHIFTED]] : vector<4xi32> to vector<4xf32>
//   CHECK-NOT:   arith.extf
//       CHECK:   return %[[R]] : vector<4xf32>
func.func @extf_vector(%x: vector<4xbf16>) -> vector<4xf32> {
  %0 = arith.extf %x : vector<4xbf16> to vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

// truncf on a vector and extf on a scalar: no bf16 conversion is left.
// CHECK-LABEL: func.func @truncf_vector_extf_scalar
//   CHECK-NOT:   arith.truncf
//   CHECK-NOT:   arith.extf
//       CHECK:   arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
//       CHECK:   arith.bitcast %{{.*}} : i32 to f32
//   CHECK-NOT:   arith.truncf
//   CHECK-NOT:   arith.extf
//       CHECK:   return
func.func @truncf_vector_extf_scalar(%v: vector<8xf32>, %s: bf16) -> (vector<8xbf16>, f32) {
  %0 = arith.truncf %v : vector<8xf32> to vector<8xbf16>
  %1 = arith.extf %s : bf16 to f32
  return %0, %1 : vector<8xbf16>, f32
}

// -----

// maximumf and minimumf stay as they are (upstream's arith-expand would
// rewrite them and lose the sign of zero); so do f16 conversions.
// CHECK-LABEL: func.func @untouched
//  CHECK-SAME:   (%[[A:.*]]: f32, %[[B:.*]]: f32, %[[H:.*]]: f16)
//       CHECK:   %[[MAX:.*]] = arith.maximumf %[[A]], %[[B]] : f32
//       CHECK:   %[[MIN:.*]] = arith.minimumf %[[A]], %[[B]] : f32
//       CHECK:   %[[T:.*]] = arith.truncf %[[A]] : f32 to f16
//       CHECK:   %[[E:.*]] = arith.extf %[[H]] : f16 to f32
//       CHECK:   return %[[MAX]], %[[MIN]], %[[T]], %[[E]]
func.func @untouched(%a: f32, %b: f32, %h: f16) -> (f32, f32, f16, f32) {
  %0 = arith.maximumf %a, %b : f32
  %1 = arith.minimumf %a, %b : f32
  %2 = arith.truncf %a : f32 to f16
  %3 = arith.extf %h : f16 to f32
  return %0, %1, %2, %3 : f32, f32, f16, f32
}

// -----

// Small integers (a Bool mask, i8, signed i16) converted to bf16 go through
// an exact conversion to f32 and the expanded truncf; an i32 (not exact in
// f32: two roundings) is left as it is.
// CHECK-LABEL: func.func @small_integers_to_bf16
//  CHECK-SAME:   (%[[MASK:.*]]: vector<8xi1>, %[[BYTE:.*]]: i8, %[[SHORT:.*]]: i16, %[[WORD:.*]]: i32)
//       CHECK:   %[[M:.*]] = arith.uitofp %[[MASK]] : vector<8xi1> to vector<8xf32>
//       CHECK:   arith.bitcast %[[M]] : vector<8xf32> to vector<8xi32>
//       CHECK:   arith.uitofp %[[BYTE]] : i8 to f32
//       CHECK:   arith.sitofp %[[SHORT]] : i16 to f32
//       CHECK:   %[[W:.*]] = arith.sitofp %[[WORD]] : i32 to bf16
//   CHECK-NOT:   arith.truncf
//       CHECK:   return {{.*}}, %[[W]]
func.func @small_integers_to_bf16(%mask: vector<8xi1>, %byte: i8, %short: i16, %word: i32) -> (vector<8xbf16>, bf16, bf16, bf16) {
  %0 = arith.uitofp %mask : vector<8xi1> to vector<8xbf16>
  %1 = arith.uitofp %byte : i8 to bf16
  %2 = arith.sitofp %short : i16 to bf16
  %3 = arith.sitofp %word : i32 to bf16
  return %0, %1, %2, %3 : vector<8xbf16>, bf16, bf16, bf16
}
