// REQUIRES: ptxas
// RUN: lazyc-opt %S/lazy-gpu-pipeline.mlir --lazy-gpu-pipeline | %extract-ptx --ptxas %cuda-ptxas --arch sm_90 | FileCheck %s
// RUN: lazyc-opt %S/lazy-gpu-pipeline.mlir --lazy-gpu-pipeline="chip=sm_80" | %extract-ptx --ptxas %cuda-ptxas --arch sm_80 | FileCheck %s --check-prefix=SM80
// RUN: lazyc-opt %S/gpu-long-sums.mlir --lazy-gpu-pipeline | %extract-ptx --ptxas %cuda-ptxas --arch sm_90 | FileCheck %s --check-prefix=SUMS

// NVIDIA's ptxas accepts the 4 kernels of the pipeline test (one module),
// for the chip asked for; math functions come from the toolkit's libdevice,
// linked in (the driver could not resolve a call to an external __nv_tanhf
// when it loads the module).
// CHECK-NOT: .extern .func
// CHECK-COUNT-4: .visible .entry
// CHECK: // ptxas: assembled for sm_90
// SM80: .target sm_80
// SM80: // ptxas: assembled for sm_80

// The blocked long sums of gpu-long-sums.mlir: 4 kernels for the sum of
// everything (a fill, then three levels), 8 for the column sums.
// SUMS-COUNT-4: .visible .entry sum_everything_kernel
// SUMS-COUNT-8: .visible .entry column_sums_kernel
// SUMS: // ptxas: assembled for sm_90
