// Inputs and results too large to allocate: lazyc-run says so (exit code 1).
// Before, the element count could wrap around, and std::vector threw
// std::bad_alloc (an abort: the tools are built without exceptions).

// RUN: not lazyc-run %s --entry=relu --input=random:4611686018427387904x8 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: {{^}}lazyc-run: error: argument #0 of shape 4611686018427387904x8 has too many elements{{$}}

// 10^12 x 8 f32 elements are 32 TB.
// RUN: not lazyc-run %s --entry=relu --input=random:1000000000000x8 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: {{^}}lazyc-run: error: argument #0 of shape 1000000000000x8 needs 32000000000000 bytes, more than this machine's memory ({{[0-9]+}}){{$}}
// RUN: not lazyc-run %s --entry=huge_result 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: {{^}}lazyc-run: error: result #0 of shape 1000000000000x8 needs 32000000000000 bytes, more than this machine's memory ({{[0-9]+}}){{$}}

func.func @relu(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = lazy.relu %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

func.func @huge_result(%x: tensor<8xf32>) -> tensor<1000000000000x8xf32> {
  %0 = lazy.broadcast %x to [1000000000000, 8] : tensor<8xf32>
  return %0 : tensor<1000000000000x8xf32>
}
