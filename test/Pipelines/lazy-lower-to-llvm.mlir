// RUN: lazyc-opt %s -split-input-file --lazy-lower-to-llvm \
// RUN:   | FileCheck %s --implicit-check-not="{{[[:space:]](lazy|linalg|tensor|bufferization|memref|scf|vector|affine|arith|math|cf|func|ub)\.[a-z_]+}}" \
// RUN:                  --implicit-check-not="{{@(expf|tanhf|logf|erff)}}"
// RUN: lazyc-opt %s -split-input-file --lazy-decompose --canonicalize --cse --convert-lazy-to-linalg \
// RUN:     --lazy-cpu-fuse --lazy-cpu-tile-and-vectorize="num-threads=2" --lower-vector-mask --canonicalize --cse \
// RUN:     --lazy-cpu-bufferize --lazy-cpu-to-llvm \
// RUN:   | FileCheck %s --check-prefixes=CHECK,THREADS \
// RUN:       --implicit-check-not="{{[[:space:]](lazy|linalg|tensor|bufferization|memref|scf|vector|affine|arith|math|cf|func|ub)\.[a-z_]+}}" \
// RUN:       --implicit-check-not="{{@(expf|tanhf|logf|erff)}}"

// The whole CPU pipeline, lazy dialect to LLVM dialect: only llvm (and omp)
// ops are left (the implicit checks reject an op of any other dialect),
// function results have become out-parameters (memref descriptors appended
// after the inputs, expanded to pointers and integers) and f32
// transcendentals are polynomials, not libm calls (no @expf, @tanhf, ...).
//
// --lazy-lower-to-llvm splits work over the machine's hardware threads, so
// whether an omp.parallel appears depends on the machine. The second RUN line
// is the same pipeline written out stage by stage with num-threads=2; its
// THREADS checks look for the OpenMP region, in the function of its own
// that each thread loop gets (`@<function>_loop<N>`, after the function).

// The elementwise chain relu(tanh(exp(x * 0.5 + 0.1)) * 1.5 - 1) / (x * x + 1)
// on 2^20 f32: one function with the input's descriptor (allocated and aligned
// pointer, offset, size, stride) followed by the output's, and no result; the
// body is vector<64xf32> code (exp and tanh as fma polynomials) inside the
// OpenMP region, over the calling thread's chunks (lazy-static-thread-chunks:
// no worksharing loop), stored to the output (masked stores when the thread
// count does not divide 2^20).
// CHECK-LABEL: llvm.func @chain(
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64) {
//     THREADS:   llvm.call @chain_loop0(
//     THREADS:   llvm.return{{$}}
//     THREADS: llvm.func @chain_loop0(
//  THREADS-SAME:   attributes {passthrough = ["noinline"]
//     THREADS:   omp.parallel {
//     THREADS:     llvm.call @omp_get_thread_num() : () -> i32
//     THREADS:     llvm.call @omp_get_num_threads() : () -> i32
//   THREADS-NOT:   omp.wsloop
//       CHECK:     llvm.intr.fma(%{{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
//       CHECK:     llvm.fdiv %{{.*}} : vector<64xf32>
//       CHECK:     {{llvm.store|llvm.intr.masked.store}} %{{.*}} : vector<64xf32>, {{.*}}!llvm.ptr
//     THREADS:   omp.terminator
//   CHECK-NOT:   llvm.return %
//       CHECK:   llvm.return{{$}}
func.func @chain(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %c05 = lazy.constant dense<0.5> : tensor<1048576xf32>
  %c01 = lazy.constant dense<0.1> : tensor<1048576xf32>
  %c15 = lazy.constant dense<1.5> : tensor<1048576xf32>
  %c1 = lazy.constant dense<1.0> : tensor<1048576xf32>
  %0 = lazy.mul %x, %c05 : tensor<1048576xf32>
  %1 = lazy.add %0, %c01 : tensor<1048576xf32>
  %2 = lazy.exp %1 : tensor<1048576xf32>
  %3 = lazy.tanh %2 : tensor<1048576xf32>
  %4 = lazy.mul %3, %c15 : tensor<1048576xf32>
  %5 = lazy.sub %4, %c1 : tensor<1048576xf32>
  %6 = lazy.relu %5 : tensor<1048576xf32>
  %7 = lazy.mul %x, %x : tensor<1048576xf32>
  %8 = lazy.add %7, %c1 : tensor<1048576xf32>
  %9 = lazy.div %6, %8 : tensor<1048576xf32>
  return %9 : tensor<1048576xf32>
}

// -----

// Row softmax on 4096x1024: rank-2 descriptors for the input and the
// out-parameter, 64-lane max (a compare and a select: its NaN results do
// not matter), exp (polynomial) and sum, one division per row and a product
// per element, no result.
// CHECK-LABEL: llvm.func @softmax(
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64) {
//     THREADS:   llvm.call @softmax_loop0(
//     THREADS:   llvm.return{{$}}
//     THREADS: llvm.func @softmax_loop0(
//     THREADS:   omp.parallel {
//       CHECK:     %[[WINS:.+]] = llvm.fcmp "ogt" %[[ACC:.+]], %[[X:.+]] : vector<64xf32>
//  CHECK-NEXT:     llvm.select %[[WINS]], %[[ACC]], %[[X]] : vector<64xi1>, vector<64xf32>
//       CHECK:     llvm.intr.fma(%{{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
//       CHECK:     llvm.fadd %{{.*}} : vector<64xf32>
//       CHECK:     llvm.fdiv %{{.*}} : vector<1xf32>
//       CHECK:     llvm.fmul %{{.*}} : vector<64xf32>
//     THREADS:   omp.terminator
//   CHECK-NOT:   llvm.return %
//       CHECK:   llvm.return{{$}}
func.func @softmax(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}

// -----

// A matmul calls the runtime's GEMM: @gemm calls @lazyrt_matmul_f32 (with
// the three expanded descriptors), whose generated wrapper passes them by
// pointer to the runtime's @_mlir_ciface_lazyrt_matmul_f32.
//       CHECK: llvm.func private @lazyrt_matmul_f32(
//       CHECK:   llvm.call @_mlir_ciface_lazyrt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> ()
//       CHECK: llvm.func @_mlir_ciface_lazyrt_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32)
// CHECK-LABEL: llvm.func @matmul(
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
//  CHECK-SAME:     %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64) {
//     THREADS:   llvm.call @matmul_loop0(
//     THREADS:   llvm.return{{$}}
//     THREADS: llvm.func @matmul_loop0(
//     THREADS:   omp.parallel {
//       CHECK:     llvm.call @lazyrt_matmul_f32(
//     THREADS:   omp.terminator
//   CHECK-NOT:   llvm.return %
//       CHECK:   llvm.return{{$}}
func.func @matmul(%a: tensor<512x256xf32>, %b: tensor<256x128xf32>) -> tensor<512x128xf32> {
  %0 = lazy.matmul %a, %b : tensor<512x256xf32>, tensor<256x128xf32>
  return %0 : tensor<512x128xf32>
}

// -----

// A rank-4 matmul with every dimension dynamic (as eager mode compiles it)
// lowers all the way. Regression (found by lazyc-fuzz): it crashed the
// compiler in expand-strided-metadata.
// CHECK-LABEL: llvm.func @matmul_rank4_all_dynamic(
func.func @matmul_rank4_all_dynamic(%a: tensor<?x?x?x?xf64>, %b: tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64> {
  %0 = lazy.matmul %a, %b : tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>
  return %0 : tensor<?x?x?x?xf64>
}
