//===- Recording.cpp - Modes and the pending work -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements what happens when an op is recorded: eager mode
// runs it at once; lazily it joins this thread's pending list, and a list
// grown past the size limit (LAZYC_MAX_TRACE_NODES) is materialized.
//
//===----------------------------------------------------------------------===//

#include "Counters.h"
#include "Engine.h"
#include "Profiler.h"

#include "lazyc/Trace/Trace.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace lazyc;
using namespace lazyc::trace;

static bool eagerByDefault() {
  const char *mode = std::getenv("LAZYC_MODE");
  return mode && std::strcmp(mode, "eager") == 0;
}

static thread_local bool eagerMode = eagerByDefault();

bool lazyc::isEager() { return eagerMode; }

EagerScope::EagerScope() : previous(eagerMode) { eagerMode = true; }
EagerScope::~EagerScope() { eagerMode = previous; }

bool engine::setEager(bool eager) {
  bool previous = eagerMode;
  eagerMode = eager;
  return previous;
}

std::vector<Node *> engine::liveNodes() {
  prunePending();
  return heldPendingNodes();
}

/// Pending nodes past which a trace is cut (LAZYC_MAX_TRACE_NODES): nodes
/// to compile, copies of repeated blocks after the first not counted.
static size_t maxPendingNodes() {
  static size_t limit = [] {
    const char *value = std::getenv("LAZYC_MAX_TRACE_NODES");
    size_t parsed = value ? std::strtoull(value, nullptr, 10) : 0;
    return parsed ? parsed : size_t(2000);
  }();
  return limit;
}

/// The pending trace-node count at which the size limit is next checked
/// (see recorded): a check that cut nothing waits for the count to grow.
static thread_local size_t nextSizeCheck = 0;

void engine::restartSizeChecks() { nextSizeCheck = 0; }

std::vector<engine::TracedRegion *> &engine::tracedRegions() {
  static thread_local std::vector<TracedRegion *> regions;
  return regions;
}

void engine::recorded(const NodePtr &node, SourceLocation where) {
  countOp();
  if (profile::enabled())
    profile::instant("record", "record",
                     profile::arg("op", opName(node->kind)));
  if (std::vector<TracedRegion *> &regions = tracedRegions();
      !regions.empty()) {
    regions.back()->recorder.recorded(node.get());
    return;
  }
  if (eagerMode) {
    materialize({node.get()}, Cause::Eager, where);
    return;
  }
  // A node stands for itself and its per-use literal operands, which are
  // not on the list (one literal node may serve many ops).
  size_t traceNodes = 1;
  for (const NodePtr &input : node->inputs)
    traceNodes += isPerUseLiteral(*input);
  addPending(node, traceNodes);
  // Pruning is linear in the list: prune when the list has doubled since
  // the last prune (and has 256 entries), a constant cost per registration.
  static thread_local size_t nextPrune = 0;
  if (pendingEntries() >= nextPrune) {
    prunePending();
    nextPrune = std::max<size_t>(256, 2 * pendingEntries());
  }
  // Checking the size limit prunes too: at least limit / 8 trace nodes
  // apart (a trace may thus exceed the limit by an eighth).
  size_t limit = maxPendingNodes();
  if (pendingTraceNodes() <= std::max(limit, nextSizeCheck))
    return;
  // Every pending node that still exists is reachable from a handle (or
  // from `node`): together they are what the next trace would compile.
  prunePending();
  // New Variables' initial values (a momentum's zeros made before the
  // first step, read after the first cut) are not the step's work: counted,
  // they would cut the first step earlier than every later one. Without
  // them, the check is the one later steps make here.
  if (pendingTraceNodes() > limit && computeInitialValues(where)) {
    prunePending();
    if (pendingTraceNodes() <= limit)
      return;
  }
  if (pendingTraceNodes() > limit) {
    std::vector<Node *> requested = heldPendingNodes();
    requested.push_back(node.get());
    // A trace of repeated blocks (a deep model's step) compiles one copy of
    // each: it may grow while what it compiles stays within the limit (up
    // to kRepeatsGrowth times the limit), and is then cut at its blocks,
    // not at a limit that falls anywhere in a layer. The pending graph is
    // measured again when it has grown by a quarter.
    constexpr size_t kRepeatsGrowth = 16;
    size_t pending = pendingTraceNodes();
    if (pending <= kRepeatsGrowth * limit &&
        nodesToCompile(requested) <= limit) {
      nextSizeCheck = pending + pending / 4;
      return;
    }
    materialize(requested, Cause::SizeLimit, where);
    prunePending();
  }
  nextSizeCheck = pendingTraceNodes() + limit / 8;
}
