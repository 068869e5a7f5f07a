"""Helpers for chapter notebooks: show a figure, glue a number into the prose.

Used by every chapter (its imports cell); not taught in a chapter.

Two problems these solve, both from running notebooks under nbval and myst-nb:

- A figure shown the usual way stores a ``text/plain`` line such as ``<Figure size 640x480 with 1 Axes>``
  beside the image, and that text changes between matplotlib versions (nbval#185). :func:`show` emits the
  PNG alone.
- ``glue`` on a NumPy scalar stores ``np.float64(...)`` and mis-handles format specs (MyST-NB#610).
  :func:`glue` converts NumPy scalars to Python numbers first.

Outside a notebook (plain Python, tests) :func:`show` and :func:`glue` do nothing visible.
"""

from __future__ import annotations

import base64
import io
import math
import numbers

import numpy as np
from IPython.display import Markdown, display

from lib.figures.style import book_style

try:  # myst-nb stores glued values for the book; on a reader's machine without it (Colab) glue stores nothing
    import myst_nb
except ImportError:
    myst_nb = None

PNG_DPI = 100  # the baseline images' resolution (tests/test_figures.py compares drawings at it)
# The book's and the notebooks' figures are drawn at twice that: the page shows a figure at the width of
# the text column, and a reader on a phone taps it to open the image itself, whose text then stays sharp
# when zoomed (tests/test_reader_page.py measures both).
BOOK_DPI = 2 * PNG_DPI
GLUE_DIGITS = 8  # significant digits of a glued float


def figure_png(fig, dpi: int = PNG_DPI) -> bytes:
    """Render a matplotlib ``Figure`` to PNG bytes at ``dpi`` dots per inch, with no timestamp metadata."""
    buf = io.BytesIO()
    with book_style():
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def show(fig) -> None:
    """Display ``fig`` in the notebook as a PNG at ``BOOK_DPI`` and nothing else (no ``<Figure ...>`` text)."""
    data = base64.b64encode(figure_png(fig, dpi=BOOK_DPI)).decode("ascii")
    display({"image/png": data}, raw=True)


def plain(value):
    """Return ``value`` with NumPy scalars turned into Python ``float`` / ``int`` / ``bool``.

    Raises ``TypeError`` for arrays of more than one element: glue one number at a time.

    >>> plain(np.float64(0.5)), plain(np.int64(3))
    (0.5, 3)
    """
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise TypeError(f"glue one number at a time, got an array of shape {value.shape}")
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def glue(name: str, value, display: bool = False) -> None:
    """Store ``value`` under ``name`` for myst-nb's ``{glue:text}`` role.

    Numbers are converted with :func:`plain` and floats rounded to ``GLUE_DIGITS`` significant digits;
    strings are stored as Markdown, so that prose can use
    ``{glue:md}`name``` for a formatted value and ``{glue:text}`name:.4f``` for a number. Where myst-nb is
    not installed (Colab), nothing is stored. Returns ``None``, so that a glue call ending a cell prints
    nothing.
    """
    if myst_nb is None:
        return None
    stored = plain(value)
    if isinstance(stored, float) and math.isfinite(stored):
        # the stored repr is what nbval compares: keep GLUE_DIGITS significant digits, so that last-digit
        # float noise (another BLAS, a reordered sum) never changes it; prose shows at most 4 decimals
        stored = float(f"{stored:.{GLUE_DIGITS}g}")
    if isinstance(stored, str):
        stored = Markdown(stored)
    myst_nb.glue(name, stored, display=display)
