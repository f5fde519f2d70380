// Every input in crashes/ once crashed lazyc-opt's parse / verify / pass path
// (found by scripts/fuzz-lazyc-opt, or by hand). lazyc-opt-fuzz-replay runs
// each through the same fuzz target: parse, verify, print, the round trip,
// lazy-decompose + canonicalize + cse and lazy-lower-to-llvm. Each must end
// in diagnostics or success; a crash fails this test.
// RUN: lazyc-opt-fuzz-replay %S/crashes | FileCheck %s
// CHECK: ran {{[1-9][0-9]*}} inputs
