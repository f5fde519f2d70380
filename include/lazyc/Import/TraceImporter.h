//===- TraceImporter.h - A trace as a lazy dialect module -------*- C++ -*-===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the bridge from a trace (lib/Trace, no MLIR) to the
// `lazy` dialect: one func.func whose arguments are the trace's buffers (and
// its promoted literals) and whose results are the trace's outputs, one lazy
// op per node, each located at the user's source line.
//
//===----------------------------------------------------------------------===//

#ifndef LAZYC_IMPORT_TRACEIMPORTER_H
#define LAZYC_IMPORT_TRACEIMPORTER_H

#include "lazyc/Trace/Trace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace lazyc::import {

struct ImportOptions {
  /// Arguments and results with dynamic dimensions (eager mode: one function
  /// per op and rank, whatever the sizes).
  bool dynamicShapes = false;
  /// For trace.literals[i]: pass it as a rank-0 argument (after the buffer
  /// arguments) instead of baking it in as a constant.
  std::vector<bool> promotedLiterals;
  /// Per size of the trace (numbered as trace::traceSizes() lists them):
  /// leave it to the call. The sizes of computed broadcasts, reshapes,
  /// random ops and literals that are dynamic (these or, with
  /// `dynamicShapes`, all) are passed as a last argument, a tensor<Nxi64>
  /// laid out as trace::runtimeSizes() writes it.
  std::vector<bool> dynamicSizes;
};

/// The MLIR element type of `dtype` (f32, ..., i1 for Bool).
mlir::Type elementType(mlir::MLIRContext &context, DType dtype);

/// The position in its trace of the node an op was imported from, found in
/// the op's location (or a location derived from it: a fused op's, a
/// diagnostic's); none if the location names no node.
std::optional<size_t> tracePosition(mlir::Location location);

/// Builds `func.func @<name>` computing `trace`. Each op's location names
/// its node: "mul#7" at the user's file and line, wrapped in an OpaqueLoc
/// holding the position (tracePosition).
mlir::OwningOpRef<mlir::ModuleOp> importTrace(const trace::Trace &trace,
                                              mlir::MLIRContext &context,
                                              const ImportOptions &options,
                                              llvm::StringRef name = "trace");

} // namespace lazyc::import

#endif // LAZYC_IMPORT_TRACEIMPORTER_H
