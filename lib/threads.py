"""Run PyTorch on a fixed number of intra-op threads for the length of a ``with`` block.

Used by the training and timing code of ``lib`` (:mod:`lib.skipgram`, :mod:`lib.sgns`, :mod:`lib.tying`,
:mod:`lib.sparse_updates`); not taught in a chapter. Follows ``torch.set_num_threads``; departs from it in
restoring the caller's setting afterwards, so that it is never changed behind the caller's back.

The book's small models (34 × 34 matrices, a few thousand rows a step) gain nothing from a second thread
and lose time waiting for it, many times the work itself on a machine whose cores are shared. Pinning the
count also keeps results independent of the number of cores.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

import torch

from lib import validate


@contextmanager
def torch_threads(n: Optional[int]) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(n)``; ``None`` leaves the setting alone. Restores it after.

    Raises ``ValueError`` for ``n`` outside ``[1, lib.validate.MAX_WORKERS]``, ``TypeError`` for a non-integer.
    """
    if n is not None:
        n = validate.workers(n, "number of threads", hint="or None to leave the setting alone")
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
