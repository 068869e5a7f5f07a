"""Measurements on a fitted embedding space: metrics, a fixed-sign projection, neighbours by name and
their stability across seeds, anisotropy, and rare against frequent items.

Taught in: chapters/embeddings.md (Level 4) and chapters/real_text.md (neighbours and their agreement).

Follows the checks that the embeddings literature reports beside a benchmark score:

- :func:`metric_table`: cosine, Euclidean distance and dot product of named vectors against a reference,
  all from :func:`lib.embedding.similarity`;
- :func:`principal_projection`: PCA coordinates of (optionally row-normalised) vectors with the sign
  convention of :func:`lib.ppmi.sign_convention`, so that a plot never flips between runs;
- :func:`named_neighbours`: a word's nearest neighbours by name, the one neighbour query of ``lib`` above
  the row-level :func:`lib.embedding.nearest_neighbours`;
- :func:`neighbour_overlap`: how many of an item's top-``k`` cosine neighbours training runs share (the
  stability a report should give when conclusions rest on small rank differences;
  :cite:t:`antoniak2018stability` make the same measurement);
- :func:`anisotropy`: the mean cosine over all distinct pairs of rows, before and after removing the
  mean vector (:cite:t:`ethayarajh2019contextual` measured high values in contextual spaces; mean removal is a
  post-processing step and part of the method);
- :func:`stability_by_frequency`: the mean neighbour overlap of rare and of frequent items.

Departures: neighbour sets come from one matrix product per table (ranked by the near-tie rule of
:func:`lib.embedding.top_k`: near-ties to the smaller row), not from one query per item; a word missing from the
vocabulary raises :class:`lib.corpus.UnknownTokenError` even under the ``"map"`` policy, since the
neighbours of the unknown row say nothing about the word.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

from lib import tables, validate
from lib.corpus import UnknownTokenError, token_index
from lib.embedding import (
    check_table,
    cosine_scores,
    nearest_neighbours,
    normalize_rows,
    power_of_two_scale,
    similarity,
    top_k,
)
from lib.notebook import fmt
from lib.ppmi import truncated_svd


@dataclass(frozen=True)
class MetricRow:
    """One vector compared with the reference: ``cosine`` (unitless, in [-1, 1]), ``euclidean``
    (distance, in the vectors' units) and ``dot`` (product of units)."""

    name: str
    cosine: float
    euclidean: float
    dot: float


def metric_table(reference, vectors: Mapping[str, Sequence[float]]) -> List[MetricRow]:
    """Cosine, Euclidean distance and dot product of each named vector against ``reference`` ``(d,)``.

    ``vectors`` maps names to ``(d,)`` vectors; rows come back in the mapping's order. A vector equal to
    the reference by name *and* value is still listed (callers drop it if they like). Raises
    ``ValueError`` naming the entry (``vectors['a']``) for a vector that is not ``(d,)`` or holds NaN or
    infinity, and for a score beyond float64 (see :func:`lib.embedding.similarity`), naming the entry: a
    row holds all three scores, so a dot product beyond float64 fails its row although the cosine and
    the distance fit (compute those with :func:`lib.embedding.similarity`); ``TypeError`` when
    ``vectors`` is not a mapping or an entry does not hold real numbers.

    >>> metric_table([1.0, 0.0], {"twice": [2.0, 0.0]})
    [MetricRow(name='twice', cosine=1.0, euclidean=1.0, dot=2.0)]
    """
    ref = validate.vectors(reference, "reference")
    if ref.ndim != 1:
        raise ValueError(f"reference must be a vector (d,), got shape {ref.shape}")
    if not isinstance(vectors, Mapping):
        raise TypeError(f"vectors must be a mapping of names to vectors (d,), got {type(vectors).__name__}")
    rows = []
    for name, v in vectors.items():
        where = f"vectors[{name!r}]"
        v = validate.real_array(v, where)
        if v.shape != ref.shape:
            raise ValueError(f"{where} must be a vector {ref.shape} like the reference, got shape {v.shape}")
        try:
            rows.append(MetricRow(str(name), *(float(similarity(ref, v, m)) for m in ("cosine", "euclidean", "dot"))))
        except ValueError as err:  # a score beyond float64: name the entry
            raise ValueError(f"{where}: {err}") from None
    return rows


def format_metric_table(rows: Sequence[MetricRow], digits: int = 4) -> str:
    """``rows`` as a plain-text table with a header, values rounded to ``digits`` places.

    ``rows`` are :class:`MetricRow` (:func:`metric_table`); ``digits`` an integer in [0, 12]. Cosines (in
    [-1, 1]) are printed with ``digits`` decimals; a distance or a dot product too (``1.0000``), unless it is
    1e9 or more in size once rounded to ``digits`` decimals (``999999999.99999`` rounds to 1e9), or nonzero but
    rounding to 0 at ``digits`` decimals (it would show as ``0.0000``): those are printed in exponent form
    with ``digits`` decimals (``1.4142e+300``, ``1.4142e-300``). Raises ``TypeError`` for another row or a
    ``digits`` that is not an integer, ``ValueError`` for one out of range, and for a row built by hand with
    a value that is not finite, a cosine outside [-1, 1] or a negative distance.

    >>> print(format_metric_table(metric_table([1.0, 0.0], {"same": [2.0, 0.0]})))
    vector     cosine  Euclidean        dot
    same       1.0000     1.0000     2.0000
    """
    digits = validate.integer(digits, "digits", low=0, high=12)
    rows = list(rows) if not isinstance(rows, (str, bytes)) and hasattr(rows, "__iter__") else rows
    if not isinstance(rows, list) or not all(isinstance(r, MetricRow) for r in rows):
        raise TypeError(f"rows must be a sequence of MetricRow (from metric_table), got {rows!r}")
    for r in rows:
        for field, value in (("cosine", r.cosine), ("euclidean", r.euclidean), ("dot", r.dot)):
            validate.number(value, f"row {r.name!r}: {field}")
        if not -1 <= r.cosine <= 1 or r.euclidean < 0:
            raise ValueError(f"row {r.name!r}: a cosine must lie in [-1, 1] and a distance be >= 0, got "
                             f"cosine {r.cosine!r} and euclidean {r.euclidean!r}")

    def scaled(x: float) -> str:  # a distance or a dot product, in the vectors' units: any size
        shown = float(f"{abs(x):.{digits}f}")  # the rule reads the value as rounded: 999999999.99999 is 1e9
        fixed = x == 0 or 0 < shown < 1e9
        return fmt(x, f".{digits}{'f' if fixed else 'e'}")

    cells = [[r.name, fmt(r.cosine, f".{digits}f"), scaled(r.euclidean), scaled(r.dot)] for r in rows]  # fmt: no "-0.0000"
    return tables.text(["vector", "cosine", "Euclidean", "dot"], cells, align="<>>>", widths=[0, 9, 9, 9])


def principal_projection(vectors, k: int = 2, *, normalize: bool = True) -> np.ndarray:
    """PCA coordinates ``(V, k) float64`` of the rows of ``vectors`` ``(V, D)``, with a fixed sign.

    Rows are scaled to unit length first when ``normalize`` (as :ref:`the textbook chapter Embeddings <sources>` does before its
    projection), then centred; the coordinates are the centred rows times the top ``k`` right singular
    vectors, i.e. ``U_k S_k`` of :func:`lib.ppmi.truncated_svd` with its sign convention (largest entry
    of each column of ``U`` positive), so the figure does not flip between runs or machines.
    Centred exactly (:func:`centred_rows`: each column's mean is its exact sum divided by ``V``, and each
    entry is the exact ``x - mean`` to within one unit in its last place plus ``2**-104 · max(|x|, |mean|)``),
    so a constant column adds nothing to any coordinate, whatever its value (a float64 mean of 0.1, 0.1,
    0.1 is not 0.1, and would give every row the same nonzero coordinate). Scale-robust: the centring and the
    solver work on the vectors scaled by powers of two, and the coordinates are scaled back, so vectors of
    any finite size give their coordinates: ``U_k S_k`` is formed in the scaled space and scaled back once,
    so a singular value beyond float64 is no error while every coordinate fits. Raises ``ValueError`` for ``k`` outside
    ``[1, min(V, D)]``, non-finite input, or a returned coordinate beyond float64 (above about 1.8e308 in
    size; possible only for vectors near that size with ``normalize=False``); ``TypeError`` for
    a ``normalize`` that is not ``True`` or ``False``, and for ``vectors`` as :func:`lib.validate.real_numbers`
    (a PyTorch tensor is read as its values, detached).

    >>> rows = [[0.1, 0.0], [0.1, 1.0], [0.1, 2.0]]
    >>> principal_projection(rows, 1, normalize=False)
    array([[ 1.],
           [ 0.],
           [-1.]])
    """
    normalize = validate.flag(normalize, "normalize")
    X = check_table(vectors, "vectors").astype(np.float64)
    if not np.all(np.isfinite(X)):
        raise ValueError("vectors contain NaN or infinity")
    if normalize:
        X = normalize_rows(X)
    X, e = centred_rows(X)  # exact column means; the coordinates scale with the rows: 2**e goes back on at the end
    with np.errstate(under="ignore"):
        X, e2 = power_of_two_scale(X)  # into [-1, 1] for the solver
    U, S, _ = truncated_svd(X, k, solver="dense")
    # the coordinates in the scaled space (at most sqrt(V * D) in size), scaled back once: a singular value
    # beyond float64 (vectors near 1.8e308) does not make a representable coordinate overflow
    with np.errstate(over="ignore"):  # reported below as a ValueError
        coords = np.ldexp(U * S, e + e2)
    if not np.all(np.isfinite(coords)):
        raise ValueError("the principal coordinates of these vectors overflow float64 (a coordinate's true "
                         "value is above 1.8e308); scale the vectors down or use normalize=True")
    return coords


# --- neighbours ----------------------------------------------------------------------------------


def vocabulary_table(vectors, vocab) -> Tuple[np.ndarray, Dict[str, int]]:
    """``vectors`` as a finite ``(V, D) float64`` table whose rows follow ``vocab``, and its ``{token: row}``.

    ``vocab`` is a :class:`lib.corpus.Vocabulary` or the sequence of tokens of the rows. Raises
    ``ValueError`` when the row count differs from the vocabulary's or an entry is not finite.

    >>> vocabulary_table([[1, 0], [0, 1]], ["cat", "dog"])[1]
    {'cat': 0, 'dog': 1}
    """
    index = token_index(vocab)
    table = check_table(vectors, "vectors").astype(np.float64, copy=False)
    if table.shape[0] != len(index):
        raise ValueError(f"vectors have {table.shape[0]} rows but the vocabulary has {len(index)} items")
    if not np.all(np.isfinite(table)):
        raise ValueError("vectors contain NaN or infinity")
    return table, index


def named_neighbours(
    vectors, vocab, word: str, k: int = 4, *, metric: str = "cosine", normalize: bool = False
) -> List[Tuple[str, float]]:
    """The ``k`` items nearest to ``word``: ``[(token, score), ...]`` best first, ``word`` itself excluded.

    ``vectors`` ``(V, D)`` has its rows in the order of ``vocab`` (a :class:`lib.corpus.Vocabulary` or a
    sequence of tokens); ``metric`` and ``normalize`` as in :func:`lib.embedding.nearest_neighbours` (ties
    by the smaller row). Raises :class:`lib.corpus.UnknownTokenError` (a ``KeyError`` and a
    ``ValueError``) for a word without a row, ``TypeError`` for a ``word`` that is not a ``str``, and like
    :func:`vocabulary_table` and ``nearest_neighbours``.

    >>> table = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]
    >>> named_neighbours(table, ["a", "b", "c"], "a", 1)
    [('b', 0.9939)]
    """
    table, index = vocabulary_table(vectors, vocab)
    if not isinstance(word, str):  # a list is unhashable, and 3 is no word: both are mistakes, not unknown words
        raise TypeError(f"word must be a str, got {word!r}")
    if word not in index:
        raise UnknownTokenError(f"word {word!r} is not in the vocabulary of {len(index)}")
    tokens = sorted(index, key=index.get)
    i = index[word]
    hits = nearest_neighbours(table, table[i], k, metric=metric, normalize=normalize, exclude=[i])
    return [(tokens[j], s) for j, s in hits]


def neighbour_sets(vectors, items: Sequence[int], k: int) -> List[frozenset]:
    """The top-``k`` cosine neighbours of each row in ``items`` (the row itself excluded), as sets of rows.

    The same rows as :func:`lib.embedding.nearest_neighbours` with ``metric="cosine"`` and the item
    excluded, by the same rule (:func:`lib.embedding.top_k`): cosines within ``TIE_RTOL`` (1e-12) of each
    other are near-tied, tie groups are formed greedily from the best cosine (a group spans at most the
    tolerance, ties never chain), and inside a group the smaller row comes first. So rows equal up to
    rounding (a row and its multiples, identical rows) go to the smaller row on every machine, not by the
    noise in their last bits. ``items`` is a collection of row ids (``items=[0]``, not ``items=0``).
    Raises ``ValueError`` for a row id outside the table, ``k`` outside ``[1, V - 1]`` or a table with NaN;
    ``TypeError`` for ``items`` that is one int or not a collection of integers.

    >>> neighbour_sets([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]], [0, 2], 1)
    [frozenset({1}), frozenset({1})]
    """
    table = check_table(vectors, "vectors").astype(np.float64)
    if not np.all(np.isfinite(table)):
        raise ValueError("vectors contain NaN or infinity")
    V = table.shape[0]
    k = validate.integer(k, "k", low=1, high=V - 1)
    rows = validate.id_collection(items, V, "items", "item")
    cosines = cosine_scores(table, table[rows]).reshape(rows.shape[0], V)  # (n, V): nearest_neighbours' cosines
    others = np.arange(V)
    sets = []
    for item, row in zip(rows, cosines):
        keep = others != item  # an item is not its own neighbour
        top = top_k(row[keep], k)  # others[keep] is sorted: a position's order is its row's order
        sets.append(frozenset(int(j) for j in others[keep][top]))
    return sets


def neighbour_overlap(tables: Sequence, items: Sequence[int], k: int = 3) -> np.ndarray:
    """Per-item overlap of top-``k`` cosine neighbour sets across runs: ``(n_items,) float64`` in [0, 1].

    ``tables`` is a sequence (or an iterable, read once) of ``(V, D)`` tables from runs that differ only in
    their seed (at least two, same ``V``; ``D`` may differ; ``TypeError`` for ``None`` or one number). For each item and each pair of runs the overlap is
    ``|N_a ∩ N_b| / k``; the result averages it over all pairs of runs. 1 means every run names the same
    ``k`` neighbours; coordinates are never compared, so rotations between runs do not matter.
    Neighbour sets are :func:`neighbour_sets`' (near-ties within ``TIE_RTOL`` go to the smaller row), so
    rows equal up to rounding count alike in every run rather than by their rounding noise.
    Raises ``ValueError`` for fewer than two tables, mismatched ``V``, ``k`` outside ``[1, V - 1]``, and
    like :func:`neighbour_sets` for ``items`` (a collection of row ids, read once, so a generator works).

    >>> a = [[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]]
    >>> b = [[1.0, 0.0], [0.1, 1.0], [0.0, 1.0]]  # row 1 turned towards row 2
    >>> # row 0's neighbour is row 1 in both; row 1's is 0 in a, 2 in b
    >>> neighbour_overlap([a, b], [0, 1], k=1)
    array([1., 0.])
    """
    if isinstance(tables, (str, bytes)) or not hasattr(tables, "__iter__"):
        raise TypeError(f"tables must be a sequence of (V, D) tables, got {tables!r}")
    tables = list(tables)  # a generator is read once
    if len(tables) < 2:
        raise ValueError(f"neighbour_overlap needs at least two tables, got {len(tables)}")
    tabs = [check_table(t, f"tables[{i}]") for i, t in enumerate(tables)]
    V = tabs[0].shape[0]
    if any(t.shape[0] != V for t in tabs):
        raise ValueError(f"every table must have the same number of rows, got {[t.shape[0] for t in tabs]}")
    k = validate.integer(k, "k", low=1, high=V - 1)
    items = validate.id_collection(items, V, "items", "item")  # once: a generator is read only once
    sets = [neighbour_sets(t, items, k) for t in tabs]
    n = len(tabs)
    total = np.zeros(len(sets[0]))
    for a in range(n):
        for b in range(a + 1, n):
            total += [len(x & y) / k for x, y in zip(sets[a], sets[b])]
    return total / (n * (n - 1) / 2)


# --- the shape of the space ---------------------------------------------------------------------------


def anisotropy(vectors, *, center: bool = False) -> float:
    """Mean cosine similarity over all distinct pairs of rows of ``vectors`` ``(V, D)``, ``V >= 2``.

    ``center=True`` subtracts the mean row first (mean removal). About 0 for directions spread evenly;
    near 1 when all rows share one direction (a narrow cone). Zero rows count as cosine 0. Any finite
    scale works (cosines are scale-robust, see :func:`lib.embedding.similarity`), and so do rows of very
    different sizes in one table: the centring is :func:`centred_rows`' (each entry the exact ``x - mean``
    to within one unit in its last place plus ``2**-104 · max(|x|, |mean|)``, on the table scaled by a power
    of two), so rows that differ from their mean by a few units in the last place keep their directions,
    rows of 1e-300 beside rows of 1e300 keep their part of the mean, a constant column leaves no residue,
    and two centred rows are exactly antiparallel (-1.0).
    The one loss: where the table holds entries near float64's largest (above ``2**1022 / 2V``), entries
    that become subnormal when it is scaled down lose bits. Raises ``ValueError`` for fewer than two rows or non-finite input, ``TypeError`` for a ``center`` that is not ``True`` or
    ``False``.

    >>> anisotropy(np.eye(3)), anisotropy([[1.0, 0.0], [1.0, 0.0]])
    (0.0, 1.0)
    """
    center = validate.flag(center, "center")
    X = check_table(vectors, "vectors").astype(np.float64)
    if X.shape[0] < 2:
        raise ValueError(f"anisotropy needs at least two rows, got {X.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise ValueError("vectors contain NaN or infinity")
    if center:
        X, _ = centred_rows(X)  # cosines do not change with the scale 2**e
    S = similarity(X, X, "cosine")
    V = X.shape[0]
    return float((S.sum() - np.trace(S)) / (V * (V - 1)))


def centred_rows(vectors) -> Tuple[np.ndarray, int]:
    """The rows of ``vectors`` ``(V, D)`` minus their mean row, as ``(C, e)``: ``C`` ``(V, D) float64`` and
    ``e`` an int, ``C * 2**e`` the centred rows (the one centring of ``lib``: :func:`anisotropy`,
    :func:`principal_projection`, the principal component of chapters/position_schemes.md).

    Each column's mean ``m`` is exact: its exact sum (``math.fsum``, repeated on the remainder until nothing
    is left) divided by ``V`` as a fraction, kept as two floats, ``hi = float(m)`` and ``lo = float(m - hi)``.
    Each entry ``x`` becomes ``(x - hi) - lo``, the first difference without error (Knuth's TwoSum), so it is
    the exact ``x - m`` to within one unit in its last place plus ``2**-104 · max(|x|, |m|)``: rows that
    differ from their mean by a few units in the last place keep those units (subtracting the rounded mean
    alone would replace them with its rounding error). So a constant column gives exactly 0 whatever its
    value (a float64 mean of 0.1, 0.1, 0.1 is 0.10000000000000002, and would leave every row the same
    residue), and rows of 1e-300 beside rows of 1e300 keep their share of the mean (a float64 sum would lose
    them).
    The table is first scaled by the power of two ``2**-e`` that puts its largest entry just below
    ``2**1022 / 2V``: no sum of a column or difference from its mean overflows, and a table of subnormals
    is scaled up (exactly) so that its mean is rounded at 53 bits, not at the few bits a subnormal has.
    The one loss: where the table holds entries near float64's largest (above ``2**1022 / 2V``), the
    scaling is down, and entries that become subnormal (below about 2.2e-308 after it) lose bits.
    Raises ``ValueError`` for a table that is not ``(V, D)`` or holds NaN or infinity, ``TypeError`` for
    entries that are not real numbers (:func:`lib.embedding.check_table`).

    >>> C, e = centred_rows([[0.1, 0.0], [0.1, 1.0], [0.1, 2.0]])
    >>> np.ldexp(C, e)
    array([[ 0., -1.],
           [ 0.,  0.],
           [ 0.,  1.]])
    """
    X = check_table(vectors, "vectors", finite=True).astype(np.float64)
    V = X.shape[0]
    top = float(np.max(np.abs(X)))
    # the largest entry to just below 2**(1022 - bits(V)): a sum of V entries, or the difference of two,
    # stays below 2**1024, and a table of subnormals is scaled up (exactly) so that dividing by V rounds
    # at 53 bits, not at the few bits a subnormal has
    shift = 1022 - V.bit_length() - int(np.frexp(top)[1]) if top > 0 else 0
    if shift:
        with np.errstate(under="ignore"):
            X = np.ldexp(X, shift)
    means = [_exact_mean(column) for column in X.T]
    hi = np.array([float(m) for m in means])           # each mean rounded once
    with np.errstate(under="ignore"):                  # a remainder below 2**-1022 keeps the bits it can
        lo = np.array([float(m - Fraction(h)) for m, h in zip(means, hi.tolist())])  # what that rounding lost
        # TwoSum: d + err == X - hi exactly (no overflow: every entry is below 2**1021 after the scaling)
        d = X - hi
        back = d - X
        err = (X - (d - back)) - (-hi - back)
        return d + (err - lo), -shift


def _exact_mean(column: np.ndarray) -> Fraction:
    """The exact mean of the finite float64 ``column`` (its exact sum below 2**1024), a ``Fraction``.

    ``math.fsum`` rounds the exact sum once; repeating it on the entries and the negated partial sums gives
    the remainder it rounded away, until that is 0 (each round takes about 53 bits off, and the sum is a
    multiple of 2**-1074, so it ends). The mean is the exact fraction ``(sum of the parts) / V``."""
    values = column.tolist()
    parts = []
    while True:
        s = math.fsum(values)
        if s == 0.0:
            break
        parts.append(s)
        values.append(-s)
    return sum(map(Fraction, parts), Fraction(0)) / len(column)


def stability_by_frequency(overlap, counts, threshold: int) -> Dict[str, float]:
    """Mean neighbour overlap of rare items (``count < threshold``) and frequent ones (``>= threshold``).

    ``overlap`` ``(n,)`` from :func:`neighbour_overlap` (fractions in [0, 1]) and ``counts`` ``(n,)`` the
    items' corpus counts (integers >= 0), in the same order; ``threshold`` an integer. Returns
    ``{"rare": mean, "frequent": mean, "n_rare": int, "n_frequent": int}``. Raises ``ValueError`` when the
    shapes differ, there are no items, an overlap is NaN or outside [0, 1], a count is negative or does
    not fit in ``int64`` (``2**70``), or either group is empty; ``TypeError`` for an overlap that is not a
    real number, counts that are not integers or a ``threshold`` that is not an integer.

    >>> stability_by_frequency([1.0, 0.5, 0.0], [10, 1, 2], threshold=5)
    {'rare': 0.25, 'frequent': 1.0, 'n_rare': 2, 'n_frequent': 1}
    """
    ov = validate.real_numbers(overlap, "overlap", "a 1-D array of overlaps").astype(np.float64)
    c = validate.integer_array(counts, "counts", "a 1-D array of counts")
    threshold = validate.integer(threshold, "threshold")
    if ov.shape != c.shape or ov.ndim != 1:
        raise ValueError(f"overlap and counts must be 1-D of the same length, got {ov.shape} and {c.shape}")
    if ov.size == 0:
        raise ValueError("overlap and counts hold no items")
    outside = ~((ov >= 0.0) & (ov <= 1.0))  # NaN is outside too
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"overlap must hold fractions in [0, 1], got {float(ov[i])} at index {i}")
    if (c < 0).any():
        i = int(np.flatnonzero(c < 0)[0])
        raise ValueError(f"counts must be >= 0, got {int(c[i])} at index {i}")
    validate.within_int64(c, "counts")  # uint64 beyond int64, as its docstring says
    rare = c < threshold
    if rare.all() or not rare.any():
        raise ValueError(f"threshold {threshold!r} leaves one group empty (counts range {c.min()}..{c.max()})")
    return {
        "rare": float(ov[rare].mean()),
        "frequent": float(ov[~rare].mean()),
        "n_rare": int(rare.sum()),
        "n_frequent": int((~rare).sum()),
    }


__all__ = [
    "MetricRow",
    "anisotropy",
    "centred_rows",
    "format_metric_table",
    "metric_table",
    "named_neighbours",
    "neighbour_overlap",
    "neighbour_sets",
    "principal_projection",
    "stability_by_frequency",
    "vocabulary_table",
]
