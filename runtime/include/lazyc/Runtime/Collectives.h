//===- Collectives.h - The runtime's collectives across processes -*- C -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the C ABI of the runtime's collectives: the calls
// generated code makes for a `lazy.collective` op, and the world they run
// in. Like the rest of the runtime it knows nothing about MLIR or LLVM.
//
// The world comes from the launcher's environment (mpirun sets
// OMPI_COMM_WORLD_SIZE/RANK/LOCAL_RANK). Without a launcher it is one
// process, and every collective is a copy. With one, the transport is MPI,
// loaded at run time from the runtime's plugin (liblazyc_mpi.so next to
// liblazyc_runtime.so; LAZYC_MPI_LIBRARY overrides the path), so a program
// that never distributes never loads MPI.
//
// One communication thread owns the transport: lazyrt_collective_start
// queues a request and returns at once, the thread runs requests in the
// order they were started (the same order on every rank, since every rank
// runs the same compiled code), and lazyrt_collective_wait blocks until its
// request is done. Compute continues while a collective is in flight.
//
// Before each collective the ranks exchange a small header (sequence number,
// kind, reduction, dtype, element count, root); a rank whose header differs
// fails the collective on every rank with a message naming each rank's
// header, instead of exchanging mismatched buffers. A collective that does
// not complete within the timeout (LAZYC_DIST_TIMEOUT seconds, default 300;
// lazyrt_dist_set_timeout) fails, naming what it waited for. After a failure
// the world is broken: every later collective fails at once with the first
// failure's message.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_COLLECTIVES_H
#define LAZYC_RUNTIME_COLLECTIVES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a collective computes. Buffers are contiguous; `count` is the
/// element count of the input.
///   ALL_REDUCE      out[i] = reduce over ranks of in[i]; out has count.
///   BROADCAST       out = root's in; out has count.
///   ALL_GATHER      out = the ranks' inputs, rank 0's first; out has
///                   count * size.
///   REDUCE_SCATTER  out = this rank's count / size elements of the
///                   reduction over ranks (block `rank` of it); count must
///                   divide by size.
enum {
  LAZYRT_ALL_REDUCE = 0,
  LAZYRT_BROADCAST = 1,
  LAZYRT_ALL_GATHER = 2,
  LAZYRT_REDUCE_SCATTER = 3,
};

/// How ALL_REDUCE and REDUCE_SCATTER combine elements. On Bool, SUM and MAX
/// are a logical or and MIN a logical and; Float16 and BFloat16 combine in
/// float, rounding to the dtype after each step.
enum {
  LAZYRT_REDUCE_SUM = 0,
  LAZYRT_REDUCE_MAX = 1,
  LAZYRT_REDUCE_MIN = 2,
};

/// Joins the world the launcher describes (idempotent; the first call does
/// the work). Ranks that share a machine share its cores: unless
/// OMP_NUM_THREADS is set, each rank's compiled loops use cores / ranks on
/// the machine (call it before the first compile). Returns 0, or -1 with
/// lazyrt_get_last_error() saying why (the MPI plugin missing, MPI_Init
/// failing, ...).
int32_t lazyrt_dist_init(void);

/// This process's rank, the number of processes and the rank among the
/// processes of this machine. Before lazyrt_dist_init: 0, 1, 0.
int32_t lazyrt_dist_rank(void);
int32_t lazyrt_dist_size(void);
int32_t lazyrt_dist_local_rank(void);

/// The transport in use: "local" (one process; also under a launcher that
/// started one process), "mpi".
const char *lazyrt_dist_transport(void);

/// Seconds a collective may take before it fails (LAZYC_DIST_TIMEOUT at
/// start-up, default 300).
void lazyrt_dist_set_timeout(double seconds);
double lazyrt_dist_get_timeout(void);

/// Queues a collective and returns its handle (> 0). `dtype` is a
/// lazyc::DType's value; `in` and `out` may be the same buffer for
/// ALL_REDUCE and BROADCAST. Neither buffer may be touched until
/// lazyrt_collective_wait returns. Never blocks on other ranks. Errors
/// (including a broken world) are reported by the wait. Joins the world
/// first if lazyrt_dist_init was not called. Invalid arguments (an unknown
/// kind, reduction or dtype, a root out of range, a count that does not
/// divide) fail this request alone, before any exchange: every rank runs
/// the same code, so every rank skips it, and the world stays usable.
int64_t lazyrt_collective_start(int32_t kind, int32_t reduction, int32_t dtype,
                                int64_t root, const void *in, void *out,
                                int64_t count);

/// Blocks until the collective `handle` is done. `in` and `out` are the
/// buffers it was started with (checked). Returns 0, or -1 after recording
/// the failure: lazyrt_take_collective_error() returns it.
int32_t lazyrt_collective_wait(int64_t handle, const void *in, void *out);

/// Starts and waits: a synchronous collective (the reference evaluator,
/// tests).
int32_t lazyrt_collective_run(int32_t kind, int32_t reduction, int32_t dtype,
                              int64_t root, const void *in, void *out,
                              int64_t count);

/// Blocks until every rank has reached the barrier (and every collective
/// started before it is done). Returns 0 or -1 (lazyrt_get_last_error()).
int32_t lazyrt_dist_barrier(void);

/// Returns the message of the first collective that failed on this thread
/// since the last call, and clears it; null when none failed. The JIT calls
/// this after each compiled call. The text stays valid until the next call
/// on this thread.
const char *lazyrt_take_collective_error(void);

/// Counters, for metrics and benchmarks.
typedef struct lazyrt_dist_stats {
  uint64_t collectives; ///< Collectives completed.
  uint64_t bytes;       ///< Their input bytes.
  double seconds;       ///< Time the communication thread spent in them.
  double wait_seconds;  ///< Time callers spent blocked in waits.
} lazyrt_dist_stats;
lazyrt_dist_stats lazyrt_get_dist_stats(void);

/// Drains the queue and leaves the world (MPI_Finalize). Registered with
/// atexit by lazyrt_dist_init; calling it again is harmless. After a
/// failure it aborts the job instead (MPI_Abort), since ranks stuck in a
/// collective would never finalize.
void lazyrt_dist_finalize(void);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // LAZYC_RUNTIME_COLLECTIVES_H
