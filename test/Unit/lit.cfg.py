# -*- Python -*-
# lit configuration that runs lazyc's GoogleTest unit tests.

import os

import lit.formats

config.name = "LAZYC-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.lazyc_obj_root, "unittests")
config.test_source_root = config.test_exec_root
# Every executable under build/unittests named *Tests is a GoogleTest binary.
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
# OpenMP settings reach the tests (scripts/sanitize sets them for TSan).
for name in ("OMP_NUM_THREADS", "OMP_TOOL_LIBRARIES", "ARCHER_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
# The persistent compile cache is off: each test compiles what it runs
# (the cache's own tests name a directory).
config.environment["LAZYC_CACHE_DIR"] = ""
