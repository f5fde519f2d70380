//===- Metrics.cpp - What lazyc did, counted ------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements metrics(): the counters, their reset and their
// printed form.
//
//===----------------------------------------------------------------------===//

#include "Counters.h"
#include "Engine.h"

#include "lazyc/API/Metrics.h"

#include <ostream>

using namespace lazyc;

engine::Counters &engine::counters() {
  static Counters instance;
  return instance;
}

void engine::countOp() { ++counters().opsRecorded; }

Metrics lazyc::metrics() {
  engine::Counters &c = engine::counters();
  Metrics m;
  m.opsRecorded = c.opsRecorded;
  m.materializations = c.materializations;
  auto byCause = [&](Cause cause) {
    return c.byCause[static_cast<int>(cause)].load();
  };
  m.byItem = byCause(Cause::Item);
  m.byToVector = byCause(Cause::ToVector);
  m.byPrint = byCause(Cause::Print);
  m.byBool = byCause(Cause::Bool);
  m.bySync = byCause(Cause::Sync);
  m.bySizeLimit = byCause(Cause::SizeLimit);
  m.byEager = byCause(Cause::Eager);
  m.tracesCompiled = c.tracesCompiled;
  m.cacheHits = c.cacheHits;
  m.cacheMisses = c.cacheMisses;
  m.compileMs = c.compileMicros / 1000.0;
  m.kernelsRun = c.kernelsRun;
  m.constantsPromoted = c.constantsPromoted;
  m.updatedInPlace = c.updatedInPlace;
  m.sizesMadeDynamic = c.sizesMadeDynamic;
  return m;
}

void lazyc::resetMetrics() {
  engine::Counters &c = engine::counters();
  for (std::atomic<uint64_t> *counter :
       {&c.opsRecorded, &c.materializations, &c.tracesCompiled, &c.cacheHits,
        &c.cacheMisses, &c.kernelsRun, &c.constantsPromoted, &c.compileMicros,
        &c.updatedInPlace, &c.sizesMadeDynamic})
    *counter = 0;
  for (std::atomic<uint64_t> &counter : c.byCause)
    counter = 0;
}

std::ostream &lazyc::operator<<(std::ostream &os, const Metrics &m) {
  os << "lazyc metrics:\n"
     << "  ops recorded        " << m.opsRecorded << "\n"
     << "  materializations    " << m.materializations << " (item " << m.byItem
     << ", toVector " << m.byToVector << ", print " << m.byPrint << ", bool "
     << m.byBool << ", sync " << m.bySync << ", size limit " << m.bySizeLimit
     << ", eager " << m.byEager << ")\n"
     << "  traces compiled     " << m.tracesCompiled << "\n"
     << "  cache hits / misses " << m.cacheHits << " / " << m.cacheMisses
     << "\n"
     << "  compile time        " << m.compileMs << " ms\n"
     << "  kernels run         " << m.kernelsRun << "\n"
     << "  constants promoted  " << m.constantsPromoted << "\n"
     << "  updated in place    " << m.updatedInPlace << "\n"
     << "  sizes made dynamic  " << m.sizesMadeDynamic;
  return os;
}
