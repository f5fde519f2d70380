// RUN: %numpy-check %s

// Results tied to an argument (`lazy.tied_argument`): lazyc-run passes the
// argument's buffer as the result's, as the engine does when it donates a
// variable's old value, so each function overwrites its argument while it
// may still read it. The outputs must still be what numpy computes from the
// original arguments.
//
// Tolerances: f32 dot products of K terms in [-1, 1) accumulate in f32:
// atol=2e-5 for K <= 64 (see reductions-matmul.mlir); elementwise updates
// round once or twice: rtol=1e-6, atol=1e-6.
// -----

// An SGD-momentum step: the new velocity and weights are computed over the
// old ones, in the weight gradient's GEMM epilogue. The sum of the old
// weights is returned too, written after the update in the function: the
// update must move after it.
// ARG: w f32 [64, 48]
// ARG: v f32 [64, 48]
// ARG: x f32 [32, 64]
// ARG: dy f32 [32, 48]
// OUT: (v.astype(np.float64) * np.float32(0.9) + x.T.astype(np.float64) @ dy) ; rtol=1e-5, atol=2e-5
// OUT: (w - np.float32(0.01) * (v.astype(np.float64) * np.float32(0.9) + x.T.astype(np.float64) @ dy)) ; rtol=1e-5, atol=2e-5
// OUT: w.astype(np.float64).sum() ; rtol=1e-5, atol=1e-4
func.func @sgd_momentum(%w: tensor<64x48xf32>, %v: tensor<64x48xf32>, %x: tensor<32x64xf32>, %dy: tensor<32x48xf32>) -> (tensor<64x48xf32> {lazy.tied_argument = 1 : i64}, tensor<64x48xf32> {lazy.tied_argument = 0 : i64}, tensor<f32>) {
  %mu = lazy.constant dense<0.9> : tensor<64x48xf32>
  %lr = lazy.constant dense<0.01> : tensor<64x48xf32>
  %xt = lazy.transpose %x [1, 0] : tensor<32x64xf32>
  %g = lazy.matmul %xt, %dy : tensor<64x32xf32>, tensor<32x48xf32>
  %vm = lazy.mul %v, %mu : tensor<64x48xf32>
  %vn = lazy.add %vm, %g : tensor<64x48xf32>
  %step = lazy.mul %vn, %lr : tensor<64x48xf32>
  %wn = lazy.sub %w, %step : tensor<64x48xf32>
  %s = lazy.reduce_sum %w [0, 1] : tensor<64x48xf32>
  return %vn, %wn, %s : tensor<64x48xf32>, tensor<64x48xf32>, tensor<f32>
}
// -----

// The old value is read after the new one exists (p = (2w) @ w): the update
// cannot be computed over w; it is computed aside and copied over w last.
// ARG: w f32 [16, 16]
// OUT: 2 * w ; rtol=0, atol=0
// OUT: (2 * w.astype(np.float64)) @ w ; rtol=1e-5, atol=2e-5
func.func @old_value_read_after_the_update(%w: tensor<16x16xf32>) -> (tensor<16x16xf32> {lazy.tied_argument = 0 : i64}, tensor<16x16xf32>) {
  %two = lazy.constant dense<2.0> : tensor<16x16xf32>
  %wn = lazy.mul %w, %two : tensor<16x16xf32>
  %p = lazy.matmul %wn, %w : tensor<16x16xf32>, tensor<16x16xf32>
  return %wn, %p : tensor<16x16xf32>, tensor<16x16xf32>
}
// -----

// A tied result that is no elementwise update: w @ m, which reads all of w
// for each element.
// ARG: w f32 [16, 16]
// ARG: m f32 [16, 16]
// OUT: w.astype(np.float64) @ m ; rtol=1e-5, atol=2e-5
func.func @matmul_into_its_operand(%w: tensor<16x16xf32>, %m: tensor<16x16xf32>) -> (tensor<16x16xf32> {lazy.tied_argument = 0 : i64}) {
  %p = lazy.matmul %w, %m : tensor<16x16xf32>, tensor<16x16xf32>
  return %p : tensor<16x16xf32>
}
// -----

// A bias update next to a GEMM that reads the bias: the gradient GEMM
// recomputes h = relu(x @ w1 + b) in its tiles (tile-and-fuse puts that read
// of b after the update, which must move after it again).
// ARG: b f32 [48]
// ARG: x f32 [32, 64]
// ARG: w1 f32 [64, 48]
// ARG: dy f32 [32, 16]
// OUT: b - np.float32(0.1) * np.maximum(x.astype(np.float64) @ w1 + b, 0).sum(axis=0) ; rtol=1e-5, atol=2e-4
// OUT: np.maximum(x.astype(np.float64) @ w1 + b, 0).T @ dy ; rtol=1e-5, atol=2e-4
func.func @bias_update_beside_a_gemm_reading_it(%b: tensor<48xf32>, %x: tensor<32x64xf32>, %w1: tensor<64x48xf32>, %dy: tensor<32x16xf32>) -> (tensor<48xf32> {lazy.tied_argument = 0 : i64}, tensor<48x16xf32>) {
  %zero = lazy.constant dense<0.0> : tensor<32x48xf32>
  %lr = lazy.constant dense<0.1> : tensor<48xf32>
  %xw = lazy.matmul %x, %w1 : tensor<32x64xf32>, tensor<64x48xf32>
  %bb = lazy.broadcast %b to [32, 48] : tensor<48xf32>
  %pre = lazy.add %xw, %bb : tensor<32x48xf32>
  %h = lazy.relu %pre : tensor<32x48xf32>
  %hs = lazy.reduce_sum %h [0] : tensor<32x48xf32>
  %step = lazy.mul %hs, %lr : tensor<48xf32>
  %bn = lazy.sub %b, %step : tensor<48xf32>
  %ht = lazy.transpose %h [1, 0] : tensor<32x48xf32>
  %g = lazy.matmul %ht, %dy : tensor<48x32xf32>, tensor<32x16xf32>
  return %bn, %g : tensor<48xf32>, tensor<48x16xf32>
}
// -----

// Another result is the old value itself (`maximum(w, w)` folds to w) and
// a view of it (a reshape): both are copied out before w is overwritten
// (was a bug: they were copied to their out-parameters after it).
// ARG: w f32 [4, 6]
// OUT: np.tanh(w.astype(np.float64)) ; rtol=1e-6, atol=1e-6
// OUT: w ; rtol=0, atol=0
// OUT: w.reshape(24) ; rtol=0, atol=0
func.func @old_value_also_returned(%w: tensor<4x6xf32>) -> (tensor<4x6xf32> {lazy.tied_argument = 0 : i64}, tensor<4x6xf32>, tensor<24xf32>) {
  %t = lazy.tanh %w : tensor<4x6xf32>
  %same = lazy.max %w, %w : tensor<4x6xf32>
  %flat = lazy.reshape %w to [24] : tensor<4x6xf32>
  return %t, %same, %flat : tensor<4x6xf32>, tensor<4x6xf32>, tensor<24xf32>
}
// -----

// A tied result whose value is another tied argument (x * 0 + y folds to y
// for integers), whose own update is copied over it first: y's old value is
// copied out before.
// ARG: x i32 [8]
// ARG: y i32 [8]
// OUT: y + 1 ; rtol=0, atol=0
// OUT: y ; rtol=0, atol=0
func.func @tied_result_reads_another_tied_argument(%x: tensor<8xi32>, %y: tensor<8xi32>) -> (tensor<8xi32> {lazy.tied_argument = 1 : i64}, tensor<8xi32> {lazy.tied_argument = 0 : i64}) {
  %zero = lazy.constant dense<0> : tensor<8xi32>
  %one = lazy.constant dense<1> : tensor<8xi32>
  %x0 = lazy.mul %x, %zero : tensor<8xi32>
  %xn = lazy.add %x0, %y : tensor<8xi32>
  %yn = lazy.add %y, %one : tensor<8xi32>
  return %yn, %xn : tensor<8xi32>, tensor<8xi32>
}
