//===- Distributed.h - Collectives across processes -------------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares lazyc::distributed: data-parallel training across
// processes. A collective is one more recorded op: it joins the trace of
// what it feeds, so a step's gradient all-reduces are compiled with the
// rest of the step, bucketed, and issued as soon as their inputs are ready
// while the rest of the backward pass runs. The transport is MPI for CPU
// tensors (a launcher such as mpirun starts the processes) and NCCL for
// CUDA tensors (one GPU per rank; MPI still carries the ranks' checks).
//
//   auto world = lazyc::distributed::init();
//   Tensor g = tape.gradient(loss, w);
//   g = lazyc::distributed::allReduce(g, ReduceOp::Mean);
//   w.assignSub(g * lr);
//   lazyc::sync();
//
// Every rank must record and materialize the same collectives in the same
// order (the usual SPMD rule): the runtime checks the ranks agree before
// exchanging data, and a rank that never arrives makes the others fail after
// the timeout (LAZYC_DIST_TIMEOUT seconds, default 300), never hang.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_API_DISTRIBUTED_H
#define LAZYC_API_DISTRIBUTED_H

#include "lazyc/API/SourceLocation.h"
#include "lazyc/API/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lazyc {

class Variable;

namespace distributed {

/// The processes this one trains with.
struct World {
  int rank = 0;                    ///< This process, 0 ... size - 1.
  int size = 1;                    ///< How many processes.
  int localRank = 0;               ///< This process among those of its machine.
  std::string transport = "local"; ///< "local" (one process) or "mpi".
};

/// Joins the world the launcher describes (mpirun's environment); without
/// a launcher, a world of one process. Idempotent. Throws lazyc::Error if
/// the transport cannot start (MPI missing, MPI_Init failing).
World init(SourceLocation where = SourceLocation::current());

/// The world init() joined; a world of one before init().
World world();

/// Whether init() has run.
bool initialized();

/// What this process's collectives cost so far.
struct Stats {
  uint64_t collectives = 0; ///< Completed (a bucket counts once).
  uint64_t bytes = 0;       ///< Their input bytes.
  double seconds = 0;       ///< Spent exchanging (the transport's time).
  double waitSeconds = 0;   ///< Compiled code spent blocked on results.
};
Stats stats();

/// How allReduce and reduceScatter combine the ranks' values. Mean is the
/// sum divided by the world size (floating-point tensors only).
enum class ReduceOp { Sum, Mean, Max, Min };

/// Every rank gets the elementwise reduction of `x` over the ranks (`x` has
/// the same shape and dtype on every rank). Gradient (every rank's loss
/// counted, as in PyTorch's distributed autograd): the all-reduced sum of
/// the incoming gradients for Sum, divided by the size for Mean; for Max
/// and Min, that sum where `x` is the extreme (every tied rank gets it).
Tensor allReduce(const Tensor &x, ReduceOp op = ReduceOp::Sum,
                 SourceLocation where = SourceLocation::current());

/// Every rank gets rank `root`'s `x`. Gradient: the sum of the incoming
/// gradients on `root`, zero elsewhere.
Tensor broadcast(const Tensor &x, int root = 0,
                 SourceLocation where = SourceLocation::current());

/// The ranks' `x` concatenated along dimension 0, rank 0 first (a scalar
/// counts as one row). Gradient: reduceScatter(Sum) of the incoming one.
Tensor allGather(const Tensor &x,
                 SourceLocation where = SourceLocation::current());

/// The reduction over the ranks split along dimension 0 into size blocks;
/// rank r gets block r (dimension 0 must divide by the size). Gradient:
/// allGather of the incoming one (for Max and Min, where `x` is the
/// extreme).
Tensor reduceScatter(const Tensor &x, ReduceOp op = ReduceOp::Sum,
                     SourceLocation where = SourceLocation::current());

/// Blocks until every rank has called barrier() (and every collective this
/// process started is done). Pending tensors stay pending.
void barrier(SourceLocation where = SourceLocation::current());

/// Data-parallel training: every rank holds the whole model and a slice of
/// the batch; gradients are averaged across the ranks before the update.
///
///   distributed::DataParallel parallel(model.parameters());  // rank 0's
///   ...                                                       // values
///   sgd.step(parallel.averageGradients(tape.gradient(loss, refs)));
///   lazyc::sync();
class DataParallel {
public:
  /// Gives every rank rank 0's parameter values (one trace of broadcasts,
  /// run at once).
  explicit DataParallel(std::vector<Variable *> parameters,
                        SourceLocation where = SourceLocation::current());

  /// The gradients averaged over the ranks: one allReduce(Mean) each, which
  /// the compiler packs into buckets of up to 25 MiB, each issued once its
  /// gradients are computed (lazy-schedule-collectives).
  std::vector<Tensor>
  averageGradients(const std::vector<Tensor> &gradients,
                   SourceLocation where = SourceLocation::current()) const;

  const std::vector<Variable *> &parameters() const { return variables; }

private:
  std::vector<Variable *> variables;
};

} // namespace distributed
} // namespace lazyc

#endif // LAZYC_API_DISTRIBUTED_H
