// Programs of lazyc-fuzz that aborted the process inside LLVM 22's x86
// backend on AVX512-BF16 CPUs ("Cannot select: v16bf16 =
// X86ISD::VPERM2X128", "Do not know how to soft promote this operator's
// operand!"), replayed and checked against the reference evaluator. The JIT
// compiles without the CPU's bf16 instructions; the last two also need the
// __truncsfbf2 routine it provides (a bool -> bf16 cast reaches LLVM as
// `uitofp i1 to bfloat`). Each seed stands for its program as long as the
// generator draws programs the same way.

// RUN: lazyc-fuzz --replay 2300537 | FileCheck %s
// RUN: lazyc-fuzz --replay 2300915 | FileCheck %s
// RUN: lazyc-fuzz --replay 2400429 | FileCheck %s
// CHECK: lazyc-fuzz: 1 programs {{.*}} elements checked {{.*}}, 0 failed,
