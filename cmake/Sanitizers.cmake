#===- cmake/Sanitizers.cmake - LAZYC_SANITIZE: ASan+UBSan or TSan builds ---===//
#
# Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# -DLAZYC_SANITIZE=address builds every lazyc target (libraries, runtime,
# tools, unit tests) with AddressSanitizer + UndefinedBehaviorSanitizer,
# -DLAZYC_SANITIZE=thread with ThreadSanitizer. Empty (the default) builds
# without. scripts/sanitize configures one build folder per sanitizer and runs
# ctest in each with the options and suppressions of utils/sanitizers/.
# -DLAZYC_FUZZ=ON (with address) also builds the libFuzzer target
# tools/lazyc-opt-fuzz (scripts/fuzz-lazyc-opt), so one ASan build folder
# serves both.
#
# Only lazyc's own code is instrumented: LLVM/MLIR (Debian's static archives
# and libLLVM.so), libomp, OpenBLAS and the code the JIT emits at run time are
# not. docs/Testing.md says what that means for each sanitizer.
#===------------------------------------------------------------------------===//

set(LAZYC_SANITIZE "" CACHE STRING
    "Build with sanitizers: address (ASan+UBSan), thread (TSan) or empty")
set_property(CACHE LAZYC_SANITIZE PROPERTY STRINGS "" address thread)
option(LAZYC_FUZZ "Build the libFuzzer target lazyc-opt-fuzz (clang; with \
LAZYC_SANITIZE=address)" OFF)

set(LAZYC_SANITIZE_FLAGS)
if(LAZYC_SANITIZE STREQUAL "address")
  # vptr: LLVM and MLIR are built without RTTI, so a vptr check on one of their
  # polymorphic objects from a target with RTTI (the API, the GoogleTests)
  # finds no type info and reports a false type mismatch.
  set(LAZYC_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize=vptr
      -fno-sanitize-recover=all)
elseif(LAZYC_SANITIZE STREQUAL "thread")
  set(LAZYC_SANITIZE_FLAGS -fsanitize=thread)
elseif(NOT LAZYC_SANITIZE STREQUAL "")
  message(FATAL_ERROR "LAZYC_SANITIZE must be 'address', 'thread' or empty, "
                      "not '${LAZYC_SANITIZE}'")
endif()

if(LAZYC_FUZZ)
  if(NOT LAZYC_SANITIZE STREQUAL "address")
    message(FATAL_ERROR "LAZYC_FUZZ needs -DLAZYC_SANITIZE=address: a fuzzer "
                        "finds memory errors only with ASan")
  endif()
  # Coverage feedback from every lazyc target (the dialect's parsers,
  # verifiers and folders, the passes); only tools/lazyc-opt-fuzz links
  # libFuzzer's driver. It costs the test suite little: most of its time is
  # spent in LLVM, which is not instrumented.
  list(APPEND LAZYC_SANITIZE_FLAGS -fsanitize=fuzzer-no-link)
endif()

if(LAZYC_SANITIZE_FLAGS)
  # Frame pointers and line tables: readable stacks from an optimized build.
  list(APPEND LAZYC_SANITIZE_FLAGS -fno-omit-frame-pointer -gline-tables-only)
  # -O1 (after the build type's -O3): a sanitized build compiles about a
  # third faster, and the tests spend their time in LLVM and in JIT-compiled
  # code, neither of which this flag touches.
  add_compile_options(${LAZYC_SANITIZE_FLAGS} -O1)
  add_link_options(${LAZYC_SANITIZE_FLAGS})
  # HandleLLVMOptions links shared libraries with -z defs unless LLVM itself
  # is the sanitized project; the sanitizer runtime lives in the executable,
  # so lazyc_runtime.so has undefined __asan_* / __tsan_* references.
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
         "${CMAKE_SHARED_LINKER_FLAGS}")
  message(STATUS "Sanitizers: ${LAZYC_SANITIZE} (${LAZYC_SANITIZE_FLAGS})")
endif()
