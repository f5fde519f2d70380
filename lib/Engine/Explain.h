//===- Explain.h - Why a trace missed the function cache --------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// With LAZYC_EXPLAIN=1 (or lazyc::setExplain(true)) every cache miss prints
// why: the first structural difference from the closest cached trace, or the
// constants that changed. The same classification, as a MissReason, is
// what metrics() counts misses by, explained or not, so cache entries keep
// a summary of their trace.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_EXPLAIN_H
#define LAZYC_LIB_ENGINE_EXPLAIN_H

#include "lazyc/Trace/Trace.h"

#include <string>
#include <vector>

namespace lazyc::explain {

/// One node of a trace, as far as the cache key sees it.
struct NodeSummary {
  trace::OpKind kind;
  bool isArgument;
  Device device;
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> ints, ints2, ints3;
  double scalar, scalar2;
  int64_t integer;
  bool flag;
  trace::Predicate predicate;
  std::vector<int32_t> operands;
  bool isOutput;
  /// An argument whose buffer an output is computed in (it is dead).
  bool isDonated;
  trace::SourceLoc loc;
};

/// A trace's structure (not its literal values).
using TraceSummary = std::vector<NodeSummary>;

/// Why a trace missed the function cache, in one word or three.
enum class MissReason {
  NothingCached,     ///< No cached trace to compare with.
  NewStructure,      ///< Another op, other wiring, or a longer or shorter
                     ///< trace than the closest cached one.
  DeviceChanged,     ///< A node lives on another device.
  DtypeChanged,      ///< A node has another dtype.
  ShapeChanged,      ///< A node has another shape (rank, in eager mode).
  InPlaceChanged,    ///< An argument is overwritten in one trace only.
  AttributesChanged, ///< Axes, shape, bounds, predicate, seed or range.
  OutputsChanged,    ///< A value is written out in one trace only.
  OtherMode,         ///< An equal trace is cached for the other mode
                     ///< (eager or lazy).
  ConstantsChanged,  ///< Only literal values differ (they get promoted).
  SizesChanged,      ///< Only sizes (and literals) differ (made dynamic).
};

/// "shape changed", "literal changed", ...: a static string.
const char *missReasonName(MissReason reason);

/// Whether misses are explained (LAZYC_EXPLAIN=1 or setExplain).
bool enabled();

TraceSummary summarize(const trace::Trace &trace);

/// Why `trace` (summarized as `summary`) is not in the cache, given the
/// summaries of the cached traces. `dynamicShapes`: only ranks count.
std::string structuralMiss(const TraceSummary &summary,
                           const std::vector<const TraceSummary *> &cached,
                           bool dynamicShapes);

/// structuralMiss's classification alone, without building its text
/// (unless `text` is given).
MissReason
classifyStructuralMiss(const TraceSummary &summary,
                       const std::vector<const TraceSummary *> &cached,
                       bool dynamicShapes, std::string *text = nullptr);

/// Why `trace` needs a function with more literals promoted: the literals
/// marked in `differs` changed from `baked`.
std::string constantMiss(const trace::Trace &trace,
                         const std::vector<double> &baked,
                         const std::vector<bool> &differs);

/// Why `trace` needs a function with more sizes left to the call (or more
/// literals promoted): the sizes marked in `newSizes` (numbered as
/// trace::traceSizes()) differ from `sizes`, those of the first trace of
/// its structure; the literals marked in `newLiterals` differ from `baked`.
std::string sizeMiss(const trace::Trace &trace,
                     const std::vector<int64_t> &sizes,
                     const std::vector<bool> &newSizes,
                     const std::vector<double> &baked,
                     const std::vector<bool> &newLiterals);

/// Prints one explanation line to stderr.
void report(const trace::Trace &trace, const std::string &cause,
            const std::string &reason);

} // namespace lazyc::explain

#endif // LAZYC_LIB_ENGINE_EXPLAIN_H
