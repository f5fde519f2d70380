// RUN: %numpy-check %s

// lazy.conv2d through the CPU pipeline (lazy-cpu-direct-convolution's
// register tiles, channels last and NCHW: full and partial tiles, full and
// masked vectors) against numpy: a float64 einsum over numpy's
// sliding windows of the input, taken every stride and every dilation.
//
// Tolerances: inputs in [-1, 1), sums of C KH KW products accumulated in
// f32 in some order. As in reductions-matmul.mlir: rtol=1e-5 and atol=1e-5
// up to ~65 terms, atol=5e-5 up to ~150, atol=1e-4 up to ~320 terms; f64:
// atol=1e-12. A wrong or missing term changes a result by ~0.1-1.

// -----

// A CNN layer: 16 channels, 3x3, 32 filters (8-pixel tiles of two vectors).
// ARG: x f32 [2, 16, 10, 10]
// ARG: w f32 [32, 16, 3, 3]
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (3, 3), axis=(2, 3)), w.astype(np.float64)) ; rtol=1e-5, atol=5e-5
func.func @cnn_layer(%x: tensor<2x16x10x10xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x8x8xf32> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<2x16x10x10xf32>, tensor<32x16x3x3xf32>
  return %0 : tensor<2x32x8x8xf32>
}

// -----

// 40 filters (a tile of two vectors, then one masked vector of 8 lanes)
// over 19 pixels per row (tiles of 8 and of 16 pixels, then 3).
// ARG: x f32 [1, 5, 9, 21]
// ARG: w f32 [40, 5, 3, 3]
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (3, 3), axis=(2, 3)), w.astype(np.float64)) ; rtol=1e-5, atol=1e-5
func.func @partial_tiles(%x: tensor<1x5x9x21xf32>, %w: tensor<40x5x3x3xf32>) -> tensor<1x40x7x19xf32> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<1x5x9x21xf32>, tensor<40x5x3x3xf32>
  return %0 : tensor<1x40x7x19xf32>
}

// -----

// Stride [2, 1] and dilation [1, 3]: windows reaching 3 rows and 4
// columns, every second row, every third column of a window.
// ARG: x f32 [2, 7, 13, 12]
// ARG: w f32 [6, 7, 3, 2]
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (3, 4), axis=(2, 3))[:, :, ::2, :, :, ::3], w.astype(np.float64)) ; rtol=1e-5, atol=1e-5
func.func @strided_dilated(%x: tensor<2x7x13x12xf32>, %w: tensor<6x7x3x2xf32>) -> tensor<2x6x6x9xf32> {
  %0 = lazy.conv2d %x, %w stride [2, 1] dilation [1, 3] : tensor<2x7x13x12xf32>, tensor<6x7x3x2xf32>
  return %0 : tensor<2x6x6x9xf32>
}

// -----

// Few filters stay NCHW (lazy-cpu-convolution-layout): vectors along the
// output rows, 40 pixels as a block of two vectors and a masked one of 8;
// 6 filters by one row, 3 filters by two rows.
// ARG: x f32 [2, 1, 32, 44]
// ARG: w f32 [6, 1, 5, 5]
// ARG: y f32 [1, 2, 30, 44]
// ARG: v f32 [3, 2, 3, 5]
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (5, 5), axis=(2, 3)), w.astype(np.float64)) ; rtol=1e-5, atol=1e-5
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(y.astype(np.float64), (3, 5), axis=(2, 3)), v.astype(np.float64)) ; rtol=1e-5, atol=1e-5
func.func @few_filters(%x: tensor<2x1x32x44xf32>, %w: tensor<6x1x5x5xf32>, %y: tensor<1x2x30x44xf32>, %v: tensor<3x2x3x5xf32>) -> (tensor<2x6x28x40xf32>, tensor<1x3x28x40xf32>) {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<2x1x32x44xf32>, tensor<6x1x5x5xf32>
  %1 = lazy.conv2d %y, %v stride [1, 1] dilation [1, 1] : tensor<1x2x30x44xf32>, tensor<3x2x3x5xf32>
  return %0, %1 : tensor<2x6x28x40xf32>, tensor<1x3x28x40xf32>
}

// -----

// f64 (8 lanes: 9 filters are a vector and a masked lane), stride [1, 2],
// dilation [2, 1].
// ARG: x f64 [3, 4, 8, 9]
// ARG: w f64 [9, 4, 2, 3]
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, :, ::2, ::2, :], w) ; rtol=1e-12, atol=1e-12
func.func @f64(%x: tensor<3x4x8x9xf64>, %w: tensor<9x4x2x3xf64>) -> tensor<3x9x6x4xf64> {
  %0 = lazy.conv2d %x, %w stride [1, 2] dilation [2, 1] : tensor<3x4x8x9xf64>, tensor<9x4x2x3xf64>
  return %0 : tensor<3x9x6x4xf64>
}

// -----

// f16 (no register kernel: scalar loops), bias and relu after it.
// ARG: x f16 [2, 3, 5, 5]
// ARG: w f16 [4, 3, 2, 2]
// OUT: np.maximum(np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (2, 2), axis=(2, 3)), w.astype(np.float64)) + 0.5, 0) ; rtol=1e-2, atol=2e-2
func.func @f16_bias_relu(%x: tensor<2x3x5x5xf16>, %w: tensor<4x3x2x2xf16>) -> tensor<2x4x4x4xf16> {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] : tensor<2x3x5x5xf16>, tensor<4x3x2x2xf16>
  %half = lazy.constant dense<0.5> : tensor<2x4x4x4xf16>
  %1 = lazy.add %0, %half : tensor<2x4x4x4xf16>
  %2 = lazy.relu %1 : tensor<2x4x4x4xf16>
  return %2 : tensor<2x4x4x4xf16>
}

// -----

// Padding [1, 2, 0, 3] channels last (32 filters) and NCHW (6 filters):
// numpy pads with zeros first.
// ARG: x f32 [2, 16, 7, 9]
// ARG: w f32 [32, 16, 3, 3]
// ARG: v f32 [6, 16, 3, 3]
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 2), (0, 3))), (3, 3), axis=(2, 3)), w.astype(np.float64)) ; rtol=1e-5, atol=5e-5
// OUT: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 2), (0, 3))), (3, 3), axis=(2, 3)), v.astype(np.float64)) ; rtol=1e-5, atol=5e-5
func.func @padded(%x: tensor<2x16x7x9xf32>, %w: tensor<32x16x3x3xf32>, %v: tensor<6x16x3x3xf32>) -> (tensor<2x32x8x10xf32>, tensor<2x6x8x10xf32>) {
  %0 = lazy.conv2d %x, %w stride [1, 1] dilation [1, 1] padding [1, 2, 0, 3] : tensor<2x16x7x9xf32>, tensor<32x16x3x3xf32>
  %1 = lazy.conv2d %x, %v stride [1, 1] dilation [1, 1] padding [1, 2, 0, 3] : tensor<2x16x7x9xf32>, tensor<6x16x3x3xf32>
  return %0, %1 : tensor<2x32x8x10xf32>, tensor<2x6x8x10xf32>
}

// -----

// A residual block and a global mean, as the ONNX benchmark's ResNet has
// them: three padded channels-last convolutions whose zero pads CSE
// merges (each then gets a fill of its own), a residual sum stored
// channels last for the mean (lazy-store-in-read-layout), and the mean
// over H and W run with vectors of channels
// (lazy-cpu-interchange-reductions). Tolerance: up to 144-term sums of
// values that grow to ~50 through three layers; a wrong term or a pad
// border that is not zero changes a mean by > 0.01.
// ARG: x f32 [2, 16, 6, 6]
// ARG: w1 f32 [16, 16, 3, 3]
// ARG: w2 f32 [16, 16, 3, 3]
// ARG: w3 f32 [16, 16, 3, 3]
// OUT: (lambda conv, relu: (lambda h: relu(h + conv(h, w3)).mean(axis=(2, 3)))(relu(x + conv(relu(conv(x, w1)), w2))))(lambda a, w: np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(np.pad(a.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3)), w.astype(np.float64)), lambda v: np.maximum(v, 0)) ; rtol=1e-4, atol=1e-3
func.func @residual_block_mean(%x: tensor<2x16x6x6xf32>, %w1: tensor<16x16x3x3xf32>, %w2: tensor<16x16x3x3xf32>, %w3: tensor<16x16x3x3xf32>) -> tensor<2x16xf32> {
  %0 = lazy.conv2d %x, %w1 stride [1, 1] dilation [1, 1] padding [1, 1, 1, 1] : tensor<2x16x6x6xf32>, tensor<16x16x3x3xf32>
  %1 = lazy.relu %0 : tensor<2x16x6x6xf32>
  %2 = lazy.conv2d %1, %w2 stride [1, 1] dilation [1, 1] padding [1, 1, 1, 1] : tensor<2x16x6x6xf32>, tensor<16x16x3x3xf32>
  %3 = lazy.add %x, %2 : tensor<2x16x6x6xf32>
  %4 = lazy.relu %3 : tensor<2x16x6x6xf32>
  %5 = lazy.conv2d %4, %w3 stride [1, 1] dilation [1, 1] padding [1, 1, 1, 1] : tensor<2x16x6x6xf32>, tensor<16x16x3x3xf32>
  %6 = lazy.add %4, %5 : tensor<2x16x6x6xf32>
  %7 = lazy.relu %6 : tensor<2x16x6x6xf32>
  %8 = lazy.reduce_mean %7 [2, 3] : tensor<2x16x6x6xf32>
  return %8 : tensor<2x16xf32>
}
