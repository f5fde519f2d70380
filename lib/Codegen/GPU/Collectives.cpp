//===- Collectives.cpp - Collectives of device buffers --------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-collectives.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Collectives.h"
#include "Launch.h"
#include "lazyc/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUCOLLECTIVESPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// The runtime's calls for host buffers (lazyc/Runtime/Collectives.h), as
/// the bufferization of lazy.collective makes them, and their counterparts
/// for device buffers (lazyc/Runtime/Cuda.h), which take the same operands.
static constexpr StringLiteral kHostStart = "lazyrt_collective_start";
static constexpr StringLiteral kHostWait = "lazyrt_collective_wait";
static constexpr StringLiteral kDeviceStart = "lazyrt_cuda_collective_start";
static constexpr StringLiteral kDeviceWait = "lazyrt_cuda_collective_wait";

/// A collective's input in host memory (a promoted literal) is copied to a
/// device buffer first, which lives until the collective's wait; the start
/// and the wait take the copy's address.
static LogicalResult copyHostInput(IRRewriter &rewriter, func::CallOp start) {
  auto startPointer = lazy::collectiveAddressSource(start.getOperand(4));
  if (!startPointer || !lazy::isHostBuffer(startPointer.getSource()))
    return success();
  Value host = startPointer.getSource();
  SmallVector<func::CallOp> waits;
  for (Operation *user : start.getResult(0).getUsers())
    if (auto wait = dyn_cast<func::CallOp>(user);
        wait && wait.getCallee() == kHostWait)
      waits.push_back(wait);
  if (waits.size() != 1)
    return start.emitError("a collective's start without its one wait");
  func::CallOp wait = waits.front();
  auto waitPointer = lazy::collectiveAddressSource(wait.getOperand(1));
  if (!waitPointer || waitPointer.getSource() != host)
    return wait.emitError("waits for other buffers than its start's");

  // An alloc and a copy, which lazy-gpu-device-buffers puts on the device.
  auto type = cast<MemRefType>(host.getType());
  Location loc = start.getLoc();
  rewriter.setInsertionPoint(startPointer);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(rewriter, loc, host, d));
  Value copy = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
      sizes);
  memref::CopyOp::create(rewriter, loc, host, copy);
  rewriter.modifyOpInPlace(startPointer,
                           [&] { startPointer.getSourceMutable().set(copy); });
  rewriter.modifyOpInPlace(waitPointer,
                           [&] { waitPointer.getSourceMutable().set(copy); });
  rewriter.setInsertionPointAfter(wait);
  memref::DeallocOp::create(rewriter, loc, copy);
  return success();
}

namespace {
struct LazyGpuCollectivesPass
    : mlir::lazy::impl::LazyGpuCollectivesPassBase<LazyGpuCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == kHostStart || call.getCallee() == kHostWait)
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    for (func::CallOp call : calls)
      if (call.getCallee() == kHostStart &&
          failed(copyHostInput(rewriter, call)))
        return signalPassFailure();

    // The same signatures, for device buffers.
    for (auto [from, to] : {std::pair{kHostStart, kDeviceStart},
                            std::pair{kHostWait, kDeviceWait}}) {
      auto host = module.lookupSymbol<func::FuncOp>(from);
      if (!host)
        continue;
      auto device = module.lookupSymbol<func::FuncOp>(to);
      if (!device) {
        rewriter.setInsertionPoint(host);
        device = func::FuncOp::create(rewriter, host.getLoc(), to,
                                      host.getFunctionType());
        device.setPrivate();
        device->setAttr(lazy::kQueuesOnStreamAttr, rewriter.getUnitAttr());
      }
      for (func::CallOp call : calls)
        if (call.getCallee() == from)
          call.setCallee(to);
      if (SymbolTable::symbolKnownUseEmpty(host, module))
        rewriter.eraseOp(host);
    }
  }
};
} // namespace
