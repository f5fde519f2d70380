//===- Distributed.cpp - Collectives across processes ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazyc::distributed: the checks of each collective at
// the user's line, then one recorded collective node (Collectives.h); the
// runtime (lazyc/Runtime/Collectives.h) owns the world and the transport,
// MPI for tensors in host memory and NCCL for tensors on a GPU
// (lazyc/Runtime/Cuda.h).
//
//===----------------------------------------------------------------------===//

#include "lazyc/API/Distributed.h"
#include "Collectives.h"
#include "lazyc/API/Error.h"
#include "lazyc/API/Ops.h"
#include "lazyc/API/Variable.h"
#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/Runtime.h"
#include "lazyc/Runtime/Shape.h"

#include <atomic>

using namespace lazyc;
using namespace lazyc::distributed;

namespace {

std::atomic<bool> joined{false};

/// "Float32 [2, 3]".
std::string typeOf(const Tensor &x) {
  return lazyc::typeText(x.dtype(), x.shape());
}

/// Checks what every collective needs of its operand.
void checkOperand(const char *op, const Tensor &x, SourceLocation where) {
  if (!joined)
    throw Error(op,
                "the process has not joined a world: call "
                "lazyc::distributed::init() first",
                where);
  if (!x.defined())
    throw Error(op, "the operand is an empty Tensor", where);
  if (x.dtype() == DType::Bool)
    throw Error(op,
                "Bool tensors are not exchanged; cast " + typeOf(x) +
                    " to Int8 or UInt8 first",
                where);
}

int reductionOf(const char *op, ReduceOp reduce, const Tensor &x,
                SourceLocation where) {
  switch (reduce) {
  case ReduceOp::Sum:
    return LAZYRT_REDUCE_SUM;
  case ReduceOp::Mean:
    if (!isFloatingPoint(x.dtype()))
      throw Error(op,
                  "ReduceOp::Mean needs a floating-point tensor, got " +
                      typeOf(x) + " (use Sum and divide)",
                  where);
    return LAZYRT_REDUCE_SUM;
  case ReduceOp::Max:
    return LAZYRT_REDUCE_MAX;
  case ReduceOp::Min:
    return LAZYRT_REDUCE_MIN;
  }
  throw Error(op, "unknown ReduceOp", where);
}

/// The sum over the ranks divided by the size, for Mean.
Tensor finish(Tensor reduced, ReduceOp reduce, SourceLocation where) {
  if (reduce != ReduceOp::Mean)
    return reduced;
  return At(reduced, where) /
         Scalar(static_cast<float>(lazyrt_dist_size()), where);
}

} // namespace

World distributed::init(SourceLocation where) {
  if (lazyrt_dist_init() != 0)
    throw Error("distributed::init", lazyrt_get_last_error(), where);
  joined = true;
  return world();
}

World distributed::world() {
  return {lazyrt_dist_rank(), lazyrt_dist_size(), lazyrt_dist_local_rank(),
          lazyrt_dist_transport()};
}

bool distributed::initialized() { return joined; }

Stats distributed::stats() {
  lazyrt_dist_stats counters = lazyrt_get_dist_stats();
  return {counters.collectives, counters.bytes, counters.seconds,
          counters.wait_seconds};
}

Tensor distributed::allReduce(const Tensor &x, ReduceOp op,
                              SourceLocation where) {
  checkOperand("allReduce", x, where);
  int reduction = reductionOf("allReduce", op, x, where);
  return finish(detail::collective(x, LAZYRT_ALL_REDUCE, reduction, 0, where),
                op, where);
}

Tensor distributed::broadcast(const Tensor &x, int root, SourceLocation where) {
  checkOperand("broadcast", x, where);
  int size = lazyrt_dist_size();
  if (root < 0 || root >= size)
    throw Error("broadcast",
                "root " + std::to_string(root) +
                    " is not a rank of this world of " + std::to_string(size) +
                    " process(es)",
                where);
  return detail::collective(x, LAZYRT_BROADCAST, 0, root, where);
}

Tensor distributed::allGather(const Tensor &x, SourceLocation where) {
  checkOperand("allGather", x, where);
  Tensor rows = x.rank() == 0 ? reshape(x, {1}, where) : x;
  return detail::collective(rows, LAZYRT_ALL_GATHER, 0, 0, where);
}

Tensor distributed::reduceScatter(const Tensor &x, ReduceOp op,
                                  SourceLocation where) {
  checkOperand("reduceScatter", x, where);
  int reduction = reductionOf("reduceScatter", op, x, where);
  int size = lazyrt_dist_size();
  if (x.rank() == 0 || x.shape()[0] % size != 0)
    throw Error("reduceScatter",
                "splits dimension 0 into one block per rank, but " + typeOf(x) +
                    " does not divide into " + std::to_string(size) + " blocks",
                where);
  return finish(
      detail::collective(x, LAZYRT_REDUCE_SCATTER, reduction, 0, where), op,
      where);
}

void distributed::barrier(SourceLocation where) {
  if (!joined)
    throw Error("barrier",
                "the process has not joined a world: call "
                "lazyc::distributed::init() first",
                where);
  if (lazyrt_dist_barrier() != 0)
    throw Error("barrier", lazyrt_get_last_error(), where);
}

DataParallel::DataParallel(std::vector<Variable *> parameters,
                           SourceLocation where)
    : variables(std::move(parameters)) {
  for (Variable *variable : variables) {
    if (!variable || !variable->defined())
      throw Error("DataParallel", "a parameter is a null or empty Variable",
                  where);
    variable->assign(broadcast(variable->read(where), 0, where), where);
  }
  sync(where);
}

std::vector<Tensor>
DataParallel::averageGradients(const std::vector<Tensor> &gradients,
                               SourceLocation where) const {
  if (gradients.size() != variables.size())
    throw Error("DataParallel::averageGradients",
                "got " + std::to_string(gradients.size()) + " gradients for " +
                    std::to_string(variables.size()) + " parameters",
                where);
  std::vector<Tensor> averaged;
  averaged.reserve(gradients.size());
  for (const Tensor &gradient : gradients)
    averaged.push_back(allReduce(gradient, ReduceOp::Mean, where));
  return averaged;
}
