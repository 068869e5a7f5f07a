"""Regenerate chapters/*.ipynb from chapters/*.md and execute them in place.

Usage: ``make notebooks`` (every chapter) or ``make notebooks NB=chapters/lesson.md`` (one).
The .md file is the source; the .ipynb is derived (jupytext) and executed (nbclient) in the chapters/
folder, with no timing metadata, so that ``git diff chapters/x.ipynb`` shows only what changed in the
outputs. Commit the two files together.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"


def build(md: Path) -> float:
    nb = jupytext.read(md)
    nb.metadata.pop("jupytext", None)  # the pairing is a convention of this repository, not of the file
    nb.metadata["jupytext"] = {"formats": "ipynb,md:myst"}
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(md.parent)}},
                   record_timing=False).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:  # cell ids are random per conversion: make them stable
        cell.pop("id", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    nb.nbformat_minor = 4
    nbformat.write(nb, md.with_suffix(".ipynb"))
    return seconds


def coalesce_streams(outputs: list) -> list:
    """Consecutive outputs of one stream merged into one, so that a cell's printed lines form one block on
    the page however the kernel happened to flush them."""
    merged = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] = "".join(merged[-1]["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def main(argv):
    os.environ.setdefault("EMBOOK_QUIET", "1")
    targets = [Path(a).resolve() for a in argv] or sorted(CHAPTERS.glob("*.md"))
    for md in targets:
        if md.suffix != ".md" or not md.exists():
            sys.exit(f"not a chapter source: {md}")
        seconds = build(md)
        print(f"{md.relative_to(ROOT)} -> {md.with_suffix('.ipynb').relative_to(ROOT)}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
