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
