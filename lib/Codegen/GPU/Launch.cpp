//===- Launch.cpp - Building GPU launches ---------------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include "lazyc/Dialect/Lazy/IR/HostBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

gpu::LaunchOp mlir::lazy::createLaunch(OpBuilder &builder, Location loc,
                                       Value blocks, Value threads) {
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  if (!blocks)
    blocks = one;
  if (!threads)
    threads = one;
  auto launch =
      gpu::LaunchOp::create(builder, loc, blocks, one, one, threads, one, one);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(builder, loc);
  return launch;
}

bool mlir::lazy::isHostArgument(Value buffer) {
  auto argument = dyn_cast<BlockArgument>(buffer);
  if (!argument)
    return false;
  auto function = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  return function &&
         function.getArgAttr(argument.getArgNumber(), kHostBufferAttr);
}

bool mlir::lazy::isHostBuffer(Value buffer) {
  if (isHostArgument(buffer))
    return true;
  auto alloca = buffer.getDefiningOp<memref::AllocaOp>();
  return alloca && alloca->hasAttr(kHostBufferAttr);
}

std::string mlir::lazy::describeHostBuffer(Value buffer) {
  if (auto argument = dyn_cast<BlockArgument>(buffer))
    return "argument #" + std::to_string(argument.getArgNumber());
  return "a host buffer";
}
