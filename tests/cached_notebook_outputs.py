"""A Sphinx extension for the browser test's build only (tests/booksite.py, ``build_book(execute=False)``).

With ``execute_notebooks: cache`` myst-nb 1.4 takes a page's outputs from jupyter-cache, but it writes the
notebook offered for download (``_build/jupyter_execute/<page>.ipynb``, which sphinx-book-theme copies to
``_sources/``) from the notebook it read, without those outputs: ``NotebookClientCache.start_client`` puts the
merged notebook in a new object instead of the one the caller writes. ``make book`` executes every chapter
(``force``), where the two are one object and the download has its outputs. This extension copies the
cached outputs into the caller's notebook, so that the test's book offers what ``make book`` offers.
"""

from __future__ import annotations

from myst_nb.core.execute.cache import NotebookClientCache

_start_client = NotebookClientCache.start_client


def _start_client_in_place(self):
    read = self._notebook
    _start_client(self)
    if self._notebook is not read:  # the merged notebook, with the cached outputs
        read.cells[:] = self._notebook.cells
        read.metadata.update(self._notebook.metadata)
        self._notebook = read


def setup(app):
    NotebookClientCache.start_client = _start_client_in_place
    return {"parallel_read_safe": True, "parallel_write_safe": True}
