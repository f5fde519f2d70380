// RUN: %numpy-check %s

// Data movement (broadcast, transpose, reshape, slice, concat), constants,
// size-1, zero-size and dynamic dimensions, and aliased results, against
// numpy. Data movement and exact arithmetic (add/sub/mul, max/min, casts)
// compare exactly (rtol=0, atol=0); integers are always exact. The few
// inexact ops follow the other files: exp rtol=1e-6 (8 f32 ulp, as in
// binary-unary.mlir), f32 sums, matmul and softmax rtol=1e-5 with atol=1e-5
// or 1e-7 (as in reductions-matmul.mlir).

// -----

// broadcast size-1 dims (middle, leading, trailing, all) of f32, including to a zero-size dim.
// ARG: a f32 [3, 1, 5]
// ARG: b f32 [1, 1]
// ARG: c f32 [4, 1]
// ARG: d f32 [1, 3]
// OUT: np.broadcast_to(a, (3, 4, 5)) ; rtol=0, atol=0
// OUT: np.broadcast_to(b, (4, 6)) ; rtol=0, atol=0
// OUT: np.broadcast_to(c, (4, 6)) ; rtol=0, atol=0
// OUT: np.broadcast_to(d, (0, 3)) ; rtol=0, atol=0
func.func @broadcast_size1(%a: tensor<3x1x5xf32>, %b: tensor<1x1xf32>, %c: tensor<4x1xf32>, %d: tensor<1x3xf32>) -> (tensor<3x4x5xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<0x3xf32>) {
  %0 = lazy.broadcast %a to [3, 4, 5] : tensor<3x1x5xf32>
  %1 = lazy.broadcast %b to [4, 6] : tensor<1x1xf32>
  %2 = lazy.broadcast %c to [4, 6] : tensor<4x1xf32>
  %3 = lazy.broadcast %d to [0, 3] : tensor<1x3xf32>
  return %0, %1, %2, %3 : tensor<3x4x5xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<0x3xf32>
}

// -----

// broadcast adding leading dims: from rank 1, from rank 0, and leading + size-1 together.
// ARG: a f32 [5]
// ARG: s f32 []
// ARG: d f32 [1, 3]
// ARG: i i32 [3, 1]
// OUT: np.broadcast_to(a, (2, 3, 5)) ; rtol=0, atol=0
// OUT: np.broadcast_to(s, (4, 3)) ; rtol=0, atol=0
// OUT: np.broadcast_to(d, (2, 1, 4, 3)) ; rtol=0, atol=0
// OUT: np.broadcast_to(i, (2, 3, 7))
func.func @broadcast_leading(%a: tensor<5xf32>, %s: tensor<f32>, %d: tensor<1x3xf32>, %i: tensor<3x1xi32>) -> (tensor<2x3x5xf32>, tensor<4x3xf32>, tensor<2x1x4x3xf32>, tensor<2x3x7xi32>) {
  %0 = lazy.broadcast %a to [2, 3, 5] : tensor<5xf32>
  %1 = lazy.broadcast %s to [4, 3] : tensor<f32>
  %2 = lazy.broadcast %d to [2, 1, 4, 3] : tensor<1x3xf32>
  %3 = lazy.broadcast %i to [2, 3, 7] : tensor<3x1xi32>
  return %0, %1, %2, %3 : tensor<2x3x5xf32>, tensor<4x3xf32>, tensor<2x1x4x3xf32>, tensor<2x3x7xi32>
}

// -----

// broadcast of f16, bf16 (length 8; odd lengths: KNOWN_BUGS.txt), i64 and i1 (kept inside: i32 -> i1 -> broadcast -> i32), then fused into a binary op.
// ARG: h f16 [1, 9]
// ARG: b bf16 [8]
// ARG: k i64 [2, 1] int(-5000000000, 5000000000)
// ARG: i i32 [1, 5] int(0, 1)
// ARG: x f32 [3, 5]
// OUT: np.broadcast_to(h, (4, 9)) ; rtol=0, atol=0
// OUT: np.broadcast_to(b, (2, 8)) ; rtol=0, atol=0
// OUT: np.broadcast_to(k, (2, 6))
// OUT: np.broadcast_to(i != 0, (3, 5))
// OUT: x.astype(np.float64) + np.broadcast_to(i, (3, 5)) ; rtol=0, atol=0
func.func @broadcast_types(%h: tensor<1x9xf16>, %b: tensor<8xbf16>, %k: tensor<2x1xi64>, %i: tensor<1x5xi32>, %x: tensor<3x5xf32>) -> (tensor<4x9xf16>, tensor<2x8xbf16>, tensor<2x6xi64>, tensor<3x5xi32>, tensor<3x5xf32>) {
  %0 = lazy.broadcast %h to [4, 9] : tensor<1x9xf16>
  %1 = lazy.broadcast %b to [2, 8] : tensor<8xbf16>
  %2 = lazy.broadcast %k to [2, 6] : tensor<2x1xi64>
  %p = lazy.cast %i : tensor<1x5xi32> to tensor<1x5xi1>
  %pb = lazy.broadcast %p to [3, 5] : tensor<1x5xi1>
  %3 = lazy.cast %pb : tensor<3x5xi1> to tensor<3x5xi32>
  %f = lazy.cast %i : tensor<1x5xi32> to tensor<1x5xf32>
  %fb = lazy.broadcast %f to [3, 5] : tensor<1x5xf32>
  %4 = lazy.add %x, %fb : tensor<3x5xf32>
  return %0, %1, %2, %3, %4 : tensor<4x9xf16>, tensor<2x8xbf16>, tensor<2x6xi64>, tensor<3x5xi32>, tensor<3x5xf32>
}

// -----

// transpose rank 2 (odd shapes, f32 and i64) and the identity permutation.
// ARG: a f32 [7, 13]
// ARG: k i64 [3, 17] int(-5000000000, 5000000000)
// OUT: a.T ; rtol=0, atol=0
// OUT: k.T
// OUT: a ; rtol=0, atol=0
func.func @transpose_rank2(%a: tensor<7x13xf32>, %k: tensor<3x17xi64>) -> (tensor<13x7xf32>, tensor<17x3xi64>, tensor<7x13xf32>) {
  %0 = lazy.transpose %a [1, 0] : tensor<7x13xf32>
  %1 = lazy.transpose %k [1, 0] : tensor<3x17xi64>
  %2 = lazy.transpose %a [0, 1] : tensor<7x13xf32>
  return %0, %1, %2 : tensor<13x7xf32>, tensor<17x3xi64>, tensor<7x13xf32>
}

// -----

// transpose rank 3, all five non-identity permutations.
// ARG: x f32 [2, 3, 4]
// OUT: np.transpose(x, (0, 2, 1)) ; rtol=0, atol=0
// OUT: np.transpose(x, (1, 0, 2)) ; rtol=0, atol=0
// OUT: np.transpose(x, (1, 2, 0)) ; rtol=0, atol=0
// OUT: np.transpose(x, (2, 0, 1)) ; rtol=0, atol=0
// OUT: np.transpose(x, (2, 1, 0)) ; rtol=0, atol=0
func.func @transpose_rank3(%x: tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<3x2x4xf32>, tensor<3x4x2xf32>, tensor<4x2x3xf32>, tensor<4x3x2xf32>) {
  %0 = lazy.transpose %x [0, 2, 1] : tensor<2x3x4xf32>
  %1 = lazy.transpose %x [1, 0, 2] : tensor<2x3x4xf32>
  %2 = lazy.transpose %x [1, 2, 0] : tensor<2x3x4xf32>
  %3 = lazy.transpose %x [2, 0, 1] : tensor<2x3x4xf32>
  %4 = lazy.transpose %x [2, 1, 0] : tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4x3xf32>, tensor<3x2x4xf32>, tensor<3x4x2xf32>, tensor<4x2x3xf32>, tensor<4x3x2xf32>
}

// -----

// transpose rank 4 permutations (reversal, middle swap, two cycles) on f32, f16 and i32.
// ARG: x f32 [2, 3, 4, 5]
// ARG: h f16 [2, 3, 4, 5]
// ARG: i i32 [2, 3, 4, 5]
// OUT: np.transpose(x, (3, 2, 1, 0)) ; rtol=0, atol=0
// OUT: np.transpose(x, (0, 2, 1, 3)) ; rtol=0, atol=0
// OUT: np.transpose(x, (1, 3, 0, 2)) ; rtol=0, atol=0
// OUT: np.transpose(h, (2, 0, 3, 1)) ; rtol=0, atol=0
// OUT: np.transpose(i, (0, 3, 1, 2))
func.func @transpose_rank4(%x: tensor<2x3x4x5xf32>, %h: tensor<2x3x4x5xf16>, %i: tensor<2x3x4x5xi32>) -> (tensor<5x4x3x2xf32>, tensor<2x4x3x5xf32>, tensor<3x5x2x4xf32>, tensor<4x2x5x3xf16>, tensor<2x5x3x4xi32>) {
  %0 = lazy.transpose %x [3, 2, 1, 0] : tensor<2x3x4x5xf32>
  %1 = lazy.transpose %x [0, 2, 1, 3] : tensor<2x3x4x5xf32>
  %2 = lazy.transpose %x [1, 3, 0, 2] : tensor<2x3x4x5xf32>
  %3 = lazy.transpose %h [2, 0, 3, 1] : tensor<2x3x4x5xf16>
  %4 = lazy.transpose %i [0, 3, 1, 2] : tensor<2x3x4x5xi32>
  return %0, %1, %2, %3, %4 : tensor<5x4x3x2xf32>, tensor<2x4x3x5xf32>, tensor<3x5x2x4xf32>, tensor<4x2x5x3xf16>, tensor<2x5x3x4xi32>
}

// -----

// Transposes whose two swapped dimensions are multiples of 16 move through
// registers in 16 x 16 squares (lazy-cpu-tile-and-vectorize): rank 2 (an
// LSTM's recurrent weight), i32, the squares' rows in a middle or the outer
// dimension of rank 3, a transpose fused with an add and a broadcast row,
// and the transpose of a slice (a strided source).
// ARG: w f32 [512, 128]
// ARG: k i32 [48, 32] int(-1000000, 1000000)
// ARG: x f32 [3, 32, 48]
// ARG: y f32 [32, 5, 16]
// ARG: z f32 [32, 4, 16]
// ARG: b f32 [512]
// OUT: w.T ; rtol=0, atol=0
// OUT: k.T
// OUT: np.transpose(x, (0, 2, 1)) ; rtol=0, atol=0
// OUT: np.transpose(y, (2, 1, 0)) ; rtol=0, atol=0
// OUT: np.transpose(z, (1, 2, 0)) ; rtol=0, atol=0
// OUT: w.T + b[None, :] ; rtol=0, atol=0
// OUT: w[16:272, 32:96].T ; rtol=0, atol=0
func.func @transpose_squares(%w: tensor<512x128xf32>, %k: tensor<48x32xi32>, %x: tensor<3x32x48xf32>, %y: tensor<32x5x16xf32>, %z: tensor<32x4x16xf32>, %b: tensor<512xf32>) -> (tensor<128x512xf32>, tensor<32x48xi32>, tensor<3x48x32xf32>, tensor<16x5x32xf32>, tensor<4x16x32xf32>, tensor<128x512xf32>, tensor<64x256xf32>) {
  %0 = lazy.transpose %w [1, 0] : tensor<512x128xf32>
  %1 = lazy.transpose %k [1, 0] : tensor<48x32xi32>
  %2 = lazy.transpose %x [0, 2, 1] : tensor<3x32x48xf32>
  %3 = lazy.transpose %y [2, 1, 0] : tensor<32x5x16xf32>
  %4 = lazy.transpose %z [1, 2, 0] : tensor<32x4x16xf32>
  %bb = lazy.broadcast %b to [128, 512] : tensor<512xf32>
  %5 = lazy.add %0, %bb : tensor<128x512xf32>
  %s = lazy.slice %w [16, 32] to [272, 96] step [1, 1] : tensor<512x128xf32>
  %6 = lazy.transpose %s [1, 0] : tensor<256x64xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<128x512xf32>, tensor<32x48xi32>, tensor<3x48x32xf32>, tensor<16x5x32xf32>, tensor<4x16x32xf32>, tensor<128x512xf32>, tensor<64x256xf32>
}

// -----

// More transposes in squares: two transposed inputs in one op, one of them
// an i32 cast to f32 (the square's element type is the input's), a rank-3
// permutation (2, 0, 1) whose squares pair the outer and the inner
// dimension, and an f16 transpose of the same shape, which keeps row tiles.
// ARG: a f32 [64, 32]
// ARG: k i32 [64, 32] int(-100000, 100000)
// ARG: x f32 [16, 4, 32]
// ARG: h f16 [64, 32]
// OUT: a.T.astype(np.float64) * 2 + k.T.astype(np.float32) ; rtol=1e-7, atol=0
// OUT: np.transpose(x, (2, 0, 1)) ; rtol=0, atol=0
// OUT: h.T ; rtol=0, atol=0
func.func @transpose_squares_mixed(%a: tensor<64x32xf32>, %k: tensor<64x32xi32>, %x: tensor<16x4x32xf32>, %h: tensor<64x32xf16>) -> (tensor<32x64xf32>, tensor<32x16x4xf32>, tensor<32x64xf16>) {
  %at = lazy.transpose %a [1, 0] : tensor<64x32xf32>
  %two = lazy.constant dense<2.0> : tensor<32x64xf32>
  %a2 = lazy.mul %at, %two : tensor<32x64xf32>
  %kt = lazy.transpose %k [1, 0] : tensor<64x32xi32>
  %kf = lazy.cast %kt : tensor<32x64xi32> to tensor<32x64xf32>
  %0 = lazy.add %a2, %kf : tensor<32x64xf32>
  %1 = lazy.transpose %x [2, 0, 1] : tensor<16x4x32xf32>
  %2 = lazy.transpose %h [1, 0] : tensor<64x32xf16>
  return %0, %1, %2 : tensor<32x64xf32>, tensor<32x16x4xf32>, tensor<32x64xf16>
}

// -----

// transposed (non-contiguous) values feeding other ops: elementwise with a row-major operand, reshape, slice, reduction, and a second transpose.
// ARG: x f32 [6, 10]
// ARG: y f32 [10, 6]
// OUT: x.T.astype(np.float64) * y ; rtol=0, atol=0
// OUT: x.T.reshape(4, 15) ; rtol=0, atol=0
// OUT: x.T[1:9:3, ::2] ; rtol=0, atol=0
// OUT: x.T.astype(np.float64).sum(axis=1) ; rtol=1e-6, atol=1e-6
// OUT: np.transpose(x.T.reshape(2, 5, 6), (2, 0, 1)) ; rtol=0, atol=0
func.func @transpose_consumers(%x: tensor<6x10xf32>, %y: tensor<10x6xf32>) -> (tensor<10x6xf32>, tensor<4x15xf32>, tensor<3x3xf32>, tensor<10xf32>, tensor<6x2x5xf32>) {
  %t = lazy.transpose %x [1, 0] : tensor<6x10xf32>
  %0 = lazy.mul %t, %y : tensor<10x6xf32>
  %1 = lazy.reshape %t to [4, 15] : tensor<10x6xf32>
  %2 = lazy.slice %t [1, 0] to [9, 6] step [3, 2] : tensor<10x6xf32>
  %3 = lazy.reduce_sum %t [1] : tensor<10x6xf32>
  %r = lazy.reshape %t to [2, 5, 6] : tensor<10x6xf32>
  %4 = lazy.transpose %r [2, 0, 1] : tensor<2x5x6xf32>
  return %0, %1, %2, %3, %4 : tensor<10x6xf32>, tensor<4x15xf32>, tensor<3x3xf32>, tensor<10xf32>, tensor<6x2x5xf32>
}

// -----

// transpose of i1 (inside: i32 -> i1 -> transpose -> i32) and of bf16.
// ARG: i i32 [3, 4, 5] int(0, 1)
// ARG: b bf16 [3, 7]
// OUT: np.transpose(i != 0, (2, 0, 1))
// OUT: b.T ; rtol=0, atol=0
func.func @transpose_i1_bf16(%i: tensor<3x4x5xi32>, %b: tensor<3x7xbf16>) -> (tensor<5x3x4xi32>, tensor<7x3xbf16>) {
  %p = lazy.cast %i : tensor<3x4x5xi32> to tensor<3x4x5xi1>
  %t = lazy.transpose %p [2, 0, 1] : tensor<3x4x5xi1>
  %0 = lazy.cast %t : tensor<5x3x4xi1> to tensor<5x3x4xi32>
  %1 = lazy.transpose %b [1, 0] : tensor<3x7xbf16>
  return %0, %1 : tensor<5x3x4xi32>, tensor<7x3xbf16>
}

// -----

// reshape expand ([12] -> [3, 4], [24] -> [2, 3, 4]) and collapse ([2, 3, 4] -> [6, 4], [2, 12], [24]).
// ARG: a f32 [12]
// ARG: b f32 [24]
// ARG: x f32 [2, 3, 4]
// OUT: a.reshape(3, 4) ; rtol=0, atol=0
// OUT: b.reshape(2, 3, 4) ; rtol=0, atol=0
// OUT: x.reshape(6, 4) ; rtol=0, atol=0
// OUT: x.reshape(2, 12) ; rtol=0, atol=0
// OUT: x.reshape(24) ; rtol=0, atol=0
func.func @reshape_expand_collapse(%a: tensor<12xf32>, %b: tensor<24xf32>, %x: tensor<2x3x4xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<2x12xf32>, tensor<24xf32>) {
  %0 = lazy.reshape %a to [3, 4] : tensor<12xf32>
  %1 = lazy.reshape %b to [2, 3, 4] : tensor<24xf32>
  %2 = lazy.reshape %x to [6, 4] : tensor<2x3x4xf32>
  %3 = lazy.reshape %x to [2, 12] : tensor<2x3x4xf32>
  %4 = lazy.reshape %x to [24] : tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<2x12xf32>, tensor<24xf32>
}

// -----

// reshape general (neither expand nor collapse: [6, 4] -> [4, 6], [2, 3, 4] -> [4, 3, 2], [3, 8]), inserting size-1 dims, on f32, i32 and f16.
// ARG: a f32 [6, 4]
// ARG: x i32 [2, 3, 4]
// ARG: h f16 [2, 3, 4]
// OUT: a.reshape(4, 6) ; rtol=0, atol=0
// OUT: x.reshape(4, 3, 2)
// OUT: h.reshape(3, 8) ; rtol=0, atol=0
// OUT: a.reshape(1, 6, 1, 4, 1) ; rtol=0, atol=0
// OUT: x.reshape(3, 1, 8)
func.func @reshape_general(%a: tensor<6x4xf32>, %x: tensor<2x3x4xi32>, %h: tensor<2x3x4xf16>) -> (tensor<4x6xf32>, tensor<4x3x2xi32>, tensor<3x8xf16>, tensor<1x6x1x4x1xf32>, tensor<3x1x8xi32>) {
  %0 = lazy.reshape %a to [4, 6] : tensor<6x4xf32>
  %1 = lazy.reshape %x to [4, 3, 2] : tensor<2x3x4xi32>
  %2 = lazy.reshape %h to [3, 8] : tensor<2x3x4xf16>
  %3 = lazy.reshape %a to [1, 6, 1, 4, 1] : tensor<6x4xf32>
  %4 = lazy.reshape %x to [3, 1, 8] : tensor<2x3x4xi32>
  return %0, %1, %2, %3, %4 : tensor<4x6xf32>, tensor<4x3x2xi32>, tensor<3x8xf16>, tensor<1x6x1x4x1xf32>, tensor<3x1x8xi32>
}

// -----

// reshape to rank 0 ([1, 1] -> [], [1] -> []) and from rank 0 ([] -> [1, 1, 1], [] -> [1]).
// ARG: a f32 [1, 1]
// ARG: b i64 [1] int(-5000000000, 5000000000)
// ARG: s f32 []
// ARG: t i32 []
// OUT: a.reshape(()) ; rtol=0, atol=0
// OUT: b.reshape(())
// OUT: s.reshape(1, 1, 1) ; rtol=0, atol=0
// OUT: t.reshape(1)
func.func @reshape_rank0(%a: tensor<1x1xf32>, %b: tensor<1xi64>, %s: tensor<f32>, %t: tensor<i32>) -> (tensor<f32>, tensor<i64>, tensor<1x1x1xf32>, tensor<1xi32>) {
  %0 = lazy.reshape %a to [] : tensor<1x1xf32>
  %1 = lazy.reshape %b to [] : tensor<1xi64>
  %2 = lazy.reshape %s to [1, 1, 1] : tensor<f32>
  %3 = lazy.reshape %t to [1] : tensor<i32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<i64>, tensor<1x1x1xf32>, tensor<1xi32>
}

// -----

// reshape of zero-size tensors, and of an elementwise result (reshape between two computations).
// ARG: z f32 [0, 6]
// ARG: x f32 [4, 6]
// OUT: z.reshape(3, 0, 2) ; rtol=0, atol=0
// OUT: np.exp(x.astype(np.float64)).reshape(8, 3) + 1 ; rtol=1e-6, atol=0
func.func @reshape_zero_size_chain(%z: tensor<0x6xf32>, %x: tensor<4x6xf32>) -> (tensor<3x0x2xf32>, tensor<8x3xf32>) {
  %0 = lazy.reshape %z to [3, 0, 2] : tensor<0x6xf32>
  %e = lazy.exp %x : tensor<4x6xf32>
  %r = lazy.reshape %e to [8, 3] : tensor<4x6xf32>
  %one = lazy.constant dense<1.0> : tensor<8x3xf32>
  %1 = lazy.add %r, %one : tensor<8x3xf32>
  return %0, %1 : tensor<3x0x2xf32>, tensor<8x3xf32>
}

// -----

// slice with steps in rank 1, 2 and 3, including a step larger than the range and the full range.
// ARG: a f32 [17]
// ARG: b f32 [7, 13]
// ARG: c f32 [4, 5, 6]
// OUT: a[1:16:3] ; rtol=0, atol=0
// OUT: a[2:3:5] ; rtol=0, atol=0
// OUT: b[1:7:2, 0:13:5] ; rtol=0, atol=0
// OUT: b[0:7:1, 12:13:1] ; rtol=0, atol=0
// OUT: c[1:4:2, 0:5:4, 1:6:2] ; rtol=0, atol=0
func.func @slice_steps(%a: tensor<17xf32>, %b: tensor<7x13xf32>, %c: tensor<4x5x6xf32>) -> (tensor<5xf32>, tensor<1xf32>, tensor<3x3xf32>, tensor<7x1xf32>, tensor<2x2x3xf32>) {
  %0 = lazy.slice %a [1] to [16] step [3] : tensor<17xf32>
  %1 = lazy.slice %a [2] to [3] step [5] : tensor<17xf32>
  %2 = lazy.slice %b [1, 0] to [7, 13] step [2, 5] : tensor<7x13xf32>
  %3 = lazy.slice %b [0, 12] to [7, 13] step [1, 1] : tensor<7x13xf32>
  %4 = lazy.slice %c [1, 0, 1] to [4, 5, 6] step [2, 4, 2] : tensor<4x5x6xf32>
  return %0, %1, %2, %3, %4 : tensor<5xf32>, tensor<1xf32>, tensor<3x3xf32>, tensor<7x1xf32>, tensor<2x2x3xf32>
}

// -----

// slice with zero-size results (start == limit, in the first and in a middle dim) and a slice of a slice.
// ARG: a f32 [17]
// ARG: b f32 [7, 13]
// OUT: a[5:5] ; rtol=0, atol=0
// OUT: a[0:0:4] ; rtol=0, atol=0
// OUT: b[0:7:3, 4:4] ; rtol=0, atol=0
// OUT: b[1:7:2, 1:12:2][1:3, ::3] ; rtol=0, atol=0
func.func @slice_empty_nested(%a: tensor<17xf32>, %b: tensor<7x13xf32>) -> (tensor<0xf32>, tensor<0xf32>, tensor<3x0xf32>, tensor<2x2xf32>) {
  %0 = lazy.slice %a [5] to [5] step [1] : tensor<17xf32>
  %1 = lazy.slice %a [0] to [0] step [4] : tensor<17xf32>
  %2 = lazy.slice %b [0, 4] to [7, 4] step [3, 1] : tensor<7x13xf32>
  %s = lazy.slice %b [1, 1] to [7, 12] step [2, 2] : tensor<7x13xf32>
  %3 = lazy.slice %s [1, 0] to [3, 6] step [1, 3] : tensor<3x6xf32>
  return %0, %1, %2, %3 : tensor<0xf32>, tensor<0xf32>, tensor<3x0xf32>, tensor<2x2xf32>
}

// -----

// slice of i32, i64, f16 and i1 (inside), and a sliced value feeding an elementwise op.
// ARG: i i32 [9, 8]
// ARG: k i64 [10] int(-5000000000, 5000000000)
// ARG: h f16 [3, 11]
// ARG: p i32 [12] int(0, 1)
// ARG: x f32 [9, 8]
// OUT: i[2:9:3, 1:8:2]
// OUT: k[::4]
// OUT: h[1:3, 3:11:4] ; rtol=0, atol=0
// OUT: (p != 0)[1:12:5]
// OUT: x[2:9:3, 1:8:2].astype(np.float64) - x[0:3, 0:4] ; rtol=0, atol=0
func.func @slice_types(%i: tensor<9x8xi32>, %k: tensor<10xi64>, %h: tensor<3x11xf16>, %p: tensor<12xi32>, %x: tensor<9x8xf32>) -> (tensor<3x4xi32>, tensor<3xi64>, tensor<2x2xf16>, tensor<3xi32>, tensor<3x4xf32>) {
  %0 = lazy.slice %i [2, 1] to [9, 8] step [3, 2] : tensor<9x8xi32>
  %1 = lazy.slice %k [0] to [10] step [4] : tensor<10xi64>
  %2 = lazy.slice %h [1, 3] to [3, 11] step [1, 4] : tensor<3x11xf16>
  %b = lazy.cast %p : tensor<12xi32> to tensor<12xi1>
  %bs = lazy.slice %b [1] to [12] step [5] : tensor<12xi1>
  %3 = lazy.cast %bs : tensor<3xi1> to tensor<3xi32>
  %xs = lazy.slice %x [2, 1] to [9, 8] step [3, 2] : tensor<9x8xf32>
  %xt = lazy.slice %x [0, 0] to [3, 4] step [1, 1] : tensor<9x8xf32>
  %4 = lazy.sub %xs, %xt : tensor<3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<3x4xi32>, tensor<3xi64>, tensor<2x2xf16>, tensor<3xi32>, tensor<3x4xf32>
}

// -----

// concat of rank-3 f32 along each axis, three operands each, including a zero-size operand (first or middle).
// ARG: a f32 [2, 3, 4]
// ARG: b f32 [1, 3, 4]
// ARG: c f32 [2, 2, 4]
// ARG: d f32 [2, 3, 5]
// ARG: z0 f32 [0, 3, 4]
// ARG: z1 f32 [2, 0, 4]
// ARG: z2 f32 [2, 3, 0]
// OUT: np.concatenate([a, z0, b], axis=0) ; rtol=0, atol=0
// OUT: np.concatenate([c, z1, a], axis=1) ; rtol=0, atol=0
// OUT: np.concatenate([z2, d, a], axis=2) ; rtol=0, atol=0
func.func @concat_axes(%a: tensor<2x3x4xf32>, %b: tensor<1x3x4xf32>, %c: tensor<2x2x4xf32>, %d: tensor<2x3x5xf32>, %z0: tensor<0x3x4xf32>, %z1: tensor<2x0x4xf32>, %z2: tensor<2x3x0xf32>) -> (tensor<3x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x9xf32>) {
  %0 = lazy.concat %a, %z0, %b axis = 0 : tensor<2x3x4xf32>, tensor<0x3x4xf32>, tensor<1x3x4xf32>
  %1 = lazy.concat %c, %z1, %a axis = 1 : tensor<2x2x4xf32>, tensor<2x0x4xf32>, tensor<2x3x4xf32>
  %2 = lazy.concat %z2, %d, %a axis = 2 : tensor<2x3x0xf32>, tensor<2x3x5xf32>, tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<3x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x9xf32>
}

// -----

// concat of a single operand, of the same value twice, and of computed (transposed, sliced) operands.
// ARG: a f32 [3, 5]
// ARG: b f32 [5, 2]
// OUT: a ; rtol=0, atol=0
// OUT: np.concatenate([a, a], axis=0) ; rtol=0, atol=0
// OUT: np.concatenate([b.T, a[0:3, 0:3:2].T], axis=1) ; rtol=0, atol=0
func.func @concat_special(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>) -> (tensor<3x5xf32>, tensor<6x5xf32>, tensor<2x8xf32>) {
  %0 = lazy.concat %a axis = 0 : tensor<3x5xf32>
  %1 = lazy.concat %a, %a axis = 0 : tensor<3x5xf32>, tensor<3x5xf32>
  %bt = lazy.transpose %b [1, 0] : tensor<5x2xf32>
  %as = lazy.slice %a [0, 0] to [3, 3] step [1, 2] : tensor<3x5xf32>
  %at = lazy.transpose %as [1, 0] : tensor<3x2xf32>
  %2 = lazy.concat %bt, %at axis = 1 : tensor<2x5xf32>, tensor<2x3xf32>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<6x5xf32>, tensor<2x8xf32>
}

// -----

// concat of i32, i64, f16, bf16 and i1 (inside) along the last and first axes.
// ARG: i i32 [2, 3]
// ARG: j i32 [2, 4]
// ARG: k i64 [3] int(-5000000000, 5000000000)
// ARG: l i64 [2] int(-5000000000, 5000000000)
// ARG: h f16 [1, 5]
// ARG: g f16 [3, 5]
// ARG: b bf16 [4]
// ARG: c bf16 [3]
// ARG: p i32 [3] int(0, 1)
// ARG: q i32 [6] int(0, 1)
// OUT: np.concatenate([i, j], axis=1)
// OUT: np.concatenate([k, l, k])
// OUT: np.concatenate([h, g], axis=0) ; rtol=0, atol=0
// OUT: np.concatenate([b, c]) ; rtol=0, atol=0
// OUT: np.concatenate([p != 0, q != 0])
func.func @concat_types(%i: tensor<2x3xi32>, %j: tensor<2x4xi32>, %k: tensor<3xi64>, %l: tensor<2xi64>, %h: tensor<1x5xf16>, %g: tensor<3x5xf16>, %b: tensor<4xbf16>, %c: tensor<3xbf16>, %p: tensor<3xi32>, %q: tensor<6xi32>) -> (tensor<2x7xi32>, tensor<8xi64>, tensor<4x5xf16>, tensor<7xbf16>, tensor<9xi32>) {
  %0 = lazy.concat %i, %j axis = 1 : tensor<2x3xi32>, tensor<2x4xi32>
  %1 = lazy.concat %k, %l, %k axis = 0 : tensor<3xi64>, tensor<2xi64>, tensor<3xi64>
  %2 = lazy.concat %h, %g axis = 0 : tensor<1x5xf16>, tensor<3x5xf16>
  %3 = lazy.concat %b, %c axis = 0 : tensor<4xbf16>, tensor<3xbf16>
  %pb = lazy.cast %p : tensor<3xi32> to tensor<3xi1>
  %qb = lazy.cast %q : tensor<6xi32> to tensor<6xi1>
  %cb = lazy.concat %pb, %qb axis = 0 : tensor<3xi1>, tensor<6xi1>
  %4 = lazy.cast %cb : tensor<9xi1> to tensor<9xi32>
  return %0, %1, %2, %3, %4 : tensor<2x7xi32>, tensor<8xi64>, tensor<4x5xf16>, tensor<7xbf16>, tensor<9xi32>
}

// -----

// zero-size leading dims through elementwise ops (binary, unary, compare+select, cast) give zero-size results.
// ARG: a f32 [0, 5]
// ARG: b f32 [0, 5]
// ARG: i i32 [0, 4]
// OUT: a.astype(np.float64) + b ; rtol=0, atol=0
// OUT: np.exp(a) ; rtol=0, atol=0
// OUT: np.where(a > b, a, b) ; rtol=0, atol=0
// OUT: -i
// OUT: i.astype(np.float32) ; rtol=0, atol=0
func.func @zero_size_elementwise(%a: tensor<0x5xf32>, %b: tensor<0x5xf32>, %i: tensor<0x4xi32>) -> (tensor<0x5xf32>, tensor<0x5xf32>, tensor<0x5xf32>, tensor<0x4xi32>, tensor<0x4xf32>) {
  %0 = lazy.add %a, %b : tensor<0x5xf32>
  %1 = lazy.exp %a : tensor<0x5xf32>
  %c = lazy.compare gt, %a, %b : tensor<0x5xf32>
  %2 = lazy.select %c, %a, %b : tensor<0x5xi1>, tensor<0x5xf32>
  %3 = lazy.neg %i : tensor<0x4xi32>
  %4 = lazy.cast %i : tensor<0x4xi32> to tensor<0x4xf32>
  return %0, %1, %2, %3, %4 : tensor<0x5xf32>, tensor<0x5xf32>, tensor<0x5xf32>, tensor<0x4xi32>, tensor<0x4xf32>
}

// -----

// f32 reductions over an empty (leading) axis give the identity: sum 0, max -inf, min +inf, mean NaN (numpy raises for max/min of empty).
// ARG: x f32 [0, 3]
// OUT: np.zeros(3) ; rtol=0, atol=0
// OUT: np.full(3, -np.inf) ; rtol=0, atol=0
// OUT: np.full(3, np.inf) ; rtol=0, atol=0
// OUT: np.full(3, np.nan) ; rtol=0, atol=0
// OUT: np.zeros((1, 1)) ; rtol=0, atol=0
// OUT: np.full((), -np.inf) ; rtol=0, atol=0
// OUT: np.full((), np.nan) ; rtol=0, atol=0
func.func @empty_reduce_f32(%x: tensor<0x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>) {
  %0 = lazy.reduce_sum %x [0] : tensor<0x3xf32>
  %1 = lazy.reduce_max %x [0] : tensor<0x3xf32>
  %2 = lazy.reduce_min %x [0] : tensor<0x3xf32>
  %3 = lazy.reduce_mean %x [0] : tensor<0x3xf32>
  %4 = lazy.reduce_sum %x [0, 1] keep_dims : tensor<0x3xf32>
  %5 = lazy.reduce_max %x [0, 1] : tensor<0x3xf32>
  %6 = lazy.reduce_mean %x [0, 1] : tensor<0x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>
}

// -----

// i32 and i64 reductions over an empty (leading) axis: sum 0, max the integer minimum, min the integer maximum.
// ARG: i i32 [0, 4]
// ARG: k i64 [0, 6]
// OUT: np.zeros(4)
// OUT: np.full(4, -2147483648)
// OUT: np.full(4, 2147483647)
// OUT: np.zeros((1, 6))
// OUT: np.full(6, -9223372036854775808)
// OUT: np.full(6, 9223372036854775807)
func.func @empty_reduce_int(%i: tensor<0x4xi32>, %k: tensor<0x6xi64>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<1x6xi64>, tensor<6xi64>, tensor<6xi64>) {
  %0 = lazy.reduce_sum %i [0] : tensor<0x4xi32>
  %1 = lazy.reduce_max %i [0] : tensor<0x4xi32>
  %2 = lazy.reduce_min %i [0] : tensor<0x4xi32>
  %3 = lazy.reduce_sum %k [0] keep_dims : tensor<0x6xi64>
  %4 = lazy.reduce_max %k [0] : tensor<0x6xi64>
  %5 = lazy.reduce_min %k [0] : tensor<0x6xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<1x6xi64>, tensor<6xi64>, tensor<6xi64>
}

// -----

// reducing the non-empty axis of a zero-size tensor gives a zero-size result.
// ARG: x f32 [0, 5]
// OUT: np.zeros(0) ; rtol=0, atol=0
// OUT: np.zeros((0, 1)) ; rtol=0, atol=0
// OUT: np.zeros(0) ; rtol=0, atol=0
func.func @zero_size_reduce_other_axis(%x: tensor<0x5xf32>) -> (tensor<0xf32>, tensor<0x1xf32>, tensor<0xf32>) {
  %0 = lazy.reduce_sum %x [1] : tensor<0x5xf32>
  %1 = lazy.reduce_max %x [1] keep_dims : tensor<0x5xf32>
  %2 = lazy.reduce_mean %x [1] : tensor<0x5xf32>
  return %0, %1, %2 : tensor<0xf32>, tensor<0x1xf32>, tensor<0xf32>
}

// -----

// size-1 dims through elementwise ops and reductions over size-1 axes (reduction is the identity on values).
// ARG: a f32 [1, 1, 5]
// ARG: b f32 [1, 1, 5]
// ARG: i i32 [3, 1] int(-100, 100)
// OUT: a.astype(np.float64) * b ; rtol=0, atol=0
// OUT: a.sum(axis=(0, 1)) ; rtol=0, atol=0
// OUT: a.max(axis=0, keepdims=True) ; rtol=0, atol=0
// OUT: a.mean(axis=1) ; rtol=0, atol=0
// OUT: i.min(axis=1)
// OUT: i.sum(axis=1, keepdims=True)
func.func @size1_dims(%a: tensor<1x1x5xf32>, %b: tensor<1x1x5xf32>, %i: tensor<3x1xi32>) -> (tensor<1x1x5xf32>, tensor<5xf32>, tensor<1x1x5xf32>, tensor<1x5xf32>, tensor<3xi32>, tensor<3x1xi32>) {
  %0 = lazy.mul %a, %b : tensor<1x1x5xf32>
  %1 = lazy.reduce_sum %a [0, 1] : tensor<1x1x5xf32>
  %2 = lazy.reduce_max %a [0] keep_dims : tensor<1x1x5xf32>
  %3 = lazy.reduce_mean %a [1] : tensor<1x1x5xf32>
  %4 = lazy.reduce_min %i [1] : tensor<3x1xi32>
  %5 = lazy.reduce_sum %i [1] keep_dims : tensor<3x1xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x1x5xf32>, tensor<5xf32>, tensor<1x1x5xf32>, tensor<1x5xf32>, tensor<3xi32>, tensor<3x1xi32>
}

// -----

// constants of every element type (dense and splat, rank 0 to 2), returned directly and used in arithmetic.
// ARG: x f32 [2, 3]
// OUT: np.array([[1.5, -2, 0], [3.25, 1e-3, -7]]) ; rtol=0, atol=0
// OUT: np.full((2, 2), 0.1, dtype=np.float16) ; rtol=0, atol=0
// OUT: np.array([1.5, -3, 256]) ; rtol=0, atol=0
// OUT: np.array(0.1) ; rtol=0, atol=0
// OUT: np.array([1, 0, 1, 1])
// OUT: np.array([[-2147483648, 2147483647], [0, -5]])
// OUT: np.full(3, 9007199254740993)
// OUT: x.astype(np.float64) * np.array([[1.5, -2, 0], [3.25, 1e-3, -7]], dtype=np.float32) ; rtol=0, atol=0
func.func @constants(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x2xf16>, tensor<3xbf16>, tensor<f64>, tensor<4xi32>, tensor<2x2xi32>, tensor<3xi64>, tensor<2x3xf32>) {
  %0 = lazy.constant dense<[[1.5, -2.0, 0.0], [3.25, 1.0e-3, -7.0]]> : tensor<2x3xf32>
  %1 = lazy.constant dense<0.1> : tensor<2x2xf16>
  %2 = lazy.constant dense<[1.5, -3.0, 256.0]> : tensor<3xbf16>
  %3 = lazy.constant dense<0.1> : tensor<f64>
  %b = lazy.constant dense<[true, false, true, true]> : tensor<4xi1>
  %4 = lazy.cast %b : tensor<4xi1> to tensor<4xi32>
  %5 = lazy.constant dense<[[-2147483648, 2147483647], [0, -5]]> : tensor<2x2xi32>
  %6 = lazy.constant dense<9007199254740993> : tensor<3xi64>
  %7 = lazy.mul %x, %0 : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<2x2xf16>, tensor<3xbf16>, tensor<f64>, tensor<4xi32>, tensor<2x2xi32>, tensor<3xi64>, tensor<2x3xf32>
}

// -----

// dynamic dimensions (sizes from the .npy inputs) through elementwise, reduce_sum, matmul, transpose and softmax.
// ARG: a f32 [5, 7]
// ARG: b f32 [5, 7]
// ARG: c f32 [7, 3]
// OUT: a.astype(np.float64) + b ; rtol=0, atol=0
// OUT: a.astype(np.float64).sum(axis=1) ; rtol=1e-5, atol=1e-5
// OUT: a.astype(np.float64) @ c ; rtol=1e-5, atol=1e-5
// OUT: a.T ; rtol=0, atol=0
// OUT: np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True)) / np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True) ; rtol=1e-5, atol=1e-7
func.func @dynamic_compute(%a: tensor<?x7xf32>, %b: tensor<?x7xf32>, %c: tensor<7x?xf32>) -> (tensor<?x7xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<7x?xf32>, tensor<?x7xf32>) {
  %0 = lazy.add %a, %b : tensor<?x7xf32>
  %1 = lazy.reduce_sum %a [1] : tensor<?x7xf32>
  %2 = lazy.matmul %a, %c : tensor<?x7xf32>, tensor<7x?xf32>
  %3 = lazy.transpose %a [1, 0] : tensor<?x7xf32>
  %4 = lazy.softmax %a, axis = 1 : tensor<?x7xf32>
  return %0, %1, %2, %3, %4 : tensor<?x7xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<7x?xf32>, tensor<?x7xf32>
}

// -----

// dynamic dimensions through broadcast (a dynamic dim equal to the target), reshape, slice and concat.
// ARG: a f32 [4, 1]
// ARG: x f32 [6, 4]
// OUT: np.broadcast_to(a, (4, 3)) ; rtol=0, atol=0
// OUT: x.reshape(3, 8) ; rtol=0, atol=0
// OUT: x[1:5:2, ::3] ; rtol=0, atol=0
// OUT: np.concatenate([x, x], axis=0) ; rtol=0, atol=0
func.func @dynamic_data_movement(%a: tensor<?x1xf32>, %x: tensor<?x4xf32>) -> (tensor<4x3xf32>, tensor<3x8xf32>, tensor<2x2xf32>, tensor<?x4xf32>) {
  %0 = lazy.broadcast %a to [4, 3] : tensor<?x1xf32>
  %1 = lazy.reshape %x to [3, 8] : tensor<?x4xf32>
  %2 = lazy.slice %x [1, 0] to [5, 4] step [2, 3] : tensor<?x4xf32>
  %3 = lazy.concat %x, %x axis = 0 : tensor<?x4xf32>, tensor<?x4xf32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<3x8xf32>, tensor<2x2xf32>, tensor<?x4xf32>
}

// -----

// zero-size slices starting at the very end (start == limit == size), step 1 and 2.
// ARG: a f32 [17]
// OUT: a[17:17] ; rtol=0, atol=0
// OUT: a[17:17:2] ; rtol=0, atol=0
func.func @slice_empty_at_end(%a: tensor<17xf32>) -> (tensor<0xf32>, tensor<0xf32>) {
  %0 = lazy.slice %a [17] to [17] step [1] : tensor<17xf32>
  %1 = lazy.slice %a [17] to [17] step [2] : tensor<17xf32>
  return %0, %1 : tensor<0xf32>, tensor<0xf32>
}

// -----

// concat whose last operand is zero-size along the axis.
// ARG: a f32 [2, 3]
// ARG: z f32 [2, 0]
// OUT: np.concatenate([a, z], axis=1) ; rtol=0, atol=0
func.func @concat_trailing_zero_size(%a: tensor<2x3xf32>, %z: tensor<2x0xf32>) -> tensor<2x3xf32> {
  %0 = lazy.concat %a, %z axis = 1 : tensor<2x3xf32>, tensor<2x0xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// concat of only zero-size operands.
// ARG: z f32 [0, 4]
// OUT: np.concatenate([z, z], axis=0) ; rtol=0, atol=0
func.func @concat_all_zero_size(%z: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %0 = lazy.concat %z, %z axis = 0 : tensor<0x4xf32>, tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

// elementwise op on a zero-size tensor whose zero is the inner dim (5x0).
// ARG: a f32 [5, 0]
// OUT: np.exp(a) ; rtol=0, atol=0
func.func @zero_size_inner_dim_elementwise(%a: tensor<5x0xf32>) -> tensor<5x0xf32> {
  %0 = lazy.exp %a : tensor<5x0xf32>
  return %0 : tensor<5x0xf32>
}

// -----

// elementwise op on a rank-3 zero-size tensor (0x4x3).
// ARG: i i32 [0, 4, 3]
// OUT: -i
func.func @zero_size_rank3_elementwise(%i: tensor<0x4x3xi32>) -> tensor<0x4x3xi32> {
  %0 = lazy.neg %i : tensor<0x4x3xi32>
  return %0 : tensor<0x4x3xi32>
}

// -----

// reductions over an empty inner axis (3x0 over axis 1): sum 0, max -inf, min +inf, mean NaN.
// ARG: x f32 [3, 0]
// OUT: np.zeros(3) ; rtol=0, atol=0
// OUT: np.full(3, -np.inf) ; rtol=0, atol=0
// OUT: np.full(3, np.inf) ; rtol=0, atol=0
// OUT: np.full(3, np.nan) ; rtol=0, atol=0
func.func @empty_inner_axis_reduce(%x: tensor<3x0xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = lazy.reduce_sum %x [1] : tensor<3x0xf32>
  %1 = lazy.reduce_max %x [1] : tensor<3x0xf32>
  %2 = lazy.reduce_min %x [1] : tensor<3x0xf32>
  %3 = lazy.reduce_mean %x [1] : tensor<3x0xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// i64 reductions over the empty leading axis of a rank-3 tensor (0x2x3): sum 0, max INT64_MIN, min INT64_MAX.
// ARG: k i64 [0, 2, 3]
// OUT: np.zeros((1, 2, 3))
// OUT: np.full((2, 3), -9223372036854775808)
// OUT: np.full((2, 3), 9223372036854775807)
func.func @empty_axis_reduce_rank3(%k: tensor<0x2x3xi64>) -> (tensor<1x2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>) {
  %0 = lazy.reduce_sum %k [0] keep_dims : tensor<0x2x3xi64>
  %1 = lazy.reduce_max %k [0] : tensor<0x2x3xi64>
  %2 = lazy.reduce_min %k [0] : tensor<0x2x3xi64>
  return %0, %1, %2 : tensor<1x2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// results that alias: the same value returned twice, an argument returned unchanged, and a constant returned twice.
// ARG: x f32 [3, 5]
// ARG: i i32 [4]
// OUT: np.exp(x.astype(np.float64)) ; rtol=1e-6, atol=0
// OUT: np.exp(x.astype(np.float64)) ; rtol=1e-6, atol=0
// OUT: x ; rtol=0, atol=0
// OUT: i
// OUT: np.array([1, 2])
// OUT: np.array([1, 2])
func.func @aliased_results(%x: tensor<3x5xf32>, %i: tensor<4xi32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<4xi32>, tensor<2xi64>, tensor<2xi64>) {
  %0 = lazy.exp %x : tensor<3x5xf32>
  %c = lazy.constant dense<[1, 2]> : tensor<2xi64>
  return %0, %0, %x, %i, %c, %c : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<4xi32>, tensor<2xi64>, tensor<2xi64>
}
