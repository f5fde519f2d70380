// RUN: lazyc-opt %s --pass-pipeline='builtin.module(func.func(lazy-cpu-fuse-sibling-loops))' --split-input-file | FileCheck %s

// A softmax row: exponentials into a row temporary, then their sum. The sum
// reads each step the slice the first loop wrote in that step, so the loops
// fuse: the sum adds the exponentials' vector itself, the accumulator's
// initial value (between the loops) comes first, and the later loop, which
// reads the sum, stays apart.
// CHECK-LABEL: func.func @exponentials_and_their_sum
//  CHECK-SAME:     (%[[X:.*]]: tensor<1x256xf32>, %[[OUT:.*]]: tensor<1x256xf32>)
//       CHECK:   %[[ZEROS:.*]] = vector.transfer_write
//       CHECK:   %[[FUSED:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ROW:.*]] = %[[OUT]], %[[ACC:.*]] = %[[ZEROS]])
//       CHECK:     %[[EXP:.*]] = math.exp
//       CHECK:     %[[WRITTEN:.*]] = vector.transfer_write %[[EXP]]
//       CHECK:     %[[INSERTED:.*]] = tensor.insert_slice %[[WRITTEN]] into %[[ROW]][0, %[[I]]] [1, 64] [1, 1]
//       CHECK:     %[[READ:.*]] = vector.transfer_read %[[WRITTEN]]
//       CHECK:     %[[OLD:.*]] = vector.transfer_read %[[ACC]]
//       CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[READ]]
//       CHECK:     %[[SUMS:.*]] = vector.transfer_write %[[NEW]], %[[ACC]]
//       CHECK:     scf.yield %[[INSERTED]], %[[SUMS]]
//       CHECK:   vector.multi_reduction <add>, %{{.*}}
//       CHECK:   scf.for
//       CHECK:     tensor.extract_slice %[[FUSED]]#0[0, %{{.*}}] [1, 64] [1, 1]
//   CHECK-NOT:   scf.for
func.func @exponentials_and_their_sum(%x: tensor<1x256xf32>, %out: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f32
  %zero = arith.constant dense<0.0> : vector<1x64xf32>
  %zero1 = arith.constant dense<0.0> : vector<1xf32>
  %empty = tensor.empty() : tensor<1x64xf32>
  %exps = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<1x256xf32>) {
    %in = tensor.extract_slice %x[0, %i] [1, 64] [1, 1] : tensor<1x256xf32> to tensor<1x64xf32>
    %dest = tensor.extract_slice %row[0, %i] [1, 64] [1, 1] : tensor<1x256xf32> to tensor<1x64xf32>
    %v = vector.transfer_read %in[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x64xf32>, vector<1x64xf32>
    %e = math.exp %v : vector<1x64xf32>
    %w = vector.transfer_write %e, %dest[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, tensor<1x64xf32>
    %r = tensor.insert_slice %w into %row[0, %i] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<1x256xf32>
    scf.yield %r : tensor<1x256xf32>
  }
  %init = vector.transfer_write %zero, %empty[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, tensor<1x64xf32>
  %sums = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %init) -> (tensor<1x64xf32>) {
    %s = tensor.extract_slice %exps[0, %i] [1, 64] [1, 1] : tensor<1x256xf32> to tensor<1x64xf32>
    %v = vector.transfer_read %s[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x64xf32>, vector<1x64xf32>
    %a = vector.transfer_read %acc[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x64xf32>, vector<1x64xf32>
    %n = arith.addf %a, %v : vector<1x64xf32>
    %w = vector.transfer_write %n, %acc[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, tensor<1x64xf32>
    scf.yield %w : tensor<1x64xf32>
  }
  %partial = vector.transfer_read %sums[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x64xf32>, vector<1x64xf32>
  %total = vector.multi_reduction <add>, %partial, %zero1 [1] : vector<1x64xf32> to vector<1xf32>
  %scaled = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<1x256xf32>) {
    %s = tensor.extract_slice %exps[0, %i] [1, 64] [1, 1] : tensor<1x256xf32> to tensor<1x64xf32>
    %dest = tensor.extract_slice %row[0, %i] [1, 64] [1, 1] : tensor<1x256xf32> to tensor<1x64xf32>
    %v = vector.transfer_read %s[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x64xf32>, vector<1x64xf32>
    %b = vector.broadcast %total : vector<1xf32> to vector<1x64xf32>
    %m = arith.mulf %v, %b : vector<1x64xf32>
    %w = vector.transfer_write %m, %dest[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, tensor<1x64xf32>
    %r = tensor.insert_slice %w into %row[0, %i] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<1x256xf32>
    scf.yield %r : tensor<1x256xf32>
  }
  return %scaled : tensor<1x256xf32>
}

// -----

// Left alone: the second loop reads the slice the first writes one step later.
// CHECK-LABEL: func.func @reads_the_next_steps_slice
// CHECK-COUNT-2: scf.for
func.func @reads_the_next_steps_slice(%x: tensor<256xf32>, %out: tensor<320xf32>) -> (tensor<320xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %first = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<320xf32>) {
    %in = tensor.extract_slice %x[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %e = math.exp %in : tensor<64xf32>
    %r = tensor.insert_slice %e into %row[%i] [64] [1] : tensor<64xf32> into tensor<320xf32>
    scf.yield %r : tensor<320xf32>
  }
  %second = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %x) -> (tensor<256xf32>) {
    %j = arith.addi %i, %c64 : index
    %s = tensor.extract_slice %first[%j] [64] [1] : tensor<320xf32> to tensor<64xf32>
    %r = tensor.insert_slice %s into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  return %first, %second : tensor<320xf32>, tensor<256xf32>
}

// -----

// Left alone: a slice wider than a step, written in part by the next step.
// CHECK-LABEL: func.func @reads_a_wider_slice
// CHECK-COUNT-2: scf.for
func.func @reads_a_wider_slice(%x: tensor<256xf32>, %out: tensor<320xf32>) -> (tensor<320xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %first = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<320xf32>) {
    %in = tensor.extract_slice %x[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %e = math.exp %in : tensor<64xf32>
    %r = tensor.insert_slice %e into %row[%i] [64] [1] : tensor<64xf32> into tensor<320xf32>
    scf.yield %r : tensor<320xf32>
  }
  %second = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %x) -> (tensor<256xf32>) {
    %w = tensor.extract_slice %first[%i] [128] [1] : tensor<320xf32> to tensor<128xf32>
    %s = tensor.extract_slice %w[0] [64] [1] : tensor<128xf32> to tensor<64xf32>
    %r = tensor.insert_slice %s into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  return %first, %second : tensor<320xf32>, tensor<256xf32>
}

// -----

// Left alone: the second loop reads the first's whole result.
// CHECK-LABEL: func.func @reads_the_whole_result
// CHECK-COUNT-2: scf.for
func.func @reads_the_whole_result(%x: tensor<256xf32>, %out: tensor<320xf32>) -> (tensor<320xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %first = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<320xf32>) {
    %in = tensor.extract_slice %x[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %e = math.exp %in : tensor<64xf32>
    %r = tensor.insert_slice %e into %row[%i] [64] [1] : tensor<64xf32> into tensor<320xf32>
    scf.yield %r : tensor<320xf32>
  }
  %second = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %x) -> (tensor<256xf32>) {
    %e = math.exp %first : tensor<320xf32>
    %s = tensor.extract_slice %e[%i] [64] [1] : tensor<320xf32> to tensor<64xf32>
    %r = tensor.insert_slice %s into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  return %first, %second : tensor<320xf32>, tensor<256xf32>
}

// -----

// Left alone: the loops have different bounds.
// CHECK-LABEL: func.func @other_bounds
// CHECK-COUNT-2: scf.for
func.func @other_bounds(%x: tensor<256xf32>, %out: tensor<320xf32>) -> (tensor<320xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %first = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<320xf32>) {
    %in = tensor.extract_slice %x[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %e = math.exp %in : tensor<64xf32>
    %r = tensor.insert_slice %e into %row[%i] [64] [1] : tensor<64xf32> into tensor<320xf32>
    scf.yield %r : tensor<320xf32>
  }
  %second = scf.for %i = %c0 to %c128 step %c64 iter_args(%acc = %x) -> (tensor<256xf32>) {
    %s = tensor.extract_slice %first[%i] [64] [1] : tensor<320xf32> to tensor<64xf32>
    %r = tensor.insert_slice %s into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  return %first, %second : tensor<320xf32>, tensor<256xf32>
}

// -----

// Left alone: the second loop writes memory.
// CHECK-LABEL: func.func @memory_effects
// CHECK-COUNT-2: scf.for
func.func @memory_effects(%x: tensor<256xf32>, %out: tensor<320xf32>, %buffer: memref<64xf32>) -> (tensor<320xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %first = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<320xf32>) {
    %in = tensor.extract_slice %x[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %e = math.exp %in : tensor<64xf32>
    %r = tensor.insert_slice %e into %row[%i] [64] [1] : tensor<64xf32> into tensor<320xf32>
    scf.yield %r : tensor<320xf32>
  }
  %second = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %x) -> (tensor<256xf32>) {
    %s = tensor.extract_slice %first[%i] [64] [1] : tensor<320xf32> to tensor<64xf32>
    bufferization.materialize_in_destination %s in writable %buffer : (tensor<64xf32>, memref<64xf32>) -> ()
    %r = tensor.insert_slice %s into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  return %first, %second : tensor<320xf32>, tensor<256xf32>
}

// -----

// Left alone: an op between the loops reads the first's result (the first cannot move past it).
// CHECK-LABEL: func.func @read_between_the_loops
// CHECK-COUNT-2: scf.for
func.func @read_between_the_loops(%x: tensor<256xf32>, %out: tensor<320xf32>) -> (tensor<320xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %first = scf.for %i = %c0 to %c256 step %c64 iter_args(%row = %out) -> (tensor<320xf32>) {
    %in = tensor.extract_slice %x[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %e = math.exp %in : tensor<64xf32>
    %r = tensor.insert_slice %e into %row[%i] [64] [1] : tensor<64xf32> into tensor<320xf32>
    scf.yield %r : tensor<320xf32>
  }
  %head = tensor.extract_slice %first[0] [64] [1] : tensor<320xf32> to tensor<64xf32>
  %second = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %x) -> (tensor<256xf32>) {
    %s = tensor.extract_slice %first[%i] [64] [1] : tensor<320xf32> to tensor<64xf32>
    %t = arith.addf %s, %head : tensor<64xf32>
    %r = tensor.insert_slice %t into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  return %first, %second : tensor<320xf32>, tensor<256xf32>
}
