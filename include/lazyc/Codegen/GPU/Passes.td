//===- Passes.td - lazyc GPU code generation passes --------*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes that turn bufferized loops into kernels of
// an NVIDIA GPU and the trace's function into host code that launches them
// on device buffers.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_GPU_PASSES_TD
#define LAZYC_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LazyGpuGemmToCublasPass
    : Pass<"lazy-gpu-gemm-to-cublas", "::mlir::ModuleOp"> {
  let summary = "Run matmuls on buffers through cuBLASLt";
  let description = [{
    Each `linalg.matmul` and `linalg.batch_matmul` on f32, f64, f16 or bf16
    buffers (one element type throughout) whose operands are read plainly
    or transposed becomes a call of the runtime's
    `lazyrt_cuda_matmul_<type>` (one cuBLASLt matmul on the device's
    stream), on rank-3 views (a matmul is a batch of one). A zero fill of
    the output just before becomes the call's overwrite flag. An input
    with no unit stride (a broadcast) is first copied into a fresh
    buffer; a product whose output has none stays a loop nest.

    A bias epilogue: a matmul that overwrites its output, followed by a
    `linalg.generic` that adds a vector to each row of that output and does
    nothing else, becomes one call of `lazyrt_cuda_matmul_bias_<type>`,
    which writes the generic's output (cuBLASLt's bias epilogue). A relu
    after the bias stays in the kernel of the generic: cuBLASLt's relu
    epilogue makes 0 of NaN, lazyc's relu keeps NaN.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LazyGpuRowKernelsPass
    : Pass<"lazy-gpu-row-kernels", "::mlir::func::FuncOp"> {
  let summary = "Run reductions along rows, with their neighbours, as one "
                "block per row";
  let description = [{
    A linalg op on buffers whose reduction loops are its innermost (a row
    sum, maximum, mean; a reduction of everything is one row) becomes a
    kernel with one block per row, when its inputs are read along their
    innermost dimension there (or it reduces everything: a reduction over
    columns is a thread per column in lazy-gpu-map-to-kernels, coalesced
    across threads). Its threads stride over the row's
    elements (consecutive threads on consecutive elements: coalesced), each
    folding its elements into a partial result in registers; a
    `gpu.all_reduce` combines the partial results across the block (warp
    shuffles, then shared memory), and the block's first thread folds the
    total into the output. A reduction qualifies when each output's payload
    folds the element in with one associative op on a 32- or 64-bit
    integer or float (add, mul, max, min, and, or, xor); a sum starts from
    -0.0.

    The linalg ops before and after it that share its rows join the same
    kernel, in order, with a barrier between two of them: elementwise ops
    whose leading loops are the rows (a softmax's exponentials and its
    division, a layer norm's centering and scaling), fills of the row
    statistics, and reductions over the same rows. So a softmax or a layer
    norm is one kernel. An op joins only if every buffer the kernel writes
    is read and written through one view, each block in its own row only
    (blocks run in any order); allocations, pure ops and frees may sit
    between the ops (frees move after the kernel). Anything else ends the
    kernel. Ops left out stay for lazy-gpu-map-to-kernels.

    Blocks get about four elements of the longest row per thread, in whole
    warps, at most `max-threads-per-block` (256 when a row's length is
    known only at run time). A grid whose row count may be 0 is launched
    with one block, which does nothing.
  }];
  let options = [
    Option<"maxThreadsPerBlock", "max-threads-per-block", "int64_t",
           /*default=*/"1024", "Most threads of a block of a row kernel">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LazyGpuMapToKernelsPass
    : Pass<"lazy-gpu-map-to-kernels", "::mlir::func::FuncOp"> {
  let summary = "Turn the loops of a bufferized function into GPU kernels";
  let description = [{
    The function stays on the host; every loop nest in it that reads or
    writes buffers becomes a `gpu.launch`:

    - A top-level `scf.parallel` (a fused elementwise nest, or the parallel
      dimensions of a reduction with its reduction loops inside) becomes
      one thread per iteration: its dimensions are linearized, the
      innermost fastest, so that consecutive threads touch consecutive
      elements (coalesced), and split into blocks of `threads-per-block`
      threads; threads past the end do nothing. Where every load and store
      that varies along the innermost dimension reads or writes consecutive
      elements there (the dimension is their innermost index), every other
      op that varies along it is elementwise arithmetic, rows start at
      aligned addresses (static strides and offset) and the dimension's
      trip count is a static multiple of the width, each thread takes as
      many consecutive elements as fill 128 bits of the widest element type
      (4 f32s): aligned vector loads and stores (`ld.global.v4.f32`), with
      operands that do not vary broadcast.
    - A branch that only copies one whole buffer (a tied result copied
      where its buffers differ) is a kernel of the copy's width whose
      threads copy their element where the host's condition holds (a host
      copy under the branch would make the host wait for the stream).
    - Any other op that touches buffer contents (a reduction to a scalar is
      a plain `scf.for` nest, a fill of a 0-d buffer a lone `memref.store`)
      runs in a kernel of one thread, consecutive such ops in one kernel.

    Host control flow (`scf.for`, `scf.if`, `scf.while` that contain loop
    nests, calls or allocations) stays on the host and is searched for
    loops; calls (the runtime's output-shape checks) and allocations stay on
    the host, and so do loads from an argument marked `lazy.host_buffer`
    (the trace's runtime sizes, host memory): the sizes reach kernels as
    parameters. The shape buffer of a `memref.reshape` (a small buffer of
    sizes that only stores, loads and reshapes use) becomes host memory too
    (a `memref.alloca` marked `lazy.host_buffer`): the host stores the
    sizes and makes the reshaped view, with no kernel and no copy back. A
    value a one-thread kernel computes that the host needs (a
    while loop's condition, a buffer's size) is stored to a device cell by
    the kernel and copied into a host buffer (a `memref.alloca` marked
    `lazy.host_buffer`) after it, where the host reads it.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"256", "Threads of each block of an elementwise kernel">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def LazyGpuAccumulateInRegistersPass
    : Pass<"lazy-gpu-accumulate-in-registers", "::mlir::func::FuncOp"> {
  let summary = "Carry the accumulators of kernel loops in registers";
  let description = [{
    A reduction whose loop runs inside a thread (a thread per column of a
    column sum) reads and writes its accumulator in the output buffer each
    iteration. LLVM cannot keep it in a register, since the buffers a kernel
    reads might alias it, so every iteration waits for a store and a load
    of global memory. Where the buffer is one the host function allocated
    (nothing but its own views can alias it) and the loop touches it only
    through that one load and store of a loop-invariant element, with no
    barrier in the loop (past which another thread could read it), this pass
    carries the element as an `scf.for` iteration value instead: loaded
    once before the loop, stored once after it. Inner loops first, so an
    outer loop around them may carry the element in turn.
  }];
}

def LazyGpuDeviceBuffersPass
    : Pass<"lazy-gpu-device-buffers", "::mlir::func::FuncOp"> {
  let summary = "Allocate the host function's buffers on the device";
  let description = [{
    After `lazy-gpu-map-to-kernels`, the host function only allocates,
    frees and copies buffers and launches kernels. Its `memref.alloc`,
    `memref.dealloc` and `memref.copy` become `gpu.alloc`, `gpu.dealloc` and
    `gpu.memcpy`, which the runtime serves from its caching device allocator
    on the device's stream; a host buffer (`memref.alloca` marked
    `lazy.host_buffer` by lazy-gpu-map-to-kernels) stays, and copies into it
    read the device. A buffer allocated inside a kernel is an error (each
    thread would allocate its own), as is any other stack buffer of the host
    function. An argument marked `lazy.host_buffer` (the trace's promoted
    literals and runtime sizes) is host memory: a kernel's load of it at an
    index known before the kernel moves in front of it (the host reads the
    value, the kernel gets it as a parameter); any other use in a kernel is
    an error.

    A constant's `memref.get_global` is host memory: a kernel that reads it
    gets a `get_global` of its own (outlining copies the global into the
    kernel module, device memory), a copy out of it stays a host-to-device
    copy, and other host readers (library calls) share a device copy made
    on entry and freed on return.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LazyGpuIeeeSqrtPass
    : Pass<"lazy-gpu-ieee-sqrt", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Compute f32 square roots in kernels correctly rounded";
  let description = [{
    Lowered to NVVM, `math.sqrt` on f32 becomes a call of libdevice's
    `__nv_sqrtf`, which asks `__nvvm_reflect("__CUDA_PREC_SQRT")` whether to
    round correctly. LLVM 22's NVVMReflect does not know that name and
    answers 0, so the kernel would get `sqrt.approx.f32` (1 ulp off, unlike
    CUDA's default and the CPU's correctly rounded square root). Run after
    the conversion to NVVM, this pass turns each such call into
    `llvm.intr.sqrt`, which the NVPTX back end selects as `sqrt.rn.f32`.
    f64 square roots are correctly rounded through libdevice already.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LazyGpuReturnWithoutWaitingPass
    : Pass<"lazy-gpu-return-without-waiting", "::mlir::func::FuncOp"> {
  let summary = "Return from the host function with its device work queued";
  let description = [{
    After `gpu-async-region`, the host function ends by waiting for its
    device work (a blocking `gpu.wait` before the return), so every call of
    a trace would stall the host until its kernels finish. Every kernel and
    copy of lazyc goes to the device's one stream, in order: work queued by
    a later call, and the copies that read results to the host (which wait),
    already come after it. This pass removes that last wait, so the host
    records and queues the next trace while the device runs this one. Waits
    before the host reads device memory (a size, a condition) stay. An error
    of a kernel then surfaces at the next wait.
  }];
}

def LazyGpuWaitOnlyForDeviceDataPass
    : Pass<"lazy-gpu-wait-only-for-device-data", "::mlir::func::FuncOp"> {
  let summary = "Make the host wait for the device only to read its data";
  let description = [{
    `gpu-async-region` makes the host wait for the device before every op
    with side effects. Many need no wait, and this pass removes the wait
    right before them, so the host goes on queuing while the device runs:

    - calls of runtime functions declared `lazy.queues_on_stream`
      (cuBLASLt GEMMs, NCCL collectives), which only queue their work on
      the device's stream, behind the kernels already there;
    - loads and stores of host memory that the device never writes: an
      argument marked `lazy.host_buffer` (the trace's sizes and promoted
      literals), or a `memref.alloca` marked so that no copy targets (a
      shape buffer). A cell a copy brings a kernel's result into keeps its
      wait.
  }];
}

def LazyGpuCollectivesPass
    : Pass<"lazy-gpu-collectives", "::mlir::ModuleOp"> {
  let summary = "Collectives of device buffers: the runtime's NCCL calls";
  let description = [{
    A bufferized `lazy.collective` is a `lazyrt_collective_start` call and
    its `lazyrt_collective_wait` (lazy-overlap-collectives has moved the
    wait down to the first use of the buffers). On a GPU the buffers are
    device memory: this pass calls `lazyrt_cuda_collective_start` and
    `lazyrt_cuda_collective_wait` instead (same operands; declared
    `lazy.queues_on_stream`), which queue the collective on a communication
    stream and make the device's stream wait for it. An input in host
    memory (an argument marked `lazy.host_buffer`: a promoted literal) is
    copied to a new buffer first, freed after the wait. Run before
    lazy-gpu-device-buffers, which puts that buffer and copy on the device.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LazyGpuParallelLoopsOutermostPass
    : Pass<"lazy-gpu-parallel-loops-outermost", "::mlir::func::FuncOp"> {
  let summary = "Order the loops of linalg ops parallel first, reductions inside";
  let description = [{
    `lazy-gpu-map-to-kernels` spreads the outermost parallel loop nest of
    each op over threads and runs the loops inside it in each thread. A sum
    over rows that keeps its dimensions (a bias gradient, `[1, n]` from
    `[b, n]`) iterates (parallel of extent 1, reduction, parallel), so its
    loops became one thread that walked all `b * n` elements. This pass
    interchanges each `linalg.generic`'s iterators so that its parallel
    dimensions come first, in their order, and its reductions after them:
    there, a thread per column sums its column, the threads of a warp
    reading neighbouring elements of each row. Runs after
    `lazy-gpu-row-kernels`, which takes the reductions along rows first.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LazyGpuMergeKernelModulesPass
    : Pass<"lazy-gpu-merge-kernel-modules", "::mlir::ModuleOp"> {
  let summary = "Put every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` gives each kernel a `gpu.module` of its own, and
    each module is compiled to PTX on its own: LLVM's NVPTX pipeline, and
    libdevice linked in, once per kernel (most of a trace's compile time).
    This pass moves every kernel into one module, `@kernels`, renamed after
    its own module (whose name outlining made unique), keeps one copy of the
    helper functions outlining copied into several, and points each
    `gpu.launch_func` at the kernel's new place. One module is also one
    module load when the function is loaded.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // LAZYC_CODEGEN_GPU_PASSES_TD
