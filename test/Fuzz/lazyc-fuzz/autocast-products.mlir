// lazyc-fuzz programs whose seed ends in 6 run their float products under
// AutocastScope, BFloat16 and Float16 in turn, and cast each back to the
// operands' promoted type: the reference evaluator checks the narrow
// products' code (operands widened into the f32 GEMM on the CPU) in lazy,
// eager and asynchronous runs. Seed 46 has a BFloat16 product, seed 496 a
// Float16 one. Each seed stands for its program as long as the generator
// draws programs the same way.

// RUN: lazyc-fuzz --replay 46 --max-ops 20 --print | FileCheck %s --check-prefix=BF16
// BF16: cast([&] { AutocastScope autocast(DType::BFloat16); return matmul(t13, t19); }(), promoteTypes(t13.dtype(), t19.dtype()))
// RUN: env LAZYC_CACHE_DIR= lazyc-fuzz --replay 46 --max-ops 20 --mode all | FileCheck %s --check-prefix=CHECKED
// CHECKED: lazyc-fuzz: 1 programs {{.*}} checked {{.*}}, 0 failed,

// RUN: lazyc-fuzz --replay 496 --max-ops 20 --print | FileCheck %s --check-prefix=F16
// F16: cast([&] { AutocastScope autocast(DType::Float16); return matmul(t0, t2); }(), promoteTypes(t0.dtype(), t2.dtype()))
// RUN: env LAZYC_CACHE_DIR= lazyc-fuzz --replay 496 --max-ops 20 --mode all | FileCheck %s --check-prefix=CHECKED
