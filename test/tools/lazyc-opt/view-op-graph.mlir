// lazyc-opt prints a trace as a Graphviz graph (upstream's --view-op-graph,
// written to stderr): one node per op, regions as clusters.
//
// RUN: lazyc-opt %s --view-op-graph -o /dev/null 2>&1 | FileCheck %s
//
// CHECK: digraph G {
// CHECK-DAG: label = "lazy.if : (tensor<4xf32>)
// CHECK-DAG: |lazy.exp\l|
// CHECK-DAG: |lazy.neg\l|
func.func @branch(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = lazy.if %c : tensor<i1> -> (tensor<4xf32>) {
    %e = lazy.exp %x : tensor<4xf32>
    lazy.yield %e : tensor<4xf32>
  } else {
    %n = lazy.neg %x : tensor<4xf32>
    lazy.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
