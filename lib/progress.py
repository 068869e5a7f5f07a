"""Progress bars for long loops: tqdm's notebook bar in Jupyter, a text bar in a terminal.

Used by the long loops of ``lib`` (training, the real-text study, the race); not taught in a chapter.

A reader running a notebook sees a bar while a long loop runs; it disappears when the loop ends
(``leave=False``), so that the cell's output keeps only what the chapter prints. The environment variable
``EMBOOK_QUIET=1`` switches every bar off (the book's pages show none).
"""

# The book build and the test runs set EMBOOK_QUIET=1 (see the Makefile and conftest.py), so that no bar
# reaches the stored outputs that nbval compares or the HTML pages.

from __future__ import annotations

import os

from tqdm.auto import tqdm


def quiet() -> bool:
    """True when progress bars are switched off (environment variable ``EMBOOK_QUIET=1``)."""
    return os.environ.get("EMBOOK_QUIET", "") == "1"


def progress(iterable=None, *, total=None, desc=None, disable=None, **kwargs):
    """Wrap ``iterable`` in a tqdm bar, silent when :func:`quiet` (or ``disable=True``). ``iterable`` may be
    ``None`` for a bar updated by hand (``total`` steps). Raises ``TypeError`` for an ``iterable`` that is
    neither ``None`` nor iterable."""
    if iterable is not None:
        try:
            iter(iterable)  # a generator is returned as it is, nothing consumed
        except TypeError:
            raise TypeError(f"iterable must be an iterable or None, got {type(iterable).__name__}") from None
    if disable is None:
        disable = quiet()
    return tqdm(iterable, total=total, desc=desc, disable=disable, leave=False, **kwargs)
