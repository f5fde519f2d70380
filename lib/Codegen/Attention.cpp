//===- Attention.cpp - Attention as runtime calls -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the bufferization of lazy.attention and
// lazy.attention_grad: contiguous operand buffers, a new output buffer, and
// one call to the runtime's tiled kernel, which gets the sizes as an array
// on the stack (lazyc/Runtime/Attention.h).
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Attention.h"
#include "RuntimeCalls.h"
#include "lazyc/Dialect/Lazy/IR/LazyOps.h"
#include "lazyc/Runtime/Attention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::bufferization;

static constexpr StringLiteral kKernelPrefix = "lazyrt_attention_";

namespace {

/// The kernel's name for `op` and element type `element`, or empty where
/// the runtime has none.
std::string kernelName(Operation *op, Type element) {
  if (!element.isF32() && !element.isF64())
    return "";
  std::string name = kKernelPrefix.str();
  if (isa<lazy::AttentionOp>(op))
    name += "forward";
  else if (cast<lazy::AttentionGradOp>(op).getGradient() ==
           lazy::AttentionGradient::query)
    name += "backward_query";
  else
    name += "backward_key_value";
  return name + (element.isF32() ? "_f32" : "_f64");
}

/// Both ops read their operands and write a new buffer.
template <typename OpTy>
struct AttentionBufferization
    : lazy::RuntimeCallBufferization<AttentionBufferization<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attention = cast<OpTy>(op);
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = resultType.getElementType();
    std::string name = kernelName(op, element);
    if (name.empty())
      return op->emitOpError("has CPU kernels for f32 and f64, not ")
             << element;

    // Contiguous buffers of q, k, v (and out, d_out), in order.
    SmallVector<Value> tensors = {attention.getQ(), attention.getK(),
                                  attention.getV()};
    if constexpr (std::is_same_v<OpTy, lazy::AttentionGradOp>)
      tensors.append({attention.getOut(), attention.getDOut()});
    auto contiguousBufferOf = [&](Value tensor) -> FailureOr<Value> {
      FailureOr<Value> buffer = getBuffer(rewriter, tensor, options, state);
      if (failed(buffer))
        return failure();
      return lazy::contiguousBuffer(rewriter, loc, options, *buffer);
    };
    SmallVector<Value> buffers;
    for (Value tensor : tensors) {
      FailureOr<Value> buffer = contiguousBufferOf(tensor);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    Value bias;
    if (attention.getBias()) {
      FailureOr<Value> buffer = contiguousBufferOf(attention.getBias());
      if (failed(buffer))
        return failure();
      bias = *buffer;
    }
    FailureOr<Value> seedBuffer =
        getBuffer(rewriter, attention.getSeed(), options, state);
    if (failed(seedBuffer))
      return failure();
    Value seed = memref::LoadOp::create(rewriter, loc, *seedBuffer);

    Value q = buffers[0], k = buffers[1], v = buffers[2];
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type(),
         f64 = rewriter.getF64Type();
    auto dim = [&](Value buffer, int64_t d) -> Value {
      return arith::IndexCastOp::create(
          rewriter, loc, i64, memref::DimOp::create(rewriter, loc, buffer, d));
    };
    auto constant = [&](Type type, int64_t value) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getIntegerAttr(type, value));
    };
    auto real = [&](double value) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getFloatAttr(f64, value));
    };

    // sizes: batch0..3 (leading 1s), Tq, Tk, d, dv, the bias's six sizes.
    int64_t rank = cast<MemRefType>(q.getType()).getRank();
    SmallVector<Value> sizes;
    for (int64_t d = rank - 2; d < 4; ++d)
      sizes.push_back(constant(i64, 1));
    for (int64_t d = 0; d < rank - 2; ++d)
      sizes.push_back(dim(q, d));
    sizes.push_back(dim(q, rank - 2));
    sizes.push_back(dim(k, rank - 2));
    sizes.push_back(dim(q, rank - 1));
    sizes.push_back(dim(v, rank - 1));
    for (int64_t d = rank; d < 6; ++d)
      sizes.push_back(constant(i64, bias ? 1 : 0));
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(bias ? dim(bias, d) : constant(i64, 0));
    auto sizesType = MemRefType::get({LAZYRT_ATTENTION_SIZES}, i64);
    Value sizesBuffer = memref::AllocaOp::create(rewriter, loc, sizesType);
    for (auto [index, size] : llvm::enumerate(sizes))
      memref::StoreOp::create(
          rewriter, loc, size, sizesBuffer,
          ValueRange{arith::ConstantIndexOp::create(rewriter, loc, index)});

    // The output: the result type, its dynamic sizes from the operands.
    SmallVector<Value> outputSizes;
    bool keyValue = false;
    if constexpr (std::is_same_v<OpTy, lazy::AttentionGradOp>)
      keyValue = attention.getGradient() == lazy::AttentionGradient::key_value;
    Value rowsFrom = keyValue ? k : q;
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      if (d < rank - 1) {
        outputSizes.push_back(
            memref::DimOp::create(rewriter, loc, rowsFrom, d));
        continue;
      }
      // The last: dv + 1 (forward), d (query), d + dv (key_value).
      Value depth = memref::DimOp::create(rewriter, loc, q, rank - 1);
      Value valueDepth = memref::DimOp::create(rewriter, loc, v, rank - 1);
      Value last = depth;
      if (isa<lazy::AttentionOp>(op))
        last = arith::AddIOp::create(
            rewriter, loc, valueDepth,
            arith::ConstantIndexOp::create(rewriter, loc, 1));
      else if (keyValue)
        last = arith::AddIOp::create(rewriter, loc, depth, valueDepth);
      outputSizes.push_back(last);
    }
    FailureOr<Value> output = options.createAlloc(
        rewriter, loc, MemRefType::get(resultType.getShape(), element),
        outputSizes);
    if (failed(output))
      return failure();

    SmallVector<Value> operands;
    for (Value buffer : ArrayRef(buffers).take_front(3))
      operands.push_back(lazy::runtimeAddress(rewriter, loc, buffer));
    operands.push_back(bias ? lazy::runtimeAddress(rewriter, loc, bias)
                            : constant(i64, 0));
    for (Value buffer : ArrayRef(buffers).drop_front(3))
      operands.push_back(lazy::runtimeAddress(rewriter, loc, buffer));
    operands.push_back(lazy::runtimeAddress(rewriter, loc, *output));
    operands.push_back(lazy::runtimeAddress(rewriter, loc, sizesBuffer));
    operands.push_back(real(attention.getScale().convertToDouble()));
    operands.push_back(real(attention.getDropout().convertToDouble()));
    operands.push_back(seed);
    operands.push_back(constant(i32, attention.getCausal() ? 1 : 0));
    SmallVector<Type> types;
    for (Value operand : operands)
      types.push_back(operand.getType());
    func::FuncOp kernel = lazy::declareRuntimeFunction(
        op, name, rewriter.getFunctionType(types, {}));
    func::CallOp::create(rewriter, loc, kernel, operands);
    replaceOpWithBufferizedValues(rewriter, op, *output);
    return success();
  }
};

} // namespace

bool mlir::lazy::isAttentionKernel(StringRef callee) {
  return callee.starts_with(kKernelPrefix);
}

void mlir::lazy::registerAttentionBufferizationModel(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, lazy::LazyDialect *) {
    lazy::AttentionOp::attachInterface<
        AttentionBufferization<lazy::AttentionOp>>(*context);
    lazy::AttentionGradOp::attachInterface<
        AttentionBufferization<lazy::AttentionGradOp>>(*context);
  });
}
