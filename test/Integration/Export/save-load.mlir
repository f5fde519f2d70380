// A staged function saved by one process and loaded by another computes the
// same scores (printed with 6 significant digits), and lazyc-run runs the
// file, passing the saved Variables after its input.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: lazyc-export-function save %t/model.lazyc > %t/saved.txt
// RUN: lazyc-export-function load %t/model.lazyc > %t/loaded.txt
// RUN: FileCheck %s --check-prefix=LOADED < %t/loaded.txt
// RUN: sed -e 's/^original://' %t/saved.txt > %t/saved-values.txt
// RUN: sed -n -e 's/^loaded://p' %t/loaded.txt > %t/loaded-values.txt
// RUN: diff %t/saved-values.txt %t/loaded-values.txt
// RUN: lazyc-run %t/model.lazyc --print | FileCheck %s --check-prefix=CLI
//
// LOADED: loaded classify: classify(x: Float32 [2, 3]) -> Float32 [2, 2]
// LOADED: loaded: {{.*}} | steps 1
//
// The results: the scores (softmax rows sum to 1), then the step counter's
// new value (saved as 1).
// CLI: out0: tensor<2x2xf32>
// CLI: out1: tensor<f32> [2.000000e+00]
