// REQUIRES: ptxas
// RUN: lazyc-opt %s --lazy-gpu-pipeline | %extract-ptx --ptxas %cuda-ptxas --arch sm_90 | FileCheck %s

// The GPU pipeline compiles the 16-bit and wide unsigned integers, the
// bitwise ops and the shifts into kernels NVIDIA's ptxas assembles: the
// shifts guarded where the amount reaches the width, ui64 division
// unsigned, floats to ui64 through cvt.rzi.u64.
// CHECK: .visible .entry
// CHECK-DAG: shl.b16
// CHECK-DAG: shr.s16
// CHECK-DAG: div.u64
// CHECK-DAG: cvt.rzi.u64.f32
// CHECK-DAG: xor.b32
// CHECK: // ptxas: assembled for sm_90

func.func @wide(%a: tensor<256xi16>, %s: tensor<256xi16>, %u: tensor<256xui64>, %v: tensor<256xui64>, %x: tensor<256xf32>, %w: tensor<256xui32>, %z: tensor<256xui32>) -> (tensor<256xi16>, tensor<256xi16>, tensor<256xui64>, tensor<256xui64>, tensor<256xui32>) {
  %0 = lazy.shift_left %a, %s : tensor<256xi16>
  %1 = lazy.shift_right %a, %s : tensor<256xi16>
  %2 = lazy.floor_div %u, %v : tensor<256xui64>
  %3 = lazy.cast %x : tensor<256xf32> to tensor<256xui64>
  %4 = lazy.bit_xor %w, %z : tensor<256xui32>
  %5 = lazy.bit_not %4 : tensor<256xui32>
  return %0, %1, %2, %3, %5 : tensor<256xi16>, tensor<256xi16>, tensor<256xui64>, tensor<256xui64>, tensor<256xui32>
}
