// lazyc-run on malformed .npy files: one `lazyc-run: error: '<file>' ...`
// line each (exit code 1), never a crash, worded as the library's loadNpy
// words it (both read with lazyc/Formats/Npy.h). Inputs/make_bad_npy.py writes the
// files; each differs from good.npy in the one defect its name says.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_bad_npy.py %t
// RUN: lazyc-run %s --input=%t/good.npy --print | FileCheck %s --check-prefix=GOOD
// GOOD: out0: tensor<4x8xf32> [0.000000e+00,

// A dimension beyond int64 (std::stoll threw: an abort).
// RUN: not lazyc-run %s --input=%t/huge-dim.npy 2>&1 | FileCheck %s --check-prefix=HUGE-DIM -DPATH=%t/huge-dim.npy
// HUGE-DIM: {{^}}lazyc-run: error: '[[PATH]]' has a malformed header: it has a 'shape' that is not a tuple of non-negative integers{{$}}

// 2^62 x 8 elements: the element count wrapped around to 0, the data size
// check passed, and the function ran on a 2^62-row view of no data (a
// segmentation fault).
// RUN: not lazyc-run %s --input=%t/overflow.npy 2>&1 | FileCheck %s --check-prefix=OVERFLOW -DPATH=%t/overflow.npy
// OVERFLOW: {{^}}lazyc-run: error: '[[PATH]]' has a shape [4611686018427387904, 8] whose size overflows 64 bits{{$}}

// A negative dimension (read as 1 before) and a shape that is not a tuple
// of integers (`(4 8)` was read as (4, 8)).
// RUN: not lazyc-run %s --input=%t/negative.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE -DPATH=%t/negative.npy
// NEGATIVE: {{^}}lazyc-run: error: '[[PATH]]' has a malformed header: it has a 'shape' that is not a tuple of non-negative integers{{$}}
// RUN: not lazyc-run %s --input=%t/no-comma.npy 2>&1 | FileCheck %s --check-prefix=NO-COMMA -DPATH=%t/no-comma.npy
// NO-COMMA: {{^}}lazyc-run: error: '[[PATH]]' has a malformed header: it has a 'shape' that is not a tuple of non-negative integers{{$}}
// RUN: not lazyc-run %s --input=%t/not-a-tuple.npy 2>&1 | FileCheck %s --check-prefix=NOT-A-TUPLE -DPATH=%t/not-a-tuple.npy
// NOT-A-TUPLE: {{^}}lazyc-run: error: '[[PATH]]' has a malformed header: it has a 'shape' that is not a tuple of non-negative integers{{$}}

// A valid file with a 1 MiB header: std::regex matched it recursively and
// overflowed the stack.
// RUN: lazyc-run %s --input=%t/long-header.npy --print | FileCheck %s --check-prefix=GOOD

// Short data, a short header, an empty file, no 'descr', a big-endian type,
// Fortran order, an unknown format version.
// RUN: not lazyc-run %s --input=%t/truncated-data.npy 2>&1 | FileCheck %s --check-prefix=DATA -DPATH=%t/truncated-data.npy
// DATA: {{^}}lazyc-run: error: '[[PATH]]' is truncated: it holds 100 data bytes, but its shape [4, 8] of '<f4' needs 128{{$}}
// RUN: not lazyc-run %s --input=%t/truncated-header.npy 2>&1 | FileCheck %s --check-prefix=HEADER -DPATH=%t/truncated-header.npy
// HEADER: {{^}}lazyc-run: error: '[[PATH]]' is truncated: its header needs 255 bytes, the file has 8 after the header length{{$}}
// RUN: not lazyc-run %s --input=%t/empty.npy 2>&1 | FileCheck %s --check-prefix=EMPTY -DPATH=%t/empty.npy
// EMPTY: {{^}}lazyc-run: error: '[[PATH]]' is not a .npy file (it does not start with "\x93NUMPY"){{$}}
// RUN: not lazyc-run %s --input=%t/no-descr.npy 2>&1 | FileCheck %s --check-prefix=NO-DESCR -DPATH=%t/no-descr.npy
// NO-DESCR: {{^}}lazyc-run: error: '[[PATH]]' has a malformed header: it has no 'descr'{{$}}
// RUN: not lazyc-run %s --input=%t/big-endian.npy 2>&1 | FileCheck %s --check-prefix=ENDIAN -DPATH=%t/big-endian.npy
// ENDIAN: {{^}}lazyc-run: error: '[[PATH]]' holds big-endian data ('>f4'); only little-endian is supported (numpy: a.astype('<f4')){{$}}
// RUN: not lazyc-run %s --input=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN -DPATH=%t/fortran.npy
// FORTRAN: {{^}}lazyc-run: error: '[[PATH]]' is in Fortran order (fortran_order: True); only C order is supported (numpy: np.ascontiguousarray(a)){{$}}
// RUN: not lazyc-run %s --input=%t/version-4.npy 2>&1 | FileCheck %s --check-prefix=VERSION -DPATH=%t/version-4.npy
// VERSION: {{^}}lazyc-run: error: '[[PATH]]' has .npy format version 4.0 (1.0, 2.0 and 3.0 are supported){{$}}

func.func @relu(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = lazy.relu %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
