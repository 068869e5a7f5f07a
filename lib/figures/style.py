"""One look for every figure: a colour-blind-safe palette, markers, sizes and fonts.

The palette is that of :cite:t:`okabe2008color`, distinguishable under the common forms of colour blindness.
Where groups are compared, figures use a marker per group as well as a colour, so that they survive greyscale
printing too.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import matplotlib
import numpy as np
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


def crosses(box, a, b, samples: int = 200) -> bool:
    """Whether the straight segment from ``a`` to ``b`` runs through the inside of ``box``: a line through a
    label, when ``box`` is the label's extent.

    ``box`` is a matplotlib ``Bbox``; ``a`` and ``b`` are ``(x, y)`` points in its coordinates (display pixels
    for a label and a drawn line). The segment is sampled at ``samples`` evenly spaced points, so one that
    clips a corner by less than its length / ``samples`` may be missed; a segment along an edge does not cross.

    >>> from matplotlib.transforms import Bbox
    >>> crosses(Bbox([[0, 0], [10, 10]]), (-5, 5), (15, 5))
    True
    >>> crosses(Bbox([[0, 0], [10, 10]]), (-5, 10), (15, 10))
    False
    """
    a = np.asarray(a, dtype=float)
    points = a + np.linspace(0.0, 1.0, samples)[:, None] * (np.asarray(b, dtype=float) - a)
    x, y = points[:, 0], points[:, 1]
    return bool(((x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)).any())


def styled(fn):
    """Decorate a figure function so that it draws under :func:`book_style`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with book_style():
            return fn(*args, **kwargs)

    return wrapper
