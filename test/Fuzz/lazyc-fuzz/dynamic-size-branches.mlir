// A lazyc-fuzz program whose trace, compiled again with a size made
// dynamic, has a cond whose branches compute from a captured value of that
// size: they yield a dynamic shape where the trace recorded a static one.
// The importer gave the cond its recorded (static) result type, the module
// failed to verify, and the trace stayed static for every size (recompiled
// each time, silently but for LAZYC_EXPLAIN). The cond's result now takes
// the join of the branches' shapes. Each seed stands for its program as
// long as the generator draws programs the same way.

// RUN: env LAZYC_CACHE_DIR= LAZYC_EXPLAIN=1 lazyc-fuzz --replay 7294 --mode lazy 2>&1 | FileCheck %s
// CHECK-NOT: sizes stay static
// CHECK: lazyc-fuzz: 1 programs {{.*}} elements checked {{.*}}, 0 failed,
