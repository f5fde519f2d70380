//===- Agreement.h - Checks for collectives moved elsewhere ---*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what the collectives of device buffers (cuda/
// Collectives.cpp, over NCCL) take from the world of Collectives.cpp: the
// same argument checks, the same header exchange before each collective (so
// a mismatch or a missing rank fails with the same message, before NCCL is
// handed buffers of different sizes), one sequence of collectives and one
// broken state.
//
// Private to the runtime: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_DISTRIBUTED_AGREEMENT_H
#define LAZYC_RUNTIME_DISTRIBUTED_AGREEMENT_H

#include <cstdint>
#include <string>

namespace lazyc::runtime::distributed {

/// Checks a collective whose data another engine moves, as
/// lazyrt_collective_start checks its arguments; then, across processes,
/// exchanges and compares every rank's header, in order behind the
/// collectives already started. Joins the world first. Blocks until every
/// rank agreed or the world's timeout passed. Returns "" when the
/// collective may go ahead, else why not (a failed exchange breaks the
/// world, as any failed collective does).
std::string agreeOnCollective(int32_t kind, int32_t reduction, int32_t dtype,
                              int64_t root, const void *in, void *out,
                              int64_t count);

/// Records a failed collective for lazyrt_take_collective_error (the first
/// on this thread) and lazyrt_get_last_error.
void recordFailedCollective(const std::string &message);

/// Breaks the world after a failure found outside it (a collective on a
/// device that timed out): every later collective fails with `message`.
void breakWorld(const std::string &message);

} // namespace lazyc::runtime::distributed

#endif // LAZYC_RUNTIME_DISTRIBUTED_AGREEMENT_H
