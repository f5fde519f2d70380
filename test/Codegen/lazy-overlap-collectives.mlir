// RUN: lazyc-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(lazy-overlap-collectives))' | FileCheck %s

// The input is in the form the bufferization of lazy.collective produces: a
// lazyrt_collective_start call, then the wait, each taking the input's and
// the output's addresses through memref.extract_aligned_pointer_as_index and
// arith.index_cast ops of its own.

// The wait moves down past ops on other buffers (a linalg.generic, a
// memref.copy) and stops before the first op that reads the output. It takes
// the addresses anew there; the ones it had before the move are erased.
// CHECK-LABEL: func.func @wait_moves_to_the_first_reader_of_the_output
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>, %[[RES:.*]]: memref<64xf32>)
//       CHECK:   %[[OUT:.*]] = memref.alloc()
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(
//  CHECK-NEXT:   linalg.generic {{.*}} ins(%[[A]] : memref<64xf32>) outs(%[[B]] : memref<64xf32>)
//       CHECK:   memref.copy %[[A]], %[[B]]
//  CHECK-NEXT:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
//  CHECK-NEXT:   %[[AI:.*]] = arith.index_cast %[[PI]] : index to i64
//  CHECK-NEXT:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//  CHECK-NEXT:   %[[AO:.*]] = arith.index_cast %[[PO]] : index to i64
//  CHECK-NEXT:   call @lazyrt_collective_wait(%[[H]], %[[AI]], %[[AO]])
//  CHECK-NEXT:   linalg.generic {{.*}} ins(%[[OUT]] : memref<64xf32>) outs(%[[RES]] : memref<64xf32>)
//   CHECK-NOT:   lazyrt_collective_wait
//       CHECK:   return
#id = affine_map<(d0) -> (d0)>
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_moves_to_the_first_reader_of_the_output(%in: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>, %res: memref<64xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %out = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i3 = arith.index_cast %p3 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %i3) : (i64, i64, i64) -> i32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%out : memref<64xf32>) outs(%res : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %out : memref<64xf32>
  return
}

// -----

// Another collective's start (on other buffers) does not stop the first
// wait, which passes the second collective's own wait too: each wait stops
// before the first op touching its own buffers (the runtime runs the
// collectives in the order they were started either way).
// CHECK-LABEL: func.func @wait_moves_past_another_collective
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[IN2:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[OUT2:.*]]: memref<64xf32>, %[[RES:.*]]: memref<64xf32>)
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(
//  CHECK-NEXT:   %[[PI2:.*]] = memref.extract_aligned_pointer_as_index %[[IN2]]
//       CHECK:   %[[H2:.*]] = call @lazyrt_collective_start(
//   CHECK-NOT:   lazyrt_collective_wait
//       CHECK:   call @lazyrt_collective_wait(%[[H]],
//  CHECK-NEXT:   memref.copy %[[OUT]], %[[RES]]
//   CHECK-NOT:   lazyrt_collective_wait
//       CHECK:   call @lazyrt_collective_wait(%[[H2]],
//  CHECK-NEXT:   memref.copy %[[OUT2]], %[[RES]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_moves_past_another_collective(%in: memref<64xf32>, %in2: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>, %res: memref<64xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i3 = arith.index_cast %p3 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %i3) : (i64, i64, i64) -> i32
  %q0 = memref.extract_aligned_pointer_as_index %in2 : memref<64xf32> -> index
  %j0 = arith.index_cast %q0 : index to i64
  %q1 = memref.extract_aligned_pointer_as_index %out2 : memref<64xf32> -> index
  %j1 = arith.index_cast %q1 : index to i64
  %h2 = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %j0, %j1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %q2 = memref.extract_aligned_pointer_as_index %in2 : memref<64xf32> -> index
  %j2 = arith.index_cast %q2 : index to i64
  %q3 = memref.extract_aligned_pointer_as_index %out2 : memref<64xf32> -> index
  %j3 = arith.index_cast %q3 : index to i64
  %s2 = call @lazyrt_collective_wait(%h2, %j2, %j3) : (i64, i64, i64) -> i32
  memref.copy %out, %res : memref<64xf32> to memref<64xf32>
  memref.copy %out2, %res : memref<64xf32> to memref<64xf32>
  return
}

// -----

// The collective reads its input until the wait: the wait stops before an
// op that writes the input.
// CHECK-LABEL: func.func @wait_stops_before_a_writer_of_the_input
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
//       CHECK:   call @lazyrt_collective_start(
//  CHECK-NEXT:   memref.copy %[[A]], %[[B]]
//       CHECK:   call @lazyrt_collective_wait(
//  CHECK-NEXT:   memref.copy %[[A]], %[[IN]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_stops_before_a_writer_of_the_input(%in: memref<64xf32>, %out: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i3 = arith.index_cast %p3 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %i3) : (i64, i64, i64) -> i32
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  memref.copy %a, %in : memref<64xf32> to memref<64xf32>
  memref.copy %out, %b : memref<64xf32> to memref<64xf32>
  return
}

// -----

// Making a view of the output accesses nothing, so the wait moves past the
// subview; a load through that view reads the output and stops it.
// CHECK-LABEL: func.func @wait_stops_before_a_read_through_a_view
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
//       CHECK:   call @lazyrt_collective_start(
//  CHECK-NEXT:   %[[VIEW:.*]] = memref.subview %[[OUT]][32] [32] [1]
//  CHECK-NEXT:   memref.copy %[[A]], %[[B]]
//       CHECK:   call @lazyrt_collective_wait(
//  CHECK-NEXT:   memref.load %[[VIEW]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_stops_before_a_read_through_a_view(%in: memref<64xf32>, %out: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i3 = arith.index_cast %p3 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %i3) : (i64, i64, i64) -> i32
  %view = memref.subview %out[32] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: 32>>
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  %v = memref.load %view[%c0] : memref<32xf32, strided<[1], offset: 32>>
  return %v : f32
}

// -----

// An op with a region counts as touching a buffer when an op nested in it
// does: the wait moves past an scf.for that only reads another buffer and
// stops before an scf.parallel whose body stores into the input.
// CHECK-LABEL: func.func @wait_looks_into_regions
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
//       CHECK:   call @lazyrt_collective_start(
//  CHECK-NEXT:   scf.for
//       CHECK:     memref.load %[[A]]
//       CHECK:     memref.store %{{.*}}, %[[B]]
//       CHECK:   call @lazyrt_collective_wait(
//  CHECK-NEXT:   scf.parallel
//       CHECK:     memref.store %{{.*}}, %[[IN]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_looks_into_regions(%in: memref<64xf32>, %out: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i3 = arith.index_cast %p3 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %i3) : (i64, i64, i64) -> i32
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %b[%i] : memref<64xf32>
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %zero, %in[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// Nothing after the start touches the buffers (the output is an
// out-parameter the caller reads): the wait stops before the terminator.
// CHECK-LABEL: func.func @wait_stops_before_the_terminator
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
//       CHECK:   call @lazyrt_collective_start(
//  CHECK-NEXT:   memref.copy %[[A]], %[[B]]
//  CHECK-NEXT:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
//  CHECK-NEXT:   %[[AI:.*]] = arith.index_cast %[[PI]]
//  CHECK-NEXT:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//  CHECK-NEXT:   %[[AO:.*]] = arith.index_cast %[[PO]]
//  CHECK-NEXT:   call @lazyrt_collective_wait(%{{.*}}, %[[AI]], %[[AO]])
//  CHECK-NEXT:   return
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_stops_before_the_terminator(%in: memref<64xf32>, %out: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i3 = arith.index_cast %p3 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %i3) : (i64, i64, i64) -> i32
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  return
}

// -----

// The pass only knows the buffers behind addresses taken by
// extract_aligned_pointer_as_index + index_cast: a wait given an address
// any other way stays where it is.
// CHECK-LABEL: func.func @wait_with_unknown_addresses_stays
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[ADDR:.*]]: i64, %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
//       CHECK:   %[[H:.*]] = call @lazyrt_collective_start(
//  CHECK-NEXT:   %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
//  CHECK-NEXT:   %[[I:.*]] = arith.index_cast %[[P]]
//  CHECK-NEXT:   call @lazyrt_collective_wait(%[[H]], %[[I]], %[[ADDR]])
//  CHECK-NEXT:   memref.copy %[[A]], %[[B]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @wait_with_unknown_addresses_stays(%in: memref<64xf32>, %out: memref<64xf32>, %addr: i64, %a: memref<64xf32>, %b: memref<64xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %addr, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %p2 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %s = call @lazyrt_collective_wait(%h, %i2, %addr) : (i64, i64, i64) -> i32
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  memref.copy %out, %b : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A use of the wait's status stops it too (moving past it would break
// dominance): the wait stays before the addi, not at the copy.
// CHECK-LABEL: func.func @status_use_stops_the_wait
//       CHECK:   %[[S:.*]] = call @lazyrt_collective_wait(
//  CHECK-NEXT:   arith.addi %[[S]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @status_use_stops_the_wait(%in: memref<64xf32>, %out: memref<64xf32>, %res: memref<64xf32>) -> i32 {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %p0 = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %i0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %i0, %i1, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %s = call @lazyrt_collective_wait(%h, %i0, %i1) : (i64, i64, i64) -> i32
  %t = arith.addi %s, %c0_i32 : i32
  memref.copy %out, %res : memref<64xf32> to memref<64xf32>
  return %t : i32
}
