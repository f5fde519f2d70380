#!/usr/bin/env python3
"""Runs lazy functions with lazyc-run and checks their outputs against numpy.

A test file holds one or more cases separated by `// -----`. Each case is a
`lazy` dialect function plus comment lines that say how to feed and check it:

    // ARG: x f32 [4, 8]                 uniform in [-1, 1) (floats)
    // ARG: y f32 [8] uniform(-3, 3)
    // ARG: i i32 [5] int(-4, 4)         integers in [-4, 4] (any integer type)
    // ARG: b i1 [5]                     fair booleans
    // ARG: v f32 [3] values([1, nan, -inf])
    // OUT: np.exp(x) + y                (expected value of output 0)
    // OUT: x.sum(axis=1) ; rtol=1e-5, atol=1e-6

The expected values are computed here with numpy (float64 unless the
expression says otherwise) from the very inputs lazyc-run reads, then cast to
the output's dtype. Floats compare with numpy.testing.assert_allclose
(default rtol=1e-6, atol=1e-6, NaNs equal); integers and booleans exactly.
Expressions see np, math, round_to_bf16 and reduce (functools.reduce, for
chains: reduce(lambda y, _: np.tanh(y), range(8), x)).

usage: numpy_check.py TEST.mlir --lazyc-run PATH --workdir DIR [--device D]

With --device cuda (or cuda:N) the functions compile for and run on that GPU
(lazyc-run --device). If the device cannot be used, the script says why and
exits with status 77, checking nothing: lit's configuration asks first and
marks the suite unsupported with that reason (lit --param device=cuda).
"""

import argparse
import functools
import math
import os
import re
import subprocess
import sys

import numpy as np

DTYPES = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16,
    "bf16": np.float32,  # numpy has no bf16: stored as f32, rounded below
    "i32": np.int32, "i64": np.int64, "i1": np.bool_,
    "i8": np.int8, "ui8": np.uint8, "i16": np.int16, "ui16": np.uint16,
    "ui32": np.uint32, "ui64": np.uint64,
}
INTEGERS = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64")


def round_to_bf16(values):
    """Rounds float32 values to the nearest bf16 (ties to even), as f32."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(values), np.float32(np.nan), out)


def make_input(rng, dtype, shape, dist):
    if dist.startswith("values(") and dtype in INTEGERS:
        # Exact (a float64 would round 2**64 - 1).
        data = eval(dist[len("values("):-1])
        array = np.array(data, dtype=DTYPES[dtype]).reshape(shape)
    elif dist.startswith("values("):
        data = eval(dist[len("values("):-1], {"nan": np.nan, "inf": np.inf})
        array = np.array(data, dtype=np.float64).reshape(shape)
    elif dtype == "i1":
        array = rng.integers(0, 2, size=shape).astype(bool)
    elif dtype in INTEGERS:
        low, high = (0, 20) if dtype.startswith("u") else (-10, 10)
        if dist.startswith("int("):
            low, high = (int(v) for v in dist[4:-1].split(","))
        array = rng.integers(low, high + 1, size=shape)
    else:
        low, high = (-1.0, 1.0)
        if dist.startswith("uniform("):
            low, high = (float(v) for v in dist[8:-1].split(","))
        array = rng.uniform(low, high, size=shape)
    array = array.astype(DTYPES[dtype])
    if dtype == "bf16":
        array = round_to_bf16(array)
    return array


def parse_case(text):
    args, outs = [], []
    for line in text.splitlines():
        match = re.match(r"\s*//\s*ARG:\s*(\w+)\s+(\w+)\s+\[([^\]]*)\]\s*(.*)$",
                         line)
        if match:
            name, dtype, dims, dist = match.groups()
            shape = tuple(int(d) for d in dims.split(",") if d.strip())
            args.append((name, dtype, shape, dist.strip()))
            continue
        match = re.match(r"\s*//\s*OUT:\s*(.*)$", line)
        if match:
            expr, _, options = match.group(1).partition(" ; ")
            tolerances = {"rtol": 1e-6, "atol": 1e-6}
            for option in filter(None, (o.strip() for o in options.split(","))):
                key, value = option.split("=")
                tolerances[key.strip()] = float(value)
            outs.append((expr.strip(), tolerances))
    return args, outs


def check_case(index, text, lazyc_run, workdir, device):
    args, outs = parse_case(text)
    case_dir = os.path.join(workdir, "case%d" % index)
    os.makedirs(case_dir, exist_ok=True)
    mlir_path = os.path.join(case_dir, "case.mlir")
    with open(mlir_path, "w") as f:
        f.write(text)
    rng = np.random.default_rng(1234 + index)
    env = {"np": np, "math": math, "round_to_bf16": round_to_bf16,
           "reduce": functools.reduce}
    command = [lazyc_run, mlir_path, "--output-dir", case_dir,
               "--device", device]
    for name, dtype, shape, dist in args:
        array = make_input(rng, dtype, shape, dist)
        path = os.path.join(case_dir, name + ".npy")
        np.save(path, array)
        env[name] = array
        command.append("--input=" + path)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return "lazyc-run failed:\n" + result.stderr
    for number, (expr, tolerances) in enumerate(outs):
        got = np.load(os.path.join(case_dir, "out%d.npy" % number))
        expected = np.asarray(eval(expr, env))
        if expected.shape != got.shape:
            return "out%d: shape %s, expected %s (%s)" % (
                number, got.shape, expected.shape, expr)
        try:
            if got.dtype.kind in "fc":
                np.testing.assert_allclose(
                    got, expected.astype(got.dtype), rtol=tolerances["rtol"],
                    atol=tolerances["atol"], equal_nan=True)
            else:
                np.testing.assert_array_equal(got, expected.astype(got.dtype))
        except AssertionError as error:
            return "out%d differs from %s:%s" % (number, expr, error)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("test")
    parser.add_argument("--lazyc-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--device", default="cpu")
    options = parser.parse_args()
    check = subprocess.run(
        [options.lazyc_run, "--device", options.device, "--check-device"],
        capture_output=True, text=True)
    if check.returncode != 0:
        print("skipped on %s: %s" % (options.device, check.stderr.strip()))
        return check.returncode
    with open(options.test) as f:
        source = f.read()
    # Keep line numbers: each case starts where it starts in the file.
    cases = re.split(r"^// -----\s*$", source, flags=re.M)
    failures = 0
    checked = 0
    for index, case in enumerate(cases):
        if "func.func" not in case:
            continue
        checked += 1
        name = re.search(r"func\.func\s+@(\w+)", case).group(1)
        problem = check_case(index, case, options.lazyc_run, options.workdir,
                             options.device)
        if problem:
            failures += 1
            print("FAIL @%s (case %d): %s" % (name, index, problem))
        else:
            print("ok   @%s" % name)
    print("%d of %d cases passed on %s" % (checked - failures, checked,
                                           options.device))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
