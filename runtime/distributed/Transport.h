//===- Transport.h - The interface of transport plugins -----------*- C -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the C interface between the runtime's collectives
// (Collectives.cpp) and a transport plugin (MpiTransport.cpp, built as
// liblazyc_mpi.so). The runtime loads the plugin with dlopen and calls its
// one exported entry point, which returns a table of functions. The plugin
// links the transport library (MPI); the runtime does not.
//
// Every function of the table is called on the runtime's communication
// thread only (MPI_THREAD_FUNNELED). Operations are non-blocking: `start`
// returns a request, `test` polls it. Errors are written, NUL-terminated,
// into the caller's buffer.
//
// Private to the runtime: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_RUNTIME_DISTRIBUTED_TRANSPORT_H
#define LAZYC_RUNTIME_DISTRIBUTED_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Bumped whenever the table or an operation's meaning changes; the runtime
/// refuses a plugin of another version.
#define LAZYC_TRANSPORT_ABI_VERSION 1

/// Operations beyond the collectives of Collectives.h (LAZYRT_ALL_REDUCE ...
/// LAZYRT_REDUCE_SCATTER, whose meanings `start` implements as documented
/// there).
enum {
  /// Every rank contributes `count` bytes of `in`; `out` receives all ranks'
  /// bytes, rank 0's first (the header exchange).
  LAZYC_TRANSPORT_GATHER_BYTES = 100,
};

/// One operation: the arguments of lazyrt_collective_start. `dtype` is a
/// lazyc::DType's value; `count` is the element count of `in` (bytes for
/// LAZYC_TRANSPORT_GATHER_BYTES).
typedef struct lazyc_transport_op {
  int32_t kind;
  int32_t reduction;
  int32_t dtype;
  int64_t root;
  const void *in;
  void *out;
  int64_t count;
} lazyc_transport_op;

typedef struct lazyc_transport {
  uint32_t abi_version; ///< LAZYC_TRANSPORT_ABI_VERSION.
  const char *name;     ///< What lazyrt_dist_transport returns ("mpi").

  /// Joins the world; sets this process's rank and the world's size.
  /// Returns 0 or -1.
  int32_t (*init)(int32_t *rank, int32_t *size, char *error,
                  size_t error_bytes);

  /// Starts `op` and sets `*request`. Returns 0 or -1.
  int32_t (*start)(const lazyc_transport_op *op, void **request, char *error,
                   size_t error_bytes);

  /// Polls a started request: 1 when it is done (the request is then
  /// released), 0 while it is in flight, -1 when it failed (released too).
  int32_t (*test)(void *request, char *error, size_t error_bytes);

  /// Leaves the world after every request completed. Returns 0 or -1.
  int32_t (*finalize)(char *error, size_t error_bytes);

  /// Ends every process of the job with `code` (requests that never
  /// completed may be in flight). Does not return.
  void (*abort)(int32_t code);
} lazyc_transport;

/// The entry point a transport plugin exports.
typedef const lazyc_transport *(*lazyc_transport_entry)(void);
#define LAZYC_TRANSPORT_ENTRY_NAME "lazyc_transport_mpi"

#ifdef __cplusplus
} // extern "C"
#endif

#endif // LAZYC_RUNTIME_DISTRIBUTED_TRANSPORT_H
