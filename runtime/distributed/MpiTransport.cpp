//===- MpiTransport.cpp - The MPI transport plugin ------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements liblazyc_mpi.so, the plugin through which the
// runtime's collectives run on MPI (Transport.h is the interface). It is the
// only part of lazyc that links MPI; the runtime loads it when a launcher
// started the process.
//
// The runtime's communication thread calls MPI_Init_thread
// (MPI_THREAD_SERIALIZED) and MPI_Finalize; the runtime makes every other
// call from one thread at a time (the communication thread or a waiting
// caller). Collectives are MPI's non-blocking
// ones, polled with MPI_Testall, except all-reduces of at most 16 MiB: Open
// MPI's blocking MPI_Allreduce picks faster algorithms there than its
// non-blocking one (1.4-1.6x at 1-16 MB on shared memory), so `start` runs
// them to completion. (Above, the blocking one is ten times slower.) The
// runtime starts a collective only after the header exchange showed every
// rank there with the same operation, so a blocking call does not wait for
// a rank that never comes. MPI counts are ints: longer buffers are
// split into chunks of at most INT_MAX elements (LAZYC_MPI_CHUNK_ELEMENTS
// lowers the limit, for tests), each its own non-blocking collective.
//
// Element types map to MPI's, except:
//   Float16, BFloat16  MPI_UINT16_T with user-defined operations that
//                      combine in float and round to nearest even;
//   Bool               MPI_C_BOOL; sum and max are a logical or, min a
//                      logical and.
//
//===----------------------------------------------------------------------===//

#include "Transport.h"

#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/DType.h"
#include "lazyc/Runtime/NarrowFloats.h"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using lazyc::DType;

namespace {

/// The most elements one MPI call moves.
int64_t chunkElements = INT_MAX;

/// All-reduces up to this size run as blocking MPI_Allreduce (see above).
constexpr size_t kBlockingAllReduceBytes = size_t(16) << 20;

int32_t worldRank = 0;
int32_t worldSize = 1;

/// The user-defined operations on Float16 and BFloat16, by
/// [isBFloat16][reduction].
MPI_Op narrowOps[2][3] = {};

/// A started operation: one MPI request per chunk.
struct Request {
  std::vector<MPI_Request> requests;
};

//===----------------------------------------------------------------------===//
// Float16 and BFloat16 arithmetic
//===----------------------------------------------------------------------===//

template <bool IsBFloat16, int Reduction>
void combineNarrow(void *in, void *inout, int *length, MPI_Datatype *) {
  auto *a = static_cast<const uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *length; ++i) {
    float x = IsBFloat16 ? lazyc::bfloat16BitsToFloat(a[i])
                         : lazyc::float16BitsToFloat(a[i]);
    float y = IsBFloat16 ? lazyc::bfloat16BitsToFloat(b[i])
                         : lazyc::float16BitsToFloat(b[i]);
    float r = Reduction == LAZYRT_REDUCE_SUM   ? x + y
              : Reduction == LAZYRT_REDUCE_MAX ? std::fmax(x, y)
                                               : std::fmin(x, y);
    b[i] = IsBFloat16 ? lazyc::toBFloat16Bits(r) : lazyc::toFloat16Bits(r);
  }
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Writes "<what> failed: <MPI's message>" into `error` unless `code` is
/// MPI_SUCCESS. Returns whether it succeeded.
bool check(int code, const char *what, char *error, size_t errorBytes) {
  if (code == MPI_SUCCESS)
    return true;
  char message[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, message, &length) != MPI_SUCCESS)
    std::snprintf(message, sizeof(message), "MPI error %d", code);
  std::snprintf(error, errorBytes, "%s failed on rank %d of %d: %s", what,
                worldRank, worldSize, message);
  return false;
}

MPI_Datatype datatypeOf(int32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::Float32:
    return MPI_FLOAT;
  case DType::Float64:
    return MPI_DOUBLE;
  case DType::Float16:
  case DType::BFloat16:
    return MPI_UINT16_T;
  case DType::Int32:
    return MPI_INT32_T;
  case DType::Int64:
    return MPI_INT64_T;
  case DType::Bool:
    return MPI_C_BOOL;
  case DType::Int8:
    return MPI_INT8_T;
  case DType::UInt8:
    return MPI_UINT8_T;
  case DType::Int16:
    return MPI_INT16_T;
  case DType::UInt16:
    return MPI_UINT16_T;
  case DType::UInt32:
    return MPI_UINT32_T;
  case DType::UInt64:
    return MPI_UINT64_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op opOf(int32_t reduction, int32_t dtype) {
  auto type = static_cast<DType>(dtype);
  if (type == DType::Float16 || type == DType::BFloat16)
    return narrowOps[type == DType::BFloat16][reduction];
  if (type == DType::Bool)
    return reduction == LAZYRT_REDUCE_MIN ? MPI_LAND : MPI_LOR;
  return reduction == LAZYRT_REDUCE_SUM   ? MPI_SUM
         : reduction == LAZYRT_REDUCE_MAX ? MPI_MAX
                                          : MPI_MIN;
}

//===----------------------------------------------------------------------===//
// The table's functions
//===----------------------------------------------------------------------===//

int32_t init(int32_t *rank, int32_t *size, char *error, size_t errorBytes) {
  if (const char *limit = std::getenv("LAZYC_MPI_CHUNK_ELEMENTS"))
    chunkElements = std::clamp<int64_t>(std::atoll(limit), 1, INT_MAX);
  int provided = 0;
  if (!check(
          MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
          "MPI_Init_thread", error, errorBytes))
    return -1;
  if (provided < MPI_THREAD_SERIALIZED) {
    std::snprintf(error, errorBytes,
                  "MPI_Init_thread: MPI provides thread level %d, below "
                  "MPI_THREAD_SERIALIZED",
                  provided);
    return -1;
  }
  // From here on MPI reports errors instead of ending the process.
  if (!check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
             "MPI_Comm_set_errhandler", error, errorBytes) ||
      !check(MPI_Comm_rank(MPI_COMM_WORLD, &worldRank), "MPI_Comm_rank", error,
             errorBytes) ||
      !check(MPI_Comm_size(MPI_COMM_WORLD, &worldSize), "MPI_Comm_size", error,
             errorBytes))
    return -1;
  MPI_User_function *functions[2][3] = {
      {combineNarrow<false, LAZYRT_REDUCE_SUM>,
       combineNarrow<false, LAZYRT_REDUCE_MAX>,
       combineNarrow<false, LAZYRT_REDUCE_MIN>},
      {combineNarrow<true, LAZYRT_REDUCE_SUM>,
       combineNarrow<true, LAZYRT_REDUCE_MAX>,
       combineNarrow<true, LAZYRT_REDUCE_MIN>}};
  for (int narrow = 0; narrow < 2; ++narrow)
    for (int reduction = 0; reduction < 3; ++reduction)
      if (!check(MPI_Op_create(functions[narrow][reduction], /*commute=*/1,
                               &narrowOps[narrow][reduction]),
                 "MPI_Op_create", error, errorBytes))
        return -1;
  *rank = worldRank;
  *size = worldSize;
  return 0;
}

/// Starts `op` as one or more non-blocking MPI collectives appended to
/// `reqs`.
bool startChunks(const lazyc_transport_op &op, std::vector<MPI_Request> &reqs,
                 char *error, size_t errorBytes) {
  auto *in = static_cast<const char *>(op.in);
  auto *out = static_cast<char *>(op.out);
  if (op.kind == LAZYC_TRANSPORT_GATHER_BYTES) {
    reqs.push_back(MPI_REQUEST_NULL);
    return check(MPI_Iallgather(in, static_cast<int>(op.count), MPI_BYTE, out,
                                static_cast<int>(op.count), MPI_BYTE,
                                MPI_COMM_WORLD, &reqs.back()),
                 "MPI_Iallgather", error, errorBytes);
  }

  MPI_Datatype type = datatypeOf(op.dtype);
  size_t elementBytes = lazyc::sizeOf(static_cast<DType>(op.dtype));
  MPI_Op reduce = opOf(op.reduction, op.dtype);

  switch (op.kind) {
  case LAZYRT_ALL_REDUCE:
    if (op.count <= chunkElements &&
        op.count * elementBytes <= kBlockingAllReduceBytes)
      return check(MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out,
                                 static_cast<int>(op.count), type, reduce,
                                 MPI_COMM_WORLD),
                   "MPI_Allreduce", error, errorBytes);
    for (int64_t first = 0; first < op.count; first += chunkElements) {
      int length = static_cast<int>(std::min(chunkElements, op.count - first));
      size_t offset = first * elementBytes;
      reqs.push_back(MPI_REQUEST_NULL);
      if (!check(MPI_Iallreduce(in == out ? MPI_IN_PLACE : in + offset,
                                out + offset, length, type, reduce,
                                MPI_COMM_WORLD, &reqs.back()),
                 "MPI_Iallreduce", error, errorBytes))
        return false;
    }
    return true;
  case LAZYRT_BROADCAST:
    if (worldRank == op.root && in != out)
      std::memcpy(out, in, op.count * elementBytes);
    for (int64_t first = 0; first < op.count; first += chunkElements) {
      int length = static_cast<int>(std::min(chunkElements, op.count - first));
      reqs.push_back(MPI_REQUEST_NULL);
      if (!check(MPI_Ibcast(out + first * elementBytes, length, type,
                            static_cast<int>(op.root), MPI_COMM_WORLD,
                            &reqs.back()),
                 "MPI_Ibcast", error, errorBytes))
        return false;
    }
    return true;
  case LAZYRT_ALL_GATHER:
    if (op.count <= chunkElements) {
      reqs.push_back(MPI_REQUEST_NULL);
      return check(MPI_Iallgather(in, static_cast<int>(op.count), type, out,
                                  static_cast<int>(op.count), type,
                                  MPI_COMM_WORLD, &reqs.back()),
                   "MPI_Iallgather", error, errorBytes);
    }
    // Too long for one call: each rank's block is broadcast from it, in
    // chunks.
    std::memcpy(out + worldRank * op.count * elementBytes, in,
                op.count * elementBytes);
    for (int root = 0; root < worldSize; ++root)
      for (int64_t first = 0; first < op.count; first += chunkElements) {
        int length =
            static_cast<int>(std::min(chunkElements, op.count - first));
        reqs.push_back(MPI_REQUEST_NULL);
        if (!check(MPI_Ibcast(out + (root * op.count + first) * elementBytes,
                              length, type, root, MPI_COMM_WORLD, &reqs.back()),
                   "MPI_Ibcast", error, errorBytes))
          return false;
      }
    return true;
  case LAZYRT_REDUCE_SCATTER: {
    int64_t block = op.count / worldSize;
    if (block <= chunkElements) {
      reqs.push_back(MPI_REQUEST_NULL);
      return check(MPI_Ireduce_scatter_block(in, out, static_cast<int>(block),
                                             type, reduce, MPI_COMM_WORLD,
                                             &reqs.back()),
                   "MPI_Ireduce_scatter_block", error, errorBytes);
    }
    // Too long for one call: each block is reduced to its rank, in chunks.
    for (int root = 0; root < worldSize; ++root)
      for (int64_t first = 0; first < block; first += chunkElements) {
        int length = static_cast<int>(std::min(chunkElements, block - first));
        reqs.push_back(MPI_REQUEST_NULL);
        if (!check(MPI_Ireduce(in + (root * block + first) * elementBytes,
                               root == worldRank ? out + first * elementBytes
                                                 : nullptr,
                               length, type, reduce, root, MPI_COMM_WORLD,
                               &reqs.back()),
                   "MPI_Ireduce", error, errorBytes))
          return false;
      }
    return true;
  }
  }
  std::snprintf(error, errorBytes, "unknown collective kind %d", op.kind);
  return false;
}

int32_t start(const lazyc_transport_op *op, void **request, char *error,
              size_t errorBytes) {
  auto *started = new Request();
  if (!startChunks(*op, started->requests, error, errorBytes)) {
    // Chunks already started cannot be taken back; the runtime treats the
    // world as broken and aborts at exit.
    delete started;
    return -1;
  }
  *request = started;
  return 0;
}

int32_t test(void *request, char *error, size_t errorBytes) {
  auto *started = static_cast<Request *>(request);
  int done = 0;
  int code = MPI_Testall(static_cast<int>(started->requests.size()),
                         started->requests.data(), &done, MPI_STATUSES_IGNORE);
  if (code != MPI_SUCCESS) {
    check(code, "MPI_Testall", error, errorBytes);
    delete started;
    return -1;
  }
  if (!done)
    return 0;
  delete started;
  return 1;
}

int32_t finalize(char *error, size_t errorBytes) {
  for (auto &ops : narrowOps)
    for (MPI_Op &op : ops)
      if (op != MPI_OP_NULL)
        MPI_Op_free(&op);
  return check(MPI_Finalize(), "MPI_Finalize", error, errorBytes) ? 0 : -1;
}

void abortJob(int32_t code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

const lazyc_transport kMpiTransport = {
    LAZYC_TRANSPORT_ABI_VERSION, "mpi", init, start, test, finalize, abortJob,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const lazyc_transport *
lazyc_transport_mpi(void) {
  return &kMpiTransport;
}
