// A matmul whose inner dimensions disagree: lazyc-opt reports it precisely.
func.func @bad(%a: tensor<8x16xf32>, %b: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %0 = lazy.matmul %a, %b : tensor<8x16xf32>, tensor<32x4xf32>
  return %0 : tensor<8x4xf32>
}
