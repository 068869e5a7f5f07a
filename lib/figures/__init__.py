"""Figures of the book: one module per chapter, named like ``chapters/<name>.md``, each function returning
a ``matplotlib.figure.Figure``.

Every chapter module defines ``FIGURES``, a dict from a figure's name (the name its reference image is kept
under) to a function that takes no arguments and returns the figure exactly as the
chapter shows it, and may define ``SLOW``, the names of figures whose data take more than about a second
to compute. :func:`registry` and
:func:`slow` collect them from every module of this package, so a new chapter adds its module and nothing
else. Figures are made with the object-oriented API (``Figure()``, not ``pyplot``), so that a notebook
never shows one by accident and no global state leaks between them. The data a figure draws comes from
the chapter's module (``lib.chapters.<name>``) or the concept modules; style is ``lib.figures.style``.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Callable, Dict, List, Set


def _chapter_modules() -> List[ModuleType]:
    return [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
        if not info.name.startswith("_") and info.name != "style"
    ]


def registry() -> Dict[str, Callable]:
    """Return ``{name: function}`` for every figure of every chapter module in ``lib.figures``.

    Raises ``ValueError`` if two modules register the same name.
    """
    found: Dict[str, Callable] = {}
    for module in _chapter_modules():
        info = module.__name__.rsplit(".", 1)[1]
        for name, fn in getattr(module, "FIGURES", {}).items():
            if name in found:
                raise ValueError(f"figure name {name!r} is registered twice (second time in {info})")
            found[name] = fn
    return found


def slow() -> Set[str]:
    """The names of the figures whose data take more than about a second (each module's ``SLOW``)."""
    return {name for module in _chapter_modules() for name in getattr(module, "SLOW", ())}
