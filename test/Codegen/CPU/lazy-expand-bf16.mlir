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
// an exact conversion to f32; an i32 (not exact in f32: two roundings) is
// left as it is. A mask and an i8 are bf16 values: the f32's high half,
// with no rounding; an i16 may not be, and is rounded by the expanded
// truncf.
// CHECK-LABEL: func.func @small_integers_to_bf16
//  CHECK-SAME:   (%[[MASK:.*]]: vector<8xi1>, %[[BYTE:.*]]: i8, %[[SHORT:.*]]: i16, %[[WORD:.*]]: i32)
//       CHECK:   %[[M:.*]] = arith.uitofp %[[MASK]] : vector<8xi1> to vector<8xf32>
//       CHECK:   %[[MB:.*]] = arith.bitcast %[[M]] : vector<8xf32> to vector<8xi32>
//       CHECK:   %[[MH:.*]] = arith.shrui %[[MB]], %{{.*}} : vector<8xi32>
//       CHECK:   %[[MT:.*]] = arith.trunci %[[MH]] : vector<8xi32> to vector<8xi16>
//       CHECK:   %[[R0:.*]] = arith.bitcast %[[MT]] : vector<8xi16> to vector<8xbf16>
//       CHECK:   %[[B:.*]] = arith.uitofp %[[BYTE]] : i8 to f32
//   CHECK-NOT:   arith.cmpf
//       CHECK:   %[[R1:.*]] = arith.bitcast %{{.*}} : i16 to bf16
//       CHECK:   %[[S:.*]] = arith.sitofp %[[SHORT]] : i16 to f32
//       CHECK:   arith.cmpf une, %[[S]], %[[S]]
//       CHECK:   %[[R2:.*]] = arith.bitcast %{{.*}} : i16 to bf16
//       CHECK:   %[[W:.*]] = arith.sitofp %[[WORD]] : i32 to bf16
//   CHECK-NOT:   arith.truncf
//       CHECK:   return %[[R0]], %[[R1]], %[[R2]], %[[W]]
func.func @small_integers_to_bf16(%mask: vector<8xi1>, %byte: i8, %short: i16, %word: i32) -> (vector<8xbf16>, bf16, bf16, bf16) {
  %0 = arith.uitofp %mask : vector<8xi1> to vector<8xbf16>
  %1 = arith.uitofp %byte : i8 to bf16
  %2 = arith.sitofp %short : i16 to bf16
  %3 = arith.sitofp %word : i32 to bf16
  return %0, %1, %2, %3 : vector<8xbf16>, bf16, bf16, bf16
}

// -----

// A vector built element by element (a strided read, as convert-vector-to-scf
// lowers it) and carried around a loop moves i16 bits: the element goes in
// as i16, the loop carries an i16 vector, and each use of the carried value
// bitcasts it back right where it is used (LLVM's x86 backend would take a
// bf16 vector live across blocks apart, and move a bf16 element through f32,
// with a __truncsfbf2 call per element).
// CHECK-LABEL: func.func @vector_built_in_a_loop
//       CHECK:   %[[START:.*]] = arith.bitcast %{{.*}} : vector<4xbf16> to vector<4xi16>
//       CHECK:   cf.br ^bb1(%{{.*}}, %[[START]] : index, vector<4xi16>)
//       CHECK: ^bb1(%{{.*}}: index, %[[CARRIED:.*]]: vector<4xi16>):
//       CHECK: ^bb2:
//       CHECK:   %[[ELEMENT:.*]] = memref.load
//       CHECK:   %[[BITS:.*]] = arith.bitcast %[[ELEMENT]] : bf16 to i16
//       CHECK:   %[[VECTOR:.*]] = arith.bitcast %[[CARRIED]] : vector<4xi16> to vector<4xbf16>
//       CHECK:   %[[VBITS:.*]] = arith.bitcast %[[VECTOR]] : vector<4xbf16> to vector<4xi16>
//       CHECK:   %[[INSERTED:.*]] = vector.insert %[[BITS]], %[[VBITS]] [%{{.*}}] : i16 into vector<4xi16>
//       CHECK:   %[[BACK:.*]] = arith.bitcast %[[INSERTED]] : vector<4xi16> to vector<4xbf16>
//       CHECK:   %[[NEXT:.*]] = arith.bitcast %[[BACK]] : vector<4xbf16> to vector<4xi16>
//       CHECK:   cf.br ^bb1(%{{.*}}, %[[NEXT]] : index, vector<4xi16>)
//       CHECK: ^bb3:
//       CHECK:   %[[DONE:.*]] = arith.bitcast %[[CARRIED]] : vector<4xi16> to vector<4xbf16>
//       CHECK:   vector.store %[[DONE]]
func.func @vector_built_in_a_loop(%from: memref<4x4xbf16>, %to: memref<4xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %start = ub.poison : vector<4xbf16>
  cf.br ^bb1(%c0, %start : index, vector<4xbf16>)
^bb1(%i: index, %v: vector<4xbf16>):
  %more = arith.cmpi slt, %i, %c4 : index
  cf.cond_br %more, ^bb2, ^bb3
^bb2:
  %x = memref.load %from[%i, %c0] : memref<4x4xbf16>
  %w = vector.insert %x, %v [%i] : bf16 into vector<4xbf16>
  %next = arith.addi %i, %c1 : index
  cf.br ^bb1(%next, %w : index, vector<4xbf16>)
^bb3:
  vector.store %v, %to[%c0] : memref<4xbf16>, vector<4xbf16>
  return
}

// -----

// A bf16 element taken out of a vector comes out of the i16 bits.
// CHECK-LABEL: func.func @element_out_of_a_vector
//  CHECK-SAME:   (%[[V:.*]]: vector<4xbf16>, %[[I:.*]]: index)
//       CHECK:   %[[BITS:.*]] = arith.bitcast %[[V]] : vector<4xbf16> to vector<4xi16>
//       CHECK:   %[[E:.*]] = vector.extract %[[BITS]][%[[I]]] : i16 from vector<4xi16>
//       CHECK:   %[[R:.*]] = arith.bitcast %[[E]] : i16 to bf16
//       CHECK:   return %[[R]] : bf16
func.func @element_out_of_a_vector(%v: vector<4xbf16>, %i: index) -> bf16 {
  %e = vector.extract %v[%i] : bf16 from vector<4xbf16>
  return %e : bf16
}
