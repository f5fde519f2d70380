// RUN: lazyc-opt %s -split-input-file --lazy-static-thread-chunks | FileCheck %s

// A thread loop as convert-scf-to-openmp makes it (an omp.wsloop in an
// omp.parallel) becomes a loop of blocks over the calling thread's block of
// iterations: ceil(n / team size) of them, from its number in the team.
// No worksharing loop is left (no __kmpc_for_static_init, no barrier of
// its own).
//   CHECK-DAG: func.func private @omp_get_thread_num() -> i32
//   CHECK-DAG: func.func private @omp_get_num_threads() -> i32
// CHECK-LABEL: func.func @thread_loop
//  CHECK-SAME:   (%[[OUT:.*]]: memref<8xf32>)
//       CHECK:   omp.parallel {
//       CHECK:     %[[T:.*]] = func.call @omp_get_thread_num() : () -> i32
//       CHECK:     %[[THREAD:.*]] = arith.index_cast %[[T]] : i32 to index
//       CHECK:     %[[P:.*]] = func.call @omp_get_num_threads() : () -> i32
//       CHECK:     %[[THREADS:.*]] = arith.index_cast %[[P]] : i32 to index
//       CHECK:     %[[SPAN:.*]] = arith.subi %[[UB:.*]], %[[LB:.*]] : index
//       CHECK:     %[[COUNT:.*]] = arith.ceildivui %{{.*}}, %[[STEP:.*]] : index
//       CHECK:     %[[CHUNK:.*]] = arith.ceildivui %[[COUNT]], %[[THREADS]] : index
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[THREAD]], %[[CHUNK]] : index
//       CHECK:     %[[BEGIN:.*]] = arith.minui %[[FIRST]], %[[COUNT]] : index
//       CHECK:     %[[LAST:.*]] = arith.addi %[[BEGIN]], %[[CHUNK]] : index
//       CHECK:     %[[END:.*]] = arith.minui %[[LAST]], %[[COUNT]] : index
//       CHECK:     cf.br ^[[HEADER:.*]](%[[BEGIN]] : index)
//       CHECK:   ^[[HEADER]](%[[K:.*]]: index):
//       CHECK:     %[[MORE:.*]] = arith.cmpi ult, %[[K]], %[[END]] : index
//       CHECK:     %[[SCALED:.*]] = arith.muli %[[K]], %[[STEP]] : index
//       CHECK:     %[[IV:.*]] = arith.addi %[[LB]], %[[SCALED]] : index
//       CHECK:     cf.cond_br %[[MORE]], ^[[BODY:.*]](%[[IV]] : index), ^[[EXIT:.*]]
//       CHECK:   ^[[BODY]](%[[I:.*]]: index):
//       CHECK:     memref.store %{{.*}}, %[[OUT]][%[[I]]] : memref<8xf32>
//       CHECK:     %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}} : index
//       CHECK:     cf.br ^[[HEADER]](%[[NEXT]] : index)
//       CHECK:   ^[[EXIT]]:
//       CHECK:     omp.terminator
//   CHECK-NOT:   omp.wsloop
func.func @thread_loop(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c8) step (%c2) {
        memref.store %one, %out[%i] : memref<8xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A two-dimensional loop nest is left to the worksharing loop.
// CHECK-LABEL: func.func @two_dimensions
//       CHECK:   omp.wsloop
//   CHECK-NOT:   omp_get_thread_num
func.func @two_dimensions(%out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i, %j) : index = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
        memref.store %one, %out[%i, %j] : memref<8x8xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
