"""Measurements on a fitted embedding space: metric tables, a fixed-sign projection, neighbour stability
across seeds, anisotropy, and rare against frequent items.

These are the checks of the "Embeddings" chapter's Level 4 made executable:

- :func:`metric_table`: cosine, Euclidean distance and dot product of named vectors against a reference
  (the chapter's four-vector figure), all from :func:`lib.embedding.similarity`;
- :func:`principal_projection`: PCA coordinates of (optionally row-normalised) vectors with the sign
  convention of :func:`lib.ppmi.sign_convention`, so that a plot never flips between runs;
- :func:`neighbour_overlap`: how many of an item's top-``k`` cosine neighbours two training runs share
  (the stability a report should give when conclusions rest on small rank differences);
- :func:`anisotropy`: the mean cosine over all distinct pairs of rows, before and after removing the
  mean vector (Ethayarajh 2019 measured high values in contextual spaces; mean removal is a
  post-processing step and part of the method);
- :func:`stability_by_frequency`: the mean neighbour overlap of rare and of frequent items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

from lib.embedding import _as_rows, check_ids, check_table, nearest_neighbours, normalize_rows, similarity
from lib.notebook import fmt
from lib.ppmi import truncated_svd

#: The chapter's four vectors: a reference, the same direction three times longer, a short vector
#: at another angle, and the opposite vector (figure "emb-metrics").
FOUR_VECTORS: Dict[str, Tuple[float, float]] = {
    "reference": (1.0, 0.5),
    "same direction, larger": (3.0, 1.5),
    "nearby, different angle": (0.65, 0.85),
    "opposite": (-1.0, -0.5),
}


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
    ``ValueError`` for mismatched widths or non-finite values (see :func:`lib.embedding.similarity`).
    """
    ref = _as_rows(reference, "reference")
    if ref.ndim != 1:
        raise ValueError(f"reference must be a vector (d,), got shape {ref.shape}")
    rows = []
    for name, v in vectors.items():
        rows.append(
            MetricRow(
                str(name),
                float(similarity(ref, v, "cosine")),
                float(similarity(ref, v, "euclidean")),
                float(similarity(ref, v, "dot")),
            )
        )
    return rows


def format_metric_table(rows: Sequence[MetricRow], digits: int = 4) -> str:
    """``rows`` as a plain-text table with a header, values rounded to ``digits`` places."""
    name_w = max([len("vector")] + [len(r.name) for r in rows])
    lines = [f"{'vector':<{name_w}}  {'cosine':>9}  {'Euclidean':>9}  {'dot':>9}"]
    for r in rows:
        lines.append(f"{r.name:<{name_w}}  " + "  ".join(fmt(v, f">9.{digits}f") for v in (r.cosine, r.euclidean, r.dot)))
    return "\n".join(lines)


def principal_projection(vectors, k: int = 2, *, normalize: bool = True) -> np.ndarray:
    """PCA coordinates ``(V, k) float64`` of the rows of ``vectors`` ``(V, D)``, with a fixed sign.

    Rows are scaled to unit length first when ``normalize`` (as the chapter's source does before its
    projection), then centred; the coordinates are the centred rows times the top ``k`` right singular
    vectors, i.e. ``U_k S_k`` of :func:`lib.ppmi.truncated_svd` with its sign convention (largest entry
    of each column of ``U`` positive), so the figure does not flip between runs or machines.
    Raises ``ValueError`` for ``k`` outside ``[1, min(V, D)]`` or non-finite input.
    """
    X = check_table(vectors).astype(np.float64)
    if not np.all(np.isfinite(X)):
        raise ValueError("vectors contain NaN or infinity")
    if normalize:
        X = normalize_rows(X)
    X = X - X.mean(axis=0)
    U, S, _ = truncated_svd(X, k, solver="dense")
    return U * S


def named_neighbours(vectors, vocab, term: str, k: int = 4, *, metric: str = "cosine", normalize: bool = False):
    """The ``k`` nearest items to ``term`` by name: ``[(token, score), ...]`` best first, ``term`` excluded.

    ``vectors`` ``(V, D)`` rows in the order of ``vocab`` (a :class:`lib.corpus.Vocabulary`); ``metric``
    and ``normalize`` as in :func:`lib.embedding.nearest_neighbours` (ties by smaller id). Raises
    ``KeyError``/``ValueError`` for a term without a row, and like ``nearest_neighbours``.
    """
    table = check_table(vectors)
    if table.shape[0] != len(vocab):
        raise ValueError(f"vectors have {table.shape[0]} rows but the vocabulary has {len(vocab)} items")
    i = vocab.id(term)
    hits = nearest_neighbours(table, table[i], k, metric=metric, normalize=normalize, exclude=[i])
    return [(vocab.token(j), s) for j, s in hits]


def compare_neighbours(got: Mapping[str, Sequence], published: Mapping[str, Sequence], digits: int = 4) -> str:
    """A plain-text table of neighbours side by side: ``term, rank, this run, published, same``.

    ``got`` and ``published`` map a query term to ``[(token, score), ...]``; scores are rounded to
    ``digits`` places before they are compared, and "same" is ``yes`` when token and rounded score agree.
    Raises ``ValueError`` when the two do not hold the same terms and the same number of neighbours.
    """
    if list(got) != list(published) or any(len(got[t]) != len(published[t]) for t in got):
        raise ValueError("got and published must list the same terms with the same number of neighbours")
    rows = [("term", "rank", "this chapter", "source", "same")]
    for term in got:
        for rank, ((tok_a, s_a), (tok_b, s_b)) in enumerate(zip(got[term], published[term]), start=1):
            a, b = fmt(s_a, f".{digits}f"), fmt(s_b, f".{digits}f")
            rows.append((term, str(rank), f"{tok_a} {a}", f"{tok_b} {b}", "yes" if (tok_a, a) == (tok_b, b) else "NO"))
    widths = [max(len(r[c]) for r in rows) for c in range(5)]
    return "\n".join("  ".join(f"{v:<{w}}" for v, w in zip(r, widths)).rstrip() for r in rows)


def neighbour_sets(vectors, items: Sequence[int], k: int) -> List[frozenset]:
    """The top-``k`` cosine neighbours of each row in ``items`` (the row itself excluded), as sets."""
    table = check_table(vectors)
    ids = check_ids(list(items), table.shape[0], "item")
    return [frozenset(i for i, _ in nearest_neighbours(table, table[q], k, exclude=[q])) for q in ids]


def neighbour_overlap(tables: Sequence, items: Sequence[int], k: int = 3) -> np.ndarray:
    """Per-item overlap of top-``k`` cosine neighbour sets across runs: ``(n_items,) float64`` in [0, 1].

    ``tables`` is a sequence of ``(V, D)`` tables from runs that differ only in their seed (at least
    two, same ``V``; ``D`` may differ). For each item and each pair of runs the overlap is
    ``|N_a ∩ N_b| / k``; the result averages it over all pairs of runs. 1 means every run names the same
    ``k`` neighbours; coordinates are never compared, so rotations between runs do not matter.
    Raises ``ValueError`` for fewer than two tables, mismatched ``V``, ``k`` outside ``[1, V - 1]``.
    """
    if len(tables) < 2:
        raise ValueError(f"neighbour_overlap needs at least two tables, got {len(tables)}")
    tabs = [check_table(t) for t in tables]
    V = tabs[0].shape[0]
    if any(t.shape[0] != V for t in tabs):
        raise ValueError(f"every table must have the same number of rows, got {[t.shape[0] for t in tabs]}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= V - 1:
        raise ValueError(f"k must be an integer in [1, {V - 1}], got {k!r}")
    sets = [neighbour_sets(t, items, int(k)) for t in tabs]
    n = len(tabs)
    total = np.zeros(len(sets[0]))
    for a in range(n):
        for b in range(a + 1, n):
            total += [len(x & y) / k for x, y in zip(sets[a], sets[b])]
    return total / (n * (n - 1) / 2)


def anisotropy(vectors, *, center: bool = False) -> float:
    """Mean cosine similarity over all distinct pairs of rows of ``vectors`` ``(V, D)``, ``V >= 2``.

    ``center=True`` subtracts the mean row first (mean removal). About 0 for directions spread evenly;
    near 1 when all rows share one direction (a narrow cone). Zero rows count as cosine 0. Raises
    ``ValueError`` for fewer than two rows or non-finite input.
    """
    X = check_table(vectors).astype(np.float64)
    if X.shape[0] < 2:
        raise ValueError(f"anisotropy needs at least two rows, got {X.shape[0]}")
    if center:
        X = X - X.mean(axis=0)
    S = similarity(X, X, "cosine")
    V = X.shape[0]
    return float((S.sum() - np.trace(S)) / (V * (V - 1)))


def stability_by_frequency(overlap, counts, threshold: int) -> Dict[str, float]:
    """Mean neighbour overlap of rare items (``count < threshold``) and frequent ones (``>= threshold``).

    ``overlap`` ``(n,)`` from :func:`neighbour_overlap` and ``counts`` ``(n,)`` the items' corpus counts,
    in the same order. Returns ``{"rare": mean, "frequent": mean, "n_rare": int, "n_frequent": int}``.
    Raises ``ValueError`` when the shapes differ or either group is empty.
    """
    ov = np.asarray(overlap, dtype=np.float64)
    c = np.asarray(counts)
    if ov.shape != c.shape or ov.ndim != 1:
        raise ValueError(f"overlap and counts must be 1-D of the same length, got {ov.shape} and {c.shape}")
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
    "FOUR_VECTORS",
    "MetricRow",
    "anisotropy",
    "compare_neighbours",
    "named_neighbours",
    "format_metric_table",
    "metric_table",
    "neighbour_overlap",
    "neighbour_sets",
    "principal_projection",
    "stability_by_frequency",
]
