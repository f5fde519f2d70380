//===- GemmToCublas.cpp - Matmuls on buffers as cuBLASLt calls ------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-gpu-gemm-to-cublas.
//
//===----------------------------------------------------------------------===//

#include "../MatmulMaps.h"
#include "../RuntimeCalls.h"
#include "Launch.h"
#include "lazyc/Codegen/Attention.h"
#include "lazyc/Codegen/GPU/Passes.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGPUGEMMTOCUBLASPASS
#include "lazyc/Codegen/GPU/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

/// "f32", "bf16": the suffix of the runtime's entry points, or "" for an
/// element type cuBLASLt is not used for.
static StringRef typeSuffix(Type element) {
  if (element.isF32())
    return "f32";
  if (element.isF64())
    return "f64";
  if (element.isF16())
    return "f16";
  if (element.isBF16())
    return "bf16";
  return "";
}

/// Whether cuBLASLt can read the matrix of `type`'s last two dimensions:
/// one of them has a unit stride and the other is at least as long as a
/// row or column. Unknown strides and sizes count as readable (the runtime
/// checks them).
static bool mayHaveUnitStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t rank = type.getRank();
  int64_t rows = type.getDimSize(rank - 2), columns = type.getDimSize(rank - 1);
  int64_t rowStride = strides[rank - 2], columnStride = strides[rank - 1];
  auto atLeast = [](int64_t stride, int64_t length) {
    return ShapedType::isDynamic(stride) || ShapedType::isDynamic(length) ||
           stride >= length;
  };
  auto isOne = [](int64_t value) {
    return ShapedType::isDynamic(value) || value == 1;
  };
  return (isOne(columnStride) && (rows == 1 || atLeast(rowStride, columns))) ||
         (isOne(rowStride) && (columns == 1 || atLeast(columnStride, rows)));
}

/// Whether `type`'s innermost stride is 1 (statically).
static bool hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The runtime's entry point `name` with `inputs` (declared at its first
/// use), which queues its work on the stream.
static func::FuncOp declareStreamFunction(Operation *from, StringRef name,
                                          TypeRange inputs) {
  func::FuncOp function = lazy::declareDescriptorFunction(from, name, inputs);
  function->setAttr(mlir::lazy::kQueuesOnStreamAttr,
                    UnitAttr::get(from->getContext()));
  return function;
}

/// `matrix` as the runtime's rank-3 view: a matmul operand is a batch of
/// one.
static Value batchView(OpBuilder &b, Location loc, Value matrix) {
  auto type = cast<MemRefType>(matrix.getType());
  Type element = type.getElementType();
  if (type.getRank() == 2) {
    SmallVector<OpFoldResult> shape = {b.getIndexAttr(1),
                                       memref::getMixedSize(b, loc, matrix, 0),
                                       memref::getMixedSize(b, loc, matrix, 1)};
    matrix = memref::ExpandShapeOp::create(
        b, loc, ArrayRef<int64_t>{1, type.getDimSize(0), type.getDimSize(1)},
        matrix, ArrayRef<ReassociationIndices>{{0, 1}, {2}}, shape);
  }
  return memref::CastOp::create(b, loc, lazy::anyLayoutMemRefType(element, 3),
                                matrix);
}

/// A copy of `source` in a new buffer with the identity layout, which the
/// caller frees.
static Value contiguousCopy(OpBuilder &b, Location loc, Value source) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, source, dim));
  auto copyType = MemRefType::get(type.getShape(), type.getElementType());
  Value copy = memref::AllocOp::create(b, loc, copyType, dynamicSizes);
  memref::CopyOp::create(b, loc, source, copy);
  return copy;
}

/// The buffer `view` is a view of (itself when it is no view).
static Value baseBuffer(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>())
    view = viewLike.getViewSource();
  return view;
}

/// The generic just after `matmul` that adds a vector to each row of its
/// output and does nothing else, if the product can write the generic's
/// output instead (its output is read by nothing else); its bias operand
/// in `bias`.
static linalg::GenericOp biasAfter(linalg::MatmulOp matmul, Value &bias) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(matmul->getNextNode());
  Value product = matmul.getDpsInitOperand(0)->get();
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 2 ||
      generic.getNumParallelLoops() != 2 || !generic.hasPureBufferSemantics())
    return nullptr;
  MLIRContext *context = generic.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  AffineMap columns =
      AffineMap::get(2, 0, getAffineDimExpr(1, context), context);
  Block &body = generic.getRegion().front();
  Value productArgument, biasArgument;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (input->get() == product && map == identity)
      productArgument = body.getArgument(input->getOperandNumber());
    else if (map == columns) {
      bias = input->get();
      biasArgument = body.getArgument(input->getOperandNumber());
    }
  }
  OpOperand *output = generic.getDpsInitOperand(0);
  if (!productArgument || !biasArgument ||
      generic.getMatchingIndexingMap(output) != identity)
    return nullptr;
  // The body: one addf of the two, yielded.
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues().size() == 1
                 ? yield.getValues()[0].getDefiningOp<arith::AddFOp>()
                 : nullptr;
  if (!add || &body.front() != add.getOperation() ||
      !llvm::is_contained(ArrayRef<Value>{add.getLhs(), add.getRhs()},
                          productArgument) ||
      !llvm::is_contained(ArrayRef<Value>{add.getLhs(), add.getRhs()},
                          biasArgument))
    return nullptr;
  // The output and bias as cuBLASLt's epilogue reads them; the product's
  // own buffer read by nothing else (or the output itself).
  auto outputType = cast<MemRefType>(output->get().getType());
  auto biasType = cast<MemRefType>(bias.getType());
  if (biasType.getElementType() != outputType.getElementType() ||
      !hasUnitInnerStride(outputType) || !hasUnitInnerStride(biasType))
    return nullptr;
  // The product writes the output while it reads A and B: they must be
  // other buffers (distinct arguments are: a result computed in place is
  // the argument itself).
  Value base = baseBuffer(output->get());
  if (base == baseBuffer(matmul->getOperand(0)) ||
      base == baseBuffer(matmul->getOperand(1)))
    return nullptr;
  if (output->get() != product) {
    auto alloc = product.getDefiningOp<memref::AllocOp>();
    if (!alloc || llvm::any_of(product.getUsers(), [&](Operation *user) {
          return user != matmul && user != generic &&
                 !isa<memref::DeallocOp, linalg::FillOp>(user);
        }))
      return nullptr;
  }
  return generic;
}

namespace {
struct LazyGpuGemmToCublasPass
    : mlir::lazy::impl::LazyGpuGemmToCublasPassBase<LazyGpuGemmToCublasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The library calls the CPU bufferization made that read host memory.
    WalkResult hostKernels = module.walk([](func::CallOp call) {
      if (!lazy::isAttentionKernel(call.getCallee()))
        return WalkResult::advance();
      call.emitError("tiled attention (")
          << call.getCallee()
          << ") has no GPU kernel yet: nn::scaledDotProductAttention "
             "records the materialized form on GPUs";
      return WalkResult::interrupt();
    });
    if (hostKernels.wasInterrupted())
      return signalPassFailure();
    SmallVector<linalg::LinalgOp> products;
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          !op.hasPureBufferSemantics())
        return;
      Type element = getElementTypeOrSelf(op->getOperand(0).getType());
      bool sameTypes = llvm::all_of(op->getOperandTypes(), [&](Type type) {
        return getElementTypeOrSelf(type) == element;
      });
      auto output = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
      if (sameTypes && !typeSuffix(element).empty() &&
          mayHaveUnitStride(output))
        products.push_back(op);
    });
    for (linalg::LinalgOp op : products)
      rewrite(op);
  }

  void rewrite(linalg::LinalgOp op) {
    std::optional<int32_t> flags = lazy::gemmTransposeFlags(op);
    if (!flags)
      return;
    linalg::FillOp fill = lazy::zeroFillBefore(op);
    if (fill)
      *flags |= LAZYRT_GEMM_OVERWRITE;
    Value bias;
    linalg::GenericOp epilogue;
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
        matmul && fill)
      epilogue = biasAfter(matmul, bias);

    OpBuilder b(op);
    Location loc = op.getLoc();
    Type element = getElementTypeOrSelf(op->getOperand(0).getType());
    // Inputs cuBLASLt cannot read (broadcasts) are copied first.
    SmallVector<Value> copies;
    auto readable = [&](Value input) {
      if (mayHaveUnitStride(cast<MemRefType>(input.getType())))
        return input;
      copies.push_back(contiguousCopy(b, loc, input));
      return copies.back();
    };
    Value a = batchView(b, loc, readable(op->getOperand(0)));
    Value bMatrix = batchView(b, loc, readable(op->getOperand(1)));
    Value flagValue = arith::ConstantIntOp::create(b, loc, *flags, 32);
    std::string suffix = typeSuffix(element).str();
    if (epilogue) {
      Value output = epilogue.getDpsInitOperand(0)->get();
      Value biasView = memref::CastOp::create(
          b, loc, lazy::anyLayoutMemRefType(element, 1), bias);
      Value outputView = batchView(b, loc, output);
      func::FuncOp gemm = declareStreamFunction(
          op, "lazyrt_cuda_matmul_bias_" + suffix,
          {a.getType(), bMatrix.getType(), biasView.getType(),
           outputView.getType(), flagValue.getType()});
      func::CallOp::create(
          b, loc, gemm,
          ValueRange{a, bMatrix, biasView, outputView, flagValue});
      epilogue->erase();
    } else {
      Value c = batchView(b, loc, op.getDpsInitOperand(0)->get());
      func::FuncOp gemm = declareStreamFunction(
          op, "lazyrt_cuda_matmul_" + suffix,
          {a.getType(), bMatrix.getType(), c.getType(), flagValue.getType()});
      func::CallOp::create(b, loc, gemm, ValueRange{a, bMatrix, c, flagValue});
    }
    for (Value copy : copies)
      memref::DeallocOp::create(b, loc, copy);
    Value product = op.getDpsInitOperand(0)->get();
    if (fill)
      fill->erase();
    op->erase();
    // The epilogue wrote its own output: a buffer allocated for the product
    // alone is now only freed.
    if (auto alloc = product.getDefiningOp<memref::AllocOp>();
        epilogue && alloc &&
        llvm::all_of(alloc->getUsers(), llvm::IsaPred<memref::DeallocOp>)) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase();
      alloc->erase();
    }
  }
};
} // namespace
