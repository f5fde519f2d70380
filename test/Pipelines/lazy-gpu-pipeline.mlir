// RUN: lazyc-opt %s --lazy-gpu-pipeline | FileCheck %s --check-prefix=HOST
// RUN: lazyc-opt %s --lazy-gpu-pipeline | %extract-ptx | FileCheck %s

// The whole GPU pipeline: kernels as PTX for sm_90 (compiled by LLVM's
// NVPTX back end: no GPU or CUDA toolkit needed), a host function in the
// LLVM dialect that launches them on device buffers. PTX assembled by
// ptxas: lazy-gpu-pipeline-ptxas.mlir.

// An elementwise chain with a broadcast is one kernel, a thread per four
// consecutive elements of a row: a 128-bit global load of each input, one
// 128-bit global store, no bounds check (1000 rows of 256 threads). The
// host function returns with the kernel queued, not waiting for it.
// HOST-LABEL: llvm.func @chain
//       HOST:   %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
//       HOST:   gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernels::@chain_kernel
//   HOST-NOT:   gpu.launch_func
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.return
// HOST: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80"{{.*}}>, {{.*}}assembly = "
//
// CHECK: .target sm_90
// CHECK: .visible .entry chain_kernel(
// CHECK-DAG:   mov.u32 {{.*}}%ctaid.x
// CHECK-DAG:   mov.u32 {{.*}}%tid.x
// CHECK:   ld.global.v4.b32
// CHECK:   ld.global.v4.b32
// CHECK:   {{ex2.approx|__nv_tanhf}}
// CHECK:   st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @chain(%x: tensor<1000x1024xf32>, %b: tensor<1024xf32>) -> tensor<1000x1024xf32> {
  %0 = lazy.broadcast %b to [1000, 1024] : tensor<1024xf32>
  %1 = lazy.add %x, %0 : tensor<1000x1024xf32>
  %2 = lazy.relu %1 : tensor<1000x1024xf32>
  %3 = lazy.tanh %2 : tensor<1000x1024xf32>
  %4 = lazy.mul %3, %x : tensor<1000x1024xf32>
  return %4 : tensor<1000x1024xf32>
}

// asin, acos and atan are libdevice's __nv_asinf, __nv_acosf and
// __nv_atanf, inlined where libdevice is linked (their |x| > 1/2 branches
// take a square root), in one elementwise kernel.
// HOST-LABEL: llvm.func @inverse_trig
//       HOST:   gpu.launch_func <%{{.*}}> @kernels::@inverse_trig_kernel
//   HOST-NOT:   gpu.launch_func
//       HOST:   llvm.return
//
// CHECK: .visible .entry inverse_trig_kernel(
// CHECK:   ld.global.v4.b32
// CHECK:   {{rsqrt.approx.ftz.f32|__nv_asinf}}
// CHECK:   st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @inverse_trig(%x: tensor<1000x1024xf32>) -> tensor<1000x1024xf32> {
  %0 = lazy.asin %x : tensor<1000x1024xf32>
  %1 = lazy.acos %x : tensor<1000x1024xf32>
  %2 = lazy.add %0, %1 : tensor<1000x1024xf32>
  %3 = lazy.atan %2 : tensor<1000x1024xf32>
  return %3 : tensor<1000x1024xf32>
}

// A row reduction: one kernel, a block per row (64 rows of 1000: 256
// threads). It fills the row's sum; its threads add their elements (each
// thread every 256th, consecutive threads on consecutive elements), then
// the block's partial sums meet through warp shuffles and shared memory,
// and one thread adds the total into the row's sum. Every kernel of the
// module is in one gpu.module, @kernels, compiled to one PTX text
// (lazy-gpu-merge-kernel-modules).
// HOST-LABEL: llvm.func @row_sum
//       HOST:   gpu.launch_func <%{{.*}}> @kernels::@row_sum_kernel blocks
//   HOST-NOT:   gpu.launch_func
//       HOST:   llvm.return
//
// CHECK: .visible .entry row_sum_kernel(
// CHECK:   .maxntid 256, 1, 1
// CHECK:   .shared
// CHECK:   st.global.b32
// CHECK:   bar.sync
// CHECK:   ld.global.b32
// CHECK:   add.rn.f32
// CHECK:   shfl.sync.bfly.b32
// CHECK:   st.shared.b32
// CHECK:   bar.sync
// CHECK:   ld.shared.b32
// CHECK:   add.rn.f32
// CHECK:   st.global.b32
// CHECK:   ret;
func.func @row_sum(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %0 = lazy.reduce_sum %x [1] : tensor<64x1000xf32>
  return %0 : tensor<64xf32>
}

// A softmax is one kernel, a block per row: the row's maximum (a block-wide
// max through shuffles; max.f32, which need not propagate NaN: the sum
// does), the exponentials and their sum, the sum's reciprocal and the
// products; a barrier between two steps. The temporary of the row statistics is a
// device buffer, allocated and freed in order on the stream of the kernel.
// HOST-LABEL: llvm.func @softmax
//       HOST:   %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
//       HOST:   %[[ROWS:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %{{.*}})
//       HOST:   gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernels::@softmax_kernel
//   HOST-NOT:   gpu.launch_func
//       HOST:   llvm.call @mgpuMemFree(%[[ROWS]], %[[STREAM]])
//   HOST-NOT:   mgpuStreamSynchronize
//       HOST:   llvm.return
//
// CHECK: .visible .entry softmax_kernel(
// CHECK:   max.f32
// CHECK:   shfl.sync.bfly.b32
// CHECK:   max.f32
// CHECK:   bar.sync
// CHECK:   {{ex2.approx|__nv_expf}}
// CHECK:   bar.sync
// CHECK:   add.rn.f32
// CHECK:   shfl.sync.bfly.b32
// CHECK:   bar.sync
// CHECK:   rcp.rn.f32
// CHECK:   bar.sync
// CHECK:   mul.rn.f32
// CHECK:   st.global.b32
// CHECK:   ret;
// CHECK-NOT: .entry
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}
