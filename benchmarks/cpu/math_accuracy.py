#!/usr/bin/env python3
"""Measures the accuracy of lazyc's f32 math functions (on the CPU, or a GPU).

For each function it writes a dense set of float32 inputs to a .npy file,
runs a one-op `lazy` function on them with lazyc-run (the JIT's CPU
pipeline, polynomial approximations included), and compares the outputs
with a float64 numpy reference:

    ulp error = |got - ref| / ulp(ref rounded to float32)

where ulp(y) = |np.spacing(float32(y))| (the gap to the next float32 away
from zero; the smallest subnormal for 0). A correctly rounded function has a
maximum error of 0.5 ulp. Results that are both infinite with the same sign
count as exact; any other mismatch involving NaN or infinity counts as an
infinite error.

It also checks special values (infinities, NaN, signed zeros, overflow and
underflow, domain errors) against IEEE 754 / C99 Annex F semantics and
reports each function's special values as pass or fail, listing failures.

usage:
    /usr/bin/python3 benchmarks/cpu/math_accuracy.py --lazyc-run build/bin/lazyc-run
    ... --device cuda   the GPU's functions (libdevice), as scripts/gpu-check
                        runs it on the device machine

Prints a Markdown table: function, range, inputs, max ulp (and the input
where it occurs), mean ulp, special values ok.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

F32 = np.float32
TINY = float(np.finfo(F32).tiny)            # smallest normal, 1.18e-38
DENORM_MIN = float(np.finfo(F32).smallest_subnormal)  # 1.4e-45
INF = math.inf
NAN = math.nan
DEVICE = "cpu"  # --device: where lazyc-run computes


# --------------------------------------------------------------------------
# Input sets
# --------------------------------------------------------------------------

def linear(low, high):
    return lambda n: np.linspace(low, high, n, dtype=np.float64)


def geometric(low, high, signed=False):
    """log-spaced in [low, high]; with signed, half of them negated."""
    def make(n):
        if not signed:
            return np.geomspace(low, high, n)
        half = np.geomspace(low, high, n // 2)
        return np.concatenate([-half[::-1], half])
    return make


def concat(*makers_and_shares):
    """Concatenates several input sets, each with a share of the points."""
    def make(n):
        parts = [maker(max(1, int(n * share))) for maker, share in makers_and_shares]
        return np.concatenate(parts)
    return make


def erf64(x):
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


def sigmoid64(x):
    # exp(-x) overflows float64 only below -709; inputs are within f32 range
    # of interest.
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def rsqrt64(x):
    with np.errstate(divide="ignore"):
        return 1.0 / np.sqrt(x)


# Each case: (function, lazy op, range label, input maker, float64 reference).
CASES = [
    ("exp", "exp", "[-87, 88]", linear(-87.0, 88.0), np.exp),
    ("exp", "exp", "[-103, -87] (subnormal results)", linear(-103.0, -87.0), np.exp),
    ("log", "log", "[1e-38, 1e38] log-spaced + subnormals",
     concat((geometric(1e-38, 1e38), 0.9), (geometric(DENORM_MIN, TINY), 0.1)),
     np.log),
    ("log", "log", "[0.5, 2] (near 1)", linear(0.5, 2.0), np.log),
    ("tanh", "tanh", "[-10, 10]", linear(-10.0, 10.0), np.tanh),
    ("tanh", "tanh", "±[1e-37, 0.1] log-spaced", geometric(1e-37, 0.1, signed=True), np.tanh),
    ("erf", "erf", "[-10, 10]", linear(-10.0, 10.0), erf64),
    ("erf", "erf", "±[1e-37, 0.1] log-spaced", geometric(1e-37, 0.1, signed=True), erf64),
    ("sigmoid", "sigmoid", "[-20, 20]", linear(-20.0, 20.0), sigmoid64),
    ("sigmoid", "sigmoid", "[-87, -20] (tail)", linear(-87.0, -20.0), sigmoid64),
    ("sin", "sin", "[-100, 100]", linear(-100.0, 100.0), np.sin),
    ("sin", "sin", "±[1e-37, 0.1] log-spaced", geometric(1e-37, 0.1, signed=True), np.sin),
    ("cos", "cos", "[-100, 100]", linear(-100.0, 100.0), np.cos),
    ("sqrt", "sqrt", "[1e-38, 3e38] log-spaced + subnormals",
     concat((geometric(1e-38, 3e38), 0.9), (geometric(DENORM_MIN, TINY), 0.1)),
     np.sqrt),
    ("rsqrt", "rsqrt", "[1e-38, 3e38] log-spaced + subnormals",
     concat((geometric(1e-38, 3e38), 0.9), (geometric(DENORM_MIN, TINY), 0.1)),
     rsqrt64),
]

# Special values: function -> [(input, expected)]. IEEE 754 / C99 Annex F
# (rsqrt as IEEE 754-2008 rSqrt). Zeros compare with their sign.
SPECIALS = {
    "exp": [(INF, INF), (-INF, 0.0), (NAN, NAN), (0.0, 1.0), (-0.0, 1.0),
            (89.0, INF), (1000.0, INF), (-104.0, 0.0), (-1000.0, 0.0)],
    "log": [(0.0, -INF), (-0.0, -INF), (-1.0, NAN), (-INF, NAN), (INF, INF),
            (NAN, NAN), (1.0, 0.0), (DENORM_MIN, math.log(DENORM_MIN))],
    "tanh": [(INF, 1.0), (-INF, -1.0), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0),
             (100.0, 1.0), (-100.0, -1.0)],
    "erf": [(INF, 1.0), (-INF, -1.0), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0),
            (100.0, 1.0), (-100.0, -1.0)],
    "sigmoid": [(INF, 1.0), (-INF, 0.0), (NAN, NAN), (0.0, 0.5),
                (100.0, 1.0), (-200.0, 0.0)],
    "sin": [(INF, NAN), (-INF, NAN), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0)],
    "cos": [(INF, NAN), (-INF, NAN), (NAN, NAN), (0.0, 1.0), (-0.0, 1.0)],
    "sqrt": [(0.0, 0.0), (-0.0, -0.0), (-1.0, NAN), (-INF, NAN), (INF, INF),
             (NAN, NAN), (4.0, 2.0)],
    "rsqrt": [(0.0, INF), (-0.0, -INF), (-1.0, NAN), (-INF, NAN), (INF, 0.0),
              (NAN, NAN), (4.0, 0.5)],
}


# --------------------------------------------------------------------------
# Running lazyc
# --------------------------------------------------------------------------

def write_module(path, op):
    with open(path, "w") as f:
        f.write(
            f"func.func @{op}_f32(%x: tensor<?xf32>) -> tensor<?xf32> {{\n"
            f"  %0 = lazy.{op} %x : tensor<?xf32>\n"
            f"  return %0 : tensor<?xf32>\n"
            f"}}\n")


def run_lazyc(lazyc_run, workdir, tag, op, inputs):
    """Returns lazyc's f32 `op` of the float32 array `inputs`."""
    mlir = os.path.join(workdir, f"{tag}.mlir")
    npy = os.path.join(workdir, f"{tag}.npy")
    out_dir = os.path.join(workdir, f"{tag}.out")
    write_module(mlir, op)
    np.save(npy, inputs.astype(F32))
    command = [lazyc_run, mlir, f"--input={npy}", f"--output-dir={out_dir}",
               f"--device={DEVICE}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"math_accuracy: {' '.join(command)} failed:\n"
                 f"{result.stdout}{result.stderr}")
    got = np.load(os.path.join(out_dir, "out0.npy"))
    if got.dtype != F32 or got.shape != inputs.shape:
        sys.exit(f"math_accuracy: {tag}: got {got.dtype}{got.shape}, "
                 f"expected float32{inputs.shape}")
    return got


# --------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------

def ulp_errors(got, ref):
    """Per-element |got - ref| / ulp(float32(ref)) (inf for a NaN/inf mismatch)."""
    got64 = got.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        ref32 = ref.astype(F32)
        ulp = np.abs(np.spacing(ref32)).astype(np.float64)
        # np.spacing(inf) is nan; an infinite reference is handled below.
        errors = np.abs(got64 - ref) / ulp
    both_nan = np.isnan(got64) & np.isnan(ref)
    same_inf = np.isinf(got64) & np.isinf(ref) & (np.sign(got64) == np.sign(ref))
    errors[both_nan | same_inf] = 0.0
    bad = ~(both_nan | same_inf) & (np.isnan(got64) | np.isnan(ref) |
                                     np.isinf(got64) | np.isinf(ref))
    errors[bad] = np.inf
    return errors


def same_value(got, want):
    if math.isnan(want):
        return math.isnan(got)
    if want == 0.0:
        return got == 0.0 and math.copysign(1.0, got) == math.copysign(1.0, want)
    return got == want or (math.isfinite(want) and
                           abs(got - want) <= abs(np.spacing(F32(want))))


def check_specials(lazyc_run, workdir, name):
    pairs = SPECIALS[name]
    inputs = np.array([x for x, _ in pairs], dtype=F32)
    got = run_lazyc(lazyc_run, workdir, f"{name}_special", name, inputs)
    failures = []
    for (x, want), value in zip(pairs, got.tolist()):
        if not same_value(value, F32(want).item()):
            failures.append(f"{name}({fmt(x)})={fmt(value)}, want {fmt(want)}")
    return failures


def fmt(value):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0.0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    return f"{value:.9g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lazyc-run", default="build/bin/lazyc-run",
                        help="path of lazyc-run (default: %(default)s)")
    parser.add_argument("--points", type=int, default=1_000_000,
                        help="inputs per range (default: %(default)s)")
    parser.add_argument("--only", default="",
                        help="comma-separated functions to measure (default: all)")
    parser.add_argument("--device", default="cpu",
                        help="cpu or cuda[:N] (lazyc-run's --device)")
    parser.add_argument("--workdir", default="",
                        help="keep the .mlir/.npy files here (default: a "
                             "temporary directory, removed afterwards)")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    if not os.access(args.lazyc_run, os.X_OK):
        sys.exit(f"math_accuracy: {args.lazyc_run} is not an executable; "
                 "build it (ninja -C build lazyc-run) or pass --lazyc-run")
    only = {name for name in args.only.split(",") if name}

    temporary = None
    if args.workdir:
        workdir = args.workdir
        os.makedirs(workdir, exist_ok=True)
    else:
        temporary = tempfile.TemporaryDirectory(prefix="lazyc-math-")
        workdir = temporary.name

    rows = []
    special_failures = {}
    start = time.time()
    for index, (name, op, label, make, reference) in enumerate(CASES):
        if only and name not in only:
            continue
        inputs = np.unique(make(args.points).astype(F32))
        inputs = inputs[np.isfinite(inputs)]
        got = run_lazyc(args.lazyc_run, workdir, f"{name}_{index}", op, inputs)
        ref = reference(inputs.astype(np.float64))
        errors = ulp_errors(got, ref)
        worst = int(np.argmax(errors))
        special = "(above)"
        if name not in special_failures:
            special_failures[name] = check_specials(args.lazyc_run, workdir, name)
            special = "yes" if not special_failures[name] else "**no**"
        rows.append((name, label, len(inputs), float(errors[worst]),
                     float(np.mean(errors)), fmt(float(inputs[worst])),
                     fmt(float(got[worst])), fmt(float(ref[worst])), special))

    print(f"lazyc f32 math accuracy against a float64 numpy reference "
          f"({args.lazyc_run}, {time.time() - start:.1f} s)\n")
    print("| function | range | inputs | max ulp | at x (got / ref) | mean ulp "
          "| special values ok |")
    print("|---|---|---:|---:|---|---:|---|")
    for name, label, count, worst, mean, x, got, ref, special in rows:
        print(f"| {name} | {label} | {count:,} | {worst:.3g} | {x} ({got} / {ref}) "
              f"| {mean:.3f} | {special} |")
    failures = [f for name in special_failures for f in special_failures[name]]
    if failures:
        print("\nSpecial-value failures:")
        for failure in failures:
            print(f"- {failure}")
    else:
        print("\nAll special values as IEEE 754 / C99 Annex F specify.")
    if temporary:
        temporary.cleanup()


if __name__ == "__main__":
    main()
