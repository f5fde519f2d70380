// lazyc-run --device: where a trace compiles and runs. A device that cannot
// be used is exit status 77 with the reason (cuda:99: no machine has it).
// RUN: lazyc-run %s --device cpu --print | FileCheck %s
// RUN: lazyc-run --device cpu --check-device | FileCheck %s --check-prefix=CPU
// RUN: not lazyc-run %s --device gpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sh -c 'lazyc-run %s --device cuda:99; echo "status $?"' 2>&1 | FileCheck %s --check-prefix=NODEV

// CHECK: out0: tensor<3xf32> [2.000000e+00, 4.000000e+00, 6.000000e+00]
// CPU: cpu can run traces
// BAD: lazyc-run: error: bad --device 'gpu' (expected cpu, cuda or cuda:N)
// NODEV: lazyc-run: cannot run on cuda:99: {{.+}}
// NODEV-NEXT: status 77
func.func @double() -> tensor<3xf32> {
  %x = lazy.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = lazy.add %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
