"""Run PyTorch on a fixed number of intra-op threads for the length of a ``with`` block.

The book's small models (34 × 34 matrices, a few thousand rows a step) lose time when PyTorch wakes a
second thread, and far more on a machine whose cores are shared: measured on the book's 2-core machine,
a tied-LM step took 1.5 ms on one thread and 26 ms on two, and a sparse SGD step about 4 ms against over
100 ms. Training and timing code therefore pins the thread count here and restores it afterwards, so that
a caller's own setting is never changed behind its back.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

import torch


@contextmanager
def torch_threads(n: Optional[int]) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(n)``; ``None`` leaves the setting alone. Restores it after.

    Raises ``ValueError`` for ``n < 1``.
    """
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"number of threads must be a positive integer or None, got {n!r}")
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
