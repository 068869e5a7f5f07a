"""The book's byte-pair encoding against Hugging Face ``tokenizers``: training and encoding time.

Both train a byte-level BPE on the training stories of the Lee corpus (every tenth story held out, as in
chapters/tokenization.md) to the chapter's vocabulary size, and encode all 300 stories; the book's
tokenizer starts each encoding with an empty cache. The two run alternately, several times, in one process
(``lib.chapters.tokenization.time_against_tokenizers``), so that a change in the machine's load falls on
both; the script prints the median times and the ratio book ÷ library (above 1: the library is faster).

Usage (from the repository root, after `make venv`):

    .venv/bin/python benchmarks/tokenization_bpe.py
    .venv/bin/python benchmarks/tokenization_bpe.py --repeats 5

This is a measurement, not a test: it prints, it never fails. ``tokenizers`` may use several threads to
encode a batch; the script prints the core count. Timings on a shared machine mean little without its
load, so the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # a fresh clone without `pip install -e .`

from lib.chapters import tokenization as tz  # noqa: E402
from lib import validate  # noqa: E402
from lib.bpe import N_BYTES  # noqa: E402
from lib.datasets import read_documents  # noqa: E402


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, alternating (default 3)")
    parser.add_argument("--vocab-size", type=int, default=tz.MAX_VOCAB, help="vocabulary asked for")
    args = parser.parse_args(argv)
    try:  # a bad argument is one line and status 2, before anything runs
        validate.size(args.repeats, "--repeats", hint="runs of each")
        validate.size(args.vocab_size, "--vocab-size", low=N_BYTES, hint="the 256 bytes and the merges")
    except (TypeError, ValueError) as err:
        parser.error(str(err))

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"tokenizers {metadata.version('tokenizers')}; load average before: {load()}")
    train_docs, _ = tz.lee_split()
    docs = read_documents("lee")
    timing = tz.time_against_tokenizers(train_docs, docs, args.vocab_size, repeats=args.repeats)
    print(f"{'':10s} {'book (s)':>10s} {'tokenizers (s)':>15s} {'book / tokenizers':>18s}")
    for what, (book, lib), ratio in (
        ("train", timing.train_seconds, timing.train_ratio),
        (f"encode {len(docs)}", timing.encode_seconds, timing.encode_ratio),
    ):
        print(f"{what:10s} {book:10.3f} {lib:15.3f} {ratio:18.1f}")
    print(f"medians of {timing.repeats} runs; load average after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
