"""Race the book's skip-gram and PPMI-SVD against gensim's Word2Vec on the Lee corpus, in one process.

Every method is trained on the same corpus with the same settings (lib.race.Settings: D = 100,
window 5, K = 5, 20 epochs, sample 1e-3, min-count 2), both skip-grams with two worker threads, several
times, the runs interleaved so that the machine's load falls on all of them alike (lib.race.run_race).
The corpus is run at 1x, 4x and 16x its size (repeated, min-count scaled alike so the vocabulary stays
the same). Repeat r uses seed r.

It prints first the summary of the book's skip-gram against gensim, one row per corpus scale:

- the book's words per second against gensim's, as the median and range over the repeats of the ratio
  measured within one repeat (gensim's time / the book's, same words: lib.race.paired_ratios);
- WordSim-353 Spearman rho of each skip-gram, mean and range over the seeds, and the difference of the
  two means with its standard error (seed to seed, rho varies by about 0.02, so a range over a few
  seeds is itself noisy);
- the cost per word (median microseconds per word processed) of each skip-gram;
- the 1-minute load average before and after the scale's runs;

then whether the targets are met (words/s ratio >= 2.0 at every scale, the book's mean rho inside or above
gensim's range, the book's cost per word at 16x within 1.2x of 1x; PPMI-SVD under a fifth of gensim's
time), then the full table of every method.

Usage (from the repository root, after `make venv`):

    .venv/bin/python benchmarks/real_text_race.py                 # full race: 1x, 4x, 16x, 6 repeats each
    .venv/bin/python benchmarks/real_text_race.py --quick         # 1x and 4x, 3 repeats, no PPMI-SVD
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

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # a fresh clone without `pip install -e .`

from lib import datasets, race, validate  # noqa: E402

#: The targets: the book's skip-gram at least this many times gensim's words per second at every scale,
#: and its cost per word at the largest scale within this factor of the smallest.
SPEED_TARGET = 2.0
COST_TARGET = 1.2


def cpu_model() -> str:
    """The CPU's model name, family/model numbers and clock as Linux reports them (the first CPU of
    /proc/cpuinfo), or the platform's processor string elsewhere."""
    try:
        first = Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    except OSError:
        return platform.processor() or "unknown"
    info = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in first.splitlines())}
    parts = [info.get("model name", "unknown")]
    if "cpu family" in info and "model" in info:
        parts.append(f"family {info['cpu family']} model {info['model']}")
    if "cpu MHz" in info:
        parts.append(f"{float(info['cpu MHz']):.0f} MHz")
    return ", ".join(parts)


def load_average() -> float:
    """The 1-minute load average (runnable processes, averaged over a minute)."""
    return os.getloadavg()[0]


def scale_summary(runs, scale: int) -> dict:
    """Book vs gensim at one scale: the paired speed ratios, rho over seeds, cost per word."""
    mine = [r for r in runs if r.scale == scale]
    (paired,) = race.paired_ratios(mine, "book SGNS")
    out = {"scale": scale, "ratio": (paired.median, paired.low, paired.high), "ratios": list(paired.ratios)}
    rhos = {}
    for method, key in (("book SGNS", "book"), ("gensim", "gensim")):
        theirs = [r for r in mine if r.method == method]
        rho = rhos[key] = np.array([r.rho for r in theirs])
        cost = np.array([r.seconds / r.n_words for r in theirs]) * 1e6
        out[f"{key}_rho"] = (float(rho.mean()), float(rho.min()), float(rho.max()))
        out[f"{key}_us_per_word"] = float(np.median(cost))
    n = len(rhos["book"])
    se = float(np.sqrt((rhos["book"].var(ddof=1) + rhos["gensim"].var(ddof=1)) / n)) if n > 1 else float("nan")
    out["rho_difference"] = (float(rhos["book"].mean() - rhos["gensim"].mean()), se)
    out["repeats"] = n
    ppmi = [r for r in mine if r.method == "PPMI-SVD"]
    if ppmi:
        (p,) = race.paired_ratios(mine, "PPMI-SVD")
        out["ppmi_ratio"] = (p.median, p.low, p.high)
    return out


def summary_table(rows) -> str:
    header = [
        "corpus",
        "book SGNS words/s vs gensim, median (range)",
        "book SGNS WordSim-353 rho, mean (range)",
        "gensim WordSim-353 rho, mean (range)",
        "rho difference (standard error)",
        "cost per word, book / gensim",
        "load before -> after",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    for s in rows:
        r, b, g = s["ratio"], s["book_rho"], s["gensim_rho"]
        lines.append(
            f"| {s['scale']}x ({s['repeats']} runs) | **{r[0]:.2f}x** ({r[1]:.2f}-{r[2]:.2f}) "
            f"| {b[0]:.4f} ({b[1]:.4f}-{b[2]:.4f}) | {g[0]:.4f} ({g[1]:.4f}-{g[2]:.4f}) "
            f"| {s['rho_difference'][0]:+.4f} ({s['rho_difference'][1]:.4f}) "
            f"| {s['book_us_per_word']:.2f} / {s['gensim_us_per_word']:.2f} µs "
            f"| {s['load_before']:.2f} -> {s['load_after']:.2f} |"
        )
    return "\n".join(lines)


def targets(rows) -> list:
    lines = []
    for s in rows:
        r, b, g = s["ratio"], s["book_rho"], s["gensim_rho"]
        speed = "met" if r[0] >= SPEED_TARGET else "MISSED"
        where = "inside" if g[1] <= b[0] <= g[2] else ("above" if b[0] > g[2] else "below")
        lines.append(
            f"- {s['scale']}x: words/s ratio median {r[0]:.2f}, range {r[1]:.2f}-{r[2]:.2f} "
            f"(target >= {SPEED_TARGET:.1f}): {speed}; book mean rho {b[0]:.4f} is {where} gensim's range "
            f"[{g[1]:.4f}, {g[2]:.4f}]: {'met' if where != 'below' else 'MISSED'}"
        )
        if "ppmi_ratio" in s:
            share = 1 / s["ppmi_ratio"][0]
            lines.append(
                f"- {s['scale']}x: PPMI-SVD time / gensim time, median {share:.3f} (target < 0.200): "
                f"{'met' if share < 0.2 else 'MISSED'}"
            )
    by_scale = {s["scale"]: s for s in rows}
    if len(by_scale) > 1:
        small, large = by_scale[min(by_scale)], by_scale[max(by_scale)]
        for key, name in (("book", "book SGNS"), ("gensim", "gensim")):
            growth = large[f"{key}_us_per_word"] / small[f"{key}_us_per_word"]
            verdict = f" (target <= {COST_TARGET}): {'met' if growth <= COST_TARGET else 'MISSED'}" if key == "book" else ""
            lines.append(f"- {name} cost per word at {large['scale']}x / at {small['scale']}x: {growth:.2f}{verdict}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=6, help="repeats (= seeds) per scale (default 6)")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4, 16], help="corpus repetitions (default 1 4 16)")
    parser.add_argument("--workers", type=int, default=2, help="threads of each skip-gram (default 2)")
    parser.add_argument("--no-ppmi", action="store_true", help="leave PPMI-SVD out (book SGNS and gensim only)")
    parser.add_argument("--quick", action="store_true", help="scales 1 and 4, 3 repeats, no PPMI-SVD (development)")
    parser.add_argument("--json", type=Path, help="also write every run and the summary to this JSON file "
                        "(rewritten after each scale)")
    args = parser.parse_args(argv)
    if args.quick:
        args.scales, args.repeats, args.no_ppmi = [1, 4], 3, True
    try:  # a bad argument is one line and status 2, before anything is loaded or trained (lib.race's bounds)
        validate.integer(args.repeats, "--repeats", low=1, high=race.MAX_REPEATS)
        for i, s in enumerate(args.scales):
            validate.integer(s, f"--scales[{i}]", low=1, high=race.MAX_SCALE, hint="times the corpus is repeated")
        validate.workers(args.workers, "--workers")
    except (TypeError, ValueError) as err:
        parser.error(str(err))
    if args.json and not args.json.parent.is_dir():
        parser.error(f"--json {str(args.json)!r}: the folder {str(args.json.parent)!r} does not exist")
    methods = ("gensim", "book SGNS") if args.no_ppmi else ("gensim", "book SGNS", "PPMI-SVD")

    settings = race.Settings()
    docs = datasets.load_corpus("lee")
    print("# Real-text race: gensim Word2Vec (sg=1) against the book's SGNS" + ("" if args.no_ppmi else " and PPMI-SVD"))
    print(f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} logical CPUs, {python}")
    # the ratio depends on the CPU: the book's batched products gain more from wide vector units than gensim's loop
    print(f"cpu: {cpu_model()}; PyTorch kernels: {torch.backends.cpu.get_cpu_capability()}")
    print("versions: " + ", ".join(f"{p} {metadata.version(p)}" for p in ("gensim", "torch", "numpy", "scipy")))
    print(f"settings: {settings}")
    print(f"workers: {args.workers}; repeats: {args.repeats}; corpus: {len(docs)} documents, {sum(map(len, docs))} tokens")
    print(f"load average before (1 min): {load_average():.2f}", flush=True)

    runs, rows = [], []
    for scale in args.scales:
        before = load_average()
        mine = race.run_race(
            docs, settings, scales=(scale,), repeats=args.repeats, workers=args.workers, methods=methods,
            progress_desc=f"{scale}x",
        )
        runs += mine
        row = scale_summary(mine, scale)
        row["load_before"], row["load_after"] = before, load_average()
        rows.append(row)
        if args.json:  # written after every scale, so that a long run that stops keeps what it measured
            args.json.write_text(json.dumps({"runs": [asdict(r) for r in runs], "summary": rows}, indent=1))
        print(f"  ... {scale}x done: ratio {row['ratio'][0]:.2f}, load {before:.2f} -> {row['load_after']:.2f}", flush=True)
    print(f"load average after (1 min): {load_average():.2f}")

    print()
    print("## Book SGNS against gensim (both with", args.workers, "workers)")
    print()
    print(summary_table(rows))
    print()
    print("## Targets")
    print("\n".join(targets(rows)))
    print()
    print("## Every method")
    print()
    print(race.race_table(race.summarise_race(runs), markdown=True))
    if args.json:
        print(f"\nruns written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
