// Each misuse of lazyc-run fails (exit code 1) with one precise
// `lazyc-run: error: ...` line.

// More inputs than the function has arguments.
// RUN: not lazyc-run %s --entry=relu --input=random --input=random 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// TOO-MANY: {{^}}lazyc-run: error: got 2 inputs for 1 arguments{{$}}

// A shape spec that is not AxBxC with non-negative integers.
// RUN: not lazyc-run %s --entry=relu --input=random:4xq 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE
// BAD-SHAPE: {{^}}lazyc-run: error: argument #0: bad shape '4xq' (expected e.g. random:4x8){{$}}
// RUN: not lazyc-run %s --entry=relu --input=random:4x-8 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: {{^}}lazyc-run: error: argument #0: bad shape '4x-8' (expected e.g. random:4x8){{$}}

// A .npy file that does not exist.
// RUN: rm -f %t.missing.npy
// RUN: not lazyc-run %s --entry=relu --input=%t.missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING -DPATH=%t.missing.npy
// MISSING: {{^}}lazyc-run: error: '[[PATH]]' cannot be opened: No such file or directory{{$}}

// A file that is not a .npy file.
// RUN: echo garbage > %t.garbage.npy
// RUN: not lazyc-run %s --entry=relu --input=%t.garbage.npy 2>&1 | FileCheck %s --check-prefix=NOT-NPY -DPATH=%t.garbage.npy
// NOT-NPY: {{^}}lazyc-run: error: '[[PATH]]' is not a .npy file (it does not start with "\x93NUMPY"){{$}}

// A .npy file of the wrong element type (f64 data, written by lazyc-run itself,
// for an f32 argument).
// RUN: rm -rf %t.dir
// RUN: lazyc-run %s --entry=f64_constant --output-dir=%t.dir
// RUN: not lazyc-run %s --entry=relu --input=%t.dir/out0.npy 2>&1 | FileCheck %s --check-prefix=DTYPE -DPATH=%t.dir/out0.npy
// DTYPE: {{^}}lazyc-run: error: argument #0: [[PATH]] holds f64 data, the function takes f32{{$}}

// A dynamic argument generated without a shape (explicitly or by default).
// RUN: not lazyc-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not lazyc-run %s --entry=dynamic --input=random 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: {{^}}lazyc-run: error: argument #0 has dynamic dimensions: give a .npy file or --input=random:AxB{{$}}

// Several functions and no --entry; an --entry that names none of them.
// RUN: not lazyc-run %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: {{^}}lazyc-run: error: the module has several functions: choose one with --entry{{$}}
// RUN: not lazyc-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=NO-ENTRY
// NO-ENTRY: {{^}}lazyc-run: error: no function @nope{{$}}

// Argument types lazyc-run cannot feed: a scalar and an i24 tensor.
// RUN: not lazyc-run %s --entry=scalar_argument 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: {{^}}lazyc-run: error: argument #0 has type f32, not a tensor lazyc supports{{$}}
// RUN: not lazyc-run %s --entry=i24_argument 2>&1 | FileCheck %s --check-prefix=I24
// I24: {{^}}lazyc-run: error: argument #0 has type tensor<4xi24>, not a tensor lazyc supports{{$}}

// A dynamic shape that the function's ops reject: the op's diagnostic, then
// the summary.
// RUN: not lazyc-run %s --entry=reshape --input=random:3x8 2>&1 | FileCheck %s --check-prefix=NO-FIT

// An input whose shape contradicts a static dimension of the declared type.
// RUN: not lazyc-run %s --entry=relu --input=random:3x8 2>&1 | FileCheck %s --check-prefix=CONTRADICTS
// CONTRADICTS: error: 'func.func' op argument #0 is declared 'tensor<4x8xf32>', which the given type 'tensor<3x8xf32>' does not fit
// CONTRADICTS-NOT: see current operation
// CONTRADICTS: lazyc-run: error: the inputs' shapes do not fit the function (see above)
// NO-FIT: error: 'lazy.reshape' op cannot reshape 'tensor<3x8xf32>' (24 elements) to [2, 16] (32 elements)
// NO-FIT: {{^}}lazyc-run: error: the inputs' shapes do not fit the function (see above){{$}}

// An input file that does not exist.
// RUN: not lazyc-run %t.nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NO-FILE -DPATH=%t.nonexistent.mlir
// NO-FILE: {{^}}lazyc-run: error: cannot open input file '[[PATH]]': No such file or directory{{$}}

func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = lazy.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = lazy.relu %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

func.func @reshape(%x: tensor<?x8xf32>) -> tensor<2x16xf32> {
  %0 = lazy.reshape %x to [2, 16] : tensor<?x8xf32>
  return %0 : tensor<2x16xf32>
}

func.func @f64_constant() -> tensor<3xf64> {
  %0 = lazy.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  return %0 : tensor<3xf64>
}

func.func @scalar_argument(%x: f32) -> tensor<4xf32> {
  %0 = lazy.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @i24_argument(%x: tensor<4xi24>) -> tensor<4xi24> {
  return %x : tensor<4xi24>
}
