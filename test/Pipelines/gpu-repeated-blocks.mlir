// REQUIRES: ptxas
// A trace cut at its repeated blocks runs as traces of a few structures,
// and the GPU pipeline compiles each of them to kernels ptxas accepts. The
// cut is made before a device is chosen (lib/Engine/Materialize.cpp,
// cutOf), so the CPU run below dumps exactly the traces a GPU run compiles:
// lazyc-fuzz seed 241 (repeated-block-gradients.mlir) is a trace of 2814
// nodes run as 52 traces of 5 structures, one compile each.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LAZYC_DUMP_TRACES=%t LAZYC_EXPLAIN=1 lazyc-fuzz --replay 241 --max-ops 6 --mode lazy 2>&1 | FileCheck %s --check-prefix=CUT
// CUT: a trace of 2814 nodes runs as 52 traces, cut at its repeated blocks: 33 copies of 35 nodes from node 72; 16 copies of 86 nodes from node 1394
// CUT: lazyc-fuzz: 1 programs {{.*}} 0 failed, {{.*}} 5 traces compiled {{.*}}, 47 cache hits
//
// Each dumped trace through the GPU pipeline, then ptxas (one module per
// trace, separated for --split-input-file): five kernels, each assembled.
// RUN: sed -s '$a// -----' %t/*.mlir | lazyc-opt - --split-input-file --lazy-gpu-pipeline | %extract-ptx --ptxas %cuda-ptxas --arch sm_90 > %t.ptx
// RUN: grep -c ".visible .entry trace_kernel(" %t.ptx | FileCheck %s --check-prefix=KERNELS
// KERNELS: {{^}}5{{$}}
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK-COUNT-5: // ptxas: assembled for sm_90
// CHECK-NOT: ptxas
