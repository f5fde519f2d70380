// The persistent compile cache, across processes: the first run compiles and
// stores, the second only loads, with the same results.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env LAZYC_CACHE_DIR=%t/cache lazyc-run %s --entry=polynomial --bench --runs=1 --print | FileCheck %s --check-prefixes=VALUES,STORED
// RUN: env LAZYC_CACHE_DIR=%t/cache lazyc-run %s --entry=polynomial --bench --runs=1 --print | FileCheck %s --check-prefixes=VALUES,LOADED
// RUN: ls %t/cache | FileCheck %s --check-prefix=ONE-ENTRY

// A corrupted entry is noted, compiled again and rewritten; then it loads.
// RUN: bash -c 'for f in %t/cache/*.lzc; do printf x | dd of=$f bs=1 seek=$(( $(stat -c %%s $f) - 100 )) conv=notrunc 2>/dev/null; done'
// RUN: env LAZYC_CACHE_DIR=%t/cache lazyc-run %s --entry=polynomial --bench --runs=1 --print 2>%t/corrupted.err | FileCheck %s --check-prefixes=VALUES,STORED
// RUN: FileCheck %s --check-prefix=CORRUPTED < %t/corrupted.err
// RUN: env LAZYC_CACHE_DIR=%t/cache lazyc-run %s --entry=polynomial --bench --runs=1 --print | FileCheck %s --check-prefixes=VALUES,LOADED

// So is a truncated one.
// RUN: bash -c 'for f in %t/cache/*.lzc; do truncate -s 1000 $f; done'
// RUN: env LAZYC_CACHE_DIR=%t/cache lazyc-run %s --entry=polynomial --bench --runs=1 --print 2>%t/truncated.err | FileCheck %s --check-prefixes=VALUES,STORED
// RUN: FileCheck %s --check-prefix=TRUNCATED < %t/truncated.err

// And one another lazyc version wrote (its key names that version).
// RUN: bash -c 'for f in %t/cache/*.lzc; do sed -i "s/lazyc [0-9.]* build/lazyc 0.0.9 build/" $f; done'
// RUN: env LAZYC_CACHE_DIR=%t/cache lazyc-run %s --entry=polynomial --bench --runs=1 --print 2>%t/version.err | FileCheck %s --check-prefixes=VALUES,STORED
// RUN: FileCheck %s --check-prefix=VERSION < %t/version.err

// Four processes at once on an empty cache: each gets the right results,
// the directory ends with one complete entry per function and no
// temporary file, and a fifth process loads both functions.
// RUN: bash -c 'for i in 1 2 3 4; do LAZYC_CACHE_DIR=%t/shared lazyc-run %s --entry=polynomial --print > %t/parallel$i.out & LAZYC_CACHE_DIR=%t/shared lazyc-run %s --entry=chain --input=random:4096 --seed=7 --print > %t/chain$i.out & done; wait'
// RUN: cat %t/parallel1.out %t/parallel2.out %t/parallel3.out %t/parallel4.out | FileCheck %s --check-prefix=PARALLEL
// RUN: ls %t/shared | FileCheck %s --check-prefix=TWO-ENTRIES
// RUN: env LAZYC_CACHE_DIR= lazyc-run %s --entry=chain --input=random:4096 --seed=7 --print > %t/chain-uncached.out
// RUN: diff %t/chain1.out %t/chain-uncached.out
// RUN: diff %t/chain4.out %t/chain-uncached.out
// RUN: env LAZYC_CACHE_DIR=%t/shared lazyc-run %s --entry=chain --input=random:4096 --seed=7 --bench --runs=1 --print | FileCheck %s --check-prefix=LOADED

// A cache directory that cannot be created is noted; the program runs.
// RUN: touch %t/file
// RUN: env LAZYC_CACHE_DIR=%t/file/cache lazyc-run %s --entry=polynomial --print 2>%t/uncreatable.err | FileCheck %s --check-prefix=VALUES
// RUN: FileCheck %s --check-prefix=UNCREATABLE < %t/uncreatable.err

// x*x*0.5 + 1 at x = 1, -2, 4, 0.5 (by hand): 1.5, 3, 9, 1.125.
// VALUES: out0: tensor<4xf32> [1.500000e+00, 3.000000e+00, 9.000000e+00, 1.125000e+00]
// STORED: compile: {{.*}} (MLIR pipeline {{.*}}, stored in the compile cache)
// LOADED: compile: {{.*}} ms (loaded from the compile cache)

// ONE-ENTRY: {{^[0-9a-f]{32}\.lzc$}}
// ONE-ENTRY-NOT: {{.}}

// CORRUPTED: lazyc: ignoring compile cache entry {{.*}}.lzc: its checksum does not match (corrupted); compiling again and rewriting it
// TRUNCATED: lazyc: ignoring compile cache entry {{.*}}.lzc: it is truncated (1000 bytes, expected {{[0-9]+}})
// VERSION: lazyc: ignoring compile cache entry {{.*}}.lzc: it was written for another lazyc

// PARALLEL-COUNT-4: out0: tensor<4xf32> [1.500000e+00, 3.000000e+00, 9.000000e+00, 1.125000e+00]

// TWO-ENTRIES: {{^[0-9a-f]{32}\.lzc$}}
// TWO-ENTRIES-NEXT: {{^[0-9a-f]{32}\.lzc$}}
// TWO-ENTRIES-NOT: {{.}}

// UNCREATABLE: lazyc: cannot create the compile cache directory {{.*}}/file/cache (Not a directory); compiled code is not cached

func.func @polynomial() -> tensor<4xf32> {
  %x = lazy.constant dense<[1.0, -2.0, 4.0, 0.5]> : tensor<4xf32>
  %half = lazy.constant dense<0.5> : tensor<4xf32>
  %one = lazy.constant dense<1.0> : tensor<4xf32>
  %0 = lazy.mul %x, %x : tensor<4xf32>
  %1 = lazy.mul %0, %half : tensor<4xf32>
  %2 = lazy.add %1, %one : tensor<4xf32>
  return %2 : tensor<4xf32>
}

func.func @chain(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %c = lazy.constant dense<0.25> : tensor<4096xf32>
  %0 = lazy.mul %x, %c : tensor<4096xf32>
  %1 = lazy.exp %0 : tensor<4096xf32>
  %2 = lazy.tanh %1 : tensor<4096xf32>
  %3 = lazy.sub %2, %x : tensor<4096xf32>
  return %3 : tensor<4096xf32>
}
