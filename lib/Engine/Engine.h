//===- Engine.h - Recording, materialization, device buffers ----*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lazyc: what the ops and Tensor (lib/API) call below them.
// Recording (Recording.cpp) registers nodes; materialization (Materialize.cpp)
// turns requested values into computed buffers through the function cache and
// the targets; buffers on devices other than the host are reached through
// their target.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_ENGINE_ENGINE_H
#define LAZYC_LIB_ENGINE_ENGINE_H

#include "lazyc/API/Device.h"
#include "lazyc/API/NodeAccess.h"
#include "lazyc/API/SourceLocation.h"
#include "lazyc/API/Tensor.h"
#include "lazyc/Trace/Node.h"
#include "lazyc/Trace/Region.h"

#include <memory>
#include <string>
#include <vector>

namespace lazyc::detail {
struct VariableState;
} // namespace lazyc::detail

namespace lazyc::engine {

/// A cond branch or loop region being traced: the ops recorded meanwhile
/// are its own (not pending; they run only as part of it), and the
/// Variables it assigns, with their values from before it.
struct TracedRegion {
  trace::RegionRecorder recorder;
  std::vector<std::pair<detail::VariableState *, Tensor>> assigned;
  /// The control-flow op ("cond", "whileLoop") and where the user wrote it.
  const char *op;
  SourceLocation where;
};

/// Says that the sizes `sizes` of `node` (a lazyc::function argument whose
/// signature leaves them unknown) vary between calls: a new structure whose
/// trace holds the node compiles with the dimensions of those sizes left to
/// the call, instead of first for these sizes and again for the next ones.
void hintDynamicSizes(const trace::NodePtr &node, std::vector<int64_t> sizes);

/// Sets this thread's mode (what EagerScope does, either way); returns the
/// previous one. Exporting traces a function lazily whatever the mode.
bool setEager(bool eager);

/// This thread's regions being traced, innermost last.
std::vector<TracedRegion *> &tracedRegions();

/// Records the Result node of the control-flow node `node` for user result
/// `index` (region kUserResult) or for the intermediate at `index` of
/// `region`, typed like `like`.
Tensor recordResult(const trace::NodePtr &node, int64_t region, int64_t index,
                    const trace::Node &like, SourceLocation where);

/// Says that `node` is a new Variable's initial value: if it is still to be
/// computed, the next materialization computes it first, in a trace of its
/// own, so that the first trace reading the Variable reads it as an
/// argument, as every later one does.
void initialValue(const trace::NodePtr &node);

/// Computes the pending initial values (initialValue) now, in a trace of
/// their own. Variable::read calls it: the first step's ops are then
/// recorded after them, as every later step's are (the trace size limit
/// cuts each step at the same ops). Returns whether there were any.
bool computeInitialValues(SourceLocation where);

/// Computes `requested` (and every other value a handle holds in their
/// trace) with one compiled trace per device, then releases the graph
/// above them. New Variables' initial values (initialValue) are computed
/// first, in a trace of their own.
void materialize(const std::vector<trace::Node *> &requested, Cause cause,
                 SourceLocation where);

/// How many nodes the trace computing `requested` would compile: its size,
/// less the copies of its repeated blocks after the first (which the
/// function cache serves); SIZE_MAX if `requested` spans devices.
size_t nodesToCompile(const std::vector<trace::Node *> &requested);

/// Registers a newly recorded node: counts it, runs it at once in eager
/// mode, or cuts the graph when the pending work grows past the size limit.
void recorded(const trace::NodePtr &node, SourceLocation where);

/// Makes the next recorded op check the trace size limit. After a
/// materialization the pending count starts over: the checks restart with
/// it, so a step is cut at the same ops whatever ran before it.
void restartSizeChecks();

/// Every unmaterialized node a handle of this thread still holds.
std::vector<trace::Node *> liveNodes();

/// Counts an op for metrics().
void countOp();

/// Throws a lazyc::Error at `where` about `op` if traces cannot run on
/// `device` in this process (saying why: a backend not built, no device).
void checkAvailable(Device device, const char *op, SourceLocation where);

/// A Buffer node of `dtype` and `shape` on `device`, made at `where`, with
/// no value yet; a lazyc::Error about `op` if the device is unavailable.
trace::NodePtr newBufferNode(DType dtype, std::vector<int64_t> shape,
                             Device device, const char *op,
                             SourceLocation where);

/// A computed value of `dtype` and `shape` on `device`, uninitialized: an
/// output for a call to write; a lazyc::Error about `op` at `where` if the
/// device is unavailable or out of memory.
trace::NodePtr newOutput(DType dtype, std::vector<int64_t> shape, Device device,
                         const char *op, SourceLocation where);

/// A computed value on `device` holding a copy of `host` (row-major,
/// `shape`'s element count of `dtype`), counted as an op; a lazyc::Error
/// about `op` at `where` if the device is unavailable or out of memory.
trace::NodePtr newValue(DType dtype, std::vector<int64_t> shape,
                        const void *host, const char *op, SourceLocation where,
                        Device device = defaultDevice());

/// "tour.cpp:35": a user's line, without the file's directory.
std::string fileAndLine(const char *file, unsigned line);

} // namespace lazyc::engine

#endif // LAZYC_LIB_ENGINE_ENGINE_H
