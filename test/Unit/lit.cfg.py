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
