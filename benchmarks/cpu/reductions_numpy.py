#!/usr/bin/python3
# numpy's f32 reductions on lazyc-bench-reductions' data (the same generator),
# with their error against float64 sums: the numpy column of the reduction
# accuracy table in docs/benchmarks.md.
# Usage: /usr/bin/python3 benchmarks/cpu/reductions_numpy.py [max-log2, 28]
import sys

import numpy as np


def uniform(n):
    i = np.arange(n, dtype=np.uint64)
    bits = (i * np.uint64(2654435761) + np.uint64(12345)) & np.uint64(0xFFFFFFFF)
    return (bits.astype(np.float64) * 2.0**-31 - 1.0).astype(np.float32)


def cases(n):
    u = uniform(n)
    tenths = np.full(n, 0.1, np.float32)
    squares = u * u
    yield "sum(square(x)), x ~ U(-1, 1)", squares, lambda t: np.sum(t)
    yield "sum of copies of 0.1f", tenths, lambda t: np.sum(t)
    yield "mean of copies of 0.1f", tenths, lambda t: np.mean(t)
    yield "sum(x), x ~ U(-1, 1)", u, lambda t: np.sum(t)
    yield "row sums of [4, n/4] (0.1f)", tenths.reshape(4, -1), lambda t: t.sum(1)
    yield "column sums of [n/4, 4] (0.1f)", tenths.reshape(-1, 4), lambda t: t.sum(0)
    yield "column sums of [n/4, 4] (squares)", squares.reshape(-1, 4), lambda t: t.sum(0)


def main():
    max_log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 28
    print("| reduction | n | numpy error |\n| --- | --- | --- |")
    results = {}
    for log2n in range(16, max_log2 + 1, 4):
        for name, terms, reduce in cases(1 << log2n):
            wide = terms.astype(np.float64)
            exact = np.asarray(reduce(wide), np.float64)
            absolute = np.asarray(reduce(np.abs(wide)), np.float64)
            got = np.asarray(reduce(terms), np.float64)
            error = np.max(np.abs(got - exact) / absolute)
            results.setdefault(name, []).append((log2n, error))
    for name, rows in results.items():
        for log2n, error in rows:
            print(f"| {name} | 2^{log2n} | {error:.1e} |")


main()
