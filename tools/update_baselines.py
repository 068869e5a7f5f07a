"""Redraw every figure registered in lib.figures into tests/baseline/<name>.png.

Usage: ``make baselines`` (all figures) or ``python tools/update_baselines.py NAME ...`` (some).
Look at the images (git diff shows which changed) before committing them.
"""

import sys
from pathlib import Path

from lib.figures import registry
from lib.notebook import figure_png

BASELINE = Path(__file__).resolve().parents[1] / "tests" / "baseline"


def main(names):
    figures = registry()
    unknown = sorted(set(names) - set(figures))
    if unknown:
        sys.exit(f"unknown figure(s): {', '.join(unknown)}; known: {', '.join(sorted(figures))}")
    BASELINE.mkdir(parents=True, exist_ok=True)
    for name in names or sorted(figures):
        png = figure_png(figures[name]())
        (BASELINE / f"{name}.png").write_bytes(png)
        print(f"wrote tests/baseline/{name}.png")


if __name__ == "__main__":
    main(sys.argv[1:])
