"""Run PyTorch, or the BLAS behind NumPy and SciPy, on a fixed number of threads for the length of a ``with`` block.

Two reasons to pin threads where the book trains or times a model:

- Speed. The book's small models (34 × 34 matrices, a few thousand rows a step) lose time when PyTorch wakes a
  second thread, and far more on a machine whose cores are shared: measured on the book's 2-core machine,
  a tied-LM step took 1.5 ms on one thread and 26 ms on two, and a sparse SGD step about 4 ms against over
  100 ms.
- The same numbers on every machine. A library that splits a sum over threads adds the partial sums in an
  order that depends on how many threads there are, so a result can change in its last digits with the
  reader's core count, and training can carry such a difference into the digits a chapter prints. On a
  fixed number of threads the order is fixed.

Both context managers restore the previous setting afterwards, so that a caller's own setting is never
changed behind its back. PyTorch is imported only by :func:`torch_threads`, so that NumPy-only code (the
lesson) can pin its BLAS without importing PyTorch.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional


def _check(n) -> None:
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"number of threads must be a positive integer or None, got {n!r}")


@contextmanager
def torch_threads(n: Optional[int]) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(n)``; ``None`` leaves the setting alone. Restores it after.

    Raises ``ValueError`` for ``n < 1``.
    """
    _check(n)
    import torch

    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextmanager
def blas_threads(n: Optional[int]) -> Iterator[None]:
    """Run the block with the BLAS libraries loaded in the process (OpenBLAS, MKL, ...) limited to ``n``
    threads (``threadpoolctl.threadpool_limits``); ``None`` leaves them alone. Restores them after.

    Raises ``ValueError`` for ``n < 1``.
    """
    _check(n)
    if n is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n, user_api="blas"):
        yield
