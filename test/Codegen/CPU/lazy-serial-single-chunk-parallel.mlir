// RUN: lazyc-opt %s -split-input-file --lazy-serial-single-chunk-parallel | FileCheck %s

// A loop whose trip count is known only at run time gets if(iterations > 1):
// at least one iteration in every dimension, and a second in one of them.
// CHECK-LABEL: func.func @dynamic_trip_count
//  CHECK-SAME:   (%[[N:[^:]*]]: index, %[[M:[^:]*]]: index
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   %[[HAS0:.*]] = arith.cmpi slt, %[[ZERO]], %[[N]] : index
//       CHECK:   %[[NEXT0:.*]] = arith.addi %[[ZERO]], %[[ONE]] : index
//       CHECK:   %[[TWO0:.*]] = arith.cmpi slt, %[[NEXT0]], %[[N]] : index
//       CHECK:   %[[HAS1:.*]] = arith.cmpi slt, %[[ZERO]], %[[M]] : index
//       CHECK:   %[[NEXT1:.*]] = arith.addi %[[ZERO]], %[[ONE]] : index
//       CHECK:   %[[TWO1:.*]] = arith.cmpi slt, %[[NEXT1]], %[[M]] : index
//       CHECK:   %[[HAS:.*]] = arith.andi %[[HAS0]], %[[HAS1]] : i1
//       CHECK:   %[[SEVERAL:.*]] = arith.ori %[[TWO0]], %[[TWO1]] : i1
//       CHECK:   %[[IF:.*]] = arith.andi %[[HAS]], %[[SEVERAL]] : i1
//       CHECK:   omp.parallel if(%[[IF]])
func.func @dynamic_trip_count(%n: index, %m: index, %buffer: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i, %j) : index = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
        memref.store %zero, %buffer[%i, %j] : memref<?x?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Constant bounds with two iterations: the team is worth waking; no clause.
// CHECK-LABEL: func.func @two_chunks
//       CHECK:   omp.parallel {
func.func @two_chunks(%buffer: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c2) step (%c1) {
        memref.store %zero, %buffer[%i] : memref<2xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// One constant iteration: the condition (false) is still computed, and
// folds away later.
// CHECK-LABEL: func.func @one_chunk
//       CHECK:   omp.parallel if(%{{.*}})
func.func @one_chunk(%buffer: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c1) step (%c1) {
        memref.store %zero, %buffer[%i] : memref<1xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Not a loop scf-to-openmp made (no worksharing loop): left alone, as is a
// region that already has a clause.
// CHECK-LABEL: func.func @not_a_loop
//       CHECK:   omp.parallel {
//       CHECK:   omp.parallel if(%{{.*}}) {
func.func @not_a_loop(%buffer: memref<1xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    memref.store %zero, %buffer[%c0] : memref<1xf32>
    omp.terminator
  }
  omp.parallel if(%c) {
    memref.store %zero, %buffer[%c0] : memref<1xf32>
    omp.terminator
  }
  return
}
