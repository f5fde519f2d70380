//===- Passes.td - lazyc code generation passes ------------*- tablegen -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the target-neutral code generation passes: fusion on
// linalg, the passes that shape a function's results and out-parameters for
// the JIT's calling convention, and the overlap of collectives. The CPU's own passes are
// in CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_CODEGEN_PASSES_TD
#define LAZYC_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def LazyFuseElementwisePass : Pass<"lazy-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops without recomputing work";
  let description = [{
    Upstream's elementwise fusion (`linalg-fuse-elementwise-ops`) with four
    differences. A producer with several uses is fused into each of them if
    its body is at most two cheap arithmetic ops (recomputing `x - mean`
    costs less than storing and reloading it). A producer with several uses
    whose result must be stored anyway (a function result, the input of a
    matmul or a reduction) is fused into its first elementwise consumer,
    which yields it as an extra result for the other users (computed once,
    not recomputed: an SGD step's new velocity and new weight become one
    op). A producer is fused into a
    consumer only when the consumer reads it through a permutation map: a producer read through a broadcast
    (for example a per-row `rsqrt(var + eps)` read by every element of the
    row) would be recomputed for every element, so it stays a separate op,
    which the thread tiling later fuses per row. And reshapes are not
    propagated through generics (lazyc's lowering creates none, and moving a
    user's reshape between a reduction and its consumer would hide it from
    tile-and-fuse).

    Before any pairwise fusion, each cluster of elementwise generics whose
    inner values are read only inside the cluster, through the identity
    map (a chain, or a tree with shared inner values such as
    `y = tanh(0.9 y + 0.1) - 0.01 y` repeated), becomes one generic built in
    one step, each member's body cloned once, producers first, with the
    inputs in the order pairwise fusion gives. Pairwise fusion reaches the
    same op but copies the growing body at every step, which is quadratic
    in the length of a chain (a 2000-node chain of scalar ops took 3 s in
    this pass; now 0.1 s for the whole compile).

    A fused body stays below about 1024 ops (a transcendental counting 16,
    for the polynomial it becomes): a longer chain is cut into several
    generics, each cut one more pass over memory, negligible next to that
    much arithmetic per element. Their loops (tiled into one thread loop)
    are then separate blocks for LLVM's instruction selection instead of
    one block of tens of thousands of vector instructions.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyStoreInReadLayoutPass : Pass<"lazy-store-in-read-layout"> {
  let summary = "Store a transposed intermediate the way its readers read it";
  let description = [{
    A fused elementwise `linalg.generic` that writes a result through a
    permutation (its loops run in one layout, the result is stored in
    another: a channels-last convolution's output going back to NCHW) stores
    that result in its loop order instead, when every reader is a
    `linalg.generic` input that then reads it through the same map as
    another of its inputs. The write becomes contiguous where it was a
    scatter, and each reader walks the value as it walks its other operand
    (a mean over a residual sum of convolution outputs reads both channels
    last). The result must be written into a `tensor.empty` the payload
    does not read.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def LazyFoldTransposeIntoMatmulPass
    : Pass<"lazy-fold-transpose-into-matmul"> {
  let summary = "Read a transposed matmul operand in place, not from a copy";
  let description = [{
    A `linalg.matmul` operand made by a 2-D transpose (a `linalg.generic`
    that only copies its input through the map `(d0, d1) -> (d1, d0)`)
    becomes an operand read through a transposed indexing map, and the copy
    goes away when nothing else reads it. Backward passes are full of these
    (`dW = X^T dY`, `dX = dY W^T`); lazy-cpu-gemm-to-blas then hands the
    original buffer to BLAS with its transpose flag. A `linalg.batch_matmul`
    operand that transposes each matrix's two dimensions is read as
    `(b, k, m)` or `(b, n, k)` the same way, also through a
    `tensor.collapse_shape` that merges only batch dimensions (attention's
    `q k^T` on `[batch, heads, tokens, d]`).

    With `copy-shared-right-transposes` (the CPU's choice), a 2-D
    `linalg.matmul`'s right operand is not read in place when its transpose
    feeds several products (a recurrent step's `h W^T`, once per step), or
    one product inside a loop that the transpose is computed outside of
    (the same step in a `scf.while`): the copy is made once, and the
    runtime then reads it in place in every product of few rows, where BLAS
    would repack the transposed operand for each product. So is one the CPU
    transposes through registers (32-bit values, both dimensions static
    multiples of 16: `TransposeSquares.h`) under a product of at least 16
    rows: the copy is cheap next to the product, which the runtime's
    few-row kernel then reads in place (an LSTM's input projection: 1.17x
    faster than OpenBLAS's product with the operand transposed).
  }];
  let options = [
    Option<"copySharedRightTransposes", "copy-shared-right-transposes",
           "bool", /*default=*/"false",
           "Keep the copy of a right operand's transpose that several "
           "products, or a product in a loop, read">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LazyCheckOutputShapesPass
    : Pass<"lazy-check-output-shapes", "::mlir::ModuleOp"> {
  let summary = "Refuse out-parameters whose shape differs from the result";
  let description = [{
    After `buffer-results-to-out-params`, a result of dynamic shape is copied
    into the caller's out-parameter. This pass guards each such copy: if a
    dimension differs, the copy is skipped and
    `lazyrt_report_output_shape_mismatch(index)` records the error, with
    `index` the out-parameter's position among the function's arguments;
    the JIT turns it into an error of the call naming the output (instead
    of writing past the caller's buffer).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LazyUniqueResultsPass
    : Pass<"lazy-unique-results", "::mlir::func::FuncOp"> {
  let summary = "Give every tensor a function returns its own value";
  let description = [{
    When a function returns the same tensor twice (two live values that CSE
    merged, or two empty tensors), the second occurrence becomes a
    `linalg.copy` into a fresh tensor; the same value returned twice as a
    memref becomes a `memref.alloc` + `memref.copy`. Every result then has
    its own buffer, which the out-parameter calling convention needs.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyUpdateInPlacePass : Pass<"lazy-update-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute results tied to an argument over that argument";
  let description = [{
    A function result with `lazy.tied_argument = i` shares argument i's
    buffer: the caller passes the same buffer for both (the engine donates a
    value nothing can read after the call, such as a variable's old value).
    An elementwise `linalg.generic` computing such a result (the update
    `w - lr * g`, alone or fused with others) is rewritten to write into the
    argument and to read the old value through its own output (once tiled,
    each thread reads the slice it writes, which one-shot bufferization
    accepts in place), and moved after every other reader of the argument
    when its users allow. (Only this pass makes an argument the destination
    of an op: the others stay read-only.)

    Runs on linalg on tensors after fusion, and again after tiling
    (tile-and-fuse can move a reader of the argument into a later loop:
    the op computing the result is moved after it again).
    `lazy-materialize-tied-results` completes the tie after bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LazyReadOnlyArgumentsPass
    : Pass<"lazy-read-only-arguments", "::mlir::func::FuncOp"> {
  let summary = "Keep bufferization from writing into arguments not donated";
  let description = [{
    Marks every tensor argument that no result is tied to (see
    `lazy-update-in-place`) `bufferization.writable = false`: the caller
    still reads it. One-shot bufferization then writes into a copy where an
    op would update the argument in place (a `lazy.scatter_add` loop adding
    into its input), and into the argument itself only when it is donated.
  }];
}

def LazyMaterializeTiedResultsPass
    : Pass<"lazy-materialize-tied-results", "::mlir::func::FuncOp"> {
  let summary = "Return tied results in their argument's buffer";
  let description = [{
    After one-shot bufferization, each result with `lazy.tied_argument = i`
    is returned as argument i's buffer. If bufferization computed it
    elsewhere (a later read of the old value forbade writing over it), it is
    copied into the argument just before the return, after every read. A
    returned buffer that is, or views, an argument overwritten this way (an
    old value returned unchanged, say `maximum(w, w)` folded to `w`) is
    first copied to a buffer of its own.
    Runs before `buffer-results-to-out-params`, which would otherwise make
    the result's allocation the caller's out-parameter, the very buffer the
    function still reads as the argument.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LazyCSEWithinNestsPass
    : Pass<"lazy-cse-within-nests", "::mlir::func::FuncOp"> {
  let summary = "Eliminate common subexpressions inside each loop nest";
  let description = [{
    Runs MLIR's CSE on the regions of each top-level op of the function
    (a loop nest, after tiling), one op at a time: the slices, vector reads
    and index computations that tiles repeat are merged, but two nests are
    never compared. `cse` over the whole function hashes an op with
    regions without its regions, so it compares every two nests with the
    same operands and attributes (all the row loops whose destination is
    one shared empty tensor) region against region: quadratic in the size
    of a long trace. Ops outside nests are left as they are (constants are
    uniqued by the canonicalizer).
  }];
}

def LazyUnshareEmptyTensorsPass
    : Pass<"lazy-unshare-empty-tensors", "::mlir::func::FuncOp"> {
  let summary = "Give every use of a tensor.empty (and every destination of "
                "a constant fill) one of its own";
  let description = [{
    CSE merges the `tensor.empty` ops of one shape into one, so in a trace
    of thousands of ops one empty can be the destination of every loop
    nest. One-shot bufferization then puts all those destinations in one
    alias set and checks each in-place decision against the whole set:
    its time grows with the square of the trace (2x the ops, 4x the time).
    Each use gets a clone of the empty, so each destination starts an
    alias set of its own. Every empty moves to just before the op that
    uses it (its ancestor in the empty's block): the buffer is allocated
    where it is first written, not where CSE left the first empty, at the
    start of the trace (a 20,000-op trace held up to 3,500 temporaries
    at once, most not yet written). What is lost: the
    shared empty let a destination reuse the buffer of an earlier one whose
    value was dead; now each has its own allocation, freed after its last
    read (a GPT-2-small training step: same time, peak memory +0.5%).

    A fill of constants (a `linalg.fill` or the loop nest tiling made of
    one, reading nothing but constants) that several destinations write
    into is cloned the same way, once per destination: CSE merges the zero
    pads of every convolution of one shape, and bufferization would then
    copy the shared fill for each pad and compute each padded interior into
    a temporary copied in after it. With a fill of its own, each interior is
    written in place (the benchmark's ResNet: 6 copies of 1.2 MB gone per
    call). Readers keep sharing the original.

    A splat constant that is a destination or a loop's initial value
    becomes, for that use, a `linalg.fill` of a `tensor.empty`: written
    into, the constant's read-only global would be copied into a new
    buffer, where a fill only writes (an ONNX LSTM's output zeros, 256 KB
    read and written per call).

    A slice of an empty (a tile's destination, sliced by tiling from the
    whole op's) becomes an empty of the slice's shape, which empty-tensor
    elimination can then replace with the place the tile is inserted into:
    a GEMM tile that its epilogue updates in place is computed in the
    result's buffer rather than in a temporary copied there.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LazyReshapedResultsInPlacePass
    : Pass<"lazy-reshaped-results-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute a result returned as a reshape of its allocation "
                "in its out-parameter";
  let description = [{
    After `buffer-results-to-out-params`, whose `hoist-static-allocs`
    computes a directly returned allocation in its out-parameter, a result
    returned as a reshape (`memref.expand_shape`, `memref.collapse_shape`)
    of an allocation is still computed there and copied out at the end.
    When the out-parameter is written by that copy only and is not tied to
    an argument (`lazy.tied_argument`: the caller may pass an input's
    buffer), and the allocation has a static shape and no use after the
    copy, the allocation becomes the out-parameter reshaped back, and the
    copy goes. An ONNX LSTM's output (a loop writes each step's row into
    `[T, B, H]`, returned as `[T, 1, B, H]`) was copied once per call:
    256 KB.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LazySkipSelfCopiesPass
    : Pass<"lazy-skip-self-copies", "::mlir::func::FuncOp"> {
  let summary = "Skip copying a parameter onto itself";
  let description = [{
    After `buffer-results-to-out-params`, a result that lives in an
    argument's buffer (see `lazy-update-in-place`) is copied from that
    argument to its out-parameter. The caller passes the same buffer for
    both, so each `memref.copy` between two function parameters is guarded
    by a comparison of their pointers and runs only when they differ.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LazyFlattenBroadcastSourcesPass
    : Pass<"lazy-flatten-broadcast-sources", "::mlir::func::FuncOp"> {
  let summary = "Broadcast flattened sources, which MLIR 22 folds correctly";
  let description = [{
    A `vector.broadcast` that only prepends dimensions to a source of rank
    2 or more (the source's shape is the result's trailing shape) becomes a
    broadcast of the source flattened to one dimension, shaped back:

      vector.broadcast %x : vector<2x1xf32> to vector<2x1x1x2x1xf32>
      =>
      %flat = vector.shape_cast %x : vector<2x1xf32> to vector<2xf32>
      %b = vector.broadcast %flat : vector<2xf32> to vector<2x1x1x2xf32>
      vector.shape_cast %b : vector<2x1x1x2xf32> to vector<2x1x1x2x1xf32>

    Same values, element for element. It runs before a canonicalization
    that would otherwise fold `shape_cast(broadcast(%x))` into a broadcast
    of `%x` that stretches its unit dimensions instead of prepending
    (llvm/llvm-project#190614, fixed after MLIR 22): with `%x` one
    dimension, the fold keeps the values. `convert-vector-to-scf` makes
    such broadcasts of transfer reads with broadcast dimensions (lazyc-fuzz
    seed 412059: a min over a product with a broadcast operand).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def LazyNanFreeMinMaxPass : Pass<"lazy-nan-free-min-max"> {
  let summary = "Lower a float min/max marked `nnan` before LLVM sees the "
                "flag";
  let description = [{
    `arith.maxnumf` / `arith.minnumf` with `fastmath<nnan>` (a softmax's
    max: a NaN in the row makes the sum NaN whatever the max is) may give
    any result for a NaN operand. LLVM's maxnum must order NaN, which on
    x86 costs a compare and a masked move besides the vmaxps, and with
    `nnan` it may fold an operand that is the NaN identity of a partial
    reduction to poison. So the flag never reaches LLVM:

    - with `selects` (the CPU), the op becomes `select(lhs > rhs, lhs,
      rhs)` (`<` for the min): one vmaxps, which returns the right-hand
      operand when either is NaN, so an accumulator on the left that starts
      at NaN takes the first value;
    - without (the GPU, where max.f32 already ignores NaN in one
      instruction), the flag is dropped.

    Softmax's 4096 x 1024 rows on one thread: 1.50 -> 1.32 ms (its max
    loop was 3 instructions per vector, now 1).
  }];
  let options = [
    Option<"selects", "selects", "bool", /*default=*/"true",
           "A compare and a select (else: the op without the flag)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def LazyOverlapCollectivesPass
    : Pass<"lazy-overlap-collectives", "::mlir::func::FuncOp"> {
  let summary = "Wait for each collective only where its buffers are used";
  let description = [{
    A bufferized `lazy.collective` is a `lazyrt_collective_start` call
    followed at once by its `lazyrt_collective_wait` (each with the buffers'
    addresses, taken by `memref.extract_aligned_pointer_as_index`). This
    pass moves each wait, with its address ops, down its block past every
    op that does not touch the collective's input or output buffer (or a
    view of either, in any nested region): the data moves (on the CPU, by
    the communication thread; on a GPU, on a communication stream) while
    those ops compute. The wait stops before the
    first op that does touch one, or before the terminator. Run before
    buffer deallocation, so that the input is freed after the wait, not
    while the exchange reads it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LazyBlockReductionsPass
    : Pass<"lazy-block-reductions", "::mlir::func::FuncOp"> {
  let summary = "Keep float sums accurate at any length";
  let description = [{
    A float sum (or product) computed by adding each term to one
    accumulator in turn has an error that grows with the number of terms
    that accumulator adds: about n eps relative for n terms, 2% for 2^24
    squares in f32. This pass bounds that number. After it, no accumulator
    of a `linalg.generic` sum adds more than `max-sequential` terms in
    sequence (counting the innermost loop's terms divided among the
    target's `lanes`, which it combines as a tree), so every sum is a tree
    of short sequential sums and its error stays within the bound of
    pairwise summation, about log2(n) eps sum |x|.

    A reduction loop over too many terms is cut into blocks: a new
    parallel loop over blocks of consecutive terms writes one partial sum
    per block, a second generic folds the partials into the original
    accumulator, and the terms past the last whole block are summed into
    that accumulator first (a `tensor.extract_slice`; the inputs are
    expanded with `tensor.expand_shape`, views once bufferized). Both new
    reductions are cut again until every accumulator is short. A long row
    (the innermost loop) is cut into blocks of whole vectors, at most
    `lanes * max-sequential` long; another reduction loop (a column sum) in
    blocks of at most `max-sequential` rows:

      %s = linalg.generic {iterator_types = ["reduction"]}
             ins(%x : tensor<16777216xf32>) outs(%zero : tensor<f32>)
      =>
      %b = tensor.expand_shape %x [[0, 1]] : ... into tensor<4096x4096xf32>
      %p = linalg.generic {iterator_types = ["parallel", "reduction"]}
             ins(%b) outs(%zeros : tensor<4096xf32>)
      %s = linalg.generic {iterator_types = ["reduction"]}
             ins(%p) outs(%zero : tensor<f32>)

    The partial sums' parallel loop is also what spreads a reduction of
    everything over threads and GPU blocks.

    A sum over a dimension of unknown size accumulates in f64 instead (its
    error then stays within f32's bound up to 2^35 terms) and is rounded
    once; f16 and bf16 sums accumulate in f32. (An f64 sum of unknown
    length stays sequential: its error is n 2^-53 relative.) Maximum and
    minimum are exact in any order and are left alone.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"64",
           "Accumulators the target keeps along an innermost reduction loop "
           "whose range is a multiple of this or at most 4 times it (the "
           "CPU's vector width; a GPU row kernel's threads)">,
    Option<"lanesInRowsOnly", "lanes-in-rows-only", "bool",
           /*default=*/"false",
           "Lanes only where the op has a parallel loop (a GPU runs a "
           "reduction of everything on one thread)">,
    Option<"maxSequential", "max-sequential", "int64_t", /*default=*/"64",
           "The most terms one accumulator adds in sequence">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // LAZYC_CODEGEN_PASSES_TD
