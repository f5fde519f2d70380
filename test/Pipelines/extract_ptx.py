#!/usr/bin/env python3
"""Prints the PTX of each gpu.binary in lazyc-opt's output (read from stdin).

With --ptxas PATH, also assembles each with NVIDIA's ptxas for --arch (no GPU
is needed) and fails if ptxas does. The FileCheck tests of the GPU pipeline
check the text this prints.
"""

import argparse
import re
import subprocess
import sys
import tempfile


def unescape(text):
    # MLIR prints non-printable bytes of a string attribute as \XX.
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
                  text).replace('\\"', '"').replace("\\\\", "\\")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptxas", help="assemble each PTX with this ptxas")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    ir = sys.stdin.read()
    modules = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', ir)
    if not modules:
        sys.exit("extract_ptx.py: no gpu.binary with PTX in the input")
    for ptx in map(unescape, modules):
        print(ptx)
        if args.ptxas:
            with tempfile.NamedTemporaryFile("w", suffix=".ptx") as source:
                source.write(ptx)
                source.flush()
                result = subprocess.run(
                    [args.ptxas, "-arch=" + args.arch, source.name, "-o",
                     "/dev/null"], capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit("ptxas rejected the PTX:\n" + result.stderr)
            print("// ptxas: assembled for " + args.arch)


if __name__ == "__main__":
    main()
