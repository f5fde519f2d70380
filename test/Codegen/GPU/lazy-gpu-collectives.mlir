// RUN: lazyc-opt %s -split-input-file --lazy-gpu-collectives | FileCheck %s

// A collective's start and wait become the runtime's calls for device
// buffers, with the same operands, declared lazy.queues_on_stream; the
// declarations for host buffers go.
// CHECK-NOT:   @lazyrt_collective_start
// CHECK-NOT:   @lazyrt_collective_wait
// CHECK-DAG:   func.func private @lazyrt_cuda_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64 attributes {lazy.queues_on_stream}
// CHECK-DAG:   func.func private @lazyrt_cuda_collective_wait(i64, i64, i64) -> i32 attributes {lazy.queues_on_stream}
// CHECK-LABEL: func.func @device_buffers
//  CHECK-SAME:   (%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>)
//       CHECK:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
//       CHECK:   %[[AI:.*]] = arith.index_cast %[[PI]]
//       CHECK:   %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
//       CHECK:   %[[AO:.*]] = arith.index_cast %[[PO]]
//       CHECK:   %[[H:.*]] = call @lazyrt_cuda_collective_start(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AI]], %[[AO]], %{{.*}})
//       CHECK:   call @lazyrt_cuda_collective_wait(%[[H]], %[[AI]], %[[AO]])
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.copy
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @device_buffers(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %pi = memref.extract_aligned_pointer_as_index %in : memref<64xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %po = memref.extract_aligned_pointer_as_index %out : memref<64xf32> -> index
  %ao = arith.index_cast %po : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %ai, %ao, %c64_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %s = call @lazyrt_collective_wait(%h, %ai, %ao) : (i64, i64, i64) -> i32
  return
}

// -----

// An input in host memory (a promoted literal, lazy.host_buffer) is copied
// to a new buffer, which the start and the wait read and which is freed
// after the wait (lazy-gpu-device-buffers then puts both on the device).
// CHECK-LABEL: func.func @host_input
//  CHECK-SAME:   (%[[LIT:.*]]: memref<f32> {lazy.host_buffer}, %[[OUT:.*]]: memref<f32>)
//       CHECK:   %[[COPY:.*]] = memref.alloc() : memref<f32>
//  CHECK-NEXT:   memref.copy %[[LIT]], %[[COPY]]
//  CHECK-NEXT:   %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[COPY]]
//       CHECK:   call @lazyrt_cuda_collective_start(
//       CHECK:   %[[PW:.*]] = memref.extract_aligned_pointer_as_index %[[COPY]]
//       CHECK:   call @lazyrt_cuda_collective_wait(
//  CHECK-NEXT:   memref.dealloc %[[COPY]]
//   CHECK-NOT:   extract_aligned_pointer_as_index %[[LIT]]
func.func private @lazyrt_collective_start(i32, i32, i32, i64, i64, i64, i64) -> i64
func.func private @lazyrt_collective_wait(i64, i64, i64) -> i32
func.func @host_input(%literal: memref<f32> {lazy.host_buffer}, %out: memref<f32>) {
  %c0_i32 = arith.constant 0 : i32
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %pi = memref.extract_aligned_pointer_as_index %literal : memref<f32> -> index
  %ai = arith.index_cast %pi : index to i64
  %po = memref.extract_aligned_pointer_as_index %out : memref<f32> -> index
  %ao = arith.index_cast %po : index to i64
  %h = call @lazyrt_collective_start(%c0_i32, %c0_i32, %c0_i32, %c0_i64, %ai, %ao, %c1_i64) : (i32, i32, i32, i64, i64, i64, i64) -> i64
  %pw = memref.extract_aligned_pointer_as_index %literal : memref<f32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pwo = memref.extract_aligned_pointer_as_index %out : memref<f32> -> index
  %awo = arith.index_cast %pwo : index to i64
  %s = call @lazyrt_collective_wait(%h, %aw, %awo) : (i64, i64, i64) -> i32
  return
}
