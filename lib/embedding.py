"""Embedding tables: validated lookup, one-hot, the lookup's gradient, similarity and neighbours.

An embedding table ``E`` is a ``(V, d)`` matrix with one row per vocabulary item; looking up id ``i``
returns row ``i``. The lookup equals a one-hot row times the table, ``onehot(i) @ E == E[i]``
(Bengio et al. 2003, §2; Mikolov et al. 2013), so its gradient is ``onehot.T @ dout``: the output
gradients summed into the rows that were used (:func:`lookup_grad`).

Where this departs from a plain ``E[ids]``:

- ids are validated: a negative id is an error, not NumPy's wrap-around to the end of the table, and an
  id ``>= V`` names the vocabulary size;
- the result is always a new array, so that adding a positional encoding to it in place can never change
  the table itself;
- similarity of a zero vector is defined as 0 (cosine) rather than NaN, and no neighbour query can rank a
  NaN first: non-finite scores are rejected.
"""

from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

import numpy as np

from lib.notebook import logging_numbers, record_gap

METRICS = ("cosine", "dot", "euclidean")
# Scores closer than this, relative to the largest score, are a tie: two rows that are equal up to rounding
# (identical co-occurrence rows, say) rank by row index on every machine, not by the noise in their last bits.
TIE_RTOL = 1e-12


def check_ids(ids, vocab_size: int, name: str = "token id") -> np.ndarray:
    """Return ``ids`` as an ``int64`` array after checking every id lies in ``[0, vocab_size)``.

    ``ids`` may be an int or any array-like of integers, of any shape. Raises ``TypeError`` for
    non-integer ids (floats, bools, strings) and ``ValueError`` naming the first bad id, e.g.
    ``token id 40 out of range for vocabulary of 34``.
    """
    if not isinstance(vocab_size, (int, np.integer)) or isinstance(vocab_size, bool) or vocab_size < 1:
        raise ValueError(f"vocabulary size must be a positive integer, got {vocab_size!r}")
    arr = np.asarray(ids)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if arr.size == 0 and arr.dtype == np.float64:  # np.asarray([]) is float64: accept an empty list
            return arr.astype(np.int64)
        raise TypeError(f"{name}s must be integers, got dtype {arr.dtype}")
    bad = (arr < 0) | (arr >= vocab_size)  # on the original dtype: a uint64 id must not wrap to -1 first
    if bad.any():
        first = int(arr[bad].flat[0])
        raise ValueError(f"{name} {first} out of range for vocabulary of {vocab_size} (allowed 0..{vocab_size - 1})")
    return arr.astype(np.int64)


def check_table(table) -> np.ndarray:
    """Return ``table`` as a 2-D floating array; ``ValueError`` if it is not ``(V, d)`` with V, d >= 1."""
    table = np.asarray(table)
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
        raise ValueError(f"embedding table must have shape (V, d) with V, d >= 1, got {table.shape}")
    if not np.issubdtype(table.dtype, np.floating):
        table = table.astype(np.float64)
    return table


def lookup(table, ids) -> np.ndarray:
    """Rows of the embedding table for ``ids``: shape ``ids.shape + (d,)``, same dtype as ``table``.

    ``table`` is ``(V, d)``; ``ids`` an int or an integer array of any shape. Always returns a copy.
    Raises ``ValueError`` for an id outside ``[0, V)`` and ``TypeError`` for non-integer ids.
    """
    table = check_table(table)
    ids = check_ids(ids, table.shape[0])
    return table[ids].copy()  # fancy indexing copies already; .copy() also covers a 0-d id


def onehot(ids, vocab_size: int) -> np.ndarray:
    """One-hot rows for ``ids``: shape ``ids.shape + (vocab_size,)``, ``float64``, a single 1 per row.

    ``onehot(ids, V) @ E`` equals ``lookup(E, ids)``. Raises like :func:`check_ids`.
    """
    ids = check_ids(ids, vocab_size)
    out = np.zeros(ids.shape + (vocab_size,), dtype=np.float64)
    np.put_along_axis(out, ids[..., None], 1.0, axis=-1)
    return out


def lookup_grad(ids, grad_out, vocab_size: int) -> np.ndarray:
    """Gradient of a loss with respect to the table, given the gradient on the looked-up rows.

    ``ids`` has shape ``S`` and ``grad_out`` shape ``S + (d,)``; returns ``(vocab_size, d)`` ``float64``
    where row ``i`` is the sum of ``grad_out`` over every position whose id is ``i`` (an id used twice
    gets two contributions: ``np.add.at``, not ``dE[ids] += ...`` which would keep only one).
    Equals ``onehot(ids).T @ grad_out`` flattened over ``S``. Raises ``ValueError`` on mismatched shapes.
    """
    ids = check_ids(ids, vocab_size)
    grad_out = np.asarray(grad_out, dtype=np.float64)
    if grad_out.ndim < 1 or grad_out.shape[:-1] != ids.shape or grad_out.shape[-1] < 1:
        raise ValueError(f"grad_out must have shape {ids.shape} + (d,), got {grad_out.shape}")
    grad = np.zeros((vocab_size, grad_out.shape[-1]), dtype=np.float64)
    np.add.at(grad, ids.reshape(-1), grad_out.reshape(-1, grad_out.shape[-1]))
    return grad


# --- similarity -----------------------------------------------------------------------------------


def _as_rows(x, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim not in (1, 2) or x.shape[-1] < 1:
        raise ValueError(f"{name} must be a vector (d,) or a matrix (n, d), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or infinity")
    return x


def normalize_rows(x) -> np.ndarray:
    """Rows of ``x`` scaled to unit Euclidean length; a zero row stays zero. ``(n, d)`` or ``(d,)``."""
    x = _as_rows(x, "x")
    # divide by the largest |entry| first, so that the norm of a row of 1e200s does not overflow to inf
    scale = np.max(np.abs(x), axis=-1, keepdims=True)
    x = np.divide(x, scale, out=np.zeros_like(x), where=scale > 0)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def similarity(x, y, metric: str = "cosine") -> np.ndarray:
    """Pairwise scores between the rows of ``x`` ``(n, d)`` and ``y`` ``(m, d)``: an ``(n, m)`` array.

    ``metric``: ``"cosine"`` (x·y / (‖x‖ ‖y‖), 0 when either vector is zero), ``"dot"`` (x·y), or
    ``"euclidean"`` (the distance ‖x − y‖: smaller is closer). Vectors ``(d,)`` are treated as one row and
    the matching axis is dropped, so two vectors give a scalar ``float``. Raises ``ValueError`` for an
    unknown metric, mismatched widths, or non-finite input.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    xa, ya = _as_rows(x, "x"), _as_rows(y, "y")
    if xa.shape[-1] != ya.shape[-1]:
        raise ValueError(f"x and y must have the same width, got {xa.shape[-1]} and {ya.shape[-1]}")
    X, Y = np.atleast_2d(xa), np.atleast_2d(ya)
    with np.errstate(over="ignore"):  # an overflow is reported below as a ValueError, not a warning
        out = _scores(X, Y, metric)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"the {metric} of these vectors overflows float64; rescale them first")
    if xa.ndim == 1:
        out = out[0]
    if ya.ndim == 1:
        out = out[..., 0]
    return float(out) if np.ndim(out) == 0 else out


def _scores(X, Y, metric: str) -> np.ndarray:
    """``(n, m)`` scores of rows ``X (n, d)`` against rows ``Y (m, d)`` (checked by :func:`similarity`)."""
    if metric == "cosine":
        out = np.clip(normalize_rows(X) @ normalize_rows(Y).T, -1.0, 1.0)
    elif metric == "dot":
        out = X @ Y.T
    else:
        diff = X[:, None, :] - Y[None, :, :]  # (n, m, d)
        out = np.sqrt(np.einsum("nmd,nmd->nm", diff, diff))
    return out


def cosine_similarity(x, y):
    """Cosine similarity of two vectors (a ``float``) or of the rows of two matrices. See :func:`similarity`."""
    return similarity(x, y, "cosine")


def euclidean_distance(x, y):
    """Euclidean distance of two vectors (a ``float``) or of the rows of two matrices. See :func:`similarity`."""
    return similarity(x, y, "euclidean")


def dot_product(x, y):
    """Dot product of two vectors (a ``float``) or of the rows of two matrices. See :func:`similarity`."""
    return similarity(x, y, "dot")


def nearest_neighbours(
    table,
    query,
    k: int = 5,
    *,
    metric: str = "cosine",
    normalize: bool = False,
    candidates: Iterable[int] | None = None,
    exclude: Iterable[int] = (),
) -> List[Tuple[int, float]]:
    """The ``k`` rows of ``table`` ``(V, d)`` closest to the vector ``query`` ``(d,)``.

    Returns ``[(row index, score), ...]`` best first; score is the similarity for ``"cosine"`` / ``"dot"``
    and the distance for ``"euclidean"``. ``normalize=True`` scales every row (and the query) to unit
    length first, after which all three metrics rank alike. ``candidates`` restricts the search to those
    rows (default: all); ``exclude`` removes rows (e.g. the query word itself). Ties are broken by the
    smaller row index, so the result is deterministic; scores within ``TIE_RTOL`` (relative to the largest
    score) of each other count as tied, so that rows equal up to rounding keep the same order on every
    machine. Returns fewer than ``k`` when fewer candidates are left. Raises ``ValueError`` for ``k < 1``, an unknown metric, bad row ids, or non-finite input.
    """
    table = check_table(table)
    if not np.all(np.isfinite(table)):
        raise ValueError("table contains NaN or infinity")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    query = _as_rows(query, "query")
    if query.ndim != 1 or query.shape[0] != table.shape[1]:
        raise ValueError(f"query must have shape ({table.shape[1]},), got {query.shape}")
    V = table.shape[0]
    if isinstance(exclude, (int, np.integer)) or isinstance(candidates, (int, np.integer)):
        raise TypeError("candidates and exclude must be collections of row ids (e.g. exclude=[3]), not one int")
    cand = np.arange(V) if candidates is None else np.unique(check_ids(list(candidates), V, "candidate row"))
    excl = check_ids(list(exclude), V, "excluded row")
    cand = cand[~np.isin(cand, excl)]
    if cand.size == 0:
        return []
    rows = table[cand]
    if normalize:
        rows, query = normalize_rows(rows), normalize_rows(query)
    scores = np.atleast_1d(similarity(rows, query, metric))
    key = scores if metric == "euclidean" else -scores  # ascending key = best first
    ranked = np.lexsort((cand, key))  # by score; exact ties: smaller index first
    scale = float(np.abs(scores).max())
    steps = np.diff(key[ranked])  # (n - 1,) >= 0
    group = np.concatenate([[0], np.cumsum(steps > TIE_RTOL * scale)])  # near-ties share a group
    order = ranked[np.lexsort((cand[ranked], group))][:k]  # by group; within a group, smaller index first
    if logging_numbers():  # how close the order of the k best (and the k-th place) came to another order
        apart = steps[: k][steps[: k] > TIE_RTOL * scale]
        if apart.size:
            record_gap(f"nearest_neighbours: order of the {k} nearest ({metric})", apart.min(), scale)
    return [(int(cand[i]), float(scores[i])) for i in order]


def analogy(
    table,
    a: int,
    b: int,
    c: int,
    k: int = 1,
    *,
    exclude_query: bool = True,
    candidates: Sequence[int] | None = None,
) -> List[Tuple[int, float]]:
    """3CosAdd: rows closest (cosine) to ``b - a + c``, "a is to b as c is to ?" (Mikolov et al. 2013).

    Rows are normalised to unit length before the offset is formed, as in word2vec's evaluation. With
    ``exclude_query=True`` (the usual protocol, stated here because it changes results) the three query
    rows ``a, b, c`` are never returned. Returns ``[(row, cosine), ...]`` best first, ties by row index.
    """
    table = check_table(table)
    a, b, c = (int(i) for i in check_ids([a, b, c], table.shape[0], "analogy row"))
    unit = normalize_rows(table)
    target = unit[b] - unit[a] + unit[c]
    return nearest_neighbours(
        unit, target, k, metric="cosine", candidates=candidates, exclude=(a, b, c) if exclude_query else ()
    )
