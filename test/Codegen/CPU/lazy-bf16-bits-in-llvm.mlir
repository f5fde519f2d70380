// RUN: lazyc-opt %s -split-input-file --lazy-bf16-bits-in-llvm | FileCheck %s

// bf16 values move to and from memory, and through selects, as i16 bits.
// LLVM's x86 backend without bf16 instructions has no legal bf16 vector
// type and takes a bf16 vector select apart element by element.

// The rounding's NaN select, bitcast to bf16 and stored: the select and
// the store keep the i16 bits, and no bf16 value is left.
// CHECK-LABEL: llvm.func @rounded_and_stored
//  CHECK-SAME:   (%[[P:.*]]: !llvm.ptr, %[[NAN:.*]]: vector<4xi1>, %[[BITS:.*]]: vector<4xi16>)
//       CHECK:   %[[QNAN:.*]] = llvm.mlir.constant(dense<32704> : vector<4xi16>)
//       CHECK:   %[[SEL:.*]] = llvm.select %[[NAN]], %[[QNAN]], %[[BITS]] : vector<4xi1>, vector<4xi16>
//  CHECK-NEXT:   llvm.store %[[SEL]], %[[P]] {alignment = 2 : i64} : vector<4xi16>, !llvm.ptr
//   CHECK-NOT:   bf16
//       CHECK:   llvm.return
llvm.func @rounded_and_stored(%p: !llvm.ptr, %nan: vector<4xi1>, %bits: vector<4xi16>) {
  %qnan = llvm.mlir.constant(dense<32704> : vector<4xi16>) : vector<4xi16>
  %sel = llvm.select %nan, %qnan, %bits : vector<4xi1>, vector<4xi16>
  %bf16 = llvm.bitcast %sel : vector<4xi16> to vector<4xbf16>
  llvm.store %bf16, %p {alignment = 2 : i64} : vector<4xbf16>, !llvm.ptr
  llvm.return
}

// -----

// A loaded bf16 vector, widened by the expansion's bitcast to i16: the
// load yields the bits and the round trip of bitcasts is gone.
// CHECK-LABEL: llvm.func @loaded_and_widened
//       CHECK:   %[[BITS:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<8xi16>
//       CHECK:   %[[WIDE:.*]] = llvm.zext %[[BITS]] : vector<8xi16> to vector<8xi32>
//   CHECK-NOT:   bf16
//       CHECK:   llvm.return
llvm.func @loaded_and_widened(%p: !llvm.ptr) -> vector<8xi32> {
  %v = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> vector<8xbf16>
  %bits = llvm.bitcast %v : vector<8xbf16> to vector<8xi16>
  %wide = llvm.zext %bits : vector<8xi16> to vector<8xi32>
  llvm.return %wide : vector<8xi32>
}

// -----

// A select of bf16 values (a where() in bf16) between a load and a store,
// masked: every value in between is i16.
// CHECK-LABEL: llvm.func @masked_select
//  CHECK-SAME:   (%[[P:.*]]: !llvm.ptr, %[[Q:.*]]: !llvm.ptr, %[[MASK:.*]]: vector<4xi1>, %[[C:.*]]: vector<4xi1>, %[[PASS:.*]]: vector<4xbf16>, %[[OTHER:.*]]: bf16)
//       CHECK:   %[[PASSBITS:.*]] = llvm.bitcast %[[PASS]] : vector<4xbf16> to vector<4xi16>
//       CHECK:   %[[V:.*]] = llvm.intr.masked.load %[[P]], %[[MASK]], %[[PASSBITS]] {alignment = 2 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xi16>) -> vector<4xi16>
//       CHECK:   %[[ZERO:.*]] = llvm.bitcast %{{.*}} : vector<4xbf16> to vector<4xi16>
//       CHECK:   %[[SEL:.*]] = llvm.select %[[C]], %[[V]], %[[ZERO]] : vector<4xi1>, vector<4xi16>
//       CHECK:   llvm.intr.masked.store %[[SEL]], %[[Q]], %[[MASK]] {alignment = 2 : i32} : vector<4xi16>, vector<4xi1> into !llvm.ptr
//       CHECK:   %[[S:.*]] = llvm.load %[[P]] : !llvm.ptr -> i16
//       CHECK:   %[[OTHERBITS:.*]] = llvm.bitcast %[[OTHER]] : bf16 to i16
//       CHECK:   %[[T:.*]] = llvm.select %{{.*}}, %[[S]], %[[OTHERBITS]] : i1, i16
//       CHECK:   llvm.store %[[T]], %[[Q]] : i16, !llvm.ptr
//       CHECK:   llvm.return
llvm.func @masked_select(%p: !llvm.ptr, %q: !llvm.ptr, %mask: vector<4xi1>, %c: vector<4xi1>, %pass: vector<4xbf16>, %other: bf16) {
  %v = llvm.intr.masked.load %p, %mask, %pass {alignment = 2 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xbf16>) -> vector<4xbf16>
  %zero = llvm.mlir.constant(dense<0.0> : vector<4xbf16>) : vector<4xbf16>
  %sel = llvm.select %c, %v, %zero : vector<4xi1>, vector<4xbf16>
  llvm.intr.masked.store %sel, %q, %mask {alignment = 2 : i32} : vector<4xbf16>, vector<4xi1> into !llvm.ptr
  %s = llvm.load %p : !llvm.ptr -> bf16
  %s0 = llvm.mlir.constant(0 : i32) : i32
  %first = llvm.extractelement %c[%s0 : i32] : vector<4xi1>
  %t = llvm.select %first, %s, %other : i1, bf16
  llvm.store %t, %q : bf16, !llvm.ptr
  llvm.return
}

// -----

// A loaded scalar broadcast to a vector (a max-pool gradient's maximum,
// read once per window) and an element taken out: the insertelement, the
// splat shuffle and the extractelement move i16 bits. As bf16, x86 stored
// the scalar to the stack and read it back wider: a store-forwarding stall
// per broadcast.
// CHECK-LABEL: llvm.func @broadcast_scalar
//       CHECK:   %[[S:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
//       CHECK:   %[[INS:.*]] = llvm.insertelement %[[S]], %{{.*}}[%{{.*}} : i64] : vector<2xi16>
//       CHECK:   %[[SPLAT:.*]] = llvm.shufflevector %[[INS]], %{{.*}} [0, 0] : vector<2xi16>
//       CHECK:   llvm.zext %[[SPLAT]] : vector<2xi16> to vector<2xi32>
//       CHECK:   %[[E:.*]] = llvm.extractelement %[[SPLAT]][%{{.*}} : i64] : vector<2xi16>
//       CHECK:   llvm.store %[[E]], %{{.*}} : i16, !llvm.ptr
//   CHECK-NOT:   bf16
//       CHECK:   llvm.return
llvm.func @broadcast_scalar(%p: !llvm.ptr, %q: !llvm.ptr) -> vector<2xi32> {
  %s = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> bf16
  %poison = llvm.mlir.poison : vector<2xbf16>
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %ins = llvm.insertelement %s, %poison[%c0 : i64] : vector<2xbf16>
  %splat = llvm.shufflevector %ins, %poison [0, 0] : vector<2xbf16>
  %bits = llvm.bitcast %splat : vector<2xbf16> to vector<2xi16>
  %wide = llvm.zext %bits : vector<2xi16> to vector<2xi32>
  %e = llvm.extractelement %splat[%c0 : i64] : vector<2xbf16>
  llvm.store %e, %q : bf16, !llvm.ptr
  llvm.return %wide : vector<2xi32>
}

// -----

// Other types are untouched: f16 keeps its loads, selects and stores.
// CHECK-LABEL: llvm.func @half_untouched
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr -> vector<4xf16>
//       CHECK:   llvm.select %{{.*}} : vector<4xi1>, vector<4xf16>
//       CHECK:   llvm.store %{{.*}} : vector<4xf16>, !llvm.ptr
//   CHECK-NOT:   llvm.bitcast
llvm.func @half_untouched(%p: !llvm.ptr, %c: vector<4xi1>, %x: vector<4xf16>) {
  %v = llvm.load %p : !llvm.ptr -> vector<4xf16>
  %sel = llvm.select %c, %v, %x : vector<4xi1>, vector<4xf16>
  llvm.store %sel, %p : vector<4xf16>, !llvm.ptr
  llvm.return
}
