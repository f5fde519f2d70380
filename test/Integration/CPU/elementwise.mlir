// RUN: %numpy-check %s

// ARG: x f32 [1024] uniform(-3, 3)
// OUT: np.maximum(np.tanh(np.exp(x * 0.5 + 0.1)) * 1.5 - 1, 0) / (1 + x * x) ; rtol=2e-6
func.func @chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c05 = lazy.constant dense<0.5> : tensor<1024xf32>
  %c01 = lazy.constant dense<0.1> : tensor<1024xf32>
  %c15 = lazy.constant dense<1.5> : tensor<1024xf32>
  %c1 = lazy.constant dense<1.0> : tensor<1024xf32>
  %0 = lazy.mul %x, %c05 : tensor<1024xf32>
  %1 = lazy.add %0, %c01 : tensor<1024xf32>
  %2 = lazy.exp %1 : tensor<1024xf32>
  %3 = lazy.tanh %2 : tensor<1024xf32>
  %4 = lazy.mul %3, %c15 : tensor<1024xf32>
  %5 = lazy.sub %4, %c1 : tensor<1024xf32>
  %6 = lazy.relu %5 : tensor<1024xf32>
  %7 = lazy.mul %x, %x : tensor<1024xf32>
  %8 = lazy.add %7, %c1 : tensor<1024xf32>
  %9 = lazy.div %6, %8 : tensor<1024xf32>
  return %9 : tensor<1024xf32>
}

// -----

// ARG: a f32 [3, 1, 5]
// ARG: b f32 [4, 5]
// OUT: a + b
// OUT: np.transpose(a + b, (2, 0, 1)).copy()
func.func @broadcast_transpose(%a: tensor<3x1x5xf32>, %b: tensor<4x5xf32>) -> (tensor<3x4x5xf32>, tensor<5x3x4xf32>) {
  %ab = lazy.broadcast %a to [3, 4, 5] : tensor<3x1x5xf32>
  %bb = lazy.broadcast %b to [3, 4, 5] : tensor<4x5xf32>
  %s = lazy.add %ab, %bb : tensor<3x4x5xf32>
  %t = lazy.transpose %s [2, 0, 1] : tensor<3x4x5xf32>
  return %s, %t : tensor<3x4x5xf32>, tensor<5x3x4xf32>
}

// -----

// ARG: x f32 [6, 4]
// OUT: x.reshape(4, 6)[1:4:2, ::3]
func.func @reshape_slice(%x: tensor<6x4xf32>) -> tensor<2x2xf32> {
  %r = lazy.reshape %x to [4, 6] : tensor<6x4xf32>
  %s = lazy.slice %r [1, 0] to [4, 6] step [2, 3] : tensor<4x6xf32>
  return %s : tensor<2x2xf32>
}

// -----

// ARG: x f32 [2, 3, 4]
// OUT: x.sum(axis=0)
// OUT: x.max(axis=1, keepdims=True)
// OUT: x.min(axis=(0, 2))
// OUT: x.mean(axis=2, keepdims=True) ; rtol=2e-6
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<3x4xf32>, tensor<2x1x4xf32>, tensor<3xf32>, tensor<2x3x1xf32>) {
  %0 = lazy.reduce_sum %x [0] : tensor<2x3x4xf32>
  %1 = lazy.reduce_max %x [1] keep_dims : tensor<2x3x4xf32>
  %2 = lazy.reduce_min %x [0, 2] : tensor<2x3x4xf32>
  %3 = lazy.reduce_mean %x [2] keep_dims : tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<2x1x4xf32>, tensor<3xf32>, tensor<2x3x1xf32>
}

// -----

// ARG: a f32 [8, 16]
// ARG: b f32 [16, 4]
// OUT: a.astype(np.float64) @ b ; rtol=1e-5, atol=1e-5
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// ARG: x f32 [4, 7] uniform(-5, 5)
// OUT: np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True) ; rtol=2e-6
// OUT: (x - x.max(axis=0)) - np.log(np.exp(x - x.max(axis=0)).sum(axis=0)) ; rtol=2e-6
func.func @softmax(%x: tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4x7xf32>) {
  %0 = lazy.softmax %x, axis = 1 : tensor<4x7xf32>
  %1 = lazy.log_softmax %x, axis = 0 : tensor<4x7xf32>
  return %0, %1 : tensor<4x7xf32>, tensor<4x7xf32>
}

// -----

// Long chains of transcendentals: ten tanh steps and eight softplus steps
// (exp and log) on 1027 elements (a vector remainder). Eight or more equal
// math ops share one out-of-line polynomial (lazy-math-approximation's
// outline-from), called once per vector or element.
// ARG: x f32 [1027] uniform(-3, 3)
// OUT: reduce(lambda y, _: np.tanh(y * 0.9 + 0.1) - y * 0.01, range(10), x.astype(np.float64)) ; rtol=1e-5, atol=1e-6
// OUT: reduce(lambda z, _: np.log(np.exp(z) + 1) * 0.5, range(8), x.astype(np.float64)) ; rtol=1e-5, atol=1e-6
func.func @transcendental_chains(%x: tensor<1027xf32>) -> (tensor<1027xf32>, tensor<1027xf32>) {
  %a = lazy.constant dense<0.9> : tensor<1027xf32>
  %b = lazy.constant dense<0.1> : tensor<1027xf32>
  %c = lazy.constant dense<0.01> : tensor<1027xf32>
  %one = lazy.constant dense<1.0> : tensor<1027xf32>
  %half = lazy.constant dense<0.5> : tensor<1027xf32>
  %m0 = lazy.mul %x, %a : tensor<1027xf32>
  %s0 = lazy.add %m0, %b : tensor<1027xf32>
  %t0 = lazy.tanh %s0 : tensor<1027xf32>
  %d0 = lazy.mul %x, %c : tensor<1027xf32>
  %y0 = lazy.sub %t0, %d0 : tensor<1027xf32>
  %m1 = lazy.mul %y0, %a : tensor<1027xf32>
  %s1 = lazy.add %m1, %b : tensor<1027xf32>
  %t1 = lazy.tanh %s1 : tensor<1027xf32>
  %d1 = lazy.mul %y0, %c : tensor<1027xf32>
  %y1 = lazy.sub %t1, %d1 : tensor<1027xf32>
  %m2 = lazy.mul %y1, %a : tensor<1027xf32>
  %s2 = lazy.add %m2, %b : tensor<1027xf32>
  %t2 = lazy.tanh %s2 : tensor<1027xf32>
  %d2 = lazy.mul %y1, %c : tensor<1027xf32>
  %y2 = lazy.sub %t2, %d2 : tensor<1027xf32>
  %m3 = lazy.mul %y2, %a : tensor<1027xf32>
  %s3 = lazy.add %m3, %b : tensor<1027xf32>
  %t3 = lazy.tanh %s3 : tensor<1027xf32>
  %d3 = lazy.mul %y2, %c : tensor<1027xf32>
  %y3 = lazy.sub %t3, %d3 : tensor<1027xf32>
  %m4 = lazy.mul %y3, %a : tensor<1027xf32>
  %s4 = lazy.add %m4, %b : tensor<1027xf32>
  %t4 = lazy.tanh %s4 : tensor<1027xf32>
  %d4 = lazy.mul %y3, %c : tensor<1027xf32>
  %y4 = lazy.sub %t4, %d4 : tensor<1027xf32>
  %m5 = lazy.mul %y4, %a : tensor<1027xf32>
  %s5 = lazy.add %m5, %b : tensor<1027xf32>
  %t5 = lazy.tanh %s5 : tensor<1027xf32>
  %d5 = lazy.mul %y4, %c : tensor<1027xf32>
  %y5 = lazy.sub %t5, %d5 : tensor<1027xf32>
  %m6 = lazy.mul %y5, %a : tensor<1027xf32>
  %s6 = lazy.add %m6, %b : tensor<1027xf32>
  %t6 = lazy.tanh %s6 : tensor<1027xf32>
  %d6 = lazy.mul %y5, %c : tensor<1027xf32>
  %y6 = lazy.sub %t6, %d6 : tensor<1027xf32>
  %m7 = lazy.mul %y6, %a : tensor<1027xf32>
  %s7 = lazy.add %m7, %b : tensor<1027xf32>
  %t7 = lazy.tanh %s7 : tensor<1027xf32>
  %d7 = lazy.mul %y6, %c : tensor<1027xf32>
  %y7 = lazy.sub %t7, %d7 : tensor<1027xf32>
  %m8 = lazy.mul %y7, %a : tensor<1027xf32>
  %s8 = lazy.add %m8, %b : tensor<1027xf32>
  %t8 = lazy.tanh %s8 : tensor<1027xf32>
  %d8 = lazy.mul %y7, %c : tensor<1027xf32>
  %y8 = lazy.sub %t8, %d8 : tensor<1027xf32>
  %m9 = lazy.mul %y8, %a : tensor<1027xf32>
  %s9 = lazy.add %m9, %b : tensor<1027xf32>
  %t9 = lazy.tanh %s9 : tensor<1027xf32>
  %d9 = lazy.mul %y8, %c : tensor<1027xf32>
  %y9 = lazy.sub %t9, %d9 : tensor<1027xf32>
  %e0 = lazy.exp %x : tensor<1027xf32>
  %p0 = lazy.add %e0, %one : tensor<1027xf32>
  %l0 = lazy.log %p0 : tensor<1027xf32>
  %z0 = lazy.mul %l0, %half : tensor<1027xf32>
  %e1 = lazy.exp %z0 : tensor<1027xf32>
  %p1 = lazy.add %e1, %one : tensor<1027xf32>
  %l1 = lazy.log %p1 : tensor<1027xf32>
  %z1 = lazy.mul %l1, %half : tensor<1027xf32>
  %e2 = lazy.exp %z1 : tensor<1027xf32>
  %p2 = lazy.add %e2, %one : tensor<1027xf32>
  %l2 = lazy.log %p2 : tensor<1027xf32>
  %z2 = lazy.mul %l2, %half : tensor<1027xf32>
  %e3 = lazy.exp %z2 : tensor<1027xf32>
  %p3 = lazy.add %e3, %one : tensor<1027xf32>
  %l3 = lazy.log %p3 : tensor<1027xf32>
  %z3 = lazy.mul %l3, %half : tensor<1027xf32>
  %e4 = lazy.exp %z3 : tensor<1027xf32>
  %p4 = lazy.add %e4, %one : tensor<1027xf32>
  %l4 = lazy.log %p4 : tensor<1027xf32>
  %z4 = lazy.mul %l4, %half : tensor<1027xf32>
  %e5 = lazy.exp %z4 : tensor<1027xf32>
  %p5 = lazy.add %e5, %one : tensor<1027xf32>
  %l5 = lazy.log %p5 : tensor<1027xf32>
  %z5 = lazy.mul %l5, %half : tensor<1027xf32>
  %e6 = lazy.exp %z5 : tensor<1027xf32>
  %p6 = lazy.add %e6, %one : tensor<1027xf32>
  %l6 = lazy.log %p6 : tensor<1027xf32>
  %z6 = lazy.mul %l6, %half : tensor<1027xf32>
  %e7 = lazy.exp %z6 : tensor<1027xf32>
  %p7 = lazy.add %e7, %one : tensor<1027xf32>
  %l7 = lazy.log %p7 : tensor<1027xf32>
  %z7 = lazy.mul %l7, %half : tensor<1027xf32>
  return %y9, %z7 : tensor<1027xf32>, tensor<1027xf32>
}
