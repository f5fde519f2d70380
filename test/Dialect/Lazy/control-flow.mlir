// RUN: lazyc-opt %s | lazyc-opt | FileCheck %s
// RUN: lazyc-opt %s --mlir-print-op-generic | lazyc-opt | FileCheck %s

// lazy.if, lazy.while and lazy.yield round-trip through their custom syntax
// and the generic form; regions use values from above.

// CHECK-LABEL: func.func @branch
// CHECK: %[[R:.*]]:2 = lazy.if %{{.*}} : tensor<i1> -> (tensor<4xf32>, tensor<f32>) {
// CHECK:   lazy.mul
// CHECK:   lazy.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>
// CHECK: } else {
// CHECK:   lazy.neg
// CHECK:   lazy.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>
// CHECK: }
func.func @branch(%c: tensor<i1>, %x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %r:2 = lazy.if %c : tensor<i1> -> (tensor<4xf32>, tensor<f32>) {
    %d = lazy.mul %x, %x : tensor<4xf32>
    lazy.yield %d, %s : tensor<4xf32>, tensor<f32>
  } else {
    %n = lazy.neg %x : tensor<4xf32>
    lazy.yield %n, %s : tensor<4xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @loop
// CHECK: %{{.*}}:2 = lazy.while %{{.*}}, %{{.*}} : tensor<i32>, tensor<4xf32> condition {
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<4xf32>):
// CHECK:   lazy.compare lt
// CHECK:   lazy.yield %{{.*}} : tensor<i1>
// CHECK: } body {
// CHECK:   lazy.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<4xf32>
func.func @loop(%i0: tensor<i32>, %x0: tensor<4xf32>, %n: tensor<i32>, %one: tensor<i32>) -> (tensor<i32>, tensor<4xf32>) {
  %r:2 = lazy.while %i0, %x0 : tensor<i32>, tensor<4xf32> condition {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %p = lazy.compare lt, %i, %n : tensor<i32>
    lazy.yield %p : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %j = lazy.add %i, %one : tensor<i32>
    %y = lazy.mul %x, %x : tensor<4xf32>
    lazy.yield %j, %y : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @rows
// CHECK: %[[R:.*]] = lazy.index_row %{{.*}}[%{{.*}}] : tensor<8x4xf32>
// CHECK: lazy.update_row %{{.*}}[%{{.*}}] = %[[R]] : tensor<8x4xf32>, tensor<4xf32>
func.func @rows(%stack: tensor<8x4xf32>, %i: tensor<i64>) -> tensor<8x4xf32> {
  %row = lazy.index_row %stack[%i] : tensor<8x4xf32>
  %next = lazy.update_row %stack[%i] = %row : tensor<8x4xf32>, tensor<4xf32>
  return %next : tensor<8x4xf32>
}
