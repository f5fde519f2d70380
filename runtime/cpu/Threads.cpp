//===- Threads.cpp - The threads of generated parallel loops --------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Generated code runs its parallel loops on OpenMP's thread pool (it calls
// libomp's __kmpc_* entry points directly); this file is the runtime's view
// of that pool.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Runtime/Runtime.h"

// From omp.h, which is not on the include path: the headers of LLVM 22's
// libomp live among clang 22's own, and the compiler building lazyc may
// be another.
extern "C" int omp_get_max_threads(void);
extern "C" void omp_set_num_threads(int threads);

extern "C" int lazyrt_get_num_threads(void) { return omp_get_max_threads(); }

extern "C" void lazyrt_set_num_threads(int threads) {
  omp_set_num_threads(threads);
}
