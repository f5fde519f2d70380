// RUN: lazyc-opt %s --pass-pipeline='builtin.module(func.func(lazy-cpu-split-loop-rows{num-threads=2}))' --split-input-file | FileCheck %s
// RUN: lazyc-opt %s --pass-pipeline='builtin.module(func.func(lazy-cpu-split-loop-rows{num-threads=4}))' --split-input-file | FileCheck %s --check-prefix=FOUR

#rows = affine_map<(d0, d1) -> (d0, d1)>

// An LSTM-like recurrence: the state's rows (the batch) never meet. Each
// of two threads runs the whole loop on 8 of the 16 rows: the carried
// values' chunks are slices of the shared results, the step's input (from
// outside the loop, indexed by the counter) is sliced at the chunk's rows,
// the weight is read whole, the product's empty and fill are made at the
// chunk's size, and the output is written at the chunk's rows of each step.
// The state, which each step replaces, starts in a copy of its own (so its
// buffer has one layout); the output, updated in place, does not.
// CHECK-LABEL: func.func @recurrence
//  CHECK-SAME:     (%[[INPUT:.*]]: tensor<32x16x128xf32>, %[[WEIGHT:.*]]: tensor<128x128xf32>, %[[H0:.*]]: tensor<16x128xf32>)
//       CHECK:   %[[ALL:.*]]:2 = scf.forall (%[[T:.*]]) in (2) shared_outs(%[[Y:.*]] = %{{.*}}, %[[H:.*]] = %[[H0]])
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[T]], %c8
//       CHECK:     %[[YCHUNK:.*]] = tensor.extract_slice %[[Y]][0, %[[FIRST]], 0] [32, 8, 128] [1, 1, 1]
//       CHECK:     %[[HCHUNK:.*]] = tensor.extract_slice %[[H]][%[[FIRST]], 0] [8, 128] [1, 1]
//       CHECK:     %[[HCOPY:.*]] = bufferization.alloc_tensor() copy(%[[HCHUNK]]) : tensor<8x128xf32>
//       CHECK:     %[[STEPS:.*]]:2 = scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[YS:.*]] = %[[YCHUNK]], %[[HS:.*]] = %[[HCOPY]]) -> (tensor<32x8x128xf32>, tensor<8x128xf32>)
//       CHECK:       %[[X:.*]] = tensor.extract_slice %[[INPUT]][%[[S]], 0, 0] [1, 16, 128] [1, 1, 1] : tensor<32x16x128xf32> to tensor<16x128xf32>
//       CHECK:       %[[EMPTY:.*]] = tensor.empty() : tensor<8x128xf32>
//       CHECK:       %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<8x128xf32>)
//       CHECK:       %[[PRODUCT:.*]] = linalg.matmul ins(%[[HS]], %[[WEIGHT]] : tensor<8x128xf32>, tensor<128x128xf32>) outs(%[[ZEROS]] : tensor<8x128xf32>)
//       CHECK:       %[[XCHUNK:.*]] = tensor.extract_slice %[[X]][%[[FIRST]], 0] [8, 128] [1, 1] : tensor<16x128xf32> to tensor<8x128xf32>
//       CHECK:       %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[XCHUNK]], %[[PRODUCT]] : tensor<8x128xf32>, tensor<8x128xf32>) outs(%{{.*}} : tensor<8x128xf32>)
//       CHECK:         math.tanh
//       CHECK:       %[[WRITTEN:.*]] = tensor.insert_slice %[[NEXT]] into %[[YS]][%[[S]], 0, 0] [1, 8, 128] [1, 1, 1] : tensor<8x128xf32> into tensor<32x8x128xf32>
//       CHECK:       scf.yield %[[WRITTEN]], %[[NEXT]]
//       CHECK:     scf.forall.in_parallel
//       CHECK:       tensor.parallel_insert_slice %[[STEPS]]#0 into %[[Y]][0, %[[FIRST]], 0] [32, 8, 128] [1, 1, 1]
//       CHECK:       tensor.parallel_insert_slice %[[STEPS]]#1 into %[[H]][%[[FIRST]], 0] [8, 128] [1, 1]
//       CHECK:   return %[[ALL]]#0, %[[ALL]]#1
// Four threads: four chunks of 4 rows.
// FOUR-LABEL: func.func @recurrence
//       FOUR:   scf.forall (%{{.*}}) in (4)
//       FOUR:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x128xf32>, tensor<128x128xf32>)
func.func @recurrence(%input: tensor<32x16x128xf32>, %weight: tensor<128x128xf32>, %h0: tensor<16x128xf32>) -> (tensor<32x16x128xf32>, tensor<16x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %y0 = arith.constant dense<0.0> : tensor<32x16x128xf32>
  %r:2 = scf.for %s = %c0 to %c32 step %c1 iter_args(%y = %y0, %h = %h0) -> (tensor<32x16x128xf32>, tensor<16x128xf32>) {
    %x = tensor.extract_slice %input[%s, 0, 0] [1, 16, 128] [1, 1, 1] : tensor<32x16x128xf32> to tensor<16x128xf32>
    %empty = tensor.empty() : tensor<16x128xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x128xf32>) -> tensor<16x128xf32>
    %product = linalg.matmul ins(%h, %weight : tensor<16x128xf32>, tensor<128x128xf32>) outs(%zeros : tensor<16x128xf32>) -> tensor<16x128xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %product : tensor<16x128xf32>, tensor<16x128xf32>) outs(%empty : tensor<16x128xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %sum = arith.addf %a, %b : f32
      %t = math.tanh %sum : f32
      linalg.yield %t : f32
    } -> tensor<16x128xf32>
    %written = tensor.insert_slice %next into %y[%s, 0, 0] [1, 16, 128] [1, 1, 1] : tensor<16x128xf32> into tensor<32x16x128xf32>
    scf.yield %written, %next : tensor<32x16x128xf32>, tensor<16x128xf32>
  }
  return %r#0, %r#1 : tensor<32x16x128xf32>, tensor<16x128xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#swapped = affine_map<(d0, d1) -> (d1, d0)>

// The state is stored transposed, [hidden, batch]: its rows are its
// columns, and the product reads the weight on the left. Split along
// dimension 1.
// CHECK-LABEL: func.func @rows_along_columns
//       CHECK:   scf.forall (%{{.*}}) in (2)
//       CHECK:     tensor.extract_slice %{{.*}}[0, %{{.*}}] [64, 8] [1, 1]
//       CHECK:     scf.for
//       CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x8xf32>) outs(%{{.*}} : tensor<64x8xf32>)
//       CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<64x8xf32>) outs(%{{.*}} : tensor<64x8xf32>)
func.func @rows_along_columns(%weight: tensor<64x64xf32>, %h0: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %s = %c0 to %c64 step %c1 iter_args(%h = %h0) -> (tensor<64x16xf32>) {
    %empty = tensor.empty() : tensor<64x16xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x16xf32>) -> tensor<64x16xf32>
    %product = linalg.matmul ins(%weight, %h : tensor<64x64xf32>, tensor<64x16xf32>) outs(%zeros : tensor<64x16xf32>) -> tensor<64x16xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%product : tensor<64x16xf32>) outs(%empty : tensor<64x16xf32>) {
    ^bb0(%a: f32, %out: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<64x16xf32>
    scf.yield %next : tensor<64x16xf32>
  }
  return %r : tensor<64x16xf32>
}

// -----

// Neither rows nor columns stay apart: the left product mixes the state's
// rows, the right one its columns. Left alone. (With only the left one,
// the columns would be split.)
// CHECK-LABEL: func.func @rows_and_columns_meet
//   CHECK-NOT:   scf.forall
func.func @rows_and_columns_meet(%left: tensor<16x16xf32>, %right: tensor<128x128xf32>, %h0: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %s = %c0 to %c64 step %c1 iter_args(%h = %h0) -> (tensor<16x128xf32>) {
    %empty = tensor.empty() : tensor<16x128xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x128xf32>) -> tensor<16x128xf32>
    %mixed = linalg.matmul ins(%left, %h : tensor<16x16xf32>, tensor<16x128xf32>) outs(%zeros : tensor<16x128xf32>) -> tensor<16x128xf32>
    %product = linalg.matmul ins(%mixed, %right : tensor<16x128xf32>, tensor<128x128xf32>) outs(%zeros : tensor<16x128xf32>) -> tensor<16x128xf32>
    scf.yield %product : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#reversed = affine_map<(d0, d1) -> (15 - d0, 4095 - d1)>

// Each step reverses the rows and the columns (element (i, j) reads
// (15 - i, 4095 - j)), and another reads its position in both: neither
// keeps a chunk's rows to itself. Left alone.
// CHECK-LABEL: func.func @rows_move
//   CHECK-NOT:   scf.forall
// CHECK-LABEL: func.func @reads_row_position
//   CHECK-NOT:   scf.forall
func.func @rows_move(%h0: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %s = %c0 to %c8 step %c1 iter_args(%h = %h0) -> (tensor<16x4096xf32>) {
    %empty = tensor.empty() : tensor<16x4096xf32>
    %next = linalg.generic {indexing_maps = [#reversed, #rows], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x4096xf32>) outs(%empty : tensor<16x4096xf32>) {
    ^bb0(%a: f32, %out: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<16x4096xf32>
    scf.yield %next : tensor<16x4096xf32>
  }
  return %r : tensor<16x4096xf32>
}
func.func @reads_row_position(%h0: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %s = %c0 to %c8 step %c1 iter_args(%h = %h0) -> (tensor<16x4096xf32>) {
    %empty = tensor.empty() : tensor<16x4096xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x4096xf32>) outs(%empty : tensor<16x4096xf32>) {
    ^bb0(%a: f32, %out: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %ij = arith.addi %i, %j : index
      %ii = arith.index_cast %ij : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %t = arith.addf %a, %f : f32
      linalg.yield %t : f32
    } -> tensor<16x4096xf32>
    scf.yield %next : tensor<16x4096xf32>
  }
  return %r : tensor<16x4096xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> ()>

// A carried total of every row (a loss summed over the batch) holds no
// rows: left alone. So is a loop whose rows do not split into equal
// chunks (15 rows and a column, two threads; four threads make three
// chunks of 5), and one too small for a parallel region.
// CHECK-LABEL: func.func @carried_total
//   CHECK-NOT:   scf.forall
// CHECK-LABEL: func.func @odd_rows
//   CHECK-NOT:   scf.forall
// CHECK-LABEL: func.func @small_loop
//   CHECK-NOT:   scf.forall
// FOUR-LABEL: func.func @odd_rows
//       FOUR:   scf.forall (%{{.*}}) in (3)
//       FOUR:     linalg.generic {{.*}} ins(%{{.*}} : tensor<5x1xf32>)
func.func @carried_total(%h0: tensor<16x4096xf32>, %total0: tensor<f32>) -> (tensor<16x4096xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %s = %c0 to %c8 step %c1 iter_args(%h = %h0, %total = %total0) -> (tensor<16x4096xf32>, tensor<f32>) {
    %empty = tensor.empty() : tensor<16x4096xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x4096xf32>) outs(%empty : tensor<16x4096xf32>) {
    ^bb0(%a: f32, %out: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<16x4096xf32>
    %added = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["reduction", "reduction"]} ins(%next : tensor<16x4096xf32>) outs(%total : tensor<f32>) {
    ^bb0(%a: f32, %out: f32):
      %t = arith.addf %a, %out : f32
      linalg.yield %t : f32
    } -> tensor<f32>
    scf.yield %next, %added : tensor<16x4096xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<16x4096xf32>, tensor<f32>
}
func.func @odd_rows(%h0: tensor<15x1xf32>) -> tensor<15x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %r = scf.for %s = %c0 to %c4096 step %c1 iter_args(%h = %h0) -> (tensor<15x1xf32>) {
    %empty = tensor.empty() : tensor<15x1xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<15x1xf32>) outs(%empty : tensor<15x1xf32>) {
    ^bb0(%a: f32, %out: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<15x1xf32>
    scf.yield %next : tensor<15x1xf32>
  }
  return %r : tensor<15x1xf32>
}
func.func @small_loop(%h0: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %s = %c0 to %c8 step %c1 iter_args(%h = %h0) -> (tensor<16x64xf32>) {
    %empty = tensor.empty() : tensor<16x64xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x64xf32>) outs(%empty : tensor<16x64xf32>) {
    ^bb0(%a: f32, %out: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<16x64xf32>
    scf.yield %next : tensor<16x64xf32>
  }
  return %r : tensor<16x64xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>

// A whole value computed in every step from values outside the loop (a
// [64, 4096] product) would be computed by every thread: left alone.
// CHECK-LABEL: func.func @large_whole_value
//   CHECK-NOT:   scf.forall
func.func @large_whole_value(%a: tensor<64x64xf32>, %b: tensor<64x4096xf32>, %h0: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %s = %c0 to %c8 step %c1 iter_args(%h = %h0) -> (tensor<64x4096xf32>) {
    %empty = tensor.empty() : tensor<64x4096xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x4096xf32>) -> tensor<64x4096xf32>
    %product = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x4096xf32>) outs(%zeros : tensor<64x4096xf32>) -> tensor<64x4096xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%h, %product : tensor<64x4096xf32>, tensor<64x4096xf32>) outs(%empty : tensor<64x4096xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %t = arith.addf %x, %y : f32
      linalg.yield %t : f32
    } -> tensor<64x4096xf32>
    scf.yield %next : tensor<64x4096xf32>
  }
  return %r : tensor<64x4096xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>

// A step's op whose body reads a scalar the step computed (here from the
// counter) reads the chunk loop's copy of it.
// CHECK-LABEL: func.func @captured_step
//       CHECK:   scf.forall (%{{.*}}) in (2)
//       CHECK:     scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %{{.*}}) -> (tensor<8x4096xf32>)
//       CHECK:       %[[I:.*]] = arith.index_cast %[[S]] : index to i32
//       CHECK:       %[[F:.*]] = arith.sitofp %[[I]] : i32 to f32
//       CHECK:       linalg.generic {{.*}} ins(%[[H]] : tensor<8x4096xf32>)
//       CHECK:         arith.addf %{{.*}}, %[[F]] : f32
func.func @captured_step(%h0: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %s = %c0 to %c8 step %c1 iter_args(%h = %h0) -> (tensor<16x4096xf32>) {
    %i = arith.index_cast %s : index to i32
    %f = arith.sitofp %i : i32 to f32
    %empty = tensor.empty() : tensor<16x4096xf32>
    %next = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x4096xf32>) outs(%empty : tensor<16x4096xf32>) {
    ^bb0(%a: f32, %out: f32):
      %t = arith.addf %a, %f : f32
      linalg.yield %t : f32
    } -> tensor<16x4096xf32>
    scf.yield %next : tensor<16x4096xf32>
  }
  return %r : tensor<16x4096xf32>
}
