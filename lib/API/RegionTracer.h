//===- RegionTracer.h - Tracing a callable as a region ----------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to LazycAPI: runs a callable with the ops it records kept apart
// (a cond branch, a loop region, a function being exported), and undoes the
// Variable assignments it makes, which the caller then places.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_LIB_API_REGIONTRACER_H
#define LAZYC_LIB_API_REGIONTRACER_H

#include "Engine/Engine.h"
#include "VariableState.h"

#include "llvm/ADT/ScopeExit.h"

namespace lazyc::detail {

/// Traces `function` as a region of the control-flow op `op`: records its
/// ops apart, and undoes its Variable assignments (returned with their new
/// values) so that the op decides when they happen.
class RegionTracer {
public:
  RegionTracer(const char *op, SourceLocation where) {
    region.op = op;
    region.where = where;
  }

  template <typename F> auto trace(F &&function) {
    auto &regions = engine::tracedRegions();
    regions.push_back(&region);
    auto pop = llvm::scope_exit([&] {
      regions.pop_back();
      restoreVariables();
    });
    return function();
  }

  /// Marks `node` (a Parameter) as recorded in this region.
  void own(const trace::Node *node) { region.recorder.recorded(node); }
  const trace::RegionRecorder &recorder() const { return region.recorder; }
  /// The Variables the region assigned: state, value before, value after.
  struct Assignment {
    detail::VariableState *state;
    Tensor before, after;
  };
  const std::vector<Assignment> &assignments() const { return assigned; }

private:
  void restoreVariables() {
    for (auto &[state, before] : region.assigned) {
      assigned.push_back({state, before, state->value});
      state->value = before;
    }
  }

  engine::TracedRegion region;
  std::vector<Assignment> assigned;
};

} // namespace lazyc::detail

#endif // LAZYC_LIB_API_REGIONTRACER_H
