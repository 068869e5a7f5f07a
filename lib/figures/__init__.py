"""Figures of the book: one module per chapter, each function returning a ``matplotlib.figure.Figure``.

Every chapter module defines ``FIGURES``, a dict from a figure's name (its baseline file is
``tests/baseline/<name>.png``) to a function that takes no arguments and returns the figure exactly as the
chapter shows it. :func:`registry` collects them from every module of this package, so a new chapter adds
its module and nothing else. Figures are made with the object-oriented API (``Figure()``, not
``pyplot``), so that a notebook never shows one by accident and no global state leaks between them.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable, Dict


def registry() -> Dict[str, Callable]:
    """Return ``{name: function}`` for every figure of every chapter module in ``lib.figures``.

    Raises ``ValueError`` if two modules register the same name.
    """
    found: Dict[str, Callable] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "style":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, fn in getattr(module, "FIGURES", {}).items():
            if name in found:
                raise ValueError(f"figure name {name!r} is registered twice (second time in {info.name})")
            found[name] = fn
    return found
