# -*- Python -*-
# lit configuration for lazyc's regression tests (lit + FileCheck).

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "LAZYC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.lazyc_obj_root, "test")
# Unit/ is its own suite (GoogleTest), found through its site config.
config.excludes = ["Unit", "Install", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# OpenMP settings reach the tools (scripts/sanitize sets them for TSan).
llvm_config.with_system_environment(
    ["OMP_NUM_THREADS", "OMP_TOOL_LIBRARIES", "ARCHER_OPTIONS"])

tool_dirs = [config.lazyc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["lazyc-opt", "lazyc-run", "lazyc-opt-fuzz-replay", "lazyc-fuzz",
     "lazyc-export-function"], tool_dirs)

# Runs the cases of a file with lazyc-run and checks them against numpy, on
# the device `lit --param device=cuda` names (the CPU by default). A device
# that cannot be used makes those tests unsupported, with the reason.
lazyc_run = os.path.join(config.lazyc_tools_dir, "lazyc-run")
test_device = lit_config.params.get("device", "cpu")
config.substitutions.append((
    "%numpy-check",
    "%s %s --lazyc-run %s --workdir %%t --device %s" % (
        config.lazyc_python_numpy,
        os.path.join(config.test_source_root, "Integration", "numpy_check.py"),
        lazyc_run, test_device)))
if test_device != "cpu":
    import subprocess
    check = subprocess.run([lazyc_run, "--device", test_device,
                            "--check-device"], capture_output=True, text=True)
    if check.returncode == 0:
        config.available_features.add("test-device")
    else:
        lit_config.note("the numpy-checked tests cannot run on %s: %s" %
                        (test_device, check.stderr.strip()))

# The JIT computes exp with AVX-512's vscalefps where the CPU has it.
if test_device == "cpu":
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            if " avx512f" in cpuinfo.read():
                config.available_features.add("avx512")
    except OSError:
        pass

if config.lazyc_have_cuda_toolkit:
    config.available_features.add("cuda-toolkit")

# Prints the PTX in lazyc-opt's output (the GPU pipeline's kernels); with
# --ptxas %cuda-ptxas, assembles it too.
config.substitutions.append((
    "%extract-ptx",
    "%s %s" % (config.lazyc_python_numpy,
               os.path.join(config.test_source_root, "Pipelines",
                            "extract_ptx.py"))))
if config.lazyc_ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%cuda-ptxas", config.lazyc_ptxas))
# The persistent compile cache is off: each test compiles what it runs
# (the cache's own tests name a directory).
config.environment["LAZYC_CACHE_DIR"] = ""
