//===- CheckOutputShapes.cpp - Guard copies into out-parameters -----------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements lazy-check-output-shapes.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Codegen/Passes.h"
#include "lazyc/Dialect/Lazy/IR/TiedArgument.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYCHECKOUTPUTSHAPESPASS
#include "lazyc/Codegen/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

static constexpr StringLiteral kReportName =
    "lazyrt_report_output_shape_mismatch";

namespace {
struct LazyCheckOutputShapesPass
    : mlir::lazy::impl::LazyCheckOutputShapesPassBase<
          LazyCheckOutputShapesPass> {
  // A module pass: it declares the report function in the module, which a
  // function pass may not do (functions are processed in parallel).
  void runOnOperation() override {
    for (func::FuncOp function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal())
        guardCopies(function);
  }

  void guardCopies(func::FuncOp function) {
    Block &entry = function.front();
    // The report names the out-parameter by its position among all the
    // arguments: which arguments were inputs is no longer visible here (a
    // static output needs no guard), so the caller, which knows, subtracts
    // its input count.
    SmallVector<memref::CopyOp> copies;
    function.walk([&](memref::CopyOp copy) {
      auto target = dyn_cast<BlockArgument>(copy.getTarget());
      if (target && target.getOwner() == &entry &&
          !cast<MemRefType>(target.getType()).hasStaticShape())
        copies.push_back(copy);
    });
    if (copies.empty())
      return;

    func::FuncOp report = getOrDeclareReport();
    bool anyTied = false;
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      anyTied = anyTied ||
                function.getArgAttr(i, lazy::kTiedArgumentAttrName) != nullptr;
    for (memref::CopyOp copy : copies) {
      // A fresh out-parameter (no result is tied to an argument, whose
      // buffer it could share) takes the result directly.
      if (!anyTied && computeInOutParameter(copy, entry, report))
        continue;
      OpBuilder b(copy);
      Location loc = copy.getLoc();
      auto targetType = cast<MemRefType>(copy.getTarget().getType());
      Value ok = arith::ConstantIntOp::create(b, loc, 1, /*width=*/1);
      for (int64_t d = 0, e = targetType.getRank(); d < e; ++d) {
        if (!targetType.isDynamicDim(d))
          continue;
        Value want = memref::DimOp::create(b, loc, copy.getSource(), d);
        Value have = memref::DimOp::create(b, loc, copy.getTarget(), d);
        ok = arith::AndIOp::create(
            b, loc, ok,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, want,
                                  have));
      }
      int64_t index = cast<BlockArgument>(copy.getTarget()).getArgNumber();
      auto guard = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
      copy->moveBefore(guard.thenBlock()->getTerminator());
      OpBuilder elseBuilder = guard.getElseBodyBuilder();
      Value indexValue = arith::ConstantIntOp::create(elseBuilder, loc, index,
                                                      /*width=*/64);
      func::CallOp::create(elseBuilder, loc, report, ValueRange{indexValue});
    }
  }

  /// Replaces the allocation `copy` copies from into its out-parameter by
  /// the out-parameter itself when the caller's buffer has the sizes the
  /// allocation would have (checked where the allocation was, before the
  /// result is computed), and by the allocation otherwise, after a report:
  /// no copy of a dynamically shaped result. False if `copy` does not copy
  /// a whole allocation of the entry block.
  bool computeInOutParameter(memref::CopyOp copy, Block &entry,
                             func::FuncOp report) {
    auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
    Value target = copy.getTarget();
    if (!alloc || alloc->getBlock() != &entry || copy->getBlock() != &entry ||
        alloc.getType() != target.getType() || !target.hasOneUse())
      return false;
    OpBuilder b(alloc);
    Location loc = alloc.getLoc();
    MemRefType type = alloc.getType();
    Value ok = arith::ConstantIntOp::create(b, loc, 1, /*width=*/1);
    for (int64_t d = 0, k = 0, e = type.getRank(); d < e; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value have = memref::DimOp::create(b, loc, target, d);
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                alloc.getDynamicSizes()[k++], have));
    }
    auto choice =
        scf::IfOp::create(b, loc, TypeRange{type}, ok, /*withElse=*/true);
    OpBuilder thenBuilder = choice.getThenBodyBuilder();
    scf::YieldOp::create(thenBuilder, loc, target);
    OpBuilder elseBuilder = choice.getElseBodyBuilder();
    int64_t index = cast<BlockArgument>(target).getArgNumber();
    func::CallOp::create(
        elseBuilder, loc, report,
        ValueRange{arith::ConstantIntOp::create(elseBuilder, loc, index, 64)});
    Operation *aside = elseBuilder.clone(*alloc);
    scf::YieldOp::create(elseBuilder, loc, aside->getResult(0));
    alloc.replaceAllUsesWith(choice.getResult(0));
    alloc.erase();
    copy.erase();
    return true;
  }

  func::FuncOp getOrDeclareReport() {
    ModuleOp module = getOperation();
    if (auto existing = module.lookupSymbol<func::FuncOp>(kReportName))
      return existing;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto report = func::FuncOp::create(b, module.getLoc(), kReportName,
                                       b.getFunctionType({b.getI64Type()}, {}));
    report.setPrivate();
    return report;
  }
};
} // namespace
