"""Regenerate chapters/*.ipynb from chapters/*.md and execute them in place.

Usage: ``make notebooks`` (every chapter) or ``make notebooks NB=chapters/lesson.md`` (one).
``python tools/build_notebooks.py --markdown-only chapters/x.md`` takes a change of prose only: it copies the
Markdown cells into the .ipynb and keeps its outputs, without executing, and refuses when a code cell
(its source, tags or metadata) or the order of the code cells changed.
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
    NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(md.parent)}},
                   record_timing=False).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:  # cell ids are random per conversion: make them stable
        cell.pop("id", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    nb.nbformat_minor = 4
    nbformat.write(nb, md.with_suffix(".ipynb"))
    return seconds


def update_markdown(md: Path) -> int:
    """Rewrite ``md``'s notebook with the Markdown cells of ``md`` and the code cells (outputs included) it
    has; return how many Markdown cells changed. ``SystemExit`` if the code cells differ in any way."""
    nb = jupytext.read(md)
    old = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
    nb.metadata = old.metadata  # what the kernel recorded when the notebook was executed
    new_code = [c for c in nb.cells if c.cell_type == "code"]
    old_code = [c for c in old.cells if c.cell_type == "code"]
    key = lambda c: (c.source, dict(c.metadata))  # noqa: E731
    if [key(c) for c in new_code] != [key(c) for c in old_code]:
        sys.exit(f"{md.name}: code cells changed; execute it (without --markdown-only)")
    for new, kept in zip(new_code, old_code):
        new.outputs, new.execution_count = kept.outputs, kept.execution_count
    for cell in nb.cells:
        cell.pop("id", None)
    nb.nbformat_minor = 4
    before = [c.source for c in old.cells if c.cell_type == "markdown"]
    nbformat.write(nb, md.with_suffix(".ipynb"))
    return sum(c.cell_type == "markdown" and c.source not in before for c in nb.cells)


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
    markdown_only = "--markdown-only" in argv
    targets = [Path(a).resolve() for a in argv if a != "--markdown-only"] or sorted(CHAPTERS.glob("*.md"))
    for md in targets:
        if md.suffix != ".md" or not md.exists():
            sys.exit(f"not a chapter source: {md}")
        if markdown_only:
            changed = update_markdown(md)
            print(f"{md.relative_to(ROOT)} -> {md.with_suffix('.ipynb').relative_to(ROOT)}: {changed} Markdown cells changed, not executed")
            continue
        seconds = build(md)
        print(f"{md.relative_to(ROOT)} -> {md.with_suffix('.ipynb').relative_to(ROOT)}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
