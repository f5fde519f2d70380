// lazyc-run compiles traces: functions whose bodies hold lazy ops and a
// func.return. Anything else gets a diagnostic at the op (exit code 1)
// before the CPU pipeline sees it. Before, a declaration had its missing
// entry block read (`expects 1973636835 arguments`), a recursive call
// overflowed the stack at run time and an upstream op on tensors failed
// deep in bufferization.

// RUN: rm -rf %t && split-file %s %t
// RUN: not lazyc-run %t/declaration.mlir 2>&1 | FileCheck %s --check-prefix=DECLARATION
// DECLARATION: declaration.mlir:1:1: error: 'func.func' op has no body
// RUN: not lazyc-run %t/call.mlir --input=random:4 2>&1 | FileCheck %s --check-prefix=CALL
// CALL: call.mlir:2:8: error: 'func.call' op is not a lazy op: lazyc-run compiles functions of lazy ops
// RUN: not lazyc-run %t/arith.mlir 2>&1 | FileCheck %s --check-prefix=ARITH
// ARITH: arith.mlir:2:8: error: 'arith.addf' op is not a lazy op: lazyc-run compiles functions of lazy ops
// RUN: not lazyc-run %t/blocks.mlir 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: blocks.mlir:1:1: error: 'func.func' op has several blocks
// RUN: not lazyc-run %t/global.mlir 2>&1 | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: global.mlir:1:1: error: 'memref.global' op is not a function: lazyc-run compiles modules of functions of lazy ops

//--- declaration.mlir
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
//--- call.mlir
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @f(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
//--- arith.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- blocks.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1(%x : tensor<4xf32>)
^bb1(%y: tensor<4xf32>):
  %0 = lazy.relu %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- global.mlir
memref.global "private" @g : memref<4xf32> = dense<1.0>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lazy.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
