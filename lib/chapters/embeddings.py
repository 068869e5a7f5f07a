"""The chapter chapters/embeddings.md: its constructed corpus, its examples, and the
comparison of its skip-gram run with the numbers :ref:`the textbook chapter Embeddings <sources>` printed.

Concepts used: :mod:`lib.embedding`, :mod:`lib.corpus`, :mod:`lib.ppmi`, :mod:`lib.skipgram`,
:mod:`lib.geometry`, :mod:`lib.provenance`, :mod:`lib.memory`.

Two measurements keep the chapter's claims about seeds honest: :func:`neighbour_change` compares the
neighbours of two corpora across several seeds with the seed-to-seed agreement inside each (so that a
change is not read off one run), and :func:`overlap_by_count` gives the difference in seed stability
between rare and frequent items with a bootstrap interval over the items (``scipy.stats.bootstrap``).

The constructed animal/vehicle corpus (:data:`ANIMAL_VEHICLE_CORPUS`) is that of the textbook chapter *Embeddings*: 13
three-word sentences whose counts and fitted vectors can be inspected by hand. It is evidence about
mechanics, not about natural-language semantics. :data:`SOURCE_NEIGHBOURS` are the cosine neighbours the
textbook chapter *Embeddings* printed after its full-softmax skip-gram run (constructed corpus, seed 17, D = 8, Adam 0.04, 350
full-batch steps): the external reference that :func:`lib.skipgram.train_skipgram` reproduces, compared
at the end of the chapter by :func:`compare_neighbours`.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Dict, List, Mapping, NamedTuple, Sequence, Tuple

import numpy as np
import scipy.stats

from lib import tables, validate
from lib.corpus import token_index
from lib.evaluation import MAX_RESAMPLES
from lib.geometry import neighbour_sets, stability_by_frequency
from lib.notebook import fmt

#: The chapter's constructed corpus: 13 three-word sentences about pets and vehicles (39 tokens, 15 types), a
#: tuple of tuples of ``str``, from ``("cat", "pet", "soft")`` to ``("puppy", "young", "dog")``; the chapter
#: prints them, and :func:`animal_vehicle_corpus` returns a copy as lists.
#:
#: :meta hide-value:
ANIMAL_VEHICLE_CORPUS: Tuple[Tuple[str, ...], ...] = (
    ("cat", "pet", "soft"),
    ("kitten", "pet", "soft"),
    ("dog", "pet", "loyal"),
    ("puppy", "pet", "loyal"),
    ("cat", "kitten", "pet"),
    ("dog", "puppy", "pet"),
    ("car", "vehicle", "road"),
    ("truck", "vehicle", "road"),
    ("car", "carries", "people"),
    ("truck", "carries", "cargo"),
    ("car", "truck", "vehicle"),
    ("kitten", "young", "cat"),
    ("puppy", "young", "dog"),
)
#: The name under which the constructed corpus appears in provenance records.
ANIMAL_VEHICLE_NAME = "constructed animal/vehicle corpus"
#: The eight terms the chapter's figures show; the first five are drawn as the animal group.
FOCUS_TERMS: Tuple[str, ...] = ("cat", "kitten", "dog", "puppy", "car", "truck", "pet", "vehicle")
ANIMAL_TERMS: Tuple[str, ...] = ("cat", "kitten", "dog", "puppy", "pet")

#: The chapter's four vectors: a reference, the same direction three times longer, a short vector
#: at another angle, and the opposite vector (figure "emb-metrics"): ``{name: (x, y)}``, ``"reference"``
#: (1, 0.5), ``"same direction, larger"`` (3, 1.5), ``"nearby, different angle"`` (0.65, 0.85) and
#: ``"opposite"`` (-1, -0.5).
#:
#: :meta hide-value:
FOUR_VECTORS: Dict[str, Tuple[float, float]] = {
    "reference": (1.0, 0.5),
    "same direction, larger": (3.0, 1.5),
    "nearby, different angle": (0.65, 0.85),
    "opposite": (-1.0, -0.5),
}

#: The cosine neighbours the textbook chapter *Embeddings* printed after its full-softmax run, at the precision it
#: printed them: ``{word: ((neighbour, cosine), ...)}``, four neighbours, best first, for each of ``"cat"``,
#: ``"truck"`` and ``"pet"`` (cosines as float). :func:`lib.skipgram.train_skipgram` reproduces them to four
#: decimals; :func:`compare_neighbours` sets them beside the book's run.
#:
#: :meta hide-value:
SOURCE_NEIGHBOURS: Dict[str, Tuple[Tuple[str, float], ...]] = {
    "cat": (("kitten", 0.5262460708618164), ("soft", 0.45443016290664673), ("dog", 0.3860318064689636), ("pet", 0.19947943091392517)),
    "truck": (("people", 0.4025770127773285), ("vehicle", 0.3929774761199951), ("road", 0.21301373839378357), ("pet", 0.17421948909759521)),
    "pet": (("young", 0.6845836639404297), ("puppy", 0.43096989393234253), ("kitten", 0.40482303500175476), ("people", 0.38753506541252136)),
}


def animal_vehicle_corpus() -> List[List[str]]:
    """The constructed corpus as a new list of sentences (lists of ``str``), safe to modify."""
    return [list(s) for s in ANIMAL_VEHICLE_CORPUS]


class NeighbourComparison(NamedTuple):
    """The result of :func:`compare_neighbours`: the side-by-side ``table`` (plain text) and ``all_same``,
    whether every neighbour and rounded score agrees."""

    #: The two tables of neighbours side by side, as plain text.
    table: str
    #: Whether every neighbour and every rounded score agrees between the two tables.
    all_same: bool


def compare_neighbours(
    got: Mapping[str, Sequence], published: Mapping[str, Sequence], digits: int = 4
) -> NeighbourComparison:
    """Neighbours side by side, ``term, rank, this chapter, reference, same``, and whether all agree.

    ``got`` and ``published`` map a query term to ``[(token, score), ...]``; scores are rounded to
    ``digits`` places before they are compared, and "same" is ``yes`` when token and rounded score agree.
    Raises ``ValueError`` when the two do not hold the same terms and the same number of neighbours, or
    for a score that is NaN or infinite (naming the term and rank: "nan" equal to "nan" is no agreement),
    ``TypeError`` for a score that is not a number; ``digits`` is an integer in [0, 12] (``TypeError`` for
    another type, ``ValueError`` naming it for one out of range).

    >>> ours, reference = {"cat": [("dog", 0.52)]}, {"cat": [("dog", 0.52001)]}
    >>> result = compare_neighbours(ours, reference)
    >>> print(result.table)
    term  rank  this chapter  reference    same
    cat   1     dog 0.5200    dog 0.5200   yes
    >>> result.all_same
    True
    """
    digits = validate.integer(digits, "digits", low=0, high=12)
    if list(got) != list(published) or any(len(got[t]) != len(published[t]) for t in got):
        raise ValueError("got and published must list the same terms with the same number of neighbours")
    rows, same = [], []
    for term in got:
        for rank, ((tok_a, s_a), (tok_b, s_b)) in enumerate(zip(got[term], published[term]), start=1):
            for side, score in (("got", s_a), ("published", s_b)):
                validate.number(score, f"{side}[{term!r}], rank {rank}: the score of {tok_a if side == 'got' else tok_b!r}")
            a, b = fmt(s_a, f".{digits}f"), fmt(s_b, f".{digits}f")  # as printed: rounded once, in lib.notebook
            same.append((tok_a, a) == (tok_b, b))
            rows.append([term, str(rank), f"{tok_a} {a}", f"{tok_b} {b}", "yes" if same[-1] else "NO"])
    table = tables.text(["term", "rank", "this chapter", "reference", "same"], rows)
    return NeighbourComparison(table, all(same))


class NeighbourChange(NamedTuple):
    """The result of :func:`neighbour_change`, one value per item of ``items`` (each ``(n,) float64`` in
    [0, 1]): ``within_before`` and ``within_after``, the mean top-``k`` overlap between two seeds of the
    same corpus (seed noise), and ``across``, the mean overlap between a run of one corpus and a run of
    the other."""

    #: The items compared, in the order of the arrays.
    items: Tuple[str, ...]
    #: ``(n,) float64`` in [0, 1]: the mean top-``k`` overlap between two seeds of the first corpus.
    within_before: np.ndarray
    #: ``(n,) float64`` in [0, 1]: the mean top-``k`` overlap between two seeds of the second corpus.
    within_after: np.ndarray
    #: ``(n,) float64`` in [0, 1]: the mean top-``k`` overlap between a run of one corpus and a run of the other.
    across: np.ndarray


def _sets_over(tables_, vocab, items: Sequence[str], k: int) -> List[List[frozenset]]:
    index = token_index(vocab)
    rows = [index[t] for t in items]
    return [neighbour_sets(np.asarray(t)[rows], range(len(rows)), k) for t in tables_]


def _mean_overlap(pairs, k: int) -> np.ndarray:
    pairs = list(pairs)
    total = sum(np.array([len(x & y) / k for x, y in zip(a, b)]) for a, b in pairs)
    return total / len(pairs)


def neighbour_change(before, before_vocab, after, after_vocab, k: int = 3) -> NeighbourChange:
    """How far the top-``k`` cosine neighbours move between two corpora, next to how far they move between
    seeds of one corpus.

    ``before`` and ``after`` are sequences of ``(V, d)`` tables, one per seed (at least two each), with
    rows in the order of ``before_vocab`` and ``after_vocab`` (:class:`lib.corpus.Vocabulary` or token
    sequences). Only the items in both vocabularies are compared, and only they are candidate
    neighbours, so that an item removed from one corpus cannot count as a change. ``within_*`` averages
    the overlap ``|N_a ∩ N_b| / k`` over all pairs of seeds of one corpus; ``across`` averages it over
    every run of ``before`` against every run of ``after``. A change caused by the corpus shows as
    ``across`` below both ``within`` values. ``before`` and ``after`` may be iterators (read once). Raises
    ``ValueError`` for fewer than two tables on a side, fewer than ``k + 1`` shared items, or ``k < 1``;
    ``TypeError`` naming ``before`` or ``after`` when it is not a collection of tables (``None``, one number).

    >>> a = [[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]]
    >>> b = [[1.0, 0.0], [0.0, 1.0], [0.1, 1.0]]
    >>> words = ["x", "y", "z"]
    >>> change = neighbour_change([a, a], words, [b, b], words, k=1)
    >>> # only z keeps its neighbour (y)
    >>> change.within_before, change.within_after, change.across
    (array([1., 1., 1.]), array([1., 1., 1.]), array([0., 0., 1.]))
    """
    # a generator or an iterator is read once, as lib.geometry.neighbour_overlap reads its tables
    before = validate.collection(before, "before", "a sequence of (V, d) tables, one per seed")
    after = validate.collection(after, "after", "a sequence of (V, d) tables, one per seed")
    if len(before) < 2 or len(after) < 2:
        raise ValueError(f"neighbour_change needs at least two tables on each side, got {len(before)} and {len(after)}")
    after_index = token_index(after_vocab)
    items = tuple(t for t in token_index(before_vocab) if t in after_index)
    k = validate.integer(k, "k", low=1, high=max(len(items) - 1, 1))
    if len(items) <= k:
        raise ValueError(f"the two vocabularies share {len(items)} items; k = {k} needs at least {k + 1}")
    sb = _sets_over(before, before_vocab, items, k)
    sa = _sets_over(after, after_vocab, items, k)
    return NeighbourChange(
        items,
        _mean_overlap(combinations(sb, 2), k),
        _mean_overlap(combinations(sa, 2), k),
        _mean_overlap(product(sb, sa), k),
    )


class CountContrast(NamedTuple):
    """The result of :func:`overlap_by_count`: the mean seed overlap of the ``n_rare`` items seen fewer
    than ``threshold`` times and of the ``n_frequent`` others, their ``difference`` (frequent minus
    rare), and the bootstrap interval ``low``..``high`` of the difference at level ``confidence``."""

    #: The count that separates the rare items (seen fewer times) from the frequent ones.
    threshold: int
    #: The number of rare items.
    n_rare: int
    #: The number of frequent items.
    n_frequent: int
    #: The mean seed overlap of the rare items, in [0, 1].
    rare: float
    #: The mean seed overlap of the frequent items, in [0, 1].
    frequent: float
    #: ``frequent`` minus ``rare``.
    difference: float
    #: The lower end of the bootstrap interval of ``difference``.
    low: float
    #: The upper end of the bootstrap interval of ``difference``.
    high: float
    #: The level of the interval (0.95 for a 95 % interval).
    confidence: float


def overlap_by_count(
    overlap, counts, threshold: int, *, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> CountContrast:
    """Seed stability of frequent items minus that of rare ones, with a bootstrap interval over the items.

    ``overlap`` ``(n,)`` from :func:`lib.geometry.neighbour_overlap` and ``counts`` ``(n,)`` the items'
    corpus counts; the means are :func:`lib.geometry.stability_by_frequency`'s. The rare and the frequent
    items are resampled separately, with replacement (two independent samples), and the interval is the
    percentile interval of ``scipy.stats.bootstrap`` (BCa needs a jackknife that a handful of tied values
    makes degenerate). It answers whether the items at hand show a difference beyond what the choice of
    items produces; it does not resample seeds, whose spread is already averaged into ``overlap``.
    Resamples come from ``numpy.random.default_rng(seed)``. Raises like ``stability_by_frequency``, and
    ``ValueError`` for ``confidence`` outside (0, 1) (a ``float32`` level is read as written,
    ``np.float32(0.95)`` as 0.95: :func:`lib.validate.confidence_level`), ``n_resamples`` outside ``[100, 10**7]``
    (:data:`lib.evaluation.MAX_RESAMPLES`) or a group of one item.

    >>> c = overlap_by_count([0.2, 0.4, 0.6, 0.8], [1, 1, 5, 5], threshold=3)
    >>> round(c.difference, 4), c.low <= c.difference <= c.high
    (0.4, True)
    """
    conf = validate.confidence_level(confidence)
    n_resamples = validate.integer(n_resamples, "n_resamples", low=100, high=MAX_RESAMPLES)
    means = stability_by_frequency(overlap, counts, threshold)
    ov = np.asarray(overlap, dtype=np.float64)
    rare_mask = np.asarray(counts) < threshold
    rare, frequent = ov[rare_mask], ov[~rare_mask]
    if min(rare.size, frequent.size) < 2:
        raise ValueError(f"each group needs at least two items for a bootstrap, got {rare.size} rare and {frequent.size} frequent")

    def difference(r, f, axis=-1):
        return f.mean(axis=axis) - r.mean(axis=axis)

    result = scipy.stats.bootstrap(
        (rare, frequent), difference, vectorized=True, n_resamples=n_resamples, confidence_level=conf,
        method="percentile", rng=np.random.default_rng(validate.seed(seed)),
    )
    ci = result.confidence_interval
    return CountContrast(
        int(threshold), means["n_rare"], means["n_frequent"], means["rare"], means["frequent"],
        means["frequent"] - means["rare"], float(ci.low), float(ci.high), conf,
    )
