"""One look for every figure: a colour-blind-safe palette, markers, sizes and fonts.

The palette is that of :cite:t:`okabe2008color`, distinguishable under the common forms of colour blindness.
Where groups are compared, figures use a marker per group as well as a colour, so that they survive greyscale
printing too.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import matplotlib
from matplotlib.figure import Figure

# Okabe-Ito: seven colours, then black (used last: it is also the colour of text and reference lines).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
# Diverging and sequential colour maps that are perceptually uniform and colour-blind-safe.
DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"

RC = {
    "font.family": "DejaVu Sans",  # ships with matplotlib: identical glyphs on every machine
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "image.cmap": SEQUENTIAL,
    "svg.hashsalt": "embeddings-book",
}


@contextmanager
def book_style():
    """Apply the book's rcParams for the duration of a ``with`` block (drawing happens inside it)."""
    with matplotlib.rc_context(RC):
        yield


def new_figure(width: float = 6.4, height: float = 4.0, **subplot_kw) -> Figure:
    """Return an empty ``Figure`` of ``width`` × ``height`` inches with the book's layout engine."""
    return Figure(figsize=(width, height), layout="constrained", **subplot_kw)


def styled(fn):
    """Decorate a figure function so that it draws under :func:`book_style`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with book_style():
            return fn(*args, **kwargs)

    return wrapper
