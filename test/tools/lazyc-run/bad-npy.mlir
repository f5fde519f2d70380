// lazyc-run on malformed .npy files: one `lazyc-run: error: <file>: ...`
// line each (exit code 1), never a crash. Inputs/make_bad_npy.py writes the
// files; each differs from good.npy in the one defect its name says.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_bad_npy.py %t
// RUN: lazyc-run %s --input=%t/good.npy --print | FileCheck %s --check-prefix=GOOD
// GOOD: out0: tensor<4x8xf32> [0.000000e+00,

// A dimension beyond int64 (std::stoll threw: an abort).
// RUN: not lazyc-run %s --input=%t/huge-dim.npy 2>&1 | FileCheck %s --check-prefix=HUGE-DIM -DPATH=%t/huge-dim.npy
// HUGE-DIM: {{^}}lazyc-run: error: [[PATH]]: bad shape (99999999999999999999999, 8) (expected a tuple of non-negative integers){{$}}

// 2^62 x 8 elements: the element count wrapped around to 0, the data size
// check passed, and the function ran on a 2^62-row view of no data (a
// segmentation fault).
// RUN: not lazyc-run %s --input=%t/overflow.npy 2>&1 | FileCheck %s --check-prefix=OVERFLOW -DPATH=%t/overflow.npy
// OVERFLOW: {{^}}lazyc-run: error: [[PATH]]: shape (4611686018427387904, 8) has too many elements{{$}}

// A negative dimension (read as 1 before) and a shape that is not a tuple
// of integers (`(4 8)` was read as (4, 8)).
// RUN: not lazyc-run %s --input=%t/negative.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE -DPATH=%t/negative.npy
// NEGATIVE: {{^}}lazyc-run: error: [[PATH]]: bad shape (-1, 8) (expected a tuple of non-negative integers){{$}}
// RUN: not lazyc-run %s --input=%t/no-comma.npy 2>&1 | FileCheck %s --check-prefix=NO-COMMA -DPATH=%t/no-comma.npy
// NO-COMMA: {{^}}lazyc-run: error: [[PATH]]: bad shape (4 8) (expected a tuple of non-negative integers){{$}}
// RUN: not lazyc-run %s --input=%t/not-a-tuple.npy 2>&1 | FileCheck %s --check-prefix=NOT-A-TUPLE -DPATH=%t/not-a-tuple.npy
// NOT-A-TUPLE: {{^}}lazyc-run: error: [[PATH]]: header has no 'shape' tuple{{$}}

// A valid file with a 1 MiB header: std::regex matched it recursively and
// overflowed the stack.
// RUN: lazyc-run %s --input=%t/long-header.npy --print | FileCheck %s --check-prefix=GOOD

// Short data, a short header, an empty file, no 'descr', a big-endian type,
// Fortran order, an unknown format version.
// RUN: not lazyc-run %s --input=%t/truncated-data.npy 2>&1 | FileCheck %s --check-prefix=DATA -DPATH=%t/truncated-data.npy
// DATA: {{^}}lazyc-run: error: [[PATH]]: holds 100 data bytes, its shape needs 128{{$}}
// RUN: not lazyc-run %s --input=%t/truncated-header.npy 2>&1 | FileCheck %s --check-prefix=HEADER -DPATH=%t/truncated-header.npy
// HEADER: {{^}}lazyc-run: error: [[PATH]]: truncated header{{$}}
// RUN: not lazyc-run %s --input=%t/empty.npy 2>&1 | FileCheck %s --check-prefix=EMPTY -DPATH=%t/empty.npy
// EMPTY: {{^}}lazyc-run: error: [[PATH]]: not a .npy file{{$}}
// RUN: not lazyc-run %s --input=%t/no-descr.npy 2>&1 | FileCheck %s --check-prefix=NO-DESCR -DPATH=%t/no-descr.npy
// NO-DESCR: {{^}}lazyc-run: error: [[PATH]]: header has no 'descr'{{$}}
// RUN: not lazyc-run %s --input=%t/big-endian.npy 2>&1 | FileCheck %s --check-prefix=ENDIAN -DPATH=%t/big-endian.npy
// ENDIAN: {{^}}lazyc-run: error: [[PATH]]: unsupported element type '>f4' (supported: <f4 <f8 <f2 <i4 <i8 |b1 |i1 |u1 <i2 <u2 <u4 <u8){{$}}
// RUN: not lazyc-run %s --input=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN -DPATH=%t/fortran.npy
// FORTRAN: {{^}}lazyc-run: error: [[PATH]]: Fortran-order arrays are not supported{{$}}
// RUN: not lazyc-run %s --input=%t/version-4.npy 2>&1 | FileCheck %s --check-prefix=VERSION -DPATH=%t/version-4.npy
// VERSION: {{^}}lazyc-run: error: [[PATH]]: unsupported .npy version 4{{$}}

func.func @relu(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = lazy.relu %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
