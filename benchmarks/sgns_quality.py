"""How far apart are the book's skip-gram and gensim's on WordSim-353, seed by seed? The quality experiment.

Trains, for every seed and corpus scale (the Lee corpus repeated, min-count scaled alike), one worker each:

- ``gensim``: gensim's Word2Vec(sg=1), one pair at a time, its own random draws;
- ``book``: lib.sgns with its default blocks (negatives shared by a block of windows) and damped step;
- ``book, plain step``: the same without damping (``damped=False``): the summed gradient step;
- ``book, per window``: lib.sgns with blocks of one window and K negatives, 128 windows per step: the
  structure of the previous version (negatives shared by the pairs of one window, Ji et al. 2016);
- ``word2vec loop``: word2vec's own update order (one pair at a time, K fresh negatives per pair, each
  output row updated at once), in C (benchmarks/word2vec_loop.c), run on the *book's* random draws: the
  same initial table, subsampling, window sizes and learning rates as ``book`` for that seed (paired),
  its per-pair negatives from a separate generator. Needs a C compiler (``cc``); left out without one;
- ``loop, block negatives``: the same C loop, one pair at a time, but each pair meets the negatives of
  its block at weight K/N, exactly the draws of ``book``: it differs from ``book, plain step`` only in
  summing.

and prints WordSim-353 rho per arm: mean, standard deviation and range over the seeds, the paired
differences ``book - word2vec loop``, ``book - loop, block negatives`` and ``book - book, plain step``, and how
often the mean of 5 seeds of an arm falls below the range of
5 seeds of gensim (the race's criterion), by resampling the seeds measured here (with replacement).

Usage (from the repository root, after `make venv`):

    .venv/bin/python benchmarks/sgns_quality.py                        # 1x and 4x, 12 seeds
    .venv/bin/python benchmarks/sgns_quality.py --scales 4 --seeds 20 --json quality.json
    .venv/bin/python benchmarks/sgns_quality.py --scales 4 --arms book gensim --set alpha=0.0125
    .venv/bin/python benchmarks/sgns_quality.py --scales 4 --arms "book, plain step" \
        --set block_windows=8 block_negatives=8 batch_windows=1024

``--set NAME=VALUE`` changes a setting of ``lib.race.Settings`` (or of the ``SGNSConfig`` it holds) for every
arm that reads it: the learning rates ``alpha``/``min_alpha`` reach gensim too; the blocks and the step size
(``block_windows``, ``block_negatives``, ``batch_windows``) are the book's own.

A measurement, not a test. It takes a while: gensim on one worker is the slow arm.
"""

from __future__ import annotations

import argparse
import ast
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # a fresh clone without `pip install -e .`

from lib import datasets, race, sgns, validate  # noqa: E402
from lib.corpus import keep_probability, repeat_corpus  # noqa: E402
from lib.evaluation import read_word_pairs, word_similarity  # noqa: E402
from lib.skipgram import noise_distribution  # noqa: E402

HERE = Path(__file__).resolve().parent


def compile_loop():
    """Build word2vec_loop.c into a temporary shared library; None (with a message) without a compiler."""
    out = Path(tempfile.mkdtemp()) / "word2vec_loop.so"
    cmd = ["cc", "-O2", "-shared", "-fPIC", "-o", str(out), str(HERE / "word2vec_loop.c"), "-lm"]
    try:
        subprocess.run(cmd, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"note: the word2vec loop arm is left out ({' '.join(cmd)} failed: {err})")
        return None
    return ctypes.CDLL(str(out))


def word2vec_loop(loop, sentences, counts, config: sgns.SGNSConfig, *, shared: bool = False) -> np.ndarray:
    """word2vec's loop on the book's draws: train_sgns's generator for the initial table and every epoch's
    blocks (so the same subsampling, window sizes and learning rates as train_sgns for this seed), a
    second generator for K negatives per pair; or, ``shared=True``, the blocks' own negatives (every pair
    meets the N of its block at weight K/N), which differs from train_sgns(damped=False) only in taking the pairs one at
    a time instead of summing a step's updates. Returns the input table ``(V, D) float32``."""
    V, D, K = counts.shape[0], config.dim, config.negatives
    ids, doc = sgns._flatten(sentences, V)
    keep = keep_probability(counts, config.sample, formula="word2vec") if config.sample > 0 else np.ones(V)
    noise = sgns.alias_table(noise_distribution(counts, config.power))
    rng = np.random.default_rng(config.seed)
    pair_rng = np.random.default_rng([config.seed, 1])
    w_in = np.ascontiguousarray((rng.random((V, D), dtype=np.float32) - 0.5) / D)
    w_out = np.zeros((V, D), dtype=np.float32)
    work = np.zeros(D, dtype=np.float32)
    schedule = np.linspace(config.alpha, config.min_alpha, config.epochs + 1)
    ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    for e in range(config.epochs):
        ep = sgns.epoch_blocks(ids, doc, keep, noise, config, rng, lr_start=schedule[e], lr_stop=schedule[e + 1])
        span, targets, band = (np.ascontiguousarray(t.numpy()) for t in (ep.span, ep.targets, ep.band))
        G, S = span.shape
        negatives = None if shared else np.ascontiguousarray(sgns.alias_draw(noise, (ep.n_pairs, K), pair_rng))
        loop.train_blocks(
            ptr(w_in), ptr(w_out), D, G, config.block_windows, S, targets.shape[1], K,
            ptr(span), ptr(targets), ptr(band), None if shared else ptr(negatives), ptr(work),
        )
    return w_in


#: the arms, in the order they run; the last two only where the C loop compiles
ARMS = ("gensim", "book", "book, plain step", "book, per window", "word2vec loop", "loop, block negatives")


def parse_settings(parser: argparse.ArgumentParser, items) -> dict:
    """``["alpha=0.0125", "batch_windows=1024"]`` -> ``{"alpha": 0.0125, "batch_windows": 1024}`` (values read as
    Python literals), checked against the fields of ``lib.race.Settings`` and its ``SGNSConfig``."""
    names = {f.name for f in fields(race.Settings)} | {f.name for f in fields(sgns.SGNSConfig)}
    changes = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name not in names - {"sgns", "seed", "workers"}:
            allowed = sorted(names - {"sgns", "seed", "workers"})
            parser.error(f"--set {item!r}: expected NAME=VALUE with NAME one of {allowed}")
        try:
            changes[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parser.error(f"--set {item!r}: VALUE must be a Python literal "
                         "(a number, True, False, None or a quoted string)")
    try:
        race.Settings().replace(**changes)
    except (TypeError, ValueError) as err:
        parser.error(f"--set: {err}")
    return changes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4], help="corpus repetitions (default 1 4)")
    parser.add_argument("--seeds", type=int, default=12, help="seeds 0 .. n-1 per arm (default 12)")
    parser.add_argument("--arms", nargs="+", help=f"only these arms (default all): {', '.join(map(repr, ARMS))}")
    parser.add_argument("--json", type=Path, help="also write every run to this JSON file (rewritten after each scale)")
    parser.add_argument("--set", nargs="+", default=[], metavar="NAME=VALUE",
                        help="change settings of lib.race.Settings or its SGNSConfig, e.g. alpha=0.0125")
    args = parser.parse_args(argv)
    changes = parse_settings(parser, args.set)
    try:  # a bad argument is one line and status 2, before anything is loaded or trained
        validate.size(args.seeds, "--seeds", hint="seeds per arm")
        for i, s in enumerate(args.scales):
            validate.integer(s, f"--scales[{i}]", low=1, high=race.MAX_SCALE, hint="times the corpus is repeated")
        for i, arm in enumerate(args.arms or ()):
            validate.choice(arm, f"--arms[{i}]", ARMS)
    except (TypeError, ValueError) as err:
        parser.error(str(err))
    if args.json and not args.json.parent.is_dir():
        parser.error(f"--json {str(args.json)!r}: the folder {str(args.json.parent)!r} does not exist")
    loop = compile_loop()
    if args.arms and loop is None and set(args.arms) <= set(ARMS[4:]):
        parser.error(f"--arms: {' and '.join(map(repr, args.arms))} need the C loop, which did not compile")
    pairs = read_word_pairs("wordsim353")
    docs = datasets.load_corpus("lee")
    print(f"# WordSim-353 rho by seed, one worker per arm; {time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.2f}"
          + (f"; settings changed: {changes}" if changes else ""))
    runs = []
    for scale in args.scales:
        corpus = repeat_corpus(docs, scale)
        settings = race.Settings().replace(**changes)
        settings = settings.replace(min_count=settings.min_count * scale)
        vocab = race.vocabulary(corpus, settings)
        sentences = vocab.encode_sentences(corpus)
        base = replace(settings.sgns, workers=1)
        arms = {
            "gensim": lambda seed: race.train_gensim(corpus, settings, seed=seed, workers=1).vectors,
            "book": lambda seed: sgns.train_sgns(sentences, vocab.counts, replace(base, seed=seed)).vectors,
            "book, plain step": lambda seed: sgns.train_sgns(
                sentences, vocab.counts, replace(base, seed=seed, damped=False)).vectors,
            "book, per window": lambda seed: sgns.train_sgns(
                sentences, vocab.counts, replace(base, seed=seed, block_windows=1, block_negatives=base.negatives,
                                                 batch_windows=128, damped=False)).vectors,
        }
        if loop is not None:
            arms["word2vec loop"] = lambda seed: word2vec_loop(loop, sentences, vocab.counts, replace(base, seed=seed))
            arms["loop, block negatives"] = lambda seed: word2vec_loop(
                loop, sentences, vocab.counts, replace(base, seed=seed), shared=True)
        if args.arms:
            arms = {a: f for a, f in arms.items() if a in args.arms}
        with torch.no_grad():
            for seed in range(args.seeds):
                for arm, train in arms.items():
                    score = word_similarity(train(seed), vocab, pairs)
                    runs.append(dict(scale=scale, arm=arm, seed=seed, rho=score.rho))
                    print(f"  {scale}x seed {seed:2d} {arm:22s} rho {score.rho:.4f}", flush=True)
        print()
        print(f"## {scale}x: WordSim-353 rho over {args.seeds} seeds ({score.n_used} pairs), load {os.getloadavg()[0]:.2f}")
        print()
        print("| arm | mean | sd | range | mean of 5 below gensim's range of 5 |")
        print("| --- | --- | --- | --- | --- |")
        by_arm = {a: np.array([r["rho"] for r in runs if r["scale"] == scale and r["arm"] == a]) for a in arms}
        rng = np.random.default_rng(0)
        g = by_arm.get("gensim")
        for arm, rho in by_arm.items():
            below = "" if g is None else f"{np.mean([rng.choice(rho, 5).mean() < rng.choice(g, 5).min() for _ in range(20_000)]):.0%}"
            sd = rho.std(ddof=1) if len(rho) > 1 else float("nan")
            print(f"| {arm} | {rho.mean():.4f} | {sd:.4f} | {rho.min():.4f}-{rho.max():.4f} | {below} |")
        for other in ("word2vec loop", "loop, block negatives", "book, plain step"):
            if other in by_arm and "book" in by_arm and args.seeds > 1:
                d = by_arm["book"] - by_arm[other]
                print(f"paired, same draws: book - {other} = {d.mean():+.4f} (standard error {d.std(ddof=1) / np.sqrt(len(d)):.4f})")
        if g is not None and "book" in by_arm and args.seeds > 1:
            d = by_arm["book"].mean() - g.mean()
            se = np.sqrt(by_arm["book"].var(ddof=1) / len(by_arm["book"]) + g.var(ddof=1) / len(g))
            print(f"book - gensim (unpaired) = {d:+.4f} (standard error {se:.4f})")
        print()
        if args.json:  # after every scale, so that a long run that stops keeps what it measured
            args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
