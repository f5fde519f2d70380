//===- Collectives.cpp - Collectives as runtime calls ---------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements how a `lazy.collective` becomes code, for every
// target: its bufferization (a new output buffer and a start / wait pair of
// runtime calls, lazyc/Runtime/Collectives.h) and lazy-overlap-collectives,
// which defers each wait to the first use of the collective's buffers.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Collectives.h"
#include "RuntimeCalls.h"
#include "lazyc/Codegen/Passes.h"
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Runtime/Collectives.h"
#include "lazyc/Runtime/DType.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYOVERLAPCOLLECTIVESPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::bufferization;

static constexpr StringLiteral kStart = "lazyrt_collective_start";
static constexpr StringLiteral kWait = "lazyrt_collective_wait";

/// The runtime's code for an element type (lazyc::DType). Integer types are
/// signless after the lowering to linalg; `isUnsigned` says an i8 was ui8
/// (an i16 ui16, ...).
static std::optional<lazyc::DType> runtimeDType(Type element, bool isUnsigned) {
  if (element.isF32())
    return lazyc::DType::Float32;
  if (element.isF64())
    return lazyc::DType::Float64;
  if (element.isF16())
    return lazyc::DType::Float16;
  if (element.isBF16())
    return lazyc::DType::BFloat16;
  if (element.isInteger(8))
    return isUnsigned ? lazyc::DType::UInt8 : lazyc::DType::Int8;
  if (element.isInteger(16))
    return isUnsigned ? lazyc::DType::UInt16 : lazyc::DType::Int16;
  if (element.isInteger(32))
    return isUnsigned ? lazyc::DType::UInt32 : lazyc::DType::Int32;
  if (element.isInteger(64))
    return isUnsigned ? lazyc::DType::UInt64 : lazyc::DType::Int64;
  return std::nullopt;
}

namespace {

/// A collective reads its input and writes a new buffer, which the runtime
/// fills while later ops run (lazy-overlap-collectives).
struct CollectiveBufferization
    : lazy::RuntimeCallBufferization<CollectiveBufferization,
                                     lazy::CollectiveOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto collective = cast<lazy::CollectiveOp>(op);
    Location loc = op->getLoc();
    FailureOr<Value> inputBuffer =
        getBuffer(rewriter, collective.getInput(), options, state);
    if (failed(inputBuffer))
      return failure();
    Value input = *inputBuffer;
    auto inputType = cast<MemRefType>(input.getType());
    Type element = inputType.getElementType();
    std::optional<lazyc::DType> dtype =
        runtimeDType(element, op->hasAttr(lazy::kUnsignedElementsAttr));
    if (!dtype)
      return op->emitOpError("has no runtime collective for ") << element;

    // The runtime takes contiguous buffers.
    FailureOr<Value> contiguous =
        lazy::contiguousBuffer(rewriter, loc, options, input);
    if (failed(contiguous))
      return failure();
    input = *contiguous;

    // The output: the input's sizes, dimension 0 scaled for a gather or
    // scatter.
    RankedTensorType resultType = collective.getType();
    SmallVector<Value> outputSizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      Value size = memref::DimOp::create(rewriter, loc, input, d);
      Value world = arith::ConstantIndexOp::create(rewriter, loc,
                                                   collective.getWorldSize());
      if (d == 0 && collective.getKind() == lazy::CollectiveKind::all_gather)
        size = arith::MulIOp::create(rewriter, loc, size, world);
      if (d == 0 &&
          collective.getKind() == lazy::CollectiveKind::reduce_scatter)
        size = arith::DivUIOp::create(rewriter, loc, size, world);
      outputSizes.push_back(size);
    }
    FailureOr<Value> output = options.createAlloc(
        rewriter, loc,
        MemRefType::get(resultType.getShape(), resultType.getElementType()),
        outputSizes);
    if (failed(output))
      return failure();

    // count = the input's element count.
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      count = arith::MulIOp::create(
          rewriter, loc, count, memref::DimOp::create(rewriter, loc, input, d));

    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto constant = [&](Type type, int64_t value) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getIntegerAttr(type, value));
    };
    int64_t reduction = collective.getReduction()
                            ? static_cast<int64_t>(*collective.getReduction())
                            : 0;
    Value inputAddress = lazy::runtimeAddress(rewriter, loc, input);
    Value outputAddress = lazy::runtimeAddress(rewriter, loc, *output);
    func::FuncOp start = lazy::declareRuntimeFunction(
        op, kStart,
        rewriter.getFunctionType({i32, i32, i32, i64, i64, i64, i64}, {i64}));
    Value handle =
        func::CallOp::create(
            rewriter, loc, start,
            ValueRange{
                constant(i32, static_cast<int64_t>(collective.getKind())),
                constant(i32, reduction),
                constant(i32, static_cast<int64_t>(*dtype)),
                constant(i64, collective.getRoot().value_or(0)), inputAddress,
                outputAddress,
                arith::IndexCastOp::create(rewriter, loc, i64, count)})
            .getResult(0);
    // The wait takes the addresses too (the runtime checks them);
    // lazy-overlap-collectives takes them anew where it moves the wait.
    func::FuncOp wait = lazy::declareRuntimeFunction(
        op, kWait, rewriter.getFunctionType({i64, i64, i64}, {i32}));
    func::CallOp::create(rewriter, loc, wait,
                         ValueRange{handle, inputAddress, outputAddress});
    replaceOpWithBufferizedValues(rewriter, op, *output);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// lazy-overlap-collectives
//===----------------------------------------------------------------------===//

/// The buffer behind an address operand of a wait.
Value bufferBehind(Value address) {
  auto extract = lazy::collectiveAddressSource(address);
  return extract ? extract.getSource() : nullptr;
}

/// `buffer`, the buffer it views, and every view of those.
llvm::SetVector<Value> aliasesOf(Value buffer) {
  Value root = buffer;
  while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
    root = view.getViewSource();
  llvm::SetVector<Value> aliases;
  aliases.insert(root);
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == aliases[i])
        for (Value result : user->getResults())
          aliases.insert(result);
  return aliases;
}

/// Whether `op` or an op nested in it may access one of `buffers`. Making
/// a view accesses nothing; taking an address does (a later collective
/// reads through it).
bool touches(Operation *op, const llvm::SetVector<Value> &buffers) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (isa<ViewLikeOpInterface>(nested))
      return WalkResult::advance();
    for (Value operand : nested->getOperands())
      if (buffers.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

struct LazyOverlapCollectivesPass
    : mlir::lazy::impl::LazyOverlapCollectivesPassBase<
          LazyOverlapCollectivesPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> waits;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() == kWait)
        waits.push_back(call);
    });
    for (func::CallOp wait : waits)
      defer(wait);
  }

  void defer(func::CallOp wait) {
    SmallVector<Value, 2> buffers;
    llvm::SetVector<Value> aliases;
    for (Value address : wait.getOperands().drop_front()) {
      Value buffer = bufferBehind(address);
      if (!buffer)
        return; // Not the form bufferization made: leave it.
      buffers.push_back(buffer);
      aliases.insert_range(aliasesOf(buffer));
      // A later start may reach a buffer through the same address values.
      aliases.insert(address);
      aliases.insert(address.getDefiningOp()->getOperand(0));
    }
    // Stop at a use of the buffers, or of the wait's status.
    for (Value status : wait->getResults())
      aliases.insert(status);
    Operation *stop = wait->getNextNode();
    while (!stop->hasTrait<OpTrait::IsTerminator>() && !touches(stop, aliases))
      stop = stop->getNextNode();
    if (stop == wait->getNextNode())
      return;
    // The addresses again at the new place (the start keeps the old ones),
    // so the buffers stay live until the wait.
    OpBuilder b(stop);
    SmallVector<Value, 3> operands = {wait.getOperand(0)};
    for (Value buffer : buffers)
      operands.push_back(lazy::runtimeAddress(b, wait.getLoc(), buffer));
    SmallVector<Value, 2> old(wait.getOperands().drop_front());
    wait->setOperands(operands);
    wait->moveBefore(stop);
    for (Value address : old)
      if (address.use_empty()) {
        Operation *cast = address.getDefiningOp();
        Value pointer = cast->getOperand(0);
        cast->erase();
        if (pointer.use_empty())
          pointer.getDefiningOp()->erase();
      }
  }
};

} // namespace

memref::ExtractAlignedPointerAsIndexOp
mlir::lazy::collectiveAddressSource(Value address) {
  auto cast = address.getDefiningOp<arith::IndexCastOp>();
  return cast ? cast.getIn()
                    .getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()
              : nullptr;
}

void mlir::lazy::registerCollectiveBufferizationModel(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, lazy::LazyDialect *) {
    lazy::CollectiveOp::attachInterface<CollectiveBufferization>(*context);
  });
}
