"""How the trace interpreter's time grows with the program: linear, or worse?

A program with n token definitions and an n-token sequence (plus three queries) is run for n = 2k, 4k,
8k, 16k and 32k. For each n the script prints the best of several runs of ``lib.trace.run``, the time per
token, the ratio time(2n) / time(n) (about 2 when the cost grows linearly, about 4 when quadratically),
and, as a peer measured in the same process, the time of ``lib.trace.parse`` alone: parsing is one pass
over the lines, so run / parse stays flat when running is linear too.

Usage (from the repository root, after `make venv`):

    .venv/bin/python benchmarks/trace_interpreter.py
    .venv/bin/python benchmarks/trace_interpreter.py --sizes 1000 2000 4000 --repeats 5

This is a measurement, not a test: it prints, it never fails. Timings on a shared machine mean little
without its load, so the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # a fresh clone without `pip install -e .`

from lib import trace, validate  # noqa: E402


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def program(n: int, seed: int = 0) -> str:
    """WIDTH 4, n TOKEN rows t0 .. t{n-1}, a SEQUENCE of the n tokens in a random order, three queries."""
    rng = np.random.default_rng(seed)
    rows = rng.uniform(-1, 1, size=(n, 4))
    lines = ["WIDTH 4"]
    lines += [f"TOKEN t{i} " + " ".join(f"{v:.3f}" for v in row) for i, row in enumerate(rows)]
    lines.append("SEQUENCE " + " ".join(f"t{i}" for i in rng.permutation(n)))
    lines += [f"LOOKUP t{n - 1}", f"ADD {n - 1}", f"SIM 0 {n - 1}"]
    return "\n".join(lines) + "\n"


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000, 8000, 16000, 32000])
    parser.add_argument("--repeats", type=int, default=3, help="runs per size; the best is kept")
    args = parser.parse_args(argv)
    try:  # a bad argument is one line and status 2, before anything runs
        for i, n in enumerate(args.sizes):
            validate.size(n, f"--sizes[{i}]", hint="token rows of a program")
        validate.size(args.repeats, "--repeats", hint="runs per size")
    except (TypeError, ValueError) as err:
        parser.error(str(err))
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; load before: {load()}")
    print(f"{'n':>7}  {'run (s)':>9}  {'us/token':>9}  {'t(n)/t(n/2)':>11}  {'parse (s)':>9}  {'run/parse':>9}")
    previous = None
    for n in args.sizes:
        text = program(n)
        lines = trace.run(text)
        assert len(lines) == 3 and lines[0].startswith(f"LOOKUP t{n - 1} = ")
        run_s = best_time(lambda: trace.run(text), args.repeats)
        parse_s = best_time(lambda: trace.parse(text), args.repeats)
        growth = f"{run_s / previous:11.2f}" if previous else f"{'':>11}"
        print(f"{n:7d}  {run_s:9.3f}  {run_s / n * 1e6:9.1f}  {growth}  {parse_s:9.3f}  {run_s / parse_s:9.2f}")
        previous = run_s
    print(f"load after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
