//===- Compile.h - When and where traces are compiled -----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the switches of compiling itself. Compiled code is also
// kept on disk across processes (LAZYC_CACHE_DIR; docs/API.md, "The
// persistent compile cache").
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_COMPILE_H
#define LAZYC_API_COMPILE_H

#include "lazyc/API/Tensor.h"

#include <cstdint>
#include <vector>

namespace lazyc {

/// Declares that dimensions `dims` of `x` (an input the program feeds in,
/// such as a batch) take other sizes in later calls: the first trace that
/// reads x leaves them to the call (dynamic dimensions), so the later sizes
/// compile nothing new (PyTorch's mark_dynamic; a lazyc::function signature's
/// -1 does the same for its arguments). As there, every dimension of the
/// trace that has the same size is left to the call too (for a size of 1,
/// all but the 1s broadcasts stretch). A dimension x lacks is an Error.
void markDynamic(const Tensor &x, const std::vector<int64_t> &dims,
                 SourceLocation where = SourceLocation::current());

/// Asynchronous compiles (also on with LAZYC_ASYNC_COMPILE=1): on a
/// function cache miss the trace runs at once, op by op as in eager mode,
/// while its fused function compiles on a background thread; later runs of
/// the trace take the fused function once it is ready. Results are those of
/// eager mode until then. Worth it when a program is short next to its
/// compiles; a trace whose compile fails is compiled again on the calling
/// thread, which reports the error at the user's line.
void setAsyncCompile(bool enable);
bool isCompilingAsync();

/// Waits until every background compile started so far has finished.
void waitForCompiles();

/// The threads lazyc's CPU code runs on, and new compiles split their loop
/// nests for: the machine's cores unless set. It sets OpenMP's thread count
/// for the calling thread (the one whose computations then run), as
/// omp_set_num_threads does; functions compiled before keep their split
/// (their chunks run on the new count of threads). An Error if `threads` is
/// less than 1.
void setNumThreads(int threads,
                   SourceLocation where = SourceLocation::current());
int numThreads();

/// Repeated blocks (on by default; LAZYC_REPEATED_BLOCKS=0 turns them off):
/// a trace of 500 nodes or more in which a stretch of ops comes back
/// several times in a row, as a deep model's layers do, is cut into one
/// trace per copy, in order, so that one compile serves every copy (and
/// other models with the same layer, through the disk cache). Values
/// crossing a cut are stored, and fusion stops there. Off, every trace
/// compiles whole, however deep.
void setRepeatedBlocks(bool enable);
bool isCuttingRepeatedBlocks();

/// A block compiled on its own, on request (PyTorch's
/// nested_compile_region; the repeated-block search finds most without
/// one). The ops this thread records while a CompileBlock lives are cut
/// from the rest when they materialize: its bounds split their trace, as
/// the search's cuts do, and a GradientTape recording them splits its
/// backward pass at the same bounds. Every instance of the same code on
/// values of the same shapes is then a trace of one structure, compiled
/// once (and kept on disk). Nothing runs at the bounds themselves: values
/// crossing them are stored when the trace runs, and fusion stops there.
/// Nested blocks cut at every bound; a block in a lazyc::function cuts its
/// calls. In a control-flow body (cond, whileLoop), while a function is
/// staged for export, and in eager mode, it does nothing.
///
///   for (auto &layer : layers) {
///     lazyc::CompileBlock block;
///     x = layer(x);
///   }
class CompileBlock {
public:
  CompileBlock();
  ~CompileBlock();
  CompileBlock(const CompileBlock &) = delete;
  CompileBlock &operator=(const CompileBlock &) = delete;

private:
  bool active;
};

/// Calls `body` in a CompileBlock and returns what it returns.
template <typename F> auto compileBlock(F &&body) {
  CompileBlock block;
  return body();
}

} // namespace lazyc

#endif // LAZYC_API_COMPILE_H
