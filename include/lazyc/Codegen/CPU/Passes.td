//===- Passes.td - lazyc CPU code generation passes --------*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes that turn fused linalg into fast x86 CPU
// code: threads and vectors, GEMMs through BLAS, polynomial math, narrow
// floats, and the fixes the OpenMP, vector and LLVM lowerings need.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_CPU_PASSES_TD
#define LAZYC_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LazyCpuTileAndVectorizePass
    : Pass<"lazy-cpu-tile-and-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Spread linalg ops over threads and vectorize their tiles";
  let description = [{
    Works on linalg on tensors after fusion. Every root op (a linalg op whose
    results no other linalg op reads) is tiled into an `scf.forall` over its
    outermost parallel dimension, one chunk per thread, and its producers are
    fused into the loop (a softmax's reductions and exponentials are then
    computed row block by row block, without leaving the cache). Inside the
    loop every linalg op is tiled again with `scf.for`: size 1 on its outer
    parallel dimensions and `vector-width` elements on an innermost parallel
    dimension (a reduced innermost dimension is kept whole), and each tile is
    vectorized; tiles of dynamic size use masked vectors.

    An elementwise op that reads a 32-bit input transposed (contiguous along
    another loop than the output's innermost one, both static multiples of
    16) is tiled in 16 x 16 squares instead: each square is read as 16 rows
    and transposed in registers by AVX-512's unpacks and lane shuffles, where
    a row tile would gather its vector one element at a time.

    An elementwise epilogue whose only use of a product (a GEMM's or a
    convolution's tile) reads it at the element it writes computes that
    result over the product: the product becomes the result's init and the
    body reads the element from there. Bufferized, the product is computed
    in the epilogue's destination and updated in place (a bias added to a
    GEMM), not in a temporary of its own.
  }];
  let options = [
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"0",
           "Threads to tile for (0: the machine's hardware threads)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"64",
           "Elements of the innermost dimension per vectorized tile">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LazyCpuSplitLoopRowsPass
    : Pass<"lazy-cpu-split-loop-rows", "::mlir::func::FuncOp"> {
  let summary = "Run a loop whose rows never meet as one loop per thread, "
                "each over its rows";
  let description = [{
    Works on linalg on tensors after fusion, before
    lazy-cpu-tile-and-vectorize. A recurrence such as an LSTM's steps is an
    `scf.for` whose body is a few small ops; tiled op by op, every step
    opens a parallel region per op and waits at its barrier. When the rows
    of the carried values never meet (row i of every value the body computes
    depends only on row i of the carried values, and on values the same in
    every row), the loop becomes an `scf.forall` with one chunk of rows per
    thread, each running the whole loop on its rows: no barrier in the
    steps. An LSTM's batch is such a dimension: the step's product
    `h x R` reads a row of `h` and all of `R`.

    The pass picks for each carried tensor a dimension of the same size
    (the rows) and checks the body op by op: a linalg op splits along one
    parallel loop that indexes each operand at one dimension exactly or not
    at all (and that no `linalg.index` reads); a slice or an insert keeps
    every row; other ops (an index computed from the counter) must not read
    split values. Values the same in every row that a split op reads at its
    rows are sliced (or, for an empty tensor, a fill or a splat, made at the
    chunk's size). Each thread computes the whole-row values of the body
    again, so those may hold a few elements only.

    Only a loop outside other loops is split, into the largest number of
    equal chunks up to `num-threads`, and only if its work (trip count times
    the split ops' iterations) is worth a parallel region. Ops inside an
    `scf.forall` are not spread over threads again by tile-and-vectorize.
  }];
  let options = [
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"0",
           "Threads to split for (0: the machine's hardware threads)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyOutlineLoopNestsPass
    : Pass<"lazy-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Give each top-level loop nest of a bufferized function a "
                "function of its own";
  let description = [{
    Moves every `scf.parallel` in the body of a function (after
    bufferization: a kernel's thread loop, with its fused producers) into a
    private function of its own, `@<function>_loop<N>`, called in its place
    with the buffers and sizes it reads; constants are cloned into it. The
    new functions are `noinline`. Where the body holds at least two loop
    nests, its serial ones (an `scf.for` without results: a small kernel's
    loop over rows) move too, numbered with the thread loops in the order
    they come.

    A large trace (a training step: a hundred kernels) is otherwise one
    function of tens of thousands of ops in one block, and several later
    stages (greedy rewrites that order ops in a block, OpenMP's region
    outlining in LLVM, LLVM's per-function analyses) take time that grows
    faster than the function; many small functions keep each of them
    linear, and let the pass manager lower them in parallel. And LLVM
    optimizes and compiles whole functions on the JIT's threads
    (SplitModule.h): a small trace of ten serial kernels would otherwise be
    one function on one thread.

    Functions it makes that are identical (one type, the same ops on the same
    arguments, as printed) become one, called from every place: a model's
    layers of one shape, whose weights are arguments (a DenseNet block's
    3x3 convolutions), are lowered and compiled once.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

def LazyCpuGemmToBlasPass : Pass<"lazy-cpu-gemm-to-blas", "::mlir::ModuleOp"> {
  let summary = "Run f32/f64 (and bf16/f16 into f32) matmuls on buffers through the runtime's BLAS";
  let description = [{
    Rewrites `linalg.matmul` and `linalg.batch_matmul` on f32 or f64 memrefs
    (after bufferization) into calls of `lazyrt_matmul_f32` /
    `lazyrt_matmul_f64` (C = A * B, or C += A * B, through OpenBLAS on the
    calling thread), one per matrix of a batch. Products of bf16 or f16 A
    and B into an f32 C (lazy-cpu-widen-narrow-products makes every narrow
    product so) call `lazyrt_matmul_bf16_f32` / `lazyrt_matmul_f16_f32`. A product reading A or B
    through a transposed map (from lazy-fold-transpose-into-matmul; batched
    products per matrix) passes BLAS the transpose flag; a zero fill of C just before the product
    is dropped and BLAS overwrites C instead of adding to it. The threads come from the surrounding
    `scf.forall`, which lazy-cpu-tile-and-vectorize created by splitting the
    GEMM (and its fused epilogue) by rows. Other element types stay loops.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LazyCpuConvolutionsToRuntimePass
    : Pass<"lazy-cpu-convolutions-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Run bf16 convolutions into f32 on the runtime's "
                "dot-product kernels";
  let description = [{
    Rewrites `linalg.conv_2d_nchw_fchw` and `linalg.conv_2d_nhwc_hwcf` of
    bf16 images and filters into an f32 output (after bufferization; only
    `lazy-cpu-widen-narrow-products` with `bf16-dot-convolutions` leaves
    them so) into calls of `lazyrt_conv2d_nchw_bf16_f32` /
    `lazyrt_conv2d_nhwc_bf16_f32` with the strides and dilations: output +=
    the convolution, on the calling thread, with AVX512-BF16's `vdpbf16ps`
    in register tiles like lazy-cpu-direct-convolution's (pairs of taps
    along a filter row for NCHW, of input channels for NHWC; see
    runtime/cpu/BFloat16Convolution.cpp). The threads come from the
    surrounding `scf.forall` that lazy-cpu-tile-and-vectorize made.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LazyCpuInterchangeReductionsPass
    : Pass<"lazy-cpu-interchange-reductions", "::mlir::func::FuncOp"> {
  let summary = "Run a reduction's loops in the order its inputs are stored";
  let description = [{
    A `linalg.generic` reduction that reads every input with a dimension per
    loop through one and the same permutation (a mean over the spatial
    dimensions of NCHW values that are stored channels last) has its loops
    interchanged so that those inputs are read through the identity. Tiling
    vectorizes a reduction along its innermost loop, which then walks memory
    contiguously: the example's `[N, H, W, C]` mean over `H, W` becomes a
    column sum with vectors of channels instead of a strided scalar loop.
    Inputs of lower rank (broadcasts) do not constrain the order.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def LazyCpuFuseSiblingLoopsPass
    : Pass<"lazy-cpu-fuse-sibling-loops", "::mlir::func::FuncOp"> {
  let summary = "Fuse a loop with the sibling loop before it that computes "
                "what it reads, slice by slice";
  let description = [{
    Tiling vectorizes each op of a fused row on its own: a softmax row is a
    loop of exponentials writing a row temporary, then a loop summing it.
    The second loop reads each step's slice of the first loop's result, the
    slice the first wrote in the same step, so the two loops run as one
    (the sum then adds each vector of exponentials while it is still in a
    register; one pass over the row fewer).

    `scf.for` loops on tensors of one block fuse when both are free of
    memory effects, they have the same bounds and step, no op between them
    uses the first's results, and the second uses them only through
    `tensor.extract_slice`s equal to the `tensor.insert_slice` the first
    yields for that result: its offsets are the induction variable in one
    dimension (where the size is the step) and loop invariants elsewhere,
    so no later step overwrites the slice. The fused loop carries both
    loops' values; the second's slice reads become the values the first
    inserted. Loops fuse pairwise until none is left to fuse.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyCpuConvolutionLayoutPass
    : Pass<"lazy-cpu-convolution-layout", "::mlir::func::FuncOp"> {
  let summary = "Move convolutions that fill vectors of channels to "
                "channels last";
  let description = [{
    Rewrites a `linalg.conv_2d_nchw_fchw` on f32 or f64 tensors into
    `linalg.conv_2d_nhwc_hwcf` between copying transposes (images to NHWC,
    filters to [KH, KW, C, F], the result back to NCHW; a zero-filled
    accumulator becomes a fill of the new shape) when it has at least a
    vector of output channels, or a width stride other than 1, and both
    channel counts are static (a transpose along a dynamic innermost
    dimension is vectorized at full width with masks, slower than the
    convolution itself). lazy-cpu-direct-convolution vectorizes a channels-last
    convolution along its output channels and an NCHW one along its output
    rows' pixels: few channels (a first layer's 6, a gradient's 6 input
    channels) stay NCHW, where the transposes would also leave the
    elementwise ops around the convolution with vectors of a few lanes.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Bits per vector register (AVX-512: 512)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyCpuWidenNarrowProductsPass
    : Pass<"lazy-cpu-widen-narrow-products", "::mlir::func::FuncOp"> {
  let summary = "Let f16 and bf16 matrix products and convolutions accumulate in f32";
  let description = [{
    A `linalg.matmul` or `linalg.batch_matmul` of f16 or bf16 tensors into
    one of the same type would add each product into a narrow accumulator,
    rounding at every step: a bf16 product of 512 terms was 2.6e-2 off
    (norm-wise). It becomes a product into an f32 accumulator (a fill of
    the initial value, or the initial tensor widened), rounded once to the
    narrow type by an elementwise `arith.truncf` that fusion joins with the
    ops after it: as cuBLASLt and PyTorch compute these products. A 2-D
    convolution (NCHW/FCHW or NHWC/HWCF) of f16 or bf16 tensors gets f32
    operands as well (each widened by an elementwise `arith.extf` that
    fuses with its producer), so it runs on the f32 convolution kernels,
    except with `bf16-dot-convolutions` (the JIT sets it where bf16
    products run on AVX512-BF16's dot products): a bf16 convolution keeps
    its bf16 operands, accumulates into f32, and runs on the runtime's
    dot-product kernels (see lazy-cpu-direct-convolution).
  }];
  let options = [
    Option<"bf16DotConvolutions", "bf16-dot-convolutions", "bool",
           /*default=*/"false",
           "bf16 convolutions keep their operands (only the accumulator "
           "becomes f32)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyCpuDirectConvolutionPass
    : Pass<"lazy-cpu-direct-convolution", "::mlir::func::FuncOp"> {
  let summary = "Run f32/f64 convolutions on buffers as register-blocked "
                "direct convolution";
  let description = [{
    Rewrites f32 or f64 convolutions on memrefs (after bufferization) into
    loops around register tiles of up to 16 accumulator vectors. The tiles
    start from what the output holds (its zero fill stays a loop of its
    own), add every tap (input channel, kernel row, kernel column: three
    loops carrying the accumulators) with fused multiply-adds, and are
    stored back.
    - `linalg.conv_2d_nhwc_hwcf`: vectors of output channels, one or two,
      for rows x columns of output pixels; per tap the filter's vectors are
      loaded once and each pixel's input value is broadcast.
    - `linalg.conv_2d_nchw_fchw` with a width stride of 1: vectors of an
      output row's pixels, one or two, for filters x rows; per tap the input
      rows' vectors are loaded once and each filter's weight is broadcast.
    A partial vector is masked. Dynamic extents are covered by blocks of
    the tile's size, then masked vectors in a loop (channels last:
    channels; NCHW: pixels) or power-of-two tiles under `scf.if` (pixels,
    filters). The threads come from the surrounding `scf.forall`, which
    lazy-cpu-tile-and-vectorize created by splitting the convolution by
    images; lazy-cpu-convolution-layout chose the layout. Other
    convolutions stay loops.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Bits per vector register (AVX-512: 512)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def LazyMathApproximationPass : Pass<"lazy-math-approximation"> {
  let summary = "Replace f32 math functions by vectorizable polynomials";
  let description = [{
    Rewrites `math.exp`, `math.log`, `math.tanh`, `math.erf`, `math.expm1`,
    `math.log1p` and `math.log2` on f32 (scalars and vectors) into MLIR's polynomial approximations, so they
    vectorize instead of becoming one libm call per element (about 15x
    slower). Logarithms of subnormal inputs are rescaled first (the
    polynomials assume normal numbers). Their error against a float64
    reference is measured in docs/benchmarks.md. `math.sin` and `math.cos`
    stay libm calls: the polynomial's f32 range reduction loses about
    5.5e-8 * |x|. So do `math.asin`, `math.acos` and `math.atan`: upstream's
    f32 atan polynomial is off by up to 41 ulps (asin's by 7.5), libm's
    functions by less than 1.

    On a module, a math op that appears at least `outline-from` times with
    the same type and attributes is first moved into one shared function,
    called where each one was: a polynomial is 20-40 ops, and a long chain
    of tanh steps would otherwise give LLVM tens of thousands of
    instructions in one loop body. The function is kept out of line
    (`noinline`); a call costs a few cycles against the polynomial's tens.

    With `scale-in-hardware` (the JIT sets it on CPUs with AVX-512F; only
    for those), f32 `math.exp` is lazyc's own: n = round(x log2 e),
    r = x - n ln 2 in two parts, a degree-6 polynomial for e^r, and the
    scaling by 2^n with AVX-512's `vscalefps` (`llvm.call_intrinsic`, 16
    lanes at a time), which rounds subnormal results and overflows to
    infinity: no integer conversion and no NaN select, within 1 ulp, and
    subnormal results are no longer flushed to zero. Scalars and vectors of
    other lengths are computed in whole registers.
  }];
  let options = [
    Option<"outlineFrom", "outline-from", "unsigned", /*default=*/"8",
           "Share one function among this many equal math ops of a module "
           "(0: never)">,
    Option<"scaleInHardware", "scale-in-hardware", "bool", /*default=*/"false",
           "f32 exp scales by 2^n with AVX-512's vscalefps (only for CPUs "
           "with AVX-512F)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LazyLowerMultiReductionsPass
    : Pass<"lazy-lower-multi-reductions", "::mlir::func::FuncOp"> {
  let summary = "Lower vector.multi_reduction, horizontally or lane by lane "
                "as its reduced dimensions call for";
  let description = [{
    A `vector.multi_reduction` over the innermost dimensions (a row's sum or
    maximum) becomes one `vector.reduction` per row, a horizontal reduction;
    any other (a column's sum: reduced dimensions outside the vector lanes)
    becomes lane-wise arithmetic over the reduced slices. Upstream's
    `lower-vector-multi-reduction` applies one strategy to all of them, and
    either choice unrolls the other kind into one scalar op per element: a
    64-lane row sum became 64 dependent `arith.addf`s, which made code
    large, slow to compile and slow to run.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def LazyDropUnitVectorDimsPass
    : Pass<"lazy-drop-unit-vector-dims", "::mlir::func::FuncOp"> {
  let summary = "Drop the unit dimensions of vectors before lowering to LLVM";
  let description = [{
    A tile of a rank-4 tensor is vectorized as `vector<1x1x1x64xf32>`; the
    LLVM dialect has no n-D vectors and spells it as nested arrays of one
    vector, built and taken apart with `insertvalue`/`extractvalue` around
    every op. Dropping the unit dimensions first (`vector<64xf32>`, with
    `vector.shape_cast` where a shape must stay, which then cancel out)
    lowers each op to one vector instruction. Only the IR's size changes:
    LLVM removed the array shuffling anyway, after spending time on it.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LazyTreeReductionsPass : Pass<"lazy-tree-reductions"> {
  let summary = "Let horizontal vector sums combine lanes as a tree";
  let description = [{
    Marks float `vector.reduction <add>` / `<mul>` with `fastmath<reassoc>`,
    so LLVM combines the lanes in log2(n) shuffle steps instead of n
    dependent scalar additions. Only the summation order changes (lazyc's
    partial-sum tiling already sums in vector-width stripes); NaN, infinity
    and signed-zero semantics are untouched: no other fast-math flag is set.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def LazyExpandBFloat16Pass : Pass<"lazy-expand-bf16"> {
  let summary = "Convert to and from bf16 with integer code";
  let description = [{
    Rewrites `arith.extf` / `arith.truncf` between f32 and bf16 into integer
    bit manipulation (round to nearest even, NaN kept). LLVM would otherwise
    use x86's `vcvtneps2bf16`, which flushes subnormal inputs to zero.
    (Upstream's arith-expand does this too, but also rewrites maximumf and
    minimumf in a way that loses the sign of zero.) Conversions of integers
    of up to 24 bits to bf16 (`arith.uitofp`, `arith.sitofp`: a Bool mask
    cast to bf16) go through an exact conversion to f32 and a `truncf`,
    which is expanded too; LLVM would call `__truncsfbf2` per element.
    Integers of up to 8 bits (9 signed), masks among them, are bf16 values:
    their f32's high half is taken as is, without the rounding code.

    A vector built element by element (a strided or transposing read, as
    `convert-vector-to-scf` lowers it into a loop) moves i16 bits: bf16
    elements go into and out of vectors as i16, and bf16 vectors passed
    between blocks travel as i16 vectors, bitcast back right before each
    use. LLVM's x86 backend (without bf16 instructions) takes a bf16 vector
    that lives across blocks apart and moves a bf16 element through f32,
    a `__truncsfbf2` call per element (3.6% of the CNN's bf16 step).
  }];
}

def LazyBFloat16BitsInLLVMPass : Pass<"lazy-bf16-bits-in-llvm"> {
  let summary = "Load, store and select bf16 values as i16 bits";
  let description = [{
    Works on the LLVM dialect, after the conversion. Loads and stores of
    bf16 scalars and vectors (plain and masked) move i16 values, selects
    of bf16 values choose between i16 ones, and `llvm.insertelement`,
    `llvm.extractelement` and `llvm.shufflevector` of bf16 vectors (a
    broadcast scalar) move i16 elements, with `llvm.bitcast`s where the
    other side is bf16 (folded away where a bitcast meets its inverse).
    After `lazy-expand-bf16` every bf16 value is integer code on its way to
    memory, so no bf16 vector is left in registers.

    Why: LLVM's x86 backend without bf16 instructions (the JIT leaves them
    off) has no legal bf16 vector type and takes a bf16 vector select apart
    element by element, and InstCombine turns the rounding's i16 NaN select
    followed by a bitcast into exactly such a select. A 64-lane rounding
    then became about 300 scalar instructions: basic blocks of 6,000
    instructions, most of the bf16 transformer step's LLVM time. And a
    bf16 scalar inserted into a vector went through the stack, stored as
    16 bits and read back as 32: a store-forwarding stall per broadcast,
    which made the LeNet's bf16 max-pool gradients 9x slower than in f32.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LazyExactNarrowFloatsPass : Pass<"lazy-exact-narrow-floats"> {
  let summary = "Keep the rounding of every emulated f16/bf16 op";
  let description = [{
    Clears the fast-math flags of `arith.extf` and `arith.truncf`.
    `arith-emulate-unsupported-floats` computes f16 and bf16 ops in f32 and
    marks the conversions around each op `contract`, which lets the
    `extf(truncf(x))` folder drop the rounding between two ops: `(a / b) / c`
    in f16 would then round once instead of twice. lazyc's ops round their
    result to the result type, so the pipeline runs this pass right after
    the emulation.

    A rounding that cannot change its value goes: the result of a
    negation, an absolute value, a min or max, or a select of values that
    are f16 (or bf16) values already (widened ones, or such results again)
    is used without the `truncf`/`extf` pair. Rounding is most of a fused
    bf16 loop's instructions (seven per vector on x86); a NaN keeps its sign
    and payload where the rounding would have made it the quiet NaN.
  }];
}

def LazyScalarVectorTransfersPass : Pass<"lazy-scalar-vector-transfers"> {
  let summary = "Scalar vector transfers on buffers as loads and stores";
  let description = [{
    Rewrites transfers that touch a single element on memrefs into
    `memref.load`/`store`: reads whose every vector dimension broadcasts
    (a permutation map of zeros) become a load and a `vector.broadcast`,
    and 0-d or one-element transfers go through upstream's scalar transfer
    lowering. Vectorized code reads a broadcast scalar this way; when that
    scalar lives in a strided view (a slice with a step) no later pass
    lowered the transfer, and the LLVM translation failed on the casts left
    behind. For the same reason a `vector.gather` (a vectorized
    `lazy.gather`) from a strided view becomes one conditional load per
    lane, after n-D gathers are unrolled to 1-D ones.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def LazySerialSingleChunkParallelPass
    : Pass<"lazy-serial-single-chunk-parallel"> {
  let summary = "Run a parallel loop of one iteration without a thread team";
  let description = [{
    Gives each `omp.parallel` that convert-scf-to-openmp made of a loop the
    clause `if(iterations > 1)`, so a loop of one chunk runs on the calling
    thread instead of waking the team (a fork and join cost microseconds,
    and much more on a busy machine). lazy-cpu-tile-and-vectorize makes one
    chunk of a dynamically shaped op whose work turns out small at run time.
    Loops whose bounds are constants and have several iterations are left
    alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::omp::OpenMPDialect"];
}

def LazyStaticThreadChunksPass
    : Pass<"lazy-static-thread-chunks", "::mlir::ModuleOp"> {
  let summary = "Thread loops as plain loops over each thread's iterations";
  let description = [{
    Rewrites the `omp.wsloop` of an `omp.parallel` that convert-scf-to-openmp
    made of a one-dimensional scf.parallel without reductions into a loop
    of blocks (`cf` branches) over the calling thread's block of iterations: ceil(n / team
    size) of them, in order, from `omp_get_thread_num()` and
    `omp_get_num_threads()`, as the static schedule deals them. The region's
    end still joins the team.

    Why: lowered as a worksharing loop, each region calls
    `__kmpc_for_static_init` and `__kmpc_for_static_fini` and waits at a
    barrier of its own before the region's closing one. With Debian's
    libomp (built with KMP_DEBUG) the init also formats a debug string on
    every call. A parallel region with one chunk per thread went from about
    1.53 to 1.2 us (a scratch program, 200,000 regions); an ONNX LSTM's
    call runs about 100 of them.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::omp::OpenMPDialect"];
}

def LazyHoistLoopAllocasPass
    : Pass<"lazy-hoist-loop-allocas", "::mlir::func::FuncOp"> {
  let summary = "Allocate a loop body's fixed-size stack buffers once";
  let description = [{
    `convert-vector-to-scf` (MLIR 22) lowers an n-D vector transfer through
    a stack buffer (`memref.alloca` of the vector type) that it creates in
    the innermost loop around the transfer. Nothing frees a stack buffer
    before its function returns, so a loop of many iterations grows the
    stack by one buffer per iteration until it overflows: a blocked column
    sum read as `vector<64x4xf32>` tiles, 8192 rows a thread, needed 8 MiB.
    This pass moves every `memref.alloca` of static shape out of the
    `scf.for` loops around it, to the start of the outermost such loop's
    block, which is still inside the `scf.parallel` body, if any: each
    thread keeps a buffer of its own. A `memref.alloca_scope` or another
    allocation scope stops the move, as does a buffer whose alignment or
    shape depends on the loop (none do).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LazyBoundStackBuffersPass
    : Pass<"lazy-bound-stack-buffers", "::mlir::func::FuncOp"> {
  let summary = "Keep a function's stack buffers within a budget";
  let description = [{
    `promote-buffers-to-stack` turns every small temporary (64 KiB or less)
    into a `memref.alloca`; that is meant for per-row temporaries inside
    loops. At a function's top level each one lives until the function
    returns: a trace of thousands of small values (a random 5,000-op
    program over 64x64 values) needed more than the 8 MiB a thread's
    stack has, and crashed. This pass runs after the promotion and before
    the deallocation pipeline: walking the function's top-level block in
    order, it turns its static `memref.alloca`s back into `memref.alloc`s
    (which the deallocation pipeline then frees) once their total passes
    `max-bytes`. Buffers inside loops and parallel bodies are left alone.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"1048576",
           "Bytes of top-level stack buffers a function may keep">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LazyDeallocAfterLastUsePass
    : Pass<"lazy-dealloc-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Free each temporary right after its last use";
  let description = [{
    Ownership-based deallocation frees a trace's temporaries in one
    `bufferization.dealloc` at the end of the function's block: every
    temporary lives until the function returns (the peak memory of a long
    trace is the sum of its temporaries), and the simplification after it
    compares each pair of the dealloc's buffers (4,257 buffers, 5.6 s, in
    a 27,147-node trace). This pass runs between the two. For a dealloc
    with nothing retained, each of its buffers that is a `memref.alloc` of
    its own (no other operand of the dealloc is that allocation), owned
    unconditionally (its condition is `true`) and read or written only by
    linalg, memref, vector, scf and affine ops (directly or through views
    and loop results, which alias it) is freed by a `memref.dealloc` right
    after the last op of the block that uses it. The others stay in the
    dealloc: a buffer whose address is taken as an integer
    (`memref.extract_aligned_pointer_as_index`: a collective reads it until
    its wait, which names only the address) is freed at the end. The CPU
    runs the ops above in order and to completion, so the buffer is not
    read after it is freed.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // LAZYC_CODEGEN_CPU_PASSES_TD
