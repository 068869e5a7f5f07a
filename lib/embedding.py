"""Embedding tables: validated lookup, one-hot, the lookup's gradient, similarity and neighbours.

Taught in: chapters/lesson.md (lookup, one-hot, the gradient of a lookup, cosine similarity), chapters/trace_exercise.md
(the reference lookup) and chapters/embeddings.md (Level 1, similarity measures and neighbours).

An embedding table ``E`` is a ``(V, d)`` matrix with one row per vocabulary item; looking up id ``i``
returns row ``i``. The lookup equals a one-hot row times the table, ``onehot(i) @ E == E[i]``
:cite:p:`bengio2003neural{§2},mikolov2013efficient`, so its gradient is ``onehot.T @ dout``: the
output gradients summed into the rows that were used (:func:`lookup_grad`).

Where this departs from a plain ``E[ids]``:

- ids are validated: a negative id is an error, not NumPy's wrap-around to the end of the table, and an
  id ``>= V`` names the vocabulary size;
- the result is always a new array, so that adding a positional encoding to it in place can never change
  the table itself;
- similarity of a zero vector is defined as 0 (cosine) rather than NaN, and no neighbour query can rank a
  NaN first: non-finite scores are rejected;
- every metric is scale-robust, as ``np.hypot`` and LAPACK's ``dnrm2`` are: before anything is squared,
  a vector is divided by its largest ``|entry|`` (cosine) or scaled by the power of two that brings that
  entry into [0.5, 1) (distance), and the powers go back on at the end. So the distance of two vectors
  of size 1e-200 is not 0, that of two of size 1e+200 does not overflow, and cosines and distances are
  right to float64 rounding wherever they are representable in float64. A cosine near ±1 is recomputed
  from the difference of the two unit rows, so parallel vectors have cosine exactly 1 (antiparallel -1),
  and every function that computes cosines gives the same bits there.
- a dot product of ordinary size is the plain float64 one (BLAS), whose error is at most about
  ``d * 2**-53 * sum(|x_i y_i|)``, as for any floating-point dot product: terms that cancel can leave
  that error large beside the result. A dot product that the plain computation overflows, underflows or
  cancels to 0 is instead summed exactly, as integer mantissas times powers of two, and rounded once, so
  ``[1e200, 1e200, 1] · [1e200, -1e200, 1]`` is 1. A score beyond float64 (the dot product of two vectors
  of size 1e+200 is 1e+400) raises ``ValueError``; a dot product that underflows (two vectors of size
  1e-200) is rounded to 0, and neighbour queries still rank such products in their true order.
- everything is computed in float64. Every function that takes vectors or a table checks them with
  :func:`lib.validate.real_numbers`: an entry of a wider dtype (``longdouble``) that float64 cannot hold,
  finite above about 1.8e308 or nonzero below about 4.9e-324, or within that range but not held exactly
  by float64 (``np.longdouble(1) + 2**-60``), is a ``ValueError`` naming the argument, for every metric
  (a cosine too), and a NumPy masked array with a masked entry a ``TypeError``: cast to float64, the
  entry would become infinity, 0 or its float64 neighbour (distinct vectors would tie), and the mask
  would be dropped.
"""

from __future__ import annotations

import math
from typing import Iterable, List, Sequence, Tuple

import numpy as np
from scipy.spatial.distance import cdist

from lib import validate
from lib.notebook import logging_numbers, record_gap
from lib.validate import ids as check_ids  # noqa: F401  (the name chapters and CONTRIBUTING use)

METRICS = ("cosine", "dot", "euclidean")
# Cosines or distances closer than this, relative to their own size, are a near-tie: two rows that are equal up
# to rounding (identical co-occurrence rows, say) rank by row index on every machine, not by the noise in their
# last bits. The rule is :func:`top_k`'s.
TIE_RTOL = 1e-12


def check_table(table, name: str = "table", *, finite: bool = False) -> np.ndarray:
    """Return ``table`` as a 2-D floating array (a float dtype kept, integers as ``float64``).

    Raises ``ValueError`` if it is not ``(V, d)`` with V, d >= 1 (or, with ``finite=True``, holds NaN or
    infinity) or holds an integer beyond 2**53 in size or a ``longdouble`` that float64 does not hold
    exactly (float64 would round it), and ``TypeError`` for
    entries that are not real numbers (``None``, strings, complex numbers, bools), as
    :func:`lib.validate.vectors` does, or a ``finite`` that is not ``True`` or
    ``False``. ``name`` is the argument named in the errors.

    >>> check_table([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    finite = validate.flag(finite, "finite")
    given, table = table, validate.real_numbers(table, name, "a matrix (V, d)")
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
        raise ValueError(f"embedding table must have shape (V, d) with V, d >= 1, got {table.shape}")
    if finite and not np.all(np.isfinite(table)):
        raise ValueError(f"{name} contains NaN or infinity")
    validate._exact_in_float64(table, name, given)  # Python ints beyond 2**53 may have become floats
    if not np.issubdtype(table.dtype, np.floating):
        table = table.astype(np.float64)
    return table


def lookup(table, ids) -> np.ndarray:
    """Rows of the embedding table for ``ids``: shape ``ids.shape + (d,)``, same dtype as ``table``.

    ``table`` is ``(V, d)``; ``ids`` an int or an integer array of any shape. Always returns a copy.
    Raises ``ValueError`` for an id outside ``[0, V)`` and ``TypeError`` for non-integer ids or a table
    that does not hold real numbers (see :func:`check_table`).

    >>> lookup([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], [2, 0, 2])
    array([[0.5, 0.6],
           [0.1, 0.2],
           [0.5, 0.6]])
    """
    table = check_table(table)
    ids = validate.ids(ids, table.shape[0])
    return table[ids].copy()  # fancy indexing copies already; .copy() also covers a 0-d id


def onehot(ids, vocab_size: int) -> np.ndarray:
    """One-hot rows for ``ids``: shape ``ids.shape + (vocab_size,)``, ``float64``, a single 1 per row.

    ``onehot(ids, V) @ E`` equals ``lookup(E, ids)``. Raises like :func:`lib.validate.ids`, and
    ``ValueError`` for a ``vocab_size`` or a result beyond ``lib.validate.MAX_SIZE`` (2**28 entries).

    >>> onehot([2, 0], 3)
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    vocab_size = validate.size(vocab_size, "vocab_size")
    ids = validate.ids(ids, vocab_size)
    validate.entries(ids.shape + (vocab_size,), "ids and vocab_size")
    out = np.zeros(ids.shape + (vocab_size,), dtype=np.float64)
    np.put_along_axis(out, ids[..., None], 1.0, axis=-1)
    return out


def lookup_grad(ids, grad_out, vocab_size: int) -> np.ndarray:
    """Gradient of a loss with respect to the table, given the gradient on the looked-up rows.

    ``ids`` has shape ``S`` and ``grad_out`` shape ``S + (d,)``; returns ``(vocab_size, d)`` ``float64``
    where row ``i`` is the sum of ``grad_out`` over every position whose id is ``i`` (an id used twice
    gets two contributions: ``np.add.at``, not ``dE[ids] += ...`` which would keep only one).
    Equals ``onehot(ids).T @ grad_out`` flattened over ``S``. A sum whose running total overflows although
    its value does not (``1e308 + 1e308 - 1e308``) is summed again exactly and rounded once. Raises ``ValueError`` on mismatched shapes, NaN or infinity in
    ``grad_out`` or a summed entry whose true value is beyond float64 (about 1.8e308), ``TypeError`` for
    entries that are not real numbers, and like :func:`lib.validate.ids` for bad ids.

    >>> # id 1 used twice: its rows add up
    >>> lookup_grad([1, 1, 0], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 3)
    array([[5., 6.],
           [4., 6.],
           [0., 0.]])
    """
    vocab_size = validate.size(vocab_size, "vocab_size")
    ids = validate.ids(ids, vocab_size)
    grad_out = validate.real_array(grad_out, "grad_out")
    if grad_out.ndim < 1 or grad_out.shape[:-1] != ids.shape or grad_out.shape[-1] < 1:
        raise ValueError(f"grad_out must have shape {ids.shape} + (d,), got {grad_out.shape}")
    validate.entries((vocab_size, grad_out.shape[-1]), "vocab_size and the width of grad_out")
    grad = np.zeros((vocab_size, grad_out.shape[-1]), dtype=np.float64)
    flat_ids, flat = ids.reshape(-1), grad_out.reshape(-1, grad_out.shape[-1])
    with np.errstate(over="ignore"):  # summed again below where the running total overflowed
        np.add.at(grad, flat_ids, flat)
    for row, col in zip(*np.nonzero(~np.isfinite(grad))):  # the exact sum of the terms, rounded once
        terms = flat[flat_ids == row, col]
        try:
            grad[row, col] = math.ldexp(*_exact_dot(terms, np.ones_like(terms)))
        except OverflowError:
            raise ValueError(f"the summed gradient of row {row} (column {col}) is {validate.BEYOND_FLOAT64}") from None
    return grad


# --- similarity -----------------------------------------------------------------------------------


def normalize_rows(x) -> np.ndarray:
    """Rows of ``x`` scaled to unit Euclidean length; a zero row stays zero. ``(n, d)`` or ``(d,)``.

    >>> normalize_rows([[3.0, 4.0], [0.0, 0.0]])
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    x = validate.vectors(x, "x")
    # divide by the largest |entry| first, so that the norm of a row of 1e200s does not overflow to inf
    scale = np.max(np.abs(x), axis=-1, keepdims=True)
    x = np.divide(x, scale, out=np.zeros_like(x), where=scale > 0)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def similarity(x, y, metric: str = "cosine") -> np.ndarray:
    """Pairwise scores between the rows of ``x`` ``(n, d)`` and ``y`` ``(m, d)``: an ``(n, m)`` array.

    ``metric``: ``"cosine"`` (x·y / (‖x‖ ‖y‖), 0 when either vector is zero), ``"dot"`` (x·y), or
    ``"euclidean"`` (the distance ‖x − y‖: smaller is closer). Vectors ``(d,)`` are treated as one row and
    the matching axis is dropped, so two vectors give a scalar ``float``. Every metric is scale-robust
    (see the module docstring): a cosine or a distance is right, to float64 rounding, at any scale where
    it is representable: ``euclidean_distance([3e-200, 0], [0, 4e-200])`` is ``5e-200``. A cosine is a
    matrix product of the unit rows (error at most about ``d * 2**-53``), except within 2**-10 of ±1,
    where it is recomputed from the difference of the two unit rows (``_parallel_cosines``, error
    relative to ``1 - cosine``): parallel vectors give exactly 1.0 (antiparallel -1.0) at any scale, and
    there every cosine path in ``lib`` (:func:`cosine_scores`, :func:`lib.evaluation.pair_cosines`) gives
    the same bits. A dot product
    has the error of a float64 dot product (about ``d * 2**-53 * sum(|x_i y_i|)``) where the plain
    product is a normal float64, and is the exact sum rounded once where the plain product would
    overflow, underflow or cancel to 0; one that underflows is rounded (to 0 below about 5e-324). Distances
    take memory for the ``(n, m)`` result only (SciPy's ``cdist`` on rows scaled together by a power of two;
    rows nearly equal are recomputed pair by pair), never an ``(n, m, d)`` array. Raises ``ValueError`` for an unknown
    metric, mismatched widths, non-finite input, or a score too large for float64 (a dot product or a
    distance beyond about 1.8e308); ``TypeError`` for entries that are not numbers or a masked array with a
    masked entry. Input of a dtype wider than float64 (``longdouble``) is computed in float64, for every
    metric: an entry that float64 does not hold exactly (finite above about 1.8e308, nonzero below about
    4.9e-324, or rounded, as ``np.longdouble(1) + 2**-60``, which would become 1.0) is a ``ValueError``
    naming the argument (:func:`lib.validate.vectors`, the rule of every function that takes vectors),
    never an infinity, a 0 or a rounded value that would tie distinct vectors.

    >>> similarity([1.0, 0.0], [[1.0, 1.0], [0.0, 2.0]], "cosine")
    array([0.7071, 0.    ])
    >>> similarity([1.0, 0.0], [0.0, 2.0], "euclidean")
    2.2361
    >>> similarity([3e-200, 0.0], [0.0, 4e-200], "euclidean")
    5e-200
    """
    validate.choice(metric, "metric", METRICS)
    xa, ya = validate.vectors(x, "x"), validate.vectors(y, "y")
    if xa.shape[-1] != ya.shape[-1]:
        raise ValueError(f"x and y must have the same width, got {xa.shape[-1]} and {ya.shape[-1]}")
    X, Y = np.atleast_2d(xa), np.atleast_2d(ya)
    with np.errstate(over="ignore", under="ignore"):  # an overflow is reported below as a ValueError
        out = _dot_values(X, Y) if metric == "dot" else _scores(X, Y, metric)
    if not np.all(np.isfinite(out)):
        raise _overflow(metric)
    if xa.ndim == 1:
        out = out[0]
    if ya.ndim == 1:
        out = out[..., 0]
    return float(out) if np.ndim(out) == 0 else out


def _overflow(metric: str) -> ValueError:
    """The error for a score beyond float64, which every function that returns one raises."""
    what = {"dot": "dot product", "euclidean": "Euclidean distance"}[metric]
    return ValueError(f"the {what} of these vectors overflows float64 (its magnitude is above 1.8e308)")


def _scores(X, Y, metric: str) -> np.ndarray:
    """``(n, m)`` cosines or distances of rows ``X (n, d)`` against rows ``Y (m, d)`` (checked by
    :func:`similarity`); ``inf`` where a distance is beyond float64."""
    if metric == "cosine":
        UX, UY = normalize_rows(X), normalize_rows(Y)
        return _near_parallel(UX @ UY.T, UX, UY)
    return _distances(X, Y)


#: a cosine closer than this to ±1 is recomputed from the difference (sum) of the unit rows (``_near_parallel``)
_NEAR_PARALLEL = 2.0**-10


def _ordered_dot(A, B) -> np.ndarray:
    """``sum(A[k] * B[k] for k in range(len(A)))`` over the first axis (the coordinates) of ``A`` and ``B``
    (broadcast against each other), the ``d`` products added in one fixed order, first coordinate to last,
    with elementwise NumPy operations only: a sum's rounding depends only on its own two vectors, never on
    which others are computed with it (as a matrix product's blocking would)."""
    acc = A[0] * B[0]
    term = np.empty_like(acc)
    for j in range(1, A.shape[0]):
        np.multiply(A[j], B[j], out=term)
        acc += term
    return acc


def _near_parallel(cosine, UX, UY, rows=None, cols=None) -> np.ndarray:
    """``cosine``, the cosines of unit rows ``UX[rows]`` and ``UY[cols]`` (``(n, m)`` for all pairs of
    ``UX (n, d)`` and ``UY (m, d)`` when ``rows``, ``cols`` are not given; ``(k,)`` for the pairs
    ``(rows[p], cols[p])`` when they are), with those within 2**-10 of ±1 recomputed by
    ``_parallel_cosines`` and all clipped to [-1, 1], in place."""
    flat = cosine.reshape(-1)  # a view: cosine is contiguous
    near = np.flatnonzero(np.abs(flat) > 1.0 - _NEAR_PARALLEL)
    i, j = np.divmod(near, UY.shape[0]) if rows is None else (rows[near], cols[near])
    step = max(1, _BLOCK // max(1, UX.shape[1]))  # pairs at a time: about 8 MB of differences
    for start in range(0, near.size, step):
        p, a, b = near[start : start + step], i[start : start + step], j[start : start + step]
        flat[p] = _parallel_cosines(flat[p], UX[a], UY[b])
    return np.clip(cosine, -1.0, 1.0, out=cosine)


def _parallel_cosines(cosine, A, B) -> np.ndarray:
    """Cosines ``(k,)`` near ±1 of the unit rows ``A`` and ``B`` ``(k, d)`` recomputed from their first
    values ``cosine`` ``(k,)``: the one rule for cosines near ±1 that :func:`similarity`,
    :func:`cosine_scores` and :func:`unit_pair_cosines` (so :func:`lib.evaluation.pair_cosines`) share.

    A dot product of two unit rows that point the same way but were rounded at different scales (``v``,
    ``v * 1e-300``) is 1 give or take a few ulps. It is recomputed as ``1 - |a - b|²/2``
    (``|a + b|²/2 - 1`` for a negative cosine), summed by ``_ordered_dot``: the error is relative to
    the tiny ``|a - b|²``, so parallel rows give exactly 1.0 (-1.0), and every path gives the same bits
    for the same two rows, however it computed the first value (which only decides the sign).
    """
    sign = np.where(cosine < 0, -1.0, 1.0)
    gap = (A - sign[:, None] * B).T  # (d, k)
    return sign * (1.0 - _ordered_dot(gap, gap) / 2.0)


def unit_pair_cosines(A, B) -> np.ndarray:
    """Row-wise cosines ``(k,)`` of unit rows ``A`` and ``B`` ``(k, d)`` (from :func:`normalize_rows`),
    float64 in [-1, 1]: each the sum of its ``d`` products in one fixed order (``_ordered_dot``),
    recomputed where it is within 2**-10 of ±1 (``_parallel_cosines``), so that parallel rows give
    exactly ±1. Bit for bit :func:`cosine_scores`'s value for the same two rows; :func:`similarity`'s
    (a matrix product) is the same bits near ±1 and within about ``d * 2**-53`` elsewhere. Used by
    :func:`lib.evaluation.pair_cosines`. ``TypeError`` or ``ValueError`` as :func:`lib.validate.vectors`
    for entries that are not real numbers, NaN or infinity (naming ``A`` or ``B``); ``ValueError`` for ``A``
    or ``B`` not a matrix ``(k, d)`` with ``d >= 1`` (a vector, a 3-D array) and for shapes that differ
    (naming both shapes: rows are paired one to one, never broadcast). That the rows are unit rows is not
    checked.

    >>> a = normalize_rows([[1.0, 1.0], [1.0, 0.0]])
    >>> b = normalize_rows([[1e-300, 1e-300], [0.0, 2.0]])
    >>> unit_pair_cosines(a, b)
    array([1., 0.])
    """
    A, B = validate.vectors(A, "A"), validate.vectors(B, "B")
    for M, name in ((A, "A"), (B, "B")):
        if M.ndim != 2:
            raise ValueError(f"{name} must be a matrix of unit rows (k, d), got shape {M.shape}")
    if A.shape != B.shape:
        raise ValueError(f"A and B must have the same shape (k, d), one row of B for each row of A, "
                         f"got {A.shape} and {B.shape}")
    if A.shape[0] == 0:
        return np.zeros(0)
    pairs = np.arange(A.shape[0])
    return _near_parallel(_ordered_dot(A.T, B.T), A, B, pairs, pairs)


#: a distance below this, computed on inputs scaled into [-1, 1], may have lost bits to underflow (a squared
#: difference below 2**-1022) or to the scaling itself (an entry that became subnormal): it is recomputed
_RECOMPUTE_BELOW = 2.0**-450
#: entries (pairs times width) of differences held at once where distances are recomputed pair by pair
_BLOCK = 2**20


def power_of_two_scale(*arrays) -> tuple:
    """``(A * 2**-e, B * 2**-e, ..., e)`` for finite float64 arrays (checked by the caller): every array
    scaled by the one power of two ``2**e`` that puts the largest ``|entry|`` of them all in [0.5, 1)
    (``e = 0`` when every entry is 0 or the arrays are empty); ``e`` an int.

    Exact, except for entries that become subnormal (below about 2.2e-308 after scaling): a power of two
    changes no rounding, so a computation on the scaled arrays, scaled back by ``2**e``, is the computation
    on the arrays themselves without their overflow. For computations that do not change with scale
    (cosines, explained variance) or that scale back at the end (distances, weighted averages, principal
    coordinates).

    >>> power_of_two_scale(np.array([3.0, -1.0]))
    (array([ 0.75, -0.25]), 2)
    >>> power_of_two_scale(np.array([0.5]), np.array([6.0]))
    (array([0.0625]), array([0.75]), 3)
    """
    tops = [float(np.max(np.abs(a))) for a in arrays if np.size(a)]
    top = max(tops, default=0.0)
    e = int(np.frexp(top)[1]) if top > 0 else 0
    return (*(np.ldexp(a, -e) for a in arrays), e)


def _distances(X, Y) -> np.ndarray:
    """``(n, m)`` Euclidean distances of rows ``X (n, d)`` and ``Y (m, d)``, float64, ``inf`` where a
    distance is beyond float64; memory ``O(n m)``, never ``O(n m d)``.

    Both sides are scaled by one power of two ``2**-e`` that puts their largest ``|entry|`` in [0.5, 1)
    (exact, barring entries that become subnormal), so that no difference or square can overflow; the
    distances of the scaled rows are SciPy's ``cdist`` (each pair summed on its own, as
    ``sqrt(sum((x - y)**2))``, not the cancelling Gram form ``|x|² + |y|² - 2 x·y``), and ``2**e`` goes
    back on at the end. A scaled distance below ``_RECOMPUTE_BELOW`` (2**-450: near rows of a table that
    also holds far larger ones, or equal rows) may have lost bits to underflow, so it is recomputed from
    the unscaled rows, each difference scaled by its own power of two before it is squared (``_pair_distances``).
    """
    with np.errstate(under="ignore"):
        Xs, Ys, e = power_of_two_scale(X, Y)
    scaled = cdist(Xs, Ys)
    rows, cols = np.nonzero(scaled < _RECOMPUTE_BELOW)
    with np.errstate(over="ignore"):  # beyond float64: inf, reported by the caller
        out = np.ldexp(scaled, e)
    step = max(1, _BLOCK // X.shape[1])
    for start in range(0, rows.size, step):
        i, j = rows[start : start + step], cols[start : start + step]
        out[i, j] = _pair_distances(X[i], Y[j])
    return out


def _pair_distances(A, B) -> np.ndarray:
    """Row-wise distances ``(k,)`` of ``A`` and ``B`` ``(k, d)``, each difference scaled by the power of two that
    puts its largest ``|entry|`` in [0.5, 1) before it is squared: no square overflows or underflows, and the
    power goes back on at the end (``inf`` where the difference or the distance is beyond float64)."""
    with np.errstate(over="ignore"):
        diff = A - B
        e = np.frexp(np.max(np.abs(diff), axis=1, keepdims=True))[1]  # (k, 1)
        scaled = np.ldexp(diff, -e)
        return np.ldexp(np.sqrt(np.einsum("kd,kd->k", scaled, scaled)), e[:, 0])


#: float64's smallest normal number: a dot product below it may have lost bits to underflow
_TINY = np.finfo(np.float64).tiny


def _dot(X, Y):
    """The dot products of rows ``X (n, d)`` and ``Y (m, d)`` as ``(mantissa, exponent)``, two ``(n, m)``
    arrays with ``X @ Y.T == mantissa * 2**exponent`` and ``|mantissa|`` in [0.5, 1) (or 0).

    In this form neither overflow nor underflow loses a product. Where the plain product ``X @ Y.T`` is
    finite and at least float64's smallest normal number in size, no term or partial sum overflowed and
    underflow lost nothing that shows, so it is kept (with a float64 dot product's error); the other pairs
    (overflow, underflow, or an exact 0 from terms that cancel) are summed exactly (``_dot_terms``).
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        plain = X @ Y.T
    mantissa, exponent = np.frexp(plain)
    rows, cols = np.nonzero(~np.isfinite(plain) | (np.abs(plain) < _TINY))
    step = max(1, 2**20 // X.shape[1])  # pairs per block: about 8 MB of terms at a time
    for start in range(0, rows.size, step):
        i, j = rows[start : start + step], cols[start : start + step]
        mantissa[i, j], exponent[i, j] = _dot_terms(X[i], Y[j])
    return mantissa, exponent


def _dot_values(X, Y) -> np.ndarray:
    """The dot products of rows ``X (n, d)`` and ``Y (m, d)`` as float64 ``(n, m)``: ``_dot``'s, except
    where the result is subnormal (below 2**-1022). There ``np.ldexp`` would round the 53-bit mantissa a
    second time, to the few bits a subnormal holds, and could land one step off; those are rounded once,
    from the exact sum (``_exact_sum``), by Python's integer division, which is correctly rounded."""
    mantissa, exponent = _dot(X, Y)
    out = np.ldexp(mantissa, exponent)
    for i, j in zip(*np.nonzero((mantissa != 0) & (exponent < -1021))):
        n, power = _exact_sum(X[i], Y[j])
        out[i, j] = n / (1 << -power) if power < 0 else float(n << power)
    return out


def _dot_terms(A, B):
    """Row-wise dot products of ``A`` and ``B`` ``(k, d)`` as ``(mantissa, exponent)`` ``(k,)``, at any scale,
    each the exact sum rounded once to 53 bits (round half to even), as if float64 had no exponent limits.

    A row with at most one nonzero term ``a_i b_i`` is ``(mantissa(a_i) mantissa(b_i)) * 2**(exponent(a_i) +
    exponent(b_i))`` (``np.frexp``): one rounding, as the plain product has, but no overflow or underflow.
    A row with several is summed exactly (``_exact_dot``), since a float sum can lose a small term when
    large ones cancel (``1e200 * 1e200 - 1e200 * 1e200 + 1 * 1``: each large term is 1e400, beyond float64,
    and scaled to fit, the 1 is more than 2**1074 below them and would vanish).
    """
    ma, ea = np.frexp(A)
    mb, eb = np.frexp(B)
    terms, powers = ma * mb, ea + eb  # (k, d): |terms| in [0.25, 1) or 0; rounded once
    mantissa, exponent = np.frexp(terms.sum(axis=1))  # exact where a row has at most one nonzero term
    top = np.max(np.where(terms != 0, powers, np.iinfo(powers.dtype).min), axis=1)
    exponent = exponent + np.where(mantissa != 0, top, 0)
    for row in np.flatnonzero(np.count_nonzero(terms, axis=1) > 1):
        mantissa[row], exponent[row] = _exact_dot(A[row], B[row])
    return mantissa, exponent


#: 2**53: a float64 mantissa from np.frexp, in [0.5, 1), times this is an integer below 2**53
_MANTISSA_SCALE = float(2**53)


def _exact_dot(a, b):
    """The dot product of two vectors ``(d,)`` as ``(mantissa, exponent)`` (``float``, ``int``), the exact sum
    rounded once to 53 bits, whatever the sizes of its terms.

    The terms are summed exactly as Python integers (``_exact_sum``; unbounded, so nothing is lost
    however far apart their sizes are) and the sum rounded by ``_rounded``.
    """
    n, power = _exact_sum(a, b)
    return _rounded(n, power) if n else (0.0, 0)


def _exact_sum(a, b):
    """The dot product of two vectors ``(d,)`` exactly, as ``(n, power)``: the integer ``n`` times
    ``2**power`` (``(0, 0)`` for 0). Each term is an exact integer product of two 53-bit mantissas times a
    power of two, and the terms are summed as Python integers, unbounded."""
    terms = []
    for x, y in zip(a.tolist(), b.tolist()):
        if x != 0 and y != 0:
            (mx, ex), (my, ey) = math.frexp(x), math.frexp(y)
            terms.append((int(mx * _MANTISSA_SCALE) * int(my * _MANTISSA_SCALE), ex + ey - 106))
    if not terms:
        return 0, 0
    low = min(power for _, power in terms)
    return sum(m << (power - low) for m, power in terms), low


def _rounded(n: int, power: int):
    """``n * 2**power`` (an integer ``n`` of any size) rounded once to 53 bits, as ``(mantissa, exponent)``
    with ``|mantissa|`` in [0.5, 1) (or ``(0.0, 0)``).

    ``float()`` of an integer rounds correctly (half to even) but overflows beyond 2**1024, so ``|n|`` is cut
    to its top 64 bits first; a 1 put in the last of them when anything nonzero was cut off (a sticky bit)
    keeps the one rounding right, since it lies below the half-way bit that rounding to 53 bits looks at.
    """
    if n == 0:
        return 0.0, 0
    size = abs(n)
    shift = max(0, size.bit_length() - 64)
    top = size >> shift
    if top << shift != size:
        top |= 1
    mantissa, exponent = math.frexp(float(top))
    return (mantissa if n > 0 else -mantissa), exponent + shift + power


def _descending(mantissa, exponent) -> tuple:
    """Sort keys (most significant last, for ``np.lexsort``) that order the values ``mantissa * 2**exponent``
    from the largest down, exactly, even where the values underflow or overflow float64."""
    sign = np.sign(mantissa)
    return (-sign * np.abs(mantissa), -sign * exponent, -sign)


def cosine_similarity(x, y):
    """Cosine similarity of two vectors (a ``float``) or of the rows of two matrices. See :func:`similarity`.

    >>> cosine_similarity([1.0, 0.0], [3.0, 3.0])
    0.7071
    """
    return similarity(x, y, "cosine")


def euclidean_distance(x, y):
    """Euclidean distance of two vectors (a ``float``) or of the rows of two matrices. See :func:`similarity`.

    >>> euclidean_distance([0.0, 0.0], [3.0, 4.0])
    5.0
    """
    return similarity(x, y, "euclidean")


def dot_product(x, y):
    """Dot product of two vectors (a ``float``) or of the rows of two matrices. See :func:`similarity`.

    >>> dot_product([1.0, 2.0], [3.0, 4.0])
    11.0
    """
    return similarity(x, y, "dot")


def cosine_scores(rows, queries) -> np.ndarray:
    """Cosines of each of ``queries`` ``(m, d)`` with each of ``rows`` ``(n, d)``: ``(m, n) float64``
    (``(n,)`` for one query ``(d,)``), each computed on its own, so that a query's cosines never depend
    on which other queries or rows are asked with it. The scores behind every cosine ranking:
    :func:`nearest_neighbours`, :func:`analogy`, :func:`lib.geometry.neighbour_sets` and
    :func:`lib.evaluation.analogy_predictions` all call it, and so rank alike, bit for bit.

    Both sides are scaled to unit length (:func:`normalize_rows`, a zero row stays zero and scores 0), and
    each cosine is the sum of its ``d`` products taken in one fixed order, first coordinate to last, with
    elementwise NumPy operations only (``_ordered_dot``). A matrix product (BLAS) would be faster, but
    it sums a product in an order that depends on the shapes and the blocking of the whole call, so one
    query's cosines would change in their last bit with the batch, and a near-tie at ``TIE_RTOL``
    (:func:`top_k`) would go one way or the other. The error is that of a plain float64 sum: at most about
    ``d * 2**-53`` for unit vectors. A cosine within 2**-10 of ±1 is recomputed from the difference of
    the two unit rows, as every cosine path does (``_parallel_cosines``), so parallel rows score
    exactly 1.0 (antiparallel -1.0), and near ±1 the value is bit for bit :func:`similarity`'s and
    :func:`lib.evaluation.pair_cosines`'s; elsewhere it equals :func:`similarity`'s up to the rounding
    above and :func:`unit_pair_cosines`'s (so ``pair_cosines``'s) bit for bit. Raises like
    :func:`lib.validate.vectors` (``TypeError`` for entries that are not numbers, ``ValueError`` for another
    shape, NaN or infinity) and ``ValueError`` for mismatched widths.

    >>> cosine_scores([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], [1.0, 0.0])
    array([1.    , 0.7071, 0.    ])
    """
    X, Q = validate.vectors(rows, "rows"), validate.vectors(queries, "queries")
    if X.shape[-1] != Q.shape[-1]:
        raise ValueError(f"rows and queries must have the same width, got {X.shape[-1]} and {Q.shape[-1]}")
    units = np.ascontiguousarray(normalize_rows(np.atleast_2d(X)).T)  # (d, n): coordinate j of every row
    W = normalize_rows(np.atleast_2d(Q))  # (m, d)
    n, m = units.shape[1], W.shape[0]
    out = np.empty((m, n), dtype=np.float64)
    step = max(1, 2**20 // max(n, 1))  # queries at a time: about 8 MB of partial sums (no rows: an empty result)
    for start in range(0, m, step):
        w = W[start : start + step].T[:, :, None]  # (d, step, 1) against (d, 1, n)
        out[start : start + step] = _ordered_dot(w, units[:, None, :])  # the same operations for one query or many
    _near_parallel(out, W, units.T)  # exactly ±1 for parallel rows, as in every cosine path
    if Q.ndim == 1:
        out = out[0]
    if X.ndim == 1:
        out = out[..., 0]
    return float(out) if out.ndim == 0 else out


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
    rows (default: all); ``exclude`` removes rows (e.g. the query word itself); both are collections of
    row ids (``exclude=[3]``, not ``exclude=3``). Returns fewer than ``k`` when fewer candidates are left.
    Scores are computed as by :func:`similarity`, at any scale; cosines by :func:`cosine_scores`, so that
    they are bit for bit those of the batched rankings (:func:`lib.geometry.neighbour_sets`,
    :func:`lib.evaluation.analogy_predictions`).

    The order, deterministic on every machine:

    - ``"dot"``: by the product as :func:`similarity` computes it, before it is rounded to a float64
      (products that underflow to 0 are still ranked by their true values); equal products go to the
      smaller row index.
    - ``"cosine"`` and ``"euclidean"``: by :func:`top_k`'s near-tie rule, so that rows equal up to
      rounding keep the same order whatever the floating-point noise in their last bits. Two scores are
      near-tied when they differ by at most ``TIE_RTOL`` times their own size, never that of another row:
      for distances the larger of the two (so a far-away row changes nothing), for cosines 1 (a cosine is
      a dot product divided by the two norms, and its rounding error is relative to that product, not to
      the cosine: cosines near 0 tie within ``TIE_RTOL`` as cosines near 1 do). Tie groups are formed
      greedily from the best score and never chain; inside a group the smaller row index comes first.
      Hence the returned scores are sorted up to ``TIE_RTOL`` (a later score is never better by more
      than the tolerance), and scores exactly equal always go to the smaller row.

    A row whose score is beyond float64 (a distance above about 1.8e308, a dot product below about
    -1.8e308 or above 1.8e308) ranks by its true value, after (or, for a dot product above 1.8e308,
    before) every representable one: it is an error only when it is among the ``k`` returned.

    Raises ``ValueError`` for ``k < 1``, an unknown metric, bad row ids, non-finite input or a returned
    score beyond float64; ``TypeError`` when ``candidates`` or ``exclude`` is one int (or a 0-d array) rather than a
    collection of row ids, or ``normalize`` is not ``True`` or ``False``.

    >>> table = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]
    >>> nearest_neighbours(table, [1.0, 0.0], 2, exclude=[0])
    [(1, 0.9939), (2, 0.0)]
    >>> # distances 0.9, 1.1, 0.1 and 1e13: the far row does not tie the near ones
    >>> far = [[0.0], [2.0], [1.0], [1e13]]
    >>> nearest_neighbours(far, [0.9], 3, metric="euclidean")
    [(2, 0.1), (0, 0.9), (1, 1.1)]
    """
    table = check_table(table, finite=True)
    k = validate.integer(k, "k", low=1)
    validate.choice(metric, "metric", METRICS)
    normalize = validate.flag(normalize, "normalize")
    query = validate.vectors(query, "query")
    if query.ndim != 1 or query.shape[0] != table.shape[1]:
        raise ValueError(f"query must have shape ({table.shape[1]},), got {query.shape}")
    V = table.shape[0]
    if candidates is None:
        cand = np.arange(V)
    else:
        cand = np.unique(validate.id_collection(candidates, V, "candidates", "candidate row"))
    excl = validate.id_collection(exclude, V, "exclude", "excluded row")
    cand = cand[~np.isin(cand, excl)]
    if cand.size == 0:
        return []
    rows = table[cand]
    if normalize:
        rows, query = normalize_rows(rows), normalize_rows(query)
    what = f"nearest_neighbours: order of the {k} nearest ({metric})"
    if metric == "cosine":  # the one computation of a cosine that every ranking shares
        scores = cosine_scores(rows, query)
        order = top_k(scores, k, what=what)  # cand is sorted, so a position's order is its row's order
    elif metric == "euclidean":
        with np.errstate(under="ignore"):
            scores = _distances(rows, query[None, :])[:, 0]  # inf: beyond float64, ranked after every finite one
        near = np.flatnonzero(np.isfinite(scores))
        order = near[top_k(scores[near], k, largest=False, relative=True, what=what)] if near.size else near
        order = np.concatenate([order, np.flatnonzero(~np.isfinite(scores))])[:k]
    else:
        # dot: rank by the exact products, so that products which underflow to 0 (or overflow) do not tie;
        # equal products: the smaller row
        with np.errstate(over="ignore", under="ignore"):
            scores = _dot_values(rows, query[None, :])[:, 0]  # ±inf: beyond float64
        ranked = np.lexsort((cand,) + _descending(*(part[:, 0] for part in _dot(rows, query[None, :]))))
        order = ranked[:k]
        shown = scores[ranked[: k + 1]]
        if logging_numbers() and np.all(np.isfinite(shown)):  # how close the k best came to another order
            scale = float(np.abs(shown).max())
            steps = np.abs(np.diff(shown))
            apart = steps[steps > TIE_RTOL * scale]
            if apart.size:
                record_gap(what, apart.min(), scale)
    if not np.all(np.isfinite(scores[order])):  # a score it returns is beyond float64, not one it leaves out
        raise _overflow(metric)
    return [(int(cand[i]), float(scores[i])) for i in order]


def top_k(scores, k: int, *, largest: bool = True, relative: bool = False, what: str | None = None) -> np.ndarray:
    """Positions of the ``k`` best of ``scores`` ``(n,)``, best first, with the book's near-tie rule:
    ``(min(k, n),) int64``. The one ranking rule of :func:`nearest_neighbours`, :func:`analogy`,
    :func:`lib.geometry.neighbour_sets` and :func:`lib.evaluation.analogy_predictions`.

    ``scores`` holds finite real numbers; larger is better with ``largest=True`` (cosines), smaller with
    ``largest=False`` (distances). Scores equal up to rounding rank by position, whatever the noise in
    their last bits: two scores are near-tied when they differ by at most ``TIE_RTOL`` (1e-12) times a
    size, which is 1 by default (a cosine's rounding error is relative to 1, not to the cosine) and, with
    ``relative=True``, the magnitude of the worse of the two (for distances, which are >= 0, the larger
    one, so that a far-away score ties nothing). Tie groups are formed greedily from the best score: it
    opens a group of every score not yet placed that is near-tied with it; the best score left outside
    opens the next group, and so on, so a group spans at most the tolerance and ties never chain. Groups
    come best first, and inside a group the smaller position comes first. Hence exactly equal scores
    always go to the smaller position, and a later score is never better than an earlier one by more than
    the tolerance. Only the ``k + 1`` best places are resolved, so a small ``k`` costs no full sort.

    ``what``, if given, names this choice in the record of rounding margins
    (:func:`lib.notebook.record_gap`, only when recording is on): of the group boundaries among the first ``k + 1`` places, how
    far the one closest to moving is from the tolerance, relative to its score's size.

    Raises ``ValueError`` for ``scores`` that are not 1-D or hold NaN or infinity, integers beyond 2**53
    (float64, in which scores are ranked, would round them), or ``k < 1``; ``TypeError`` for scores that are
    not real numbers, a ``k`` that is not an integer, or ``largest`` or
    ``relative`` that is not ``True`` or ``False``.

    >>> top_k([0.5, 0.9, 0.9], 2)  # an exact tie: the smaller position first
    array([1, 2])
    >>> top_k([0.5, 0.9, 0.9 + 1e-13], 1)  # a near-tie too
    array([1])
    >>> top_k([0.9, 1.1, 0.1], 2, largest=False, relative=True)  # distances
    array([2, 0])
    """
    key = validate.ranked_numbers(scores, "scores", hint=" (rank such integers with np.argsort)")
    if key.ndim != 1:
        raise ValueError(f"scores must be a 1-D array of scores, got shape {key.shape}")
    if not np.all(np.isfinite(key)):
        raise ValueError("scores contain NaN or infinity")
    k = validate.integer(k, "k", low=1)
    largest, relative = validate.flag(largest, "largest"), validate.flag(relative, "relative")
    if largest:
        key = -key  # below, a smaller key is better
    n = key.shape[0]
    size = np.abs(key) if relative else np.ones_like(key)
    with np.errstate(over="ignore"):  # -inf beside the largest floats: it joins the group it is within TIE_RTOL of
        reach = key - TIE_RTOL * size  # a key b joins the group opened by s when reach(b) <= s; grows with b
    last = min(k, n - 1)  # the (k+1)-th place: every key of a group reaching it has reach <= that key
    if n > 4 * (last + 1):
        pivot = np.partition(key, last)[last]
        within = np.flatnonzero(reach <= pivot)  # a prefix of the key order holding every group that counts
    else:
        within = np.arange(n)
    ranked = within[np.lexsort((within, key[within]))]  # by key; exact ties: smaller position first
    keys, reaches = key[ranked], reach[ranked]
    order, closest, p = [], None, 0
    while p < min(k, n):
        end = int(np.searchsorted(reaches, keys[p], side="right"))  # > p: reach(s) <= s
        order.append(np.sort(ranked[p:end]))
        if end < ranked.shape[0] and end <= k:  # how far the first key outside the group is from joining it
            with np.errstate(over="ignore"):  # keys near ±1.8e308: a margin beyond float64 is inf, the largest
                margin = float(reaches[end] - keys[p])
            s = float(size[ranked[end]])
            if closest is None or margin * closest[1] < closest[0] * s:  # the smallest margin relative to its size
                closest = (margin, s)
        p = end
    if what is not None and closest is not None and logging_numbers():
        record_gap(what, *closest)
    return np.concatenate(order)[:k] if order else np.zeros(0, dtype=np.int64)


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
    """3CosAdd: rows closest (cosine) to ``b - a + c``, "a is to b as c is to ?"
    :cite:p:`mikolov2013efficient{§4.1}`.

    Rows are normalised to unit length before the offset is formed, as in word2vec's evaluation. With
    ``exclude_query=True`` (the usual protocol, stated here because it changes results) the three query
    rows ``a, b, c`` are never returned. Returns ``[(row, cosine), ...]`` best first, near-ties by row
    index (the rule of :func:`top_k`, as in :func:`nearest_neighbours`). Raises ``TypeError`` when ``a``,
    ``b`` or ``c`` is not one integer, ``exclude_query`` is not ``True`` or ``False``, or the table does
    not hold real numbers, and ``ValueError`` for a row outside the table or NaN or infinity in it.

    >>> table = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0],
    ...          [0.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    >>> # row 1 is row 0 plus direction y, row 3 is row 2 plus y: row 3 answers,
    >>> # with a cosine below 1, since the rows are scaled to unit length before
    >>> # b - a + c is formed
    >>> analogy(table, 0, 1, 2)
    [(3, 0.9586)]
    """
    table = check_table(table, finite=True)
    a, b, c = (validate.one_id(i, table.shape[0], "analogy row") for i in (a, b, c))
    exclude_query = validate.flag(exclude_query, "exclude_query")
    unit = normalize_rows(table)
    target = unit[b] - unit[a] + unit[c]
    return nearest_neighbours(
        unit, target, k, metric="cosine", candidates=candidates, exclude=(a, b, c) if exclude_query else ()
    )
