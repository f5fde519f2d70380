// RUN: %numpy-check %s

// lazy.if and lazy.while through the whole CPU pipeline (fused, tiled and
// vectorized inside their regions), against numpy. Tolerances: elementwise
// f32 ops round once per op: rtol=1e-6; sums of 4096 terms: atol=1e-3.
// -----

// The branch taken depends on the data: both are fused chains over a
// 64x64 tensor.
// ARG: x f32 [64, 64]
// ARG: t f32 [] uniform(-0.5, 0.5)
// OUT: (np.exp(x) * 2 - 1 if x.mean() > t else np.tanh(x) * x) ; rtol=1e-5, atol=1e-6
func.func @branch(%x: tensor<64x64xf32>, %t: tensor<f32>) -> tensor<64x64xf32> {
  %s = lazy.reduce_mean %x [0, 1] : tensor<64x64xf32>
  %c = lazy.compare gt, %s, %t : tensor<f32>
  %r = lazy.if %c : tensor<i1> -> (tensor<64x64xf32>) {
    %e = lazy.exp %x : tensor<64x64xf32>
    %two = lazy.constant dense<2.0> : tensor<64x64xf32>
    %one = lazy.constant dense<1.0> : tensor<64x64xf32>
    %m = lazy.mul %e, %two : tensor<64x64xf32>
    %d = lazy.sub %m, %one : tensor<64x64xf32>
    lazy.yield %d : tensor<64x64xf32>
  } else {
    %h = lazy.tanh %x : tensor<64x64xf32>
    %m = lazy.mul %h, %x : tensor<64x64xf32>
    lazy.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// A data-dependent trip count: halve a vector until its absolute sum is at
// most 1, counting the steps.
// ARG: x f32 [256] uniform(-4, 4)
// OUT: x * np.float32(0.5) ** max(0, int(np.ceil(np.log2(np.abs(x).astype(np.float64).sum())))) ; rtol=1e-6
// OUT: np.float32(max(0, int(np.ceil(np.log2(np.abs(x).astype(np.float64).sum()))))) ; atol=0
func.func @halve(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<f32>) {
  %zero = lazy.constant dense<0.0> : tensor<f32>
  %r:2 = lazy.while %x, %zero : tensor<256xf32>, tensor<f32> condition {
  ^bb0(%v: tensor<256xf32>, %n: tensor<f32>):
    %a = lazy.abs %v : tensor<256xf32>
    %s = lazy.reduce_sum %a [0] : tensor<256xf32>
    %one = lazy.constant dense<1.0> : tensor<f32>
    %c = lazy.compare gt, %s, %one : tensor<f32>
    lazy.yield %c : tensor<i1>
  } body {
  ^bb0(%v: tensor<256xf32>, %n: tensor<f32>):
    %half = lazy.constant dense<0.5> : tensor<256xf32>
    %w = lazy.mul %v, %half : tensor<256xf32>
    %one = lazy.constant dense<1.0> : tensor<f32>
    %m = lazy.add %n, %one : tensor<f32>
    lazy.yield %w, %m : tensor<256xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<256xf32>, tensor<f32>
}

// -----

// Rows at runtime indices, clamped: row i of x, and x with row j replaced
// by v (j = 9 is clamped to the last row).
// ARG: x f32 [8, 5]
// ARG: i i64 [] int(0, 7)
// ARG: v f32 [5]
// OUT: x[i]
// OUT: np.concatenate([x[:7], v[None, :]])
func.func @rows(%x: tensor<8x5xf32>, %i: tensor<i64>, %v: tensor<5xf32>) -> (tensor<5xf32>, tensor<8x5xf32>) {
  %row = lazy.index_row %x[%i] : tensor<8x5xf32>
  %j = lazy.constant dense<9> : tensor<i64>
  %next = lazy.update_row %x[%j] = %v : tensor<8x5xf32>, tensor<5xf32>
  return %row, %next : tensor<5xf32>, tensor<8x5xf32>
}

// -----

// Counted loops (the condition `counter < bound`, the counter stepped by a
// constant) run as scf.for. Loop 1 goes from s to n (either may be larger:
// the loop may not run), adds row t of x (clamped) to an accumulator each
// step, and ends with its counter at max(s, n). Loop 2 steps an i32
// counter by 3 up to the constant 10, halving an accumulator and adding t
// each step; its counter ends at the first value from 10 on. Loop 3 starts
// past its bound: no step runs, its values stay as they were.
// ARG: s i64 [] int(-3, 6)
// ARG: n i64 [] int(-2, 9)
// ARG: x f32 [8, 4]
// ARG: u i32 [] int(-4, 12)
// OUT: np.int64(max(s, n))
// OUT: sum((x[min(max(t, 0), 7)] for t in range(int(s), int(n))), np.zeros(4, np.float32)) ; rtol=1e-6, atol=1e-6
// OUT: np.int32(u + 3 * max(0, -(-(10 - int(u)) // 3)))
// OUT: __import__('functools').reduce(lambda a, t: a * np.float32(0.5) + np.float32(t), range(int(u), 10, 3), np.float32(1)) ; rtol=1e-6
// OUT: np.int64(7)
// OUT: x[0]
func.func @counted(%s: tensor<i64>, %n: tensor<i64>, %x: tensor<8x4xf32>, %u: tensor<i32>) -> (tensor<i64>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i64>, tensor<4xf32>) {
  %zeros = lazy.constant dense<0.0> : tensor<4xf32>
  %r:2 = lazy.while %s, %zeros : tensor<i64>, tensor<4xf32> condition {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>):
    %more = lazy.compare lt, %t, %n : tensor<i64>
    lazy.yield %more : tensor<i1>
  } body {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>):
    %one = lazy.constant dense<1> : tensor<i64>
    %next = lazy.add %t, %one : tensor<i64>
    %row = lazy.index_row %x[%t] : tensor<8x4xf32>
    %sum = lazy.add %acc, %row : tensor<4xf32>
    lazy.yield %next, %sum : tensor<i64>, tensor<4xf32>
  }
  %first = lazy.constant dense<1.0> : tensor<f32>
  %ten = lazy.constant dense<10> : tensor<i32>
  %q:2 = lazy.while %u, %first : tensor<i32>, tensor<f32> condition {
  ^bb0(%t: tensor<i32>, %acc: tensor<f32>):
    %more = lazy.compare lt, %t, %ten : tensor<i32>
    lazy.yield %more : tensor<i1>
  } body {
  ^bb0(%t: tensor<i32>, %acc: tensor<f32>):
    %three = lazy.constant dense<3> : tensor<i32>
    %next = lazy.add %three, %t : tensor<i32>
    %half = lazy.constant dense<0.5> : tensor<f32>
    %halved = lazy.mul %acc, %half : tensor<f32>
    %tf = lazy.cast %t : tensor<i32> to tensor<f32>
    %sum = lazy.add %halved, %tf : tensor<f32>
    lazy.yield %next, %sum : tensor<i32>, tensor<f32>
  }
  %seven = lazy.constant dense<7> : tensor<i64>
  %three = lazy.constant dense<3> : tensor<i64>
  %row0 = lazy.index_row %x[%s] : tensor<8x4xf32>
  %p:2 = lazy.while %seven, %zeros : tensor<i64>, tensor<4xf32> condition {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>):
    %more = lazy.compare lt, %t, %three : tensor<i64>
    lazy.yield %more : tensor<i1>
  } body {
  ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>):
    %one = lazy.constant dense<1> : tensor<i64>
    %next = lazy.add %t, %one : tensor<i64>
    lazy.yield %next, %row0 : tensor<i64>, tensor<4xf32>
  }
  %zero = lazy.constant dense<0> : tensor<i64>
  %x0 = lazy.index_row %x[%zero] : tensor<8x4xf32>
  %p1 = lazy.add %p#1, %x0 : tensor<4xf32>
  return %r#0, %r#1, %q#0, %q#1, %p#0, %p1 : tensor<i64>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i64>, tensor<4xf32>
}
