// lazyc-fuzz programs whose chain of repeated blocks is differentiated:
// the trace of the forward copies and their backward passes runs cut into
// blocks, and the reference evaluator checks every value crossing a cut
// (every element constrained). Seed 241 is cut by the repeated-block search
// alone: the forward copies, then the backward copies. Seed 441 also puts
// each copy in a CompileBlock: its bounds cut the forward pass, the tape
// cuts the backward pass at the same bounds, and the search's cuts are
// added. Each seed stands for its program as long as the generator draws
// programs the same way.

// RUN: env LAZYC_CACHE_DIR= LAZYC_EXPLAIN=1 lazyc-fuzz --replay 241 --max-ops 6 --mode both 2>&1 | FileCheck %s --check-prefix=SEARCH
// SEARCH: a trace of 2814 nodes runs as 52 traces, cut at its repeated blocks: 33 copies of 35 nodes from node 72; 16 copies of 86 nodes from node 1394
// SEARCH: lazyc-fuzz: 1 programs {{.*}} checked (0 unconstrained), 0 failed,

// RUN: env LAZYC_CACHE_DIR= LAZYC_EXPLAIN=1 lazyc-fuzz --replay 441 --max-ops 6 --mode both 2>&1 | FileCheck %s --check-prefix=MARKED
// MARKED: a trace of 2415 nodes runs as 81 traces, cut at CompileBlock bounds and its repeated blocks: 30 copies of 41 nodes from node 84; 15 copies of 64 nodes from node 1426
// MARKED: lazyc-fuzz: 1 programs {{.*}} checked (0 unconstrained), 0 failed,
