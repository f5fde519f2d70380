//===- Blocks.h - Repeated blocks of a trace --------------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the search for repeated blocks: runs of a trace where
// the same stretch of ops comes back several times in a row, as the layers
// of a deep model do (each layer's forward, its backward, its parameters'
// updates). Cut there, every copy is a trace of the same structure: the
// function cache compiles the first and serves the others, so a model's
// compile time stops growing with its depth (PyTorch's regional
// compilation and JAX's scan over layers, found without annotations).
// Also the cut at the bounds a program marks (lazyc::CompileBlock).
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_TRACE_BLOCKS_H
#define LAZYC_TRACE_BLOCKS_H

#include "lazyc/Trace/Trace.h"

#include <cstdint>
#include <vector>

namespace lazyc::trace {

/// `count` copies of a stretch of `length` trace positions, back to back
/// from position `start`.
struct RepeatedBlock {
  int32_t start = 0;
  int32_t length = 0;
  int32_t count = 0;
};

/// Where a trace is cut: the segments, in trace order, and which of them
/// are copies of a repeated block.
struct BlockCut {
  /// The first position of each segment; segment i ends where i + 1
  /// starts (the last at the trace's end). Empty: the trace stays whole.
  std::vector<int32_t> segmentStarts;
  /// The repeated blocks the segments come from, in trace order.
  std::vector<RepeatedBlock> blocks;
  /// Whether some cuts fall at CompileBlock bounds (cutAtBlockBounds).
  bool atBlockBounds = false;
};

/// Bounds of the search (the defaults are what materialization uses).
struct BlockSearchOptions {
  /// Traces with fewer nodes compile fast enough whole, with fusion across
  /// every boundary.
  int32_t minTraceNodes = 500;
  /// Shorter stretches are not blocks: a short repeated pattern (an
  /// elementwise recurrence, one optimizer update) fuses better whole...
  int32_t minBlockLength = 32;
  /// ... unless its copies are nearly independent (no copy reads a value
  /// of more than maxCarriedElements elements that an earlier copy
  /// computes: a model's weight gradients after its backward pass, with
  /// the running sum of their squares for clipping), at least this long
  /// and this many, and each computes at least minCopyElements elements
  /// (so that a call per copy costs little beside its work): cut apart,
  /// they lose no fusion.
  int32_t minIndependentBlockLength = 8;
  int32_t minIndependentCopies = 8;
  int64_t maxCarriedElements = 64;
  int64_t minCopyElements = int64_t(1) << 16;
  /// A block is worth its cuts when it saves a twentieth of the trace, or
  /// this many nodes (the compile time of a few hundred nodes).
  int64_t enoughSaving = 128;
};

/// Whether an op of `kind` only re-indexes its input (a reshape, transpose,
/// broadcast or slice): fused, it moves no data, so a cut never stores
/// one; the segment reading it recomputes it from its input.
constexpr bool isViewOp(OpKind kind) {
  return kind == OpKind::Reshape || kind == OpKind::Transpose ||
         kind == OpKind::Broadcast || kind == OpKind::Slice;
}

/// Finds the repeated blocks of `trace`, largest saving first: stretches
/// whose nodes have the same ops, attributes, types and operand kinds,
/// copy after copy. Each block's copies are cut where the fewest computed
/// values cross the cut. The copies usually become traces of one structure
/// (the function cache decides: a cut is correct wherever it falls, since
/// segments run in trace order). No blocks, or a trace with control flow:
/// an empty cut.
BlockCut findRepeatedBlocks(const Trace &trace,
                            const BlockSearchOptions &options = {});

/// The cut of `trace` at the CompileBlock bounds marked while its nodes
/// were recorded (blockOf, on this thread): a segment starts at each
/// computed node of a later block than every computed node before it (the
/// trace's order follows the recording's but for independent values, which
/// join the later segment). Empty if the trace lies within one block.
BlockCut cutAtBlockBounds(const Trace &trace);

/// Both cuts at once: every segment start of either, the blocks of both.
BlockCut mergeCuts(const BlockCut &a, const BlockCut &b);

/// The nodes a trace cut as `cut` compiles: those of its segments, counting
/// segments of one structure (the same ops, wired alike) once.
size_t nodesOfDistinctSegments(const Trace &trace, const BlockCut &cut);

/// A value a segment of a cut trace computes for others.
struct CutValue {
  /// Its position in the trace, and the segment computing it.
  int32_t position = 0;
  int32_t segment = 0;
  /// The last segment that reads it (its own if none after it does).
  int32_t lastReader = 0;
  /// A node reading it, at operand `slot` (that input owns it), or -1 if
  /// it is only an output of the trace.
  int32_t reader = -1;
  int32_t slot = 0;
};

/// What each segment of `cut` computes for the others, in trace order: the
/// values a later segment reads (through views, which the reader
/// recomputes: their input instead) and the trace's outputs.
std::vector<CutValue> valuesAcrossCuts(const Trace &trace, const BlockCut &cut);

} // namespace lazyc::trace

#endif // LAZYC_TRACE_BLOCKS_H
