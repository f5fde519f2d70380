// RUN: lazyc-opt %s -split-input-file --lazy-schedule-collectives | FileCheck %s
// RUN: lazyc-opt %s -split-input-file --lazy-schedule-collectives=bucket-bytes=64 | FileCheck %s --check-prefix=CAP
// RUN: lazyc-opt %s -split-input-file --lazy-schedule-collectives=bucket-bytes=0 | FileCheck %s --check-prefix=OFF

// A trace records the collective after ops that have nothing to do with it;
// it moves up to right after the op that makes its input, so that the
// exchange overlaps with those ops.
// CHECK-LABEL: func.func @hoist_after_producer
//  CHECK-SAME:   (%[[A:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
//       CHECK:   %[[G:.*]] = lazy.exp %[[A]]
//  CHECK-NEXT:   %[[R:.*]] = lazy.collective broadcast %[[G]] root 0, world_size = 2
//  CHECK-NEXT:   %[[M:.*]] = lazy.mul %[[B]], %[[B]]
//  CHECK-NEXT:   %[[S:.*]] = lazy.add %[[M]], %[[B]]
//  CHECK-NEXT:   return %[[R]], %[[S]]
func.func @hoist_after_producer(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %g = lazy.exp %a : tensor<16xf32>
  %m = lazy.mul %b, %b : tensor<16xf32>
  %s = lazy.add %m, %b : tensor<16xf32>
  %r = lazy.collective broadcast %g root 0, world_size = 2 : tensor<16xf32> -> tensor<16xf32>
  return %r, %s : tensor<16xf32>, tensor<16xf32>
}

// -----

// An input that is a block argument is ready on entry: the collective moves
// to the start of the block.
// CHECK-LABEL: func.func @hoist_block_argument
//  CHECK-SAME:   (%[[A:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<2x4xf32>)
//  CHECK-NEXT:   %[[R:.*]] = lazy.collective all_gather %[[B]], world_size = 2 : tensor<2x4xf32> -> tensor<4x4xf32>
//  CHECK-NEXT:   %[[E:.*]] = lazy.exp %[[A]]
//  CHECK-NEXT:   return %[[E]], %[[R]]
func.func @hoist_block_argument(%a: tensor<16xf32>, %b: tensor<2x4xf32>) -> (tensor<16xf32>, tensor<4x4xf32>) {
  %e = lazy.exp %a : tensor<16xf32>
  %r = lazy.collective all_gather %b, world_size = 2 : tensor<2x4xf32> -> tensor<4x4xf32>
  return %e, %r : tensor<16xf32>, tensor<4x4xf32>
}

// -----

// All-reduces of one reduction, element type and world size share one
// exchange: each input is flattened, the inputs are concatenated in the order
// they became ready, all-reduced once after the last member, and each result
// is its slice of the sum (offsets 0, 16, 24 of 30 elements) reshaped back.
// bucket-bytes=0 turns bucketing off; the collectives are still issued
// early.
// CHECK-LABEL: func.func @bucket
//  CHECK-SAME:   (%[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<2x3xf32>)
//       CHECK:   %[[EA:.*]] = lazy.exp %[[A]]
//       CHECK:   %[[EB:.*]] = lazy.exp %[[B]]
//       CHECK:   %[[EC:.*]] = lazy.exp %[[C]]
//       CHECK:   %[[FA:.*]] = lazy.reshape %[[EA]] to [16] : tensor<4x4xf32>
//       CHECK:   %[[FB:.*]] = lazy.reshape %[[EB]] to [8] : tensor<8xf32>
//       CHECK:   %[[FC:.*]] = lazy.reshape %[[EC]] to [6] : tensor<2x3xf32>
//       CHECK:   %[[CAT:.*]] = lazy.concat %[[FA]], %[[FB]], %[[FC]] axis = 0 : tensor<16xf32>, tensor<8xf32>, tensor<6xf32>
//       CHECK:   %[[SUM:.*]] = lazy.collective all_reduce %[[CAT]] reduce sum, world_size = 2 : tensor<30xf32> -> tensor<30xf32>
//   CHECK-NOT:   lazy.collective
//       CHECK:   %[[SA:.*]] = lazy.slice %[[SUM]] [0] to [16] step [1] : tensor<30xf32>
//       CHECK:   %[[RA:.*]] = lazy.reshape %[[SA]] to [4, 4] : tensor<16xf32>
//       CHECK:   %[[SB:.*]] = lazy.slice %[[SUM]] [16] to [24] step [1] : tensor<30xf32>
//       CHECK:   %[[RB:.*]] = lazy.reshape %[[SB]] to [8] : tensor<8xf32>
//       CHECK:   %[[SC:.*]] = lazy.slice %[[SUM]] [24] to [30] step [1] : tensor<30xf32>
//       CHECK:   %[[RC:.*]] = lazy.reshape %[[SC]] to [2, 3] : tensor<6xf32>
//       CHECK:   return %[[RA]], %[[RB]], %[[RC]]
// OFF-LABEL: func.func @bucket
//   OFF-NOT:   lazy.concat
//       OFF:   %[[EA:.*]] = lazy.exp
//  OFF-NEXT:   lazy.collective all_reduce %[[EA]] reduce sum, world_size = 2 : tensor<4x4xf32> -> tensor<4x4xf32>
//  OFF-NEXT:   %[[EB:.*]] = lazy.exp
//  OFF-NEXT:   lazy.collective all_reduce %[[EB]] reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
//  OFF-NEXT:   %[[EC:.*]] = lazy.exp
//  OFF-NEXT:   lazy.collective all_reduce %[[EC]] reduce sum, world_size = 2 : tensor<2x3xf32> -> tensor<2x3xf32>
//   OFF-NOT:   lazy.concat
//       OFF:   return
func.func @bucket(%a: tensor<4x4xf32>, %b: tensor<8xf32>, %c: tensor<2x3xf32>) -> (tensor<4x4xf32>, tensor<8xf32>, tensor<2x3xf32>) {
  %ea = lazy.exp %a : tensor<4x4xf32>
  %eb = lazy.exp %b : tensor<8xf32>
  %ec = lazy.exp %c : tensor<2x3xf32>
  %ra = lazy.collective all_reduce %ea reduce sum, world_size = 2 : tensor<4x4xf32> -> tensor<4x4xf32>
  %rb = lazy.collective all_reduce %eb reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  %rc = lazy.collective all_reduce %ec reduce sum, world_size = 2 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %ra, %rb, %rc : tensor<4x4xf32>, tensor<8xf32>, tensor<2x3xf32>
}

// -----

// Only all-reduces that combine alike share a bucket: a sum and a max, f32
// and f64, or world sizes 2 and 4 go in different buckets (each pair here
// is one bucket, told apart by its sizes; the world_size = 4 one stays
// alone).
// CHECK-LABEL: func.func @bucket_keys
//   CHECK-DAG:   %[[SUM32:.*]] = lazy.concat %{{.*}}, %{{.*}} axis = 0 : tensor<4xf32>, tensor<8xf32>
//   CHECK-DAG:   lazy.collective all_reduce %[[SUM32]] reduce sum, world_size = 2 : tensor<12xf32> -> tensor<12xf32>
//   CHECK-DAG:   %[[MAX32:.*]] = lazy.concat %{{.*}}, %{{.*}} axis = 0 : tensor<2xf32>, tensor<6xf32>
//   CHECK-DAG:   lazy.collective all_reduce %[[MAX32]] reduce max, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
//   CHECK-DAG:   %[[SUM64:.*]] = lazy.concat %{{.*}}, %{{.*}} axis = 0 : tensor<4xf64>, tensor<2xf64>
//   CHECK-DAG:   lazy.collective all_reduce %[[SUM64]] reduce sum, world_size = 2 : tensor<6xf64> -> tensor<6xf64>
//   CHECK-DAG:   %[[G:.*]] = lazy.neg %{{.*}} : tensor<3xf32>
//   CHECK-DAG:   lazy.collective all_reduce %[[G]] reduce sum, world_size = 4 : tensor<3xf32> -> tensor<3xf32>
//       CHECK:   return
func.func @bucket_keys(%a: tensor<4xf32>, %b: tensor<2xf32>, %c: tensor<4xf64>, %d: tensor<8xf32>, %e: tensor<6xf32>, %f: tensor<2xf64>, %g: tensor<3xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf64>, tensor<8xf32>, tensor<6xf32>, tensor<2xf64>, tensor<3xf32>) {
  %na = lazy.neg %a : tensor<4xf32>
  %nb = lazy.neg %b : tensor<2xf32>
  %nc = lazy.neg %c : tensor<4xf64>
  %nd = lazy.neg %d : tensor<8xf32>
  %ne = lazy.neg %e : tensor<6xf32>
  %nf = lazy.neg %f : tensor<2xf64>
  %ng = lazy.neg %g : tensor<3xf32>
  %ra = lazy.collective all_reduce %na reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %rb = lazy.collective all_reduce %nb reduce max, world_size = 2 : tensor<2xf32> -> tensor<2xf32>
  %rc = lazy.collective all_reduce %nc reduce sum, world_size = 2 : tensor<4xf64> -> tensor<4xf64>
  %rd = lazy.collective all_reduce %nd reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  %re = lazy.collective all_reduce %ne reduce max, world_size = 2 : tensor<6xf32> -> tensor<6xf32>
  %rf = lazy.collective all_reduce %nf reduce sum, world_size = 2 : tensor<2xf64> -> tensor<2xf64>
  %rg = lazy.collective all_reduce %ng reduce sum, world_size = 4 : tensor<3xf32> -> tensor<3xf32>
  return %ra, %rb, %rc, %rd, %re, %rf, %rg : tensor<4xf32>, tensor<2xf32>, tensor<4xf64>, tensor<8xf32>, tensor<6xf32>, tensor<2xf64>, tensor<3xf32>
}

// -----

// Broadcasts and all-gathers are never bucketed (each rank's result is not
// an elementwise function of the members), even when alike.
// CHECK-LABEL: func.func @only_all_reduces_bucketed
//  CHECK-SAME:   (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>)
//   CHECK-NOT:   lazy.concat
//   CHECK-DAG:   %[[RA:.*]] = lazy.collective broadcast %[[A]] root 0, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
//   CHECK-DAG:   %[[RB:.*]] = lazy.collective broadcast %[[B]] root 0, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
//   CHECK-DAG:   %[[RC:.*]] = lazy.collective all_gather %[[C]], world_size = 2 : tensor<4xf32> -> tensor<8xf32>
//   CHECK-DAG:   %[[RD:.*]] = lazy.collective all_gather %[[D]], world_size = 2 : tensor<4xf32> -> tensor<8xf32>
//   CHECK-NOT:   lazy.concat
//       CHECK:   return %[[RA]], %[[RB]], %[[RC]], %[[RD]]
func.func @only_all_reduces_bucketed(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) {
  %ra = lazy.collective broadcast %a root 0, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %rb = lazy.collective broadcast %b root 0, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %rc = lazy.collective all_gather %c, world_size = 2 : tensor<4xf32> -> tensor<8xf32>
  %rd = lazy.collective all_gather %d, world_size = 2 : tensor<4xf32> -> tensor<8xf32>
  return %ra, %rb, %rc, %rd : tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Dynamically shaped all-reduces stay on their own: their offsets in a
// bucket would not be constants.
// CHECK-LABEL: func.func @dynamic_not_bucketed
//   CHECK-NOT:   lazy.concat
//       CHECK:   lazy.collective all_reduce %{{.*}} reduce sum, world_size = 2 : tensor<?xf32> -> tensor<?xf32>
//       CHECK:   lazy.collective all_reduce %{{.*}} reduce sum, world_size = 2 : tensor<?xf32> -> tensor<?xf32>
//   CHECK-NOT:   lazy.concat
//       CHECK:   return
func.func @dynamic_not_bucketed(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %ra = lazy.collective all_reduce %a reduce sum, world_size = 2 : tensor<?xf32> -> tensor<?xf32>
  %rb = lazy.collective all_reduce %b reduce sum, world_size = 2 : tensor<?xf32> -> tensor<?xf32>
  return %ra, %rb : tensor<?xf32>, tensor<?xf32>
}

// -----

// A bucket closes once it holds bucket-bytes: with 64 bytes, two 8xf32
// (32 bytes each) fill one; a 32xf32 (128 bytes) is a bucket of its own,
// so it stays a plain all-reduce; the next two 8xf32 make a second bucket.
// With the default 25 MiB all five share one bucket.
// CHECK-LABEL: func.func @bucket_bytes
//       CHECK:   %[[CAT:.*]] = lazy.concat %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} axis = 0 : tensor<8xf32>, tensor<8xf32>, tensor<32xf32>, tensor<8xf32>, tensor<8xf32>
//       CHECK:   lazy.collective all_reduce %[[CAT]] reduce sum, world_size = 2 : tensor<64xf32> -> tensor<64xf32>
//   CHECK-NOT:   lazy.collective
//       CHECK:   return
// CAP-LABEL: func.func @bucket_bytes
//       CAP:   %[[EA:.*]] = lazy.exp
//       CAP:   %[[EB:.*]] = lazy.exp
//       CAP:   %[[CAT1:.*]] = lazy.concat %{{.*}}, %{{.*}} axis = 0 : tensor<8xf32>, tensor<8xf32>
//       CAP:   lazy.collective all_reduce %[[CAT1]] reduce sum, world_size = 2 : tensor<16xf32> -> tensor<16xf32>
//       CAP:   %[[BIG:.*]] = lazy.exp %{{.*}} : tensor<32xf32>
//  CAP-NEXT:   lazy.collective all_reduce %[[BIG]] reduce sum, world_size = 2 : tensor<32xf32> -> tensor<32xf32>
//       CAP:   %[[CAT2:.*]] = lazy.concat %{{.*}}, %{{.*}} axis = 0 : tensor<8xf32>, tensor<8xf32>
//       CAP:   lazy.collective all_reduce %[[CAT2]] reduce sum, world_size = 2 : tensor<16xf32> -> tensor<16xf32>
//   CAP-NOT:   lazy.collective
//       CAP:   return
func.func @bucket_bytes(%a: tensor<8xf32>, %b: tensor<8xf32>, %big: tensor<32xf32>, %c: tensor<8xf32>, %d: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<32xf32>, tensor<8xf32>, tensor<8xf32>) {
  %ea = lazy.exp %a : tensor<8xf32>
  %eb = lazy.exp %b : tensor<8xf32>
  %ebig = lazy.exp %big : tensor<32xf32>
  %ec = lazy.exp %c : tensor<8xf32>
  %ed = lazy.exp %d : tensor<8xf32>
  %ra = lazy.collective all_reduce %ea reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  %rb = lazy.collective all_reduce %eb reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  %rbig = lazy.collective all_reduce %ebig reduce sum, world_size = 2 : tensor<32xf32> -> tensor<32xf32>
  %rc = lazy.collective all_reduce %ec reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  %rd = lazy.collective all_reduce %ed reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return %ra, %rb, %rbig, %rc, %rd : tensor<8xf32>, tensor<8xf32>, tensor<32xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A packed all-reduce runs after its last member, so a bucket closes when a
// member's result is used before the next all-reduce is ready: %ra is used
// by the mul before %eb exists, so it stays a plain all-reduce, and %rb and
// %rc share the next bucket.
// CHECK-LABEL: func.func @used_before_next_member
//  CHECK-SAME:   (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>)
//       CHECK:   %[[EA:.*]] = lazy.exp %[[A]]
//  CHECK-NEXT:   %[[RA:.*]] = lazy.collective all_reduce %[[EA]] reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
//  CHECK-NEXT:   %[[M:.*]] = lazy.mul %[[RA]], %[[RA]]
//       CHECK:   %[[EB:.*]] = lazy.exp %[[M]]
//       CHECK:   %[[EC:.*]] = lazy.exp %[[C]]
//       CHECK:   %[[FB:.*]] = lazy.reshape %[[EB]] to [4]
//       CHECK:   %[[FC:.*]] = lazy.reshape %[[EC]] to [4]
//       CHECK:   %[[CAT:.*]] = lazy.concat %[[FB]], %[[FC]] axis = 0
//       CHECK:   lazy.collective all_reduce %[[CAT]] reduce sum, world_size = 2 : tensor<8xf32> -> tensor<8xf32>
//       CHECK:   return
func.func @used_before_next_member(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %ea = lazy.exp %a : tensor<4xf32>
  %ra = lazy.collective all_reduce %ea reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %m = lazy.mul %ra, %ra : tensor<4xf32>
  %eb = lazy.exp %m : tensor<4xf32>
  %ec = lazy.exp %c : tensor<4xf32>
  %rb = lazy.collective all_reduce %eb reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %rc = lazy.collective all_reduce %ec reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %m, %rb, %rc : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Collectives in a lazy.if branch are scheduled within their block: one
// with an input from the branch moves up to right after its producer, one
// with an input from outside to the start of the branch; neither leaves
// the region, and the function's own all-reduce (hoisted above the lazy.if)
// is not bucketed with them.
// CHECK-LABEL: func.func @in_region
//  CHECK-SAME:   (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
//   CHECK-NOT:   lazy.concat
//       CHECK:   %[[EY:.*]] = lazy.exp %[[Y]]
//  CHECK-NEXT:   %[[O:.*]] = lazy.collective all_reduce %[[EY]]
//  CHECK-NEXT:   %[[R:.*]] = lazy.if %[[P]]
//  CHECK-NEXT:     %[[E:.*]] = lazy.exp %[[X]]
//  CHECK-NEXT:     %[[C1:.*]] = lazy.collective all_reduce %[[E]]
//  CHECK-NEXT:     %[[N1:.*]] = lazy.neg %[[X]]
//  CHECK-NEXT:     %[[S1:.*]] = lazy.add %[[C1]], %[[N1]]
//  CHECK-NEXT:     lazy.yield %[[S1]]
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[C2:.*]] = lazy.collective all_reduce %[[Y]]
//  CHECK-NEXT:     %[[N2:.*]] = lazy.neg %[[X]]
//  CHECK-NEXT:     %[[S2:.*]] = lazy.add %[[C2]], %[[N2]]
//  CHECK-NEXT:     lazy.yield %[[S2]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[R]], %[[O]]
func.func @in_region(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ey = lazy.exp %y : tensor<4xf32>
  %r = lazy.if %p : tensor<i1> -> (tensor<4xf32>) {
    %e = lazy.exp %x : tensor<4xf32>
    %n = lazy.neg %x : tensor<4xf32>
    %c1 = lazy.collective all_reduce %e reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
    %s = lazy.add %c1, %n : tensor<4xf32>
    lazy.yield %s : tensor<4xf32>
  } else {
    %n = lazy.neg %x : tensor<4xf32>
    %c2 = lazy.collective all_reduce %y reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
    %s = lazy.add %c2, %n : tensor<4xf32>
    lazy.yield %s : tensor<4xf32>
  }
  %o = lazy.collective all_reduce %ey reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %r, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// Collectives that move up to the same point keep their order: all-reduces of
// three arguments are packed a, b, c (not reversed), and a bucket never grows
// past bucket-bytes (64 bytes: a, b; then c, 24 + 24 + 24 > 64).
// CHECK-LABEL: func.func @same_point_keeps_order
//       CHECK:   %[[FA:.*]] = lazy.reshape %arg0
//       CHECK:   %[[FB:.*]] = lazy.reshape %arg1
//       CHECK:   %[[FC:.*]] = lazy.reshape %arg2
//       CHECK:   lazy.concat %[[FA]], %[[FB]], %[[FC]] axis = 0
// CAP-LABEL: func.func @same_point_keeps_order
//       CAP:   %[[FA:.*]] = lazy.reshape %arg0
//       CAP:   %[[FB:.*]] = lazy.reshape %arg1
//       CAP:   lazy.concat %[[FA]], %[[FB]] axis = 0 : tensor<6xf32>, tensor<6xf32>
//   CAP-NOT:   lazy.concat
//       CAP:   lazy.collective all_reduce %arg2
func.func @same_point_keeps_order(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %e = lazy.exp %a : tensor<6xf32>
  %0 = lazy.collective all_reduce %a reduce sum, world_size = 2 : tensor<6xf32> -> tensor<6xf32>
  %1 = lazy.collective all_reduce %b reduce sum, world_size = 2 : tensor<6xf32> -> tensor<6xf32>
  %2 = lazy.collective all_reduce %c reduce sum, world_size = 2 : tensor<6xf32> -> tensor<6xf32>
  %3 = lazy.add %0, %e : tensor<6xf32>
  return %3, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

// A trace lists each parameter's update right after its gradient's
// all-reduce. Updates that do not feed a later member move down below the
// bucket (in order), so every gradient still shares one exchange.
// CHECK-LABEL: func.func @updates_sink_below_the_bucket
//  CHECK-SAME:   (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[W1:.*]]: tensor<4xf32>, %[[W2:.*]]: tensor<4xf32>)
//       CHECK:   %[[GA:.*]] = lazy.exp %[[A]]
//  CHECK-NEXT:   %[[GB:.*]] = lazy.exp %[[B]]
//  CHECK-NEXT:   %[[FA:.*]] = lazy.reshape %[[GA]]
//  CHECK-NEXT:   %[[FB:.*]] = lazy.reshape %[[GB]]
//  CHECK-NEXT:   %[[CAT:.*]] = lazy.concat %[[FA]], %[[FB]] axis = 0
//  CHECK-NEXT:   %[[R:.*]] = lazy.collective all_reduce %[[CAT]]
//       CHECK:   %[[RA:.*]] = lazy.reshape
//       CHECK:   %[[RB:.*]] = lazy.reshape
//  CHECK-NEXT:   %[[U1:.*]] = lazy.sub %[[W1]], %[[RA]]
//  CHECK-NEXT:   %[[N1:.*]] = lazy.neg %[[U1]]
//  CHECK-NEXT:   %[[U2:.*]] = lazy.sub %[[W2]], %[[RB]]
//  CHECK-NEXT:   return %[[N1]], %[[U2]]
func.func @updates_sink_below_the_bucket(%a: tensor<4xf32>, %b: tensor<4xf32>, %w1: tensor<4xf32>, %w2: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ga = lazy.exp %a : tensor<4xf32>
  %ra = lazy.collective all_reduce %ga reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %u1 = lazy.sub %w1, %ra : tensor<4xf32>
  %n1 = lazy.neg %u1 : tensor<4xf32>
  %gb = lazy.exp %b : tensor<4xf32>
  %rb = lazy.collective all_reduce %gb reduce sum, world_size = 2 : tensor<4xf32> -> tensor<4xf32>
  %u2 = lazy.sub %w2, %rb : tensor<4xf32>
  return %n1, %u2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An all-reduce of an all-reduce: the second reads the first directly, so
// they are not one bucket (the packed exchange would come after its own
// input; lazyc-fuzz seed 102818).
// CHECK-LABEL: func.func @all_reduce_of_an_all_reduce
//  CHECK-SAME:   (%[[X:.*]]: tensor<f32>)
//  CHECK-NEXT:   %[[R1:.*]] = lazy.collective all_reduce %[[X]] reduce max
//  CHECK-NEXT:   %[[R2:.*]] = lazy.collective all_reduce %[[R1]] reduce max
//  CHECK-NEXT:   return %[[R2]]
func.func @all_reduce_of_an_all_reduce(%x: tensor<f32>) -> tensor<f32> {
  %0 = lazy.collective all_reduce %x reduce max, world_size = 1 : tensor<f32> -> tensor<f32>
  %1 = lazy.collective all_reduce %0 reduce max, world_size = 1 : tensor<f32> -> tensor<f32>
  return %1 : tensor<f32>
}
