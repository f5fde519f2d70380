// A trace as lazyc records it for
//
//   Tensor w = ones({1024}) * 1.0f;
//   Tensor y = softmax(x * w + b, /*axis=*/1) * 2.0f;
//
// with `x` (8x1024) and `b` (1024) as materialized arguments. Broadcasts are
// explicit; the scalar literals are still baked-in constants.
func.func @trace(%x: tensor<8x1024xf32>, %b: tensor<1024xf32>) -> tensor<8x1024xf32> {
  %one = lazy.constant dense<1.0> : tensor<1024xf32>
  %w = lazy.mul %one, %one : tensor<1024xf32>
  %wb = lazy.broadcast %w to [8, 1024] : tensor<1024xf32>
  %xw = lazy.mul %x, %wb : tensor<8x1024xf32>
  %bb = lazy.broadcast %b to [8, 1024] : tensor<1024xf32>
  %z = lazy.add %xw, %bb : tensor<8x1024xf32>
  %s = lazy.softmax %z, axis = 1 : tensor<8x1024xf32>
  %two = lazy.constant dense<2.0> : tensor<8x1024xf32>
  %y = lazy.mul %s, %two : tensor<8x1024xf32>
  return %y : tensor<8x1024xf32>
}
