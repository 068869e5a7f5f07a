"""Race the book's skip-gram and PPMI-SVD against gensim's Word2Vec on the Lee corpus, in one process.

Every method is trained on the same corpus with the same settings (lib.race.Settings: D = 100,
window 5, K = 5, 20 epochs, sample 1e-3, min-count 2), several times, the runs interleaved so that the
machine's load falls on all of them alike. For each corpus scale (the corpus repeated 1, 4 and 16 times,
min-count scaled alike so the vocabulary stays the same) it prints wall time, words per second, the speed
ratio to gensim, the cost per word and WordSim-353 rho, then checks the book's targets for its own code:
at least gensim's speed and quality for its skip-gram, a fifth of gensim's time for PPMI-SVD.

Usage (from the repository root, after `make venv`):

    .venv/bin/python benchmarks/real_text_race.py                 # full race: 1x, 4x and 16x
    .venv/bin/python benchmarks/real_text_race.py --quick         # one scale, two repeats
    .venv/bin/python benchmarks/real_text_race.py --json runs.json

This is a measurement, not a test: it never fails on a missed target, it reports it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # a fresh clone without `pip install -e .`

from lib import datasets, race  # noqa: E402


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="repeats at scale 1 (default 5)")
    parser.add_argument("--large-repeats", type=int, default=2, help="repeats at the larger scales (default 2)")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4, 16], help="corpus repetitions (default 1 4 16)")
    parser.add_argument("--workers", type=int, default=2, help="threads of each predictive method (default 2)")
    parser.add_argument("--quick", action="store_true", help="scale 1 only, two repeats")
    parser.add_argument("--json", type=Path, help="also write every run to this JSON file")
    args = parser.parse_args(argv)
    if args.quick:
        args.scales, args.repeats = [1], 2

    settings = race.Settings()
    docs = datasets.load_corpus("lee")
    print("# Real-text race: gensim Word2Vec (sg=1) against the book's SGNS and PPMI-SVD")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"machine: {platform.machine()}, {os.cpu_count()} logical CPUs, {python}")
    print("versions: " + ", ".join(f"{p} {metadata.version(p)}" for p in ("gensim", "torch", "numpy", "scipy")))
    print(f"settings: {settings}")
    print(f"workers: {args.workers}; corpus: {len(docs)} documents, {sum(map(len, docs))} tokens")
    print(f"load average before (1, 5, 15 min): {load()}")

    runs = []
    for scale in args.scales:
        repeats = args.repeats if scale == 1 else args.large_repeats
        runs += race.run_race(
            docs, settings, scales=(scale,), repeats=repeats, workers=args.workers, progress_desc=f"{scale}x"
        )
        print(f"  ... {scale}x done, load average {load()}", flush=True)
    print(f"load average after (1, 5, 15 min): {load()}")
    summaries = race.summarise_race(runs)
    print()
    print(race.race_table(summaries, markdown=True))

    print()
    print("## Cost per word across corpus sizes (constant = linear growth)")
    for method in race.METHODS:
        mine = sorted((s for s in summaries if s.method == method), key=lambda s: s.scale)
        costs = ", ".join(f"{s.scale}x: {race.format_cost(s.us_per_word)}" for s in mine)
        spread = max(s.us_per_word for s in mine) / min(s.us_per_word for s in mine)
        print(f"- {method}: {costs} (largest / smallest: {spread:.2f})")

    one = {s.method: s for s in summaries if s.scale == 1}
    if {"gensim", "book SGNS", "PPMI-SVD"} <= set(one):
        g, b, p = one["gensim"], one["book SGNS"], one["PPMI-SVD"]
        print()
        print("## Targets (scale 1)")
        verdict = "met" if b.speed_ratio >= 1 else "MISSED"
        print(f"- book SGNS words/s vs gensim: {race.format_ratio(b.speed_ratio)} (target >= 1.00): {verdict}")
        where = "inside" if g.rho[1] <= b.rho[0] <= g.rho[2] else ("above" if b.rho[0] > g.rho[2] else "below")
        print(
            f"- book SGNS mean rho {b.rho[0]:.4f} is {where} gensim's seed range [{g.rho[1]:.4f}, {g.rho[2]:.4f}] "
            f"(target: inside, or above): {'met' if where != 'below' else 'MISSED'}"
        )
        share = p.seconds[0] / g.seconds[0]
        print(f"- PPMI-SVD time / gensim time: {share:.3f} (target < 0.200): {'met' if share < 0.2 else 'MISSED'}")
        verdict = "met" if p.rho[0] >= g.rho[0] else "MISSED"
        print(f"- PPMI-SVD rho {p.rho[0]:.4f} >= gensim mean rho {g.rho[0]:.4f}: {verdict}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1))
        print(f"\nruns written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
