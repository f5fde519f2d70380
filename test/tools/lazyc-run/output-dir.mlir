// --output-dir writes output i as DIR/out<i>.npy (creating DIR): a version 1.0
// .npy file whose header names the dtype and the shape. A written file reads
// back as an input with the same values.

// RUN: rm -rf %t.dir
// RUN: lazyc-run %s --entry=constants --output-dir=%t.dir
// RUN: grep -a -o "{'descr'.*}" %t.dir/out0.npy | FileCheck %s --check-prefix=HEADER0
// RUN: grep -a -o "{'descr'.*}" %t.dir/out1.npy | FileCheck %s --check-prefix=HEADER1
// RUN: head -c 8 %t.dir/out0.npy | od -A n -t x1 | FileCheck %s --check-prefix=MAGIC
// RUN: lazyc-run %s --entry=negate --input=%t.dir/out0.npy --input=%t.dir/out1.npy --print | FileCheck %s --check-prefix=READ

// HEADER0: {{^}}{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }{{$}}
// A 1-tuple may be written (4,) as numpy does or (4, ): both are the Python
// literal the format requires.
// HEADER1: {{^}}{'descr': '<i8', 'fortran_order': False, 'shape': (4,{{ ?}}), }{{$}}
// The magic string "\x93NUMPY" and version 1.0.
// MAGIC: 93 4e 55 4d 50 59 01 00
// READ: out0: tensor<2x3xf32> [-1.000000e+00, 2.500000e+00, -3.000000e+00, -4.000000e+00, -5.000000e+00, 6.000000e+00]
// READ: out1: tensor<4xi64> [-7, 0, 7, -1099511627776]

func.func @constants() -> (tensor<2x3xf32>, tensor<4xi64>) {
  %0 = lazy.constant dense<[[1.0, -2.5, 3.0], [4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %1 = lazy.constant dense<[7, 0, -7, 1099511627776]> : tensor<4xi64>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi64>
}

func.func @negate(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>) {
  %0 = lazy.neg %x : tensor<2x3xf32>
  %1 = lazy.neg %i : tensor<4xi64>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi64>
}
