// RUN: lazyc-run %s --bench --runs=3 | FileCheck %s
// RUN: lazyc-run %s --bench | FileCheck %s --check-prefix=DEFAULT
// RUN: lazyc-run %s --bench --runs=2 --print | FileCheck %s --check-prefix=PRINT

// --bench prints the compile time (split into the MLIR pipeline and LLVM) and
// the median of the timed runs with their minimum and maximum, in ms; the
// first (warm-up) run is not counted. The times themselves vary, so only
// their format is checked.

// CHECK-NOT: out0
//     CHECK: {{^}}compile: {{[0-9]+\.[0-9]}} ms (MLIR pipeline {{[0-9]+\.[0-9]}} ms, LLVM {{[0-9]+\.[0-9]}} ms){{$}}
// CHECK-NEXT: {{^}}run: median {{[0-9]+\.[0-9]+}} ms over 3 runs (min {{[0-9]+\.[0-9]+}}, max {{[0-9]+\.[0-9]+}}){{$}}
// CHECK-NOT: {{.}}

// 20 timed runs unless --runs says otherwise.
// DEFAULT: run: median {{.*}} ms over 20 runs

// --print comes first, then the timings.
//      PRINT: out0: tensor<1024xf32> [
// PRINT-NEXT: compile: {{.*}} ms (MLIR pipeline {{.*}} ms, LLVM {{.*}} ms)
// PRINT-NEXT: run: median {{.*}} ms over 2 runs

func.func @tanh_chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = lazy.tanh %x : tensor<1024xf32>
  %1 = lazy.mul %0, %x : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}
