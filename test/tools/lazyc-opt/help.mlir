// RUN: lazyc-opt --help | FileCheck %s

// lazyc-opt lists the lazy dialect next to the upstream dialects it lowers to,
// and the lazyc passes.
// CHECK: Available Dialects: {{.*}}arith{{.*}}bufferization{{.*}}lazy{{.*}}linalg{{.*}}llvm{{.*}}math{{.*}}memref{{.*}}scf{{.*}}tensor{{.*}}vector
// CHECK-DAG: --lazy-decompose {{.*}}Rewrite composite lazy ops into primitive lazy ops
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
